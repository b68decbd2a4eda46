import InterPayCore

/// Payments as a journal for plain-text accounting (`interpay export --format ledger|beancount`): one transaction
/// per payment whose money was committed (accepted, paid or settled), dated when it was accepted.
///
/// A sale (we are the payee) moves its amount into the peer's account (`account`, default
/// `assets:interpay:{peer}`) from income; a purchase moves it from the peer's account into expenses. Income and
/// expenses are split by category (`income:interpay:food`). A refund is booked against the income (or expenses) of
/// the payment it refunds, so that a sale refunded in full nets to nothing. The quote stored when the payment was accepted becomes a
/// price of its currency on that day. Every peer-given text (its name, the memo, the category) is the peer's own: it
/// is written so that it can never end its field, open a comment or add a line of its own in either format, and
/// account names and tags are made of letters, digits and `-` only.
public enum Books {
    /// The two journal formats.
    public enum Format: String, Sendable, CaseIterable {
        /// hledger's and ledger's journal.
        case ledger
        /// Beancount's.
        case beancount
    }

    /// Why a journal cannot be written.
    public enum BooksError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The account pattern does not make an account name of this format.
        case invalidAccount(String, reason: String)

        public var description: String {
            switch self {
            case .invalidAccount(let pattern, let reason): "the account pattern '\(pattern)' \(reason)"
            }
        }
    }

    /// The account of a payment's peer when none is given: `{peer}` is the peer's short ID, `{name}` its name.
    public static func defaultAccount(_ format: Format) -> String {
        format == .ledger ? "assets:interpay:{peer}" : "Assets:InterPay:{peer}"
    }

    /// The account of a payment's peer in `format` from a configured pattern (`[export] account`, one pattern for
    /// both formats): as it is for ledger; for beancount each part gets a capital first letter
    /// (`assets:tills:{name}` → `Assets:Tills:{name}`), beancount's rule for account names.
    public static func account(configured pattern: String, for format: Format) -> String {
        guard format == .beancount else { return pattern }
        return pattern.split(separator: ":", omittingEmptySubsequences: false).map { component in
            component.hasPrefix("{") ? String(component) : component.prefix(1).uppercased() + component.dropFirst()
        }.joined(separator: ":")
    }

    /// The journal of `payments` in `format`, the peer's account named by `account` (`{peer}`: its short ID;
    /// `{name}`: its name, as an account name's part).
    public static func journal(_ payments: [PaymentInfo], format: Format, account: String) throws(BooksError) -> String
    {
        try check(account, format: format)
        let committed = payments.filter { [.accepted, .paid, .settled].contains($0.state) }
            .sorted { ($0.acceptedAt ?? $0.createdAt, $0.id) < ($1.acceptedAt ?? $1.createdAt, $1.id) }
        var entries: [Entry] = []
        for payment in committed {
            let peerAccount = account.replacing("{peer}", with: part(payment.peer.shortID, format))
                .replacing("{name}", with: part(payment.peer.name ?? payment.peer.shortID, format))
            let category = payment.category.map { part($0, format) }
            let sale = payment.direction == .outgoing
            // A refund nets out of the payment it gives money back of: booked against that payment's income or
            // expenses, the other way round, not as a purchase or a sale of its own (PROTOCOL.md §8.7).
            let income = payment.refundOf == nil ? sale : !sale
            let root = format == .ledger ? (income ? "income" : "expenses") : (income ? "Income" : "Expenses")
            let other = [root, format == .ledger ? "interpay" : "InterPay", category].compactMap { $0 }
                .joined(separator: ":")
            entries.append(
                Entry(
                    date: ISO8601Time.format(Timestamp(secondsSince1970: payment.acceptedAt ?? payment.createdAt))
                        .prefix(10).description,
                    payment: payment, debit: sale ? peerAccount : other, credit: sale ? other : peerAccount))
        }
        return format == .ledger ? ledger(entries) : beancount(entries)
    }

    /// One transaction: `amount` goes into `debit` from `credit`.
    private struct Entry {
        var date: String
        var payment: PaymentInfo
        var debit: String
        var credit: String
    }

    private static func ledger(_ entries: [Entry]) -> String {
        var text = "; InterPay: payments accepted, paid or settled (interpay export --format ledger)\n"
        for entry in entries {
            let payment = entry.payment
            let amount = "\(payment.amount) \(payment.currency)"
            text += "\n\(entry.date) * \(ledgerText(payment.peer.label)) | \(ledgerText(payment.memo))\n"
            text += "    ; payment: \(payment.id)\n"
            if let category = payment.category { text += "    ; category: \(ledgerText(category))\n" }
            text += "    \(entry.debit)  \(amount)\n"
            text += "    \(entry.credit)  -\(amount)\n"
            if let quote = payment.quote {
                text += "P \(entry.date) \(payment.currency) \(quote.rate) \(quote.currency)\n"
            }
        }
        return text
    }

    private static func beancount(_ entries: [Entry]) -> String {
        var opened: [String: String] = [:]
        for entry in entries {
            for account in [entry.debit, entry.credit] where opened[account] == nil { opened[account] = entry.date }
        }
        var text = "; InterPay: payments accepted, paid or settled (interpay export --format beancount)\n"
        for (account, date) in opened.sorted(by: { ($0.value, $0.key) < ($1.value, $1.key) }) {
            text += "\(date) open \(account)\n"
        }
        for entry in entries {
            let payment = entry.payment
            let amount = "\(payment.amount) \(payment.currency)"
            let tag = payment.category.map { " #" + tagText($0) } ?? ""
            text += "\n\(entry.date) * \(quoted(payment.peer.label)) \(quoted(payment.memo))\(tag)\n"
            text += "  payment: \(quoted(payment.id))\n"
            text += "  \(entry.debit)  \(amount)\n"
            text += "  \(entry.credit)  -\(amount)\n"
            if let quote = payment.quote {
                text += "\(entry.date) price \(payment.currency) \(quote.rate) \(quote.currency)\n"
            }
        }
        return text
    }

    /// The account pattern checked for `format`: components separated by `:`, and for beancount a root among
    /// Assets, Liabilities, Equity, Income and Expenses and components that start with a capital or a digit.
    private static func check(_ pattern: String, format: Format) throws(BooksError) {
        let components = pattern.replacing("{peer}", with: "P").replacing(
            "{name}", with: "N"
        ).split(separator: ":", omittingEmptySubsequences: false)
        guard components.count >= 2, components.allSatisfy({ !$0.isEmpty }) else {
            throw .invalidAccount(pattern, reason: "needs at least two parts separated by ':', none of them empty")
        }
        for component in components {
            guard
                component.unicodeScalars.allSatisfy({
                    $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-"
                })
            else {
                throw .invalidAccount(pattern, reason: "may hold only letters, digits, '-' and ':'")
            }
        }
        if format == .beancount {
            guard ["Assets", "Liabilities", "Equity", "Income", "Expenses"].contains(String(components[0])) else {
                throw .invalidAccount(
                    pattern, reason: "must start with Assets, Liabilities, Equity, Income or Expenses for beancount")
            }
            for component in components {
                guard let first = component.unicodeScalars.first, first.isASCII,
                    ("A"..."Z").contains(first) || ("0"..."9").contains(first),
                    component.unicodeScalars.allSatisfy({ $0.isASCII })
                else {
                    throw .invalidAccount(
                        pattern,
                        reason: "must have ASCII parts that start with a capital letter or a digit for beancount")
                }
            }
        }
    }

    /// A peer-given text as one part of an account name: letters and digits kept (ASCII only for beancount, with a
    /// capital first), anything else `-`; never empty.
    static func part(_ text: String, _ format: Format) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let kept =
                format == .ledger
                ? scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                : scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
            if kept {
                scalars.append(scalar)
            } else if scalars.last != "-" {
                scalars.append("-")
            }
        }
        var part = String(String(scalars).drop { $0 == "-" }.reversed().drop { $0 == "-" }.reversed())
        if part.isEmpty { part = "X" }
        if format == .beancount {
            let first = part.prefix(1).uppercased()
            part = first + part.dropFirst()
            if let scalar = part.unicodeScalars.first, !(("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)) {
                part = "X" + part
            }
        }
        return String(part.prefix(60))
    }

    /// A peer-given text on one line: control, format and separator characters (and tabs) as spaces, runs of
    /// spaces as one.
    static func oneLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator:
                if result.last != " " { result.append(" ") }
            default:
                result.append(scalar)
            }
        }
        return String(String(result).drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    /// A peer-given text in a ledger transaction's description or comment: one line, no comment start (`;`), no
    /// payee/note separator (`|`), and no status mark or code at its start (`*`, `!`, `(`).
    static func ledgerText(_ text: String) -> String {
        var result = oneLine(text).replacing(";", with: ",").replacing("|", with: "/")
        if let first = result.first, ["*", "!", "("].contains(first) { result = "[" + result.dropFirst() }
        return result
    }

    /// A peer-given text as a beancount string: on one line, quoted, its `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in oneLine(text).unicodeScalars {
            if scalar == "\"" || scalar == "\\" { result += "\\" }
            result.unicodeScalars.append(scalar)
        }
        return result + "\""
    }

    /// A category as a beancount tag: letters, digits and `-` only.
    static func tagText(_ text: String) -> String {
        var tag = part(text, .beancount)
        tag = tag.prefix(1).lowercased() + tag.dropFirst()
        return tag
    }
}
