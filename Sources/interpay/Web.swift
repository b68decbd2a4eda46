import ArgumentParser
import FoundationEssentials
import InterPayControl

#if canImport(Glibc)
    import Glibc
#endif

/// `interpay web`
struct Web: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Print the web app's URL (with its access token), and open it when there is a display.",
        discussion: """
            The daemon serves the web app on a loopback address only (interpayd --web, default 127.0.0.1:7780). \
            The URL carries the access token: whoever has it can use the app as you, so do not share it. The \
            browser trades it for a session cookie at once. With $DISPLAY or $WAYLAND_DISPLAY set, the URL is \
            opened with xdg-open (--no-open: never).
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Only print the URL; never run xdg-open.")
    var noOpen = false

    func run() async throws {
        let web = try await global.call(ControlAPI.web)
        let url = web.value.url.printable
        global.output(web) { _ in print(url) }
        let environment = ProcessInfo.processInfo.environment
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        guard display, !noOpen, !url.isEmpty else { return }
        Self.open(url)
    }

    /// Starts `xdg-open URL` and does not wait for it; a missing xdg-open only costs the convenience.
    static func open(_ url: String) {
        var pid: pid_t = 0
        let arguments = ["xdg-open", url]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawnp(&pid, "xdg-open", nil, nil, &argv, environ)
        if status != 0 {
            let message = Array("interpay: cannot run xdg-open; open the URL above yourself\n".utf8)
            // Nothing more to do if even standard error cannot be written.
            _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }
    }
}
