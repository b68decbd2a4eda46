import ArgumentParser
import InterPayContract
import InterPayControlClient
import InterPayCore

/// `interpay export`
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Export payments for the books: CSV (RFC 4180) or JSON, one row per payment, oldest first, or a journal "
            + "for hledger, ledger or beancount.",
        discussion: """
            Amounts are decimal strings with the currency's digits, times ISO 8601 UTC; columns: \
            \(Export.columns.joined(separator: ", ")). peer_trust is paired or unverified: a name is the peer's own \
            choice, only pairing says who it is. In CSV, a cell that starts with =, +, -, @, a tab or CR gets a \
            leading ' so that no spreadsheet runs it as a formula. --from and --to take YYYY-MM-DD (UTC) or \
            YYYY-MM-DDTHH:MM:SSZ and select by creation time: from on or after --from, to before the end of --to's \
            day (or before --to's exact time).

            --format ledger (hledger and ledger) and --format beancount write a journal: one transaction per payment \
            accepted, paid or settled, dated when it was accepted. A sale moves its amount into the peer's account \
            (--account; {peer} is the peer's short ID, {name} its name made into an account name) from \
            income:interpay:CATEGORY; a purchase moves it from the peer's account into expenses:interpay:CATEGORY \
            (Income:InterPay:… and Expenses:InterPay:… for beancount). The quote kept when a payment was accepted is \
            a price of its currency on that day. A refund (refund_of: the payment it gives money back of) is booked \
            against that payment's income or expenses, so a sale refunded in full nets to nothing; a share of a \
            split bill names its bill (bill_id). 'hledger -f FILE check' and 'bean-check FILE' accept the result.
            """)

    /// The columns, in order; the JSON form uses the same names.
    static let columns = [
        "id", "direction", "peer_id", "peer_name", "amount", "currency", "memo", "category", "state", "confirmed",
        "created_at", "expires_at", "accepted_at", "paid_at", "settled_at", "method", "reference", "quote_amount",
        "quote_currency", "quote_rate", "quote_rates_at", "receipt", "peer_short_id", "peer_trust", "refund_of",
        "bill_id",
    ]

    @OptionGroup var global: GlobalOptions

    /// The columns that are yes or no: `true`/`false` in the CSV, booleans in the JSON.
    static let booleans: Set = ["confirmed", "receipt"]

    /// What `--format` takes.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case csv, json, ledger, beancount
    }

    @Option(help: "csv, json, ledger (hledger and ledger's journal) or beancount.")
    var format: Format = .csv

    @Option(
        help: ArgumentHelp(
            "The account of a payment's peer in a journal (default: the daemon's [export] account, else "
                + "assets:interpay:{peer}; for beancount Assets:InterPay:{peer}).", valueName: "pattern"))
    var account: String?

    @Option(help: "Only payments created on or after this date (YYYY-MM-DD, UTC) or time.")
    var from: String?

    @Option(help: "Only payments created up to the end of this date (YYYY-MM-DD, UTC), or before this time.")
    var to: String?

    @OptionGroup var filter: StateFilter

    func validate() throws {
        if let account {
            guard let books = Self.books(format) else {
                throw ValidationError("--account is for --format ledger or beancount")
            }
            do {
                _ = try Books.journal([], format: books, account: account)
            } catch {
                throw ValidationError(error.description)
            }
        }
        if let from, Self.time(from, endOfDay: false) == nil {
            throw DateArgument.error(from, option: "--from", forms: ["YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SSZ"])
        }
        if let to, Self.time(to, endOfDay: true) == nil {
            throw DateArgument.error(to, option: "--to", forms: ["YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SSZ"])
        }
    }

    /// A date (its start, or with `endOfDay` the start of the next day) or an exact time.
    static func time(_ text: String, endOfDay: Bool) -> Timestamp? {
        if let exact = ISO8601Time.parse(text) { return exact }
        guard let day = ISO8601Time.parse(text + "T00:00:00Z") else { return nil }
        return endOfDay ? day.adding(seconds: 86_400) : day
    }

    func run() throws {
        let params = ExportParams(
            from: from.flatMap { Self.time($0, endOfDay: false) }?.secondsSince1970,
            to: to.flatMap { Self.time($0, endOfDay: true) }?.secondsSince1970, state: filter.state)
        let answer = try global.call(ControlAPI.export, params).value
        let payments = answer.payments
        if let books = Self.books(format) {
            // --account, else the daemon's `[export] account`, else the format's default.
            let pattern =
                account ?? answer.account.map { Books.account(configured: $0, for: books) }
                ?? Books.defaultAccount(books)
            do {
                print(try Books.journal(payments, format: books, account: pattern), terminator: "")
            } catch {
                throw CLIError(message: error.description, exitCode: 2)
            }
            return
        }
        let rows = payments.map(Self.row)
        if format == .json {
            // The same cells as the CSV's, as strings (amounts keep their exact decimals), but for `confirmed` and
            // `receipt`, booleans.
            let objects = rows.map { row in
                JSONValue.object(
                    Dictionary(
                        uniqueKeysWithValues: zip(Self.columns, row).map { column, cell in
                            let value = cell.map {
                                Self.booleans.contains(column) ? .bool($0 == "true") : JSONValue.string($0)
                            }
                            return (column, value ?? .null)
                        }))
            }
            print(JSONValue.object(["payments": .array(objects)]).jsonText)
        } else {
            var text = Self.csvLine(Self.columns)
            for row in rows { text += Self.csvLine(row.map { $0 ?? "" }) }
            print(text, terminator: "")
        }
    }

    /// The journal format of `format`; nil for CSV and JSON.
    static func books(_ format: Format) -> Books.Format? {
        switch format {
        case .csv, .json: nil
        case .ledger: .ledger
        case .beancount: .beancount
        }
    }

    /// One payment's cells, in `columns` order; nil for an empty cell.
    /// Raw strings: the export is data for other programs, not text for a terminal.
    static func row(_ payment: PaymentInfo) -> [String?] {
        func time(_ seconds: Int64?) -> String? {
            seconds.map { ISO8601Time.format(Timestamp(secondsSince1970: $0)) }
        }
        let quote = payment.quote
        return [
            payment.id, payment.direction.rawValue, payment.peer.id, payment.peer.name, payment.amount,
            payment.currency,
            payment.memo, payment.category, payment.state.rawValue, String(payment.confirmed), time(payment.createdAt),
            time(payment.expiresAt), time(payment.acceptedAt), time(payment.paidAt), time(payment.settledAt),
            payment.method, payment.reference, quote?.amount, quote?.currency, quote?.rate,
            time(quote?.ratesUpdatedAt), String(payment.receipt), payment.peer.shortID, payment.peer.trust.rawValue,
            payment.refundOf, payment.bill?.id,
        ]
    }

    /// One CSV record (RFC 4180), every cell made safe by `csvField`; CRLF ends it.
    static func csvLine(_ fields: [String]) -> String {
        fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    /// One CSV cell. Names, memos, categories and references are other people's text, so:
    /// - a cell that a spreadsheet would read as a formula (first character `=`, `+`, `-`, `@`, tab or CR) gets a
    ///   leading `'`, which spreadsheets show and do not evaluate (OWASP's advice on CSV injection);
    /// - a cell holding a comma, a quote, CR or LF is quoted and its quotes doubled, looked at **by Unicode scalar**:
    ///   a quote followed by a combining mark is one `Character` in Swift, not equal to `"`, and slipped through
    ///   unquoted and undoubled, ending its cell early.
    static func csvField(_ field: String) -> String {
        var field = field
        if let first = field.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            field = "'" + field
        }
        let special: Set<Unicode.Scalar> = [",", "\"", "\r", "\n"]
        guard field.unicodeScalars.contains(where: special.contains) else { return field }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in field.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return String(quoted)
    }
}
