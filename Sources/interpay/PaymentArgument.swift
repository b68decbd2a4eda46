import ArgumentParser

/// The `<payment>` argument of `accept`, `reject`, `cancel` and `show`: an ID or a unique prefix.
struct PaymentArgument: ParsableArguments {
    @Argument(help: "The payment: its ID or a unique prefix of at least 4 characters.")
    var payment: String

    func validate() throws {
        guard payment.count >= 4 else { throw ValidationError("give at least 4 characters of the payment ID") }
    }
}
