import ArgumentParser
import InterPayControl

/// `interpay subscriptions`
struct Subscriptions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List subscriptions on both sides: state, next due date, periods requested and paid, cap.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let result = try await global.call("subscriptions")
        global.output(result) {
            SeriesCommand.table(result.field("series")?.items ?? [])
        }
    }
}

/// What the series subcommands share.
enum SeriesCommand {
    /// Calls `method` and prints the series as it is now.
    static func run(_ method: String, _ params: [String: JSONValue], global: GlobalOptions) async throws {
        let series = try await global.call(method, params)
        global.output(series) {
            var line = "\(String(series.string("id").prefix(8))): \(series.string("state"))"
            if let cap = series.field("cap")?.text { line += ", cap \(cap) \(series.string("currency"))" }
            if series.field("delivered") == .bool(false) { line += " (the peer has not received it yet)" }
            print(line)
        }
    }

    /// A table of series: ID prefix, direction, peer, amount, every, state, cap, next due, requested/paid, memo.
    static func table(_ rows: [JSONValue]) {
        var table = Table("ID", "DIR", "PEER", "AMOUNT", "EVERY", "STATE", "CAP", "NEXT DUE", "PAID", "MEMO")
        for series in rows {
            let peer = series.field("peer")
            let name = peer?.string("name", "") ?? ""
            let count = series.field("count")?.integer.map { "/\($0)" } ?? ""
            table.add(
                String(series.string("id").prefix(8)), series.string("direction"),
                name.isEmpty ? peer?.string("shortID", "?") ?? "?" : name,
                "\(series.string("amount")) \(series.string("currency"))",
                series.field("periodSeconds")?.integer.map { "\($0)s (fixed)" } ?? series.string("every"),
                series.string("state"), series.field("cap")?.text ?? "-",
                Formatting.localTime(series.field("nextDue")?.integer),
                "\(series.string("paid"))/\(series.string("instances"))\(count)", series.string("memo"))
        }
        table.print()
    }
}
