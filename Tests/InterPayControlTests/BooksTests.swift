import InterPayContract
import InterPayCore
import Testing

@Suite("Books: journals for hledger, ledger and beancount")
struct BooksTests {
    /// A payment of `amount` `currency` with a peer named `name`, accepted at 2026-11-29 12:00 UTC.
    static func payment(
        _ direction: PaymentDirection, name: String, memo: String, category: String?, state: PaymentState = .accepted,
        quote: Conversion? = nil
    ) -> PaymentInfo {
        PaymentInfo(
            id: "01a227b5-0000-7000-8000-000000000001", shortID: "00000001", direction: direction,
            peer: PaymentPeer(id: "P", shortID: "HSBEJBT", name: name, announcedName: nil, trust: .unverified),
            amount: "12.50", currency: "MXN", minorUnits: 1250, memo: memo, category: category, state: state,
            confirmed: true, reason: nil, reasonCode: nil, converted: nil, quote: quote, createdAt: 1_796_558_400,
            expiresAt: 1_796_559_300, updatedAt: 1_796_558_400, acceptedAt: 1_796_558_400, paidAt: nil,
            settledAt: nil, method: nil, reference: nil, receipt: false, series: nil)
    }

    @Test("a sale in hledger's journal: the peer's account from income by category, the quote as a price")
    func ledgerSale() throws {
        let quote = Conversion(amount: "0.58", currency: "EUR", minorUnits: 58, rate: "0.0465", ratesUpdatedAt: 0)
        let text = try Books.journal(
            [Self.payment(.outgoing, name: "bob", memo: "tacos", category: "food", quote: quote)], format: .ledger,
            account: Books.defaultAccount(.ledger))
        #expect(
            text.split(separator: "\n").dropFirst().map(String.init) == [
                "2026-12-06 * bob (HSBEJBT) [unverified] | tacos",
                "    ; payment: 01a227b5-0000-7000-8000-000000000001",
                "    ; category: food",
                "    assets:interpay:HSBEJBT  12.50 MXN",
                "    income:interpay:food  -12.50 MXN",
                "P 2026-12-06 MXN 0.0465 EUR",
            ])
    }

    @Test("a refund is booked against the refunded sale's income (or purchase's expenses), the other way round")
    func refunds() throws {
        var given = Self.payment(.incoming, name: "bob", memo: "returned", category: "food")
        given.refundOf = "01a227b5-0000-7000-8000-000000000002"
        var got = Self.payment(.outgoing, name: "alice", memo: "returned", category: "food")
        got.refundOf = given.refundOf
        let shop = try Books.journal([given], format: .ledger, account: Books.defaultAccount(.ledger))
        #expect(
            shop.contains("    income:interpay:food  12.50 MXN") && shop.contains("assets:interpay:HSBEJBT  -12.50 MXN")
        )
        #expect(!shop.contains("expenses"))
        let customer = try Books.journal([got], format: .ledger, account: Books.defaultAccount(.ledger))
        #expect(customer.contains("    expenses:interpay:food  -12.50 MXN") && !customer.contains("income"))
    }

    @Test("a purchase in beancount: accounts opened, strings quoted and escaped, the category as a tag")
    func beancountPurchase() throws {
        let text = try Books.journal(
            [Self.payment(.incoming, name: "a \"shop\" \\ ;", memo: "x\"y", category: "Café & bar")],
            format: .beancount, account: Books.defaultAccount(.beancount))
        #expect(text.contains("2026-12-06 open Assets:InterPay:HSBEJBT\n"))
        #expect(text.contains("2026-12-06 open Expenses:InterPay:Caf-bar\n"))
        #expect(
            text.contains(
                #"2026-12-06 * "a \"shop\" \\\\ ; (HSBEJBT) [unverified]" "x\"y" #caf-bar"# + "\n"
                    + #"  payment: "01a227b5-0000-7000-8000-000000000001""#))
        #expect(text.contains("  Expenses:InterPay:Caf-bar  12.50 MXN\n  Assets:InterPay:HSBEJBT  -12.50 MXN\n"))
    }

    @Test("a peer's text never leaves its field: no comment, no code, no line of its own, no account outside the rules")
    func hostileText() throws {
        let text = try Books.journal(
            [Self.payment(.outgoing, name: "(evil)\n2020-01-01 * x", memo: "a;b|c\u{2028}d", category: "x  y;z")],
            format: .ledger, account: "assets:till:{name}")
        let lines = text.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("2020") })
        // The name as every surface shows it (`PeerLabel`: its line break escaped), then made safe for the journal.
        #expect(lines.contains(#"2026-12-06 * [evil)\u{000A}2020-01-01 * x (HSBEJBT) [unverified] | a,b/c d"#))
        #expect(lines.contains("    assets:till:evil-2020-01-01-x  12.50 MXN"))
        #expect(lines.contains("    income:interpay:x-y-z  -12.50 MXN"))
    }

    @Test("only payments whose money was committed are written; an account pattern of the wrong form is refused")
    func selectionAndPatterns() throws {
        let open = [PaymentState.pending, .rejected, .cancelled, .expired].map {
            Self.payment(.outgoing, name: "bob", memo: "", category: nil, state: $0)
        }
        #expect(!(try Books.journal(open, format: .ledger, account: "assets:x")).contains("MXN"))
        #expect(throws: Books.BooksError.self) { try Books.journal([], format: .beancount, account: "assets:x") }
        #expect(throws: Books.BooksError.self) { try Books.journal([], format: .ledger, account: "assets") }
        #expect(throws: Books.BooksError.self) { try Books.journal([], format: .ledger, account: "a b:c") }
    }

    @Test("one configured pattern serves both formats: as it is for ledger, each part capitalized for beancount")
    func configuredPattern() throws {
        #expect(Books.account(configured: "assets:tills:{name}", for: .ledger) == "assets:tills:{name}")
        #expect(Books.account(configured: "assets:tills:{name}", for: .beancount) == "Assets:Tills:{name}")
        #expect(Books.account(configured: "assets:x-1:{peer}", for: .beancount) == "Assets:X-1:{peer}")
        let text = try Books.journal(
            [Self.payment(.outgoing, name: "bob", memo: "m", category: nil)], format: .beancount,
            account: Books.account(configured: "assets:tills:{name}", for: .beancount))
        #expect(text.contains("  Assets:Tills:Bob  12.50 MXN"), "\(text)")
    }
}
