import FoundationEssentials
import Glibc
import InterPayContract
import InterPayCore

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
    /// An age as people say it: "45 s", "12 min", "5 h 20 min", "3 days".
    static func age(_ seconds: Int64) -> String {
        switch seconds {
        case ..<60: "\(max(0, seconds)) s"
        case ..<3_600: "\(seconds / 60) min"
        case ..<86_400:
            seconds % 3_600 < 60 ? "\(seconds / 3_600) h" : "\(seconds / 3_600) h \(seconds % 3_600 / 60) min"
        case ..<(2 * 86_400): "1 day"
        default: "\(seconds / 86_400) days"
        }
    }

    static func amount(_ payment: PaymentInfo) -> String {
        var text = "\(payment.amount.printable) \(payment.currency.printable)"
        if let quote = payment.quote {
            text += " (= \(quote.amount.printable) \(quote.currency.printable) when accepted)"
        } else if let converted = payment.converted {
            let stale = converted.stale ? ", stale rates" : ""
            let conversion = converted.conversion
            text += " (≈ \(conversion.amount.printable) \(conversion.currency.printable)\(stale))"
        }
        return text
    }

    /// `from bob (HSBEJBT)` / `to alice (MFRGGZD) [unverified]`: the peer as every view names it (`PeerLabel`).
    static func counterparty(_ payment: PaymentInfo) -> String {
        payment.direction == .incoming ? "from \(payment.peer.label)" : "to \(payment.peer.label)"
    }

    /// ` (announces "X") [name changed]` when a paired peer announces a name other than the one kept for it.
    static func announced(_ other: String?) -> String {
        guard let other else { return "" }
        return " (announces \"\(other.printable)\") [name changed]"
    }

    /// The state in people's words (`StateWords`): "(awaiting payee)" for a payer's decision the payee has not
    /// confirmed, the reason code when an action lost.
    static func state(_ payment: PaymentInfo) -> String { StateWords.text(payment) }

    /// A table of payments: short ID (unique among the rows: the daemon lengthens alike ones), sale or purchase,
    /// peer, amount, state, created, memo.
    static func paymentTable(_ payments: [PaymentInfo]) {
        var table = Table("ID", "SIDE", "PEER", "AMOUNT", "STATE", "CREATED", "MEMO")
        for payment in payments {
            table.add(
                payment.shortID.printable, StateWords.side(payment.direction), payment.peer.label, amount(payment),
                state(payment), localTime(payment.createdAt), payment.memo.printable)
        }
        table.print()
    }

    /// The short form of a payment or series ID that no answer shortened for us (`RecordShortID`).
    /// A split bill on one line, as `split`, `bills`, `list` and `watch` show it: its short ID, state, total, how
    /// its shares stand and what is left, and its memo.
    static func bill(_ bill: BillInfo) -> String {
        var counts = ["\(bill.accepted) accepted"]
        if bill.pending > 0 { counts.append("\(bill.pending) pending") }
        if bill.declined > 0 { counts.append("\(bill.declined) declined") }
        return "bill \(bill.shortID.printable)  \(bill.state.rawValue)  \(bill.total.printable) "
            + "\(bill.currency.printable)  \(bill.payers) payers: \(counts.joined(separator: ", ")); "
            + "\(bill.left.printable) \(bill.currency.printable) left  \"\(bill.memo.printable)\""
    }

    static func shortID(_ id: String) -> String {
        RecordShortID.tail(of: id.printable)
    }

    /// What became of a payment or series after a command: `SHORTID: state`, then `notes` (each empty or starting
    /// with its own separator).
    static func outcome(shortID: String, state: String, _ notes: String...) -> String {
        "\(shortID.printable): \(state.printable)" + notes.joined()
    }
}

extension String {
    /// The text, safe to print: control characters (which a peer's name, memo or reason could carry to make the
    /// terminal hide or rewrite text) are escaped (`SafeText`). `--json` output is JSON-escaped instead.
    var printable: String { SafeText.escaped(self) }
}
