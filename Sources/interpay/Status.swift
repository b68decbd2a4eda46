import ArgumentParser
import InterPayControl

/// `interpay status`
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the local daemon: name, ID, port, uptime, discovery.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let status = try await global.call("status")
        global.output(status) {
            var table = Table("FIELD", "VALUE")
            for key in ["name", "id", "port", "version", "uptimeSeconds", "discovery", "sessions"] {
                table.add(key, status.string(key, "-"))
            }
            table.print()
        }
    }
}
