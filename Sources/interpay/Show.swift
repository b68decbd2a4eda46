import ArgumentParser
import InterPayControl

/// `interpay show`
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one payment with its full history.")

    @OptionGroup var global: GlobalOptions

    @OptionGroup var target: PaymentArgument

    func run() async throws {
        let payment = try await global.call("show", ["payment": .string(target.payment)])
        global.output(payment) {
            var table = Table("FIELD", "VALUE")
            table.add("id", payment.string("id"))
            table.add(
                "direction", payment.string("direction") == "in" ? "in (you are asked to pay)" : "out (you asked)")
            table.add(
                "peer", "\(Formatting.peerName(payment)) \(payment.field("peer")?.string("id") ?? "")")
            table.add("amount", Formatting.amount(payment))
            if let quote = payment.field("quote"), quote.objectValue != nil {
                table.add(
                    "quote",
                    "\(quote.string("amount")) \(quote.string("currency")) at rate \(quote.string("rate")), rates of "
                        + Formatting.localTime(quote.field("ratesUpdatedAt")?.integer))
            }
            table.add("state", Formatting.state(payment))
            table.add("memo", payment.string("memo"))
            table.add("category", payment.string("category", "-"))
            if let reason = payment.field("reason")?.text { table.add("reason", reason) }
            table.add("created", Formatting.localTime(payment.field("createdAt")?.integer))
            table.add("expires", Formatting.localTime(payment.field("expiresAt")?.integer))
            for (label, key) in [("accepted", "acceptedAt"), ("paid", "paidAt"), ("settled", "settledAt")] {
                if let time = payment.field(key)?.integer { table.add(label, Formatting.localTime(time)) }
            }
            if let series = payment.field("series"), let id = series.field("id")?.text {
                let period = (series.field("period")?.integer ?? 0) + 1
                table.add("subscription", "\(id.prefix(8)), period \(period) ('interpay subscriptions')")
            }
            if let method = payment.field("method")?.text { table.add("method", method) }
            if let reference = payment.field("reference")?.text { table.add("reference", reference) }
            if payment.string("state") == "settled" {
                table.add("receipt", payment.field("receipt") == .bool(true) ? "yes ('interpay receipt')" : "none")
            }
            table.print()
            print("")
            var events = Table("TIME", "FROM", "TO", "CAUSE", "DETAIL")
            for event in payment.field("events")?.items ?? [] {
                events.add(
                    Formatting.localTime(event.field("at")?.integer), event.string("from", "-"), event.string("to"),
                    event.string("cause"), event.string("detail"))
            }
            events.print()
        }
    }
}
