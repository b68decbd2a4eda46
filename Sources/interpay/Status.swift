import ArgumentParser
import InterPayControl
import InterPayCore

/// `interpay status`
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the local daemon: name, ID, port, uptime, discovery, web app port, preferred currency.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        // The typed answer the daemon and the web app share (`DaemonStatus`); --json prints it as received.
        global.output(try await global.call(ControlAPI.status)) { status in
            var table = Table("FIELD", "VALUE")
            table.add("name", SafeText.escaped(status.name))
            table.add("id", status.id)
            table.add("port", String(status.port))
            table.add("version", status.version)
            table.add("uptimeSeconds", String(status.uptimeSeconds))
            table.add("discovery", SafeText.escaped(status.discovery))
            table.add("sessions", String(status.sessions))
            table.add("webPort", status.webPort.map { String($0) } ?? "off")
            table.add("currency", status.currency ?? "-")
            table.print()
        }
    }
}
