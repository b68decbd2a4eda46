import ArgumentParser
import InterPayContract
import InterPayControlClient

/// The `<series>` argument of `approve`, `decline` and `unsubscribe`: an ID or a unique prefix.
struct SeriesArgument: ParsableArguments {
    @Argument(
        help:
            "The series: its short ID as 'subscriptions' shows it, its whole ID, or at least 4 characters of its start or end."
    )
    var series: String
}

/// What `decline` and `unsubscribe` take: the series and, optionally, why it ends.
struct SeriesEnding: ParsableArguments {
    @OptionGroup var target: SeriesArgument

    @Option(help: "Why, shown to the peer (at most 200 code points).")
    var reason: String?

    /// The control method's params.
    var params: SeriesParams { SeriesParams(series: target.series, reason: reason) }
}
