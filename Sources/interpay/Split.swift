import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay split PAYERS AMOUNT CURRENCY`, or `interpay split --shares NAME=AMOUNT,… [AMOUNT] CURRENCY`.
struct Split: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Split a bill among 2 to 32 payers: one request each, for its share.",
        discussion: """
            'interpay split bob,carol,dave 90.00 EUR --memo dinner' asks each for 30.00. An uneven total is split \
            to the minor unit, the cents left going to the payers in the order you named them (100.00 among 3 is \
            33.34, 33.33, 33.33); nothing is lost to rounding. With --shares bob=40,carol=25,dave=25 each pays \
            what you say (AMOUNT, if given, must be their sum). Every payer needs a session, as for 'send'. A payer \
            whose daemon supports bills sees its request as a share of a bill of N payers (never who the others \
            are); any other gets a plain request. 'interpay bills' shows where each bill stands; 'interpay \
            cancel-bill BILL' cancels its shares still pending.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(
        help:
            "PAYERS AMOUNT CURRENCY (PAYERS: names or ID prefixes joined by commas), or AMOUNT? CURRENCY with --shares."
    )
    var words: [String] = []

    @Option(help: "Each payer's share, NAME=AMOUNT joined by commas, in the order the cents left would go.")
    var shares: String?

    @Option(help: "What the bill is for (every share's memo), at most 200 characters.")
    var memo: String = ""

    @Option(help: "A category for statistics.")
    var category: String?

    @Option(help: "How long each share's request stays open, in minutes.")
    var expires: Int = 15

    /// The params the words and options make, or the mistake in them.
    func params() throws -> SplitParams {
        if let shares {
            guard (1...2).contains(words.count) else {
                throw ValidationError("with --shares give [AMOUNT] CURRENCY, e.g. --shares bob=40,carol=25 EUR")
            }
            var payers: [String] = []
            var amounts: [String] = []
            for item in shares.split(separator: ",") {
                let parts = item.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ValidationError("each share is NAME=AMOUNT, e.g. bob=40 ('\(String(item).printable)' is not)")
                }
                payers.append(String(parts[0]))
                amounts.append(String(parts[1]))
            }
            return SplitParams(
                payers: payers, amount: words.count == 2 ? words[0] : nil, shares: amounts,
                currency: words[words.count - 1],
                memo: memo, category: category, expiresInSeconds: Int64(expires) * 60)
        }
        guard words.count == 3 else {
            throw ValidationError("give PAYERS AMOUNT CURRENCY, e.g. bob,carol,dave 90.00 EUR (or --shares)")
        }
        return SplitParams(
            payers: words[0].split(separator: ",").map(String.init), amount: words[1], currency: words[2], memo: memo,
            category: category, expiresInSeconds: Int64(expires) * 60)
    }

    func validate() throws {
        _ = try params()
        if memo.unicodeScalars.count > 200 { throw ValidationError("--memo is at most 200 characters") }
        if !(1...43_200).contains(expires) { throw ValidationError("--expires is 1 to 43200 minutes") }
    }

    func run() throws {
        let reply = try global.call(ControlAPI.split, try params())
        global.output(reply) { bill in
            print(Formatting.bill(bill))
            Formatting.paymentTable(bill.shares)
        }
    }
}

/// `interpay bills`
struct Bills: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bills", abstract: "Show your split bills, newest first: who paid and what is left.")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Show each bill's shares too.")
    var shares = false

    func run() throws {
        let reply = try global.call(ControlAPI.bills)
        global.output(reply) { list in
            if list.bills.isEmpty { print("no bills ('interpay split' makes one)") }
            for bill in list.bills {
                print(Formatting.bill(bill))
                if shares { Formatting.paymentTable(bill.shares) }
            }
        }
    }
}

/// `interpay cancel-bill BILL`
struct CancelBill: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel-bill",
        abstract: "Cancel a bill's shares still pending; what was already accepted stays.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The bill: its short ID as 'interpay bills' shows it, or at least 4 characters of its ID.")
    var bill: String

    func validate() throws {
        guard bill.count >= 4 else { throw ValidationError("give at least 4 characters of the bill ID") }
    }

    func run() throws {
        let reply = try global.call(ControlAPI.cancelBill, BillParams(bill: bill))
        global.output(reply) { bill in print(Formatting.bill(bill)) }
    }
}
