import ArgumentParser

/// The `<payment>` argument of `accept`, `reject`, `cancel` and `show`: the short ID a list shows, the whole ID, or
/// the start or the end of it (`RecordShortID`).
struct PaymentArgument: ParsableArguments {
    @Argument(
        help:
            "The payment: its short ID as 'list' shows it, its whole ID, or at least 4 characters of its start or end.")
    var payment: String

    func validate() throws {
        guard payment.count >= 4 else { throw ValidationError("give at least 4 characters of the payment ID") }
    }
}
