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

/// `interpay accept`
struct Accept: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Accept a payment request you received: you agree to pay it.",
        discussion:
            "Waits for the payee's confirmation and prints the outcome; exit 5 if it was already cancelled, rejected or expired."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The payment: its ID or a unique prefix of at least 4 characters.")
    var payment: String

    func validate() throws {
        guard payment.count >= 4 else { throw ValidationError("give at least 4 characters of the payment ID") }
    }

    func run() async throws {
        try await PaymentDecisionCommand.run("accept", ["payment": .string(payment)], global: global)
    }
}

/// `interpay reject`
struct Reject: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reject a payment request you received: you decline to pay it.",
        discussion: "Waits for the payee's confirmation and prints the outcome; exit 5 if it was already decided.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The payment: its ID or a unique prefix of at least 4 characters.")
    var payment: String

    @Option(help: "Why, shown to the payee (at most 200 characters).")
    var reason: String?

    func validate() throws {
        guard payment.count >= 4 else { throw ValidationError("give at least 4 characters of the payment ID") }
        if let reason, reason.unicodeScalars.count > 200 {
            throw ValidationError("--reason has more than 200 characters")
        }
    }

    func run() async throws {
        var params: [String: JSONValue] = ["payment": .string(payment)]
        if let reason { params["reason"] = .string(reason) }
        try await PaymentDecisionCommand.run("reject", params, global: global)
    }
}

/// `interpay cancel`
struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel a payment request you sent, while it is still pending.",
        discussion: "Exit 5 if the payer already accepted or rejected it, or it expired.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The payment: its ID or a unique prefix of at least 4 characters.")
    var payment: String

    func validate() throws {
        guard payment.count >= 4 else { throw ValidationError("give at least 4 characters of the payment ID") }
    }

    func run() async throws {
        try await PaymentDecisionCommand.run("cancel", ["payment": .string(payment)], global: global)
    }
}
