import ArgumentParser
import InterPayControl

/// What `accept`, `reject` and `cancel` share: call the daemon, which waits (bounded) for the authoritative
/// outcome, and print it.
enum PaymentDecisionCommand {
    static func run(_ method: String, _ params: [String: JSONValue], global: GlobalOptions) async throws {
        let payment = try await global.call(method, params)
        global.output(payment) {
            let state = payment.string("state")
            var line = "\(String(payment.string("id").prefix(8))): \(state)"
            if payment.field("confirmed") == .bool(false) {
                line += " (the payee has not confirmed yet; 'interpay show' will tell)"
            }
            print(line)
        }
    }
}
