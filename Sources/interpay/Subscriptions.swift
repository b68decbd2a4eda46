import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay subscriptions`
struct Subscriptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscriptions",
        abstract: "List subscriptions on both sides: state, next due date, periods requested and paid, cap.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.output(try global.call(ControlAPI.subscriptions)) { SeriesCommand.table($0.series) }
    }
}

/// What the series subcommands share.
enum SeriesCommand {
    /// Calls `method` and prints the series as it is now.
    static func run(
        _ method: ControlMethod<SeriesParams, SeriesInfo>, _ params: SeriesParams, global: GlobalOptions
    ) throws {
        global.output(try global.call(method, params)) { series in
            let cap = series.cap.map { ", cap \($0.printable) \(series.currency.printable)" } ?? ""
            let undelivered = series.delivered ? "" : " (the peer has not received it yet)"
            let total = series.state == .approved && series.direction == .incoming ? approval(series) : ""
            let terms = ", \(series.amount.printable) \(series.currency.printable) \(every(series))"
            print(
                Formatting.outcome(
                    shortID: series.shortID, state: StateWords.text(series), terms, cap, total, undelivered))
        }
    }

    /// How often the series falls due, as it really does: "every month", or "every 1 s (test period)" when its
    /// periods last a fixed number of seconds, whatever calendar period the offer named.
    static func every(_ series: SeriesInfo) -> String {
        if let seconds = series.periodSeconds { return "every \(seconds) s (test period)" }
        return "every \(series.every.printable)"
    }

    /// What the payer's approval still accepts without asking: ", 12 periods in all (0 used)".
    static func approval(_ series: SeriesInfo) -> String {
        let currency = series.currency.printable
        if let periods = series.approvedPeriods {
            return ", up to \(periods) periods in all without asking (\(series.autoAccepted) used)"
        }
        if let total = series.approvedTotal {
            return ", up to \(total.printable) \(currency) in all without asking "
                + "(\(series.autoAcceptedTotal.printable) \(currency) used)"
        }
        return ""
    }

    /// A table of series: ID prefix, sale or purchase, peer, amount, every, state, cap, next due, the periods
    /// requested (of the count), accepted and paid, memo.
    static func table(_ rows: [SeriesInfo]) {
        var table = Table(
            "ID", "SIDE", "PEER", "AMOUNT", "EVERY", "STATE", "CAP", "NEXT DUE", "REQUESTED", "ACCEPTED", "PAID", "MEMO"
        )
        for series in rows {
            let count = series.count.map { " of \($0)" } ?? ""
            table.add(
                series.shortID.printable, StateWords.side(series.direction), series.peer.label,
                "\(series.amount.printable) \(series.currency.printable)",
                series.periodSeconds.map { "\($0) s (test period)" } ?? series.every.printable,
                StateWords.text(series), series.cap?.printable ?? "-", Formatting.localTime(series.nextDue),
                "\(series.instances)\(count)", String(series.accepted), String(series.paid), series.memo.printable)
        }
        table.print()
    }
}
