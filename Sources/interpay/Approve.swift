import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay approve`
struct Approve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a subscription offered to you: its requests within the cap are accepted without asking.",
        discussion: """
            The cap (--max, in the series' currency) defaults to the offered amount. The approval also has a total: \
            --periods N periods, or --total AMOUNT in all; without either, 12 periods (or the series' count when \
            smaller). Once the total is reached, and for any request of the series above the cap, not the latest \
            period due, sooner than a period after the last one accepted, or after the series ended, the request \
            waits for you like any other. Approving an approved series again renews its cap and total from now.

            An offer from a peer you have not paired with (unverified) is approved only with --peer and that \
            peer's ID, as 'interpay subscriptions' shows it: a name alone can be anyone's.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SeriesArgument

    @Option(help: "The most one period may ask and still be accepted without asking, e.g. 35.00.")
    var max: String?

    @Option(help: "How many periods are accepted without asking in all (default: 12, or the series' count).")
    var periods: Int64?

    @Option(help: "The most accepted without asking in all, in the series' currency, e.g. 360.00.")
    var total: String?

    @Option(help: "The offering peer's ID (its short form will do): needed when that peer is not paired.")
    var peer: String?

    func run() throws {
        let params = SeriesParams(series: target.series, max: max, periods: periods, total: total, peer: peer)
        try SeriesCommand.run(ControlAPI.approve, params, global: global)
    }
}
