import ArgumentParser
import InterPayContract
import InterPayControlClient
import InterPayCore

/// `interpay status`
struct Status: ParsableCommand {
    /// `bytes` in MB with one decimal ("1.2 MB").
    static func megabytes(_ bytes: Int64) -> String {
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show the local daemon: name, ID, port, uptime, discovery, web app port, preferred currency, and the ledger's size and row counts."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        // The typed answer the daemon and the web app share (`DaemonStatus`); --json prints it as received.
        global.output(try global.call(ControlAPI.status)) { status in
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
            if let ledger = status.ledger {
                table.add("ledger", "\(Self.megabytes(ledger.bytes)) (\(Self.megabytes(ledger.freeBytes)) free)")
                table.add("payments", String(ledger.payments))
                table.add("events", String(ledger.events))
                table.add("queuedFrames", String(ledger.queuedFrames))
                table.add("pruned", "\(ledger.pruned) (retention \(ledger.retentionDays) days)")
            } else {
                table.add("ledger", "-")
            }
            table.print()
        }
    }
}
