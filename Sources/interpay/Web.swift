import ArgumentParser
import FoundationEssentials
import InterPayContract
import InterPayControlClient

#if canImport(Glibc)
    import Glibc
#endif

/// `interpay web`
struct Web: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web",
        abstract: "Print a URL that logs in to the web app, and open it when there is a display.",
        discussion: """
            The daemon serves the web app on a loopback address only (interpayd --web, default 127.0.0.1:7780). \
            The URL carries a login code that works once, within 2 minutes: whoever uses it first is logged in as \
            you, so do not share it. The browser trades it for a session at once, which the page keeps \
            for its own port only (the session lasts 12 hours; run interpay web again after). With $DISPLAY or $WAYLAND_DISPLAY set, the URL is opened with \
            xdg-open through a page only you can read (--no-open: never), so that the code never stands in a \
            command line other users could read.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Only print the URL; never run xdg-open.")
    var noOpen = false

    func run() throws {
        let web = try global.call(ControlAPI.web)
        let url = web.value.url.printable
        global.output(web) { _ in print(url) }
        let environment = ProcessInfo.processInfo.environment
        let display = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        guard display, !noOpen, !url.isEmpty else { return }
        guard let page = Self.redirectPage(to: url) else {
            Self.complain("interpay: cannot write the page that opens the web app; open the URL above yourself\n")
            return
        }
        Self.open(page)
    }

    /// Writes a page that sends the browser on to `url`, in a new directory only this user may enter
    /// (`$XDG_RUNTIME_DIR`, else the temporary directory), and returns its path; nil when it cannot. `xdg-open` and
    /// the browser then show only that path in their command lines, which any local user may read in `/proc`, not
    /// the login code. The page stays behind: its code is spent by the browser at once, and expires in 2 minutes.
    static func redirectPage(to url: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/interpay-web-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { return nil }
        let directory = template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let path = String(decoding: directory, as: UTF8.self) + "/open.html"
        // The URL is the daemon's own: a loopback address and hex digits, nothing to escape in an attribute.
        let page = """
            <!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=\(url)">
            <title>InterPay</title><a href="\(url)">Open InterPay</a>

            """
        return FileOutput.write(Array(page.utf8), to: path, flags: O_EXCL, mode: 0o600) == nil ? path : nil
    }

    private static func complain(_ text: String) {
        let message = Array(text.utf8)
        // Nothing more to do if even standard error cannot be written.
        _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// Starts `xdg-open TARGET` and does not wait for it; a missing xdg-open only costs the convenience.
    static func open(_ target: String) {
        var pid: pid_t = 0
        let arguments = ["xdg-open", target]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawnp(&pid, "xdg-open", nil, nil, &argv, environ)
        if status != 0 { complain("interpay: cannot run xdg-open; open the URL above yourself\n") }
    }
}
