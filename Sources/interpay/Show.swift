import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay show`
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one payment with its full history.")

    @OptionGroup var global: GlobalOptions

    @OptionGroup var target: PaymentArgument

    func run() throws {
        let reply = try global.call(ControlAPI.show, PaymentParams(payment: target.payment))
        global.output(reply) { detail in
            let payment = detail.payment
            var table = Table("FIELD", "VALUE")
            table.add("id", payment.id.printable)
            table.add("direction", payment.direction == .incoming ? "in (you are asked to pay)" : "out (you asked)")
            table.add("peer", "\(payment.peer.label) \(payment.peer.id.printable)")
            table.add("amount", Formatting.amount(payment))
            if let quote = payment.quote {
                table.add(
                    "quote",
                    "\(quote.amount.printable) \(quote.currency.printable) at rate \(quote.rate.printable), rates of "
                        + Formatting.localTime(quote.ratesUpdatedAt))
            }
            table.add("state", Formatting.state(payment))
            table.add("memo", payment.memo.printable)
            table.add("category", payment.category?.printable ?? "-")
            if let reason = payment.reason?.printable { table.add("reason", reason) }
            table.add("created", Formatting.localTime(payment.createdAt))
            table.add("expires", Formatting.localTime(payment.expiresAt))
            for (label, time) in [
                ("accepted", payment.acceptedAt), ("paid", payment.paidAt), ("settled", payment.settledAt),
            ] {
                if let time { table.add(label, Formatting.localTime(time)) }
            }
            if let series = payment.series {
                table.add(
                    "subscription",
                    "\(Formatting.shortID(series.id)), period \(series.period + 1) ('interpay subscriptions')")
            }
            if let original = payment.refundOf {
                table.add(
                    "refund of", "\(Formatting.shortID(original)) ('interpay show \(Formatting.shortID(original))')")
            }
            if let refunded = payment.refunded {
                table.add("refunded", "\(refunded.printable) \(payment.currency.printable)")
            }
            if let left = payment.refundable {
                table.add("refundable", "\(left.printable) \(payment.currency.printable) ('interpay refund')")
            }
            if let method = payment.method?.printable { table.add("method", method) }
            if let reference = payment.reference?.printable { table.add("reference", reference) }
            if payment.state == .settled {
                let receipt =
                    if payment.receipt {
                        "yes ('interpay receipt')"
                    } else if let refused = detail.receiptRefused {
                        "refused: \(refused.printable)"
                    } else {
                        "none"
                    }
                table.add("receipt", receipt)
            }
            table.print()
            print("")
            var events = Table("TIME", "FROM", "TO", "CAUSE", "DETAIL")
            for event in detail.events {
                events.add(
                    Formatting.localTime(event.at), event.from?.printable ?? "-", event.to.printable,
                    event.cause.printable, event.detail?.printable ?? "")
            }
            events.print()
        }
    }
}
