import ArgumentParser
import FoundationEssentials
import InterPayContract
import InterPayControlClient
import InterPayCore

/// `interpay send`
struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Ask a peer to pay you: sends a payment request to <peer>, who is the payer.",
        discussion: """
            You are the payee: 'interpay send bob 12.50 MXN --memo lunch' asks bob to pay you 12.50 MXN. \
            Prints the payment ID. bob sees the request and accepts or rejects it; you may cancel it while it is \
            pending. It expires after --expires (default 15m).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var terms: PaymentTerms

    @Option(help: "How long the request stays open, from 1s to 30d: e.g. 90s, 15m, 2h.")
    var expires: String = "15m"

    @Option(
        help: ArgumentHelp(
            "A key that makes repeating this send harmless for 24 hours (default: a new one per invocation).",
            valueName: "key"))
    var idempotencyKey: String?

    func validate() throws {
        guard let seconds = DurationText.seconds(expires), seconds >= 1, seconds <= 30 * 86_400 else {
            throw ValidationError("--expires must be a duration from 1s to 30d, such as 90s, 15m or 2h")
        }
        if let idempotencyKey, !(1...128).contains(idempotencyKey.utf8.count) {
            throw ValidationError("--idempotency-key has 1 to 128 characters")
        }
    }

    func run() throws {
        let params = SendParams(
            peer: terms.peer, amount: terms.amount, currency: terms.currencyCode, memo: terms.memo,
            category: terms.category,
            expiresInSeconds: DurationText.seconds(expires) ?? 900,
            idempotencyKey: idempotencyKey ?? UUID().uuidString.lowercased())
        global.output(try callRetrying(params)) { payment in
            print(payment.id.printable)
            if payment.queued == true {
                writeStandardError(
                    "interpay: queued: \(payment.peer.label) has not acknowledged the request yet (the session may be"
                        + " down); it is resent until it is, and 'interpay show \(payment.shortID.printable)' tells\n")
            }
        }
    }

    /// Sends, and when the connection is lost after the request went out (no answer came), sends again with the
    /// same key for up to 10 s: the daemon may have committed the payment before it went away.
    private func callRetrying(_ params: SendParams) throws -> ControlReply<PaymentInfo> {
        let socketPath = try global.socketPath()
        let client = ControlClient(path: socketPath)
        let deadline = ContinuousClock.now + .seconds(10)
        var delay = Duration.milliseconds(250)
        var sent = false
        while true {
            do {
                return try client.callBlocking(ControlAPI.send, params)
            } catch {
                // Retry once the request may have reached the daemon: after a lost answer, and while the daemon
                // restarts after one; a daemon that was never reached fails at once.
                let retry: Bool =
                    switch error {
                    case .answerLost: true
                    case .daemonUnreachable: sent
                    case .socketUnusable, .rpc, .invalidResponse, .subscriptionEnded: false
                    }
                guard retry, ContinuousClock.now + delay < deadline else {
                    throw CLIError(error, socketPath: socketPath)
                }
                if case .answerLost = error { sent = true }
                pause(for: delay)
                delay = min(delay * 2, .seconds(2))
            }
        }
    }
}
