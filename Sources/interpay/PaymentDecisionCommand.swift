import ArgumentParser
import InterPayContract
import InterPayControl

/// What `accept`, `reject` and `cancel` share: call the daemon, which waits (bounded) for the authoritative
/// outcome, and print it.
enum PaymentDecisionCommand {
    static func run(
        _ method: ControlMethod<PaymentParams, PaymentInfo>, _ params: PaymentParams, global: GlobalOptions
    ) async throws {
        global.output(try await global.call(method, params)) { payment in
            let unconfirmed =
                StateWords.awaitsPayee(payment) ? " (the payee has not confirmed yet; 'interpay show' will tell)" : ""
            print(Formatting.outcome(shortID: payment.shortID, state: payment.state.rawValue, unconfirmed))
        }
    }
}
