import ArgumentParser
import InterPayCore

/// The `--state` filter of `list` and `export`.
struct StateFilter: ParsableArguments {
    @Option(help: "Only payments in this state: pending, accepted, paid, settled, rejected, cancelled, expired.")
    var state: String?

    func validate() throws {
        if let state, PaymentState(rawValue: state) == nil {
            throw ValidationError(
                "--state must be one of \(PaymentState.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }
}
