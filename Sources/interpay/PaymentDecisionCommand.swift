import ArgumentParser
import InterPayContract
import InterPayControlClient

/// What `accept`, `reject` and `cancel` share: call the daemon, which waits (bounded) for the authoritative
/// outcome, and print it.
enum PaymentDecisionCommand {
    static func run(
        _ method: ControlMethod<PaymentParams, PaymentInfo>, _ params: PaymentParams, global: GlobalOptions
    ) throws {
        let notice = InterruptNotice(
            "\ninterpay: interrupted while waiting for the peer's answer: the daemon recorded '\(method.name)' as soon as"
                + " it received it, and delivers it even now; 'interpay show \(params.payment.printable)' tells what"
                + " became of the payment\n")
        let reply = try global.call(method, params)
        notice.end()
        global.output(reply) { payment in
            let unconfirmed =
                StateWords.awaitsPayee(payment) ? " (the payee has not confirmed yet; 'interpay show' will tell)" : ""
            print(Formatting.outcome(shortID: payment.shortID, state: payment.state.rawValue, unconfirmed))
        }
    }
}
