import ArgumentParser
import InterPayCore

/// The `--state` filter of `list` and `export`.
struct StateFilter: ParsableArguments {
    @Option(help: "Only payments in this state.")
    var state: PaymentState?
}
