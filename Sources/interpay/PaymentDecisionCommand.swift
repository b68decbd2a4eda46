import ArgumentParser
import InterPayControl

/// What `accept`, `reject` and `cancel` share: call the daemon, which waits (bounded) for the authoritative
/// outcome, and print it.
enum PaymentDecisionCommand {
    static func run(
        _ method: ControlMethod<PaymentParams, PaymentInfo>, _ params: PaymentParams, global: GlobalOptions
    ) async throws {
        global.output(try await global.call(method, params)) { payment in
            var line = "\(Formatting.shortID(payment.id)): \(payment.state.printable)"
            if !payment.confirmed {
                line += " (the payee has not confirmed yet; 'interpay show' will tell)"
            }
            print(line)
        }
    }
}
