import FoundationEssentials
import Glibc
import InterPayControl

/// Human formats shared by the subcommands.
enum Formatting {
    /// A Unix time in local time, `2026-11-22 14:05`.
    static func localTime(_ seconds: Int64?) -> String {
        guard let seconds else { return "-" }
        // localtime_r and strftime rather than DateFormatter, which would bring ICU into the binary.
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return String(seconds) }
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `12.50 MXN`, with the amount in the preferred currency when the daemon gave one: the quote stored when the
    /// payment was accepted, `12.50 MXN (= 0.62 EUR when accepted)`, else the current conversion,
    /// `12.50 MXN (≈ 0.62 EUR)` (`, stale rates` when the rates could not be refreshed).
    static func amount(_ payment: JSONValue) -> String {
        var text = "\(payment.string("amount")) \(payment.string("currency"))"
        if let quote = payment.field("quote"), let amount = quote.field("amount")?.text {
            text += " (= \(amount) \(quote.string("currency")) when accepted)"
        } else if let converted = payment.field("converted"), let amount = converted.field("amount")?.text {
            let stale = converted.field("stale") == .bool(true) ? ", stale rates" : ""
            text += " (≈ \(amount) \(converted.string("currency"))\(stale))"
        }
        return text
    }

    /// `in from bob` / `out to alice`, flagged `[unverified]` when the peer is not paired.
    static func counterparty(_ payment: JSONValue) -> String {
        let name = peerName(payment)
        return payment.string("direction") == "in" ? "from \(name)" : "to \(name)"
    }

    /// The payment's peer by name; unless it is paired (`interpay pair`), with its short ID and flagged
    /// `[unverified]`, since anyone can announce any name.
    static func peerName(_ payment: JSONValue) -> String {
        let peer = payment.field("peer")
        let name = peer?.string("name", "?") ?? "?"
        if peer?.string("trust") == "paired" { return name + announced(peer) }
        return "\(name) (\(peer?.string("shortID", "?") ?? "?")) [unverified]"
    }

    /// ` (announces "X") [name changed]` when a paired peer announces a name other than the one kept for it.
    static func announced(_ peer: JSONValue?) -> String {
        guard let other = peer?.field("announcedName")?.text else { return "" }
        return " (announces \"\(other)\") [name changed]"
    }

    /// The state, with "(awaiting payee)" for an unconfirmed payer decision and the reason code when an action lost.
    static func state(_ payment: JSONValue) -> String {
        var text = payment.string("state")
        if payment.field("confirmed") == .bool(false) { text += " (awaiting payee)" }
        if let code = payment.field("reasonCode")?.text { text += " [\(code)]" }
        return text
    }

    /// A table of payments: ID prefix, direction, peer, amount, state, memo, created.
    static func paymentTable(_ payments: [JSONValue]) {
        var table = Table("ID", "DIR", "PEER", "AMOUNT", "STATE", "CREATED", "MEMO")
        for payment in payments {
            table.add(
                String(payment.string("id").prefix(8)), payment.string("direction"),
                peerName(payment), amount(payment), state(payment),
                localTime(payment.field("createdAt")?.integer), payment.string("memo"))
        }
        table.print()
    }
}
