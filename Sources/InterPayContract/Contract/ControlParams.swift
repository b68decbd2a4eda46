public import InterPayCore

// The params of the control methods (`ControlAPI`). A nil optional is left out of the request; a required string
// that is empty counts as missing.

/// `{peer}`: a peer by display name, ID or ID prefix (`untrust`).
public struct PeerParams: Codable, Sendable, Equatable {
    /// The peer.
    public var peer: String

    /// Params.
    public init(peer: String) {
        self.peer = peer
    }
}

/// `{peer, code?}` (`pair`): without a code, start an attempt; with one, confirm it.
public struct PairParams: Codable, Sendable, Equatable {
    /// The peer.
    public var peer: String
    /// The 6-digit code the peer's screen shows.
    public var code: String?

    /// Params.
    public init(peer: String, code: String? = nil) {
        self.peer = peer
        self.code = code
    }
}

/// `{peer, name}` (`rename`).
public struct RenameParams: Codable, Sendable, Equatable {
    /// The peer.
    public var peer: String
    /// The name to show it under.
    public var name: String

    /// Params.
    public init(peer: String, name: String) {
        self.peer = peer
        self.name = name
    }
}

/// `{peer, amount, currency, memo?, category?, expiresInSeconds?, idempotencyKey?}` (`send`).
public struct SendParams: Codable, Sendable, Equatable {
    /// The payer.
    public var peer: String
    /// A decimal amount, e.g. `12.50`.
    public var amount: String
    /// The ISO 4217 code.
    public var currency: String
    /// What it is for.
    public var memo: String?
    /// A category for statistics.
    public var category: String?
    /// How long the request stays open (default 900).
    public var expiresInSeconds: Int64?
    /// A key that makes repeating the send harmless.
    public var idempotencyKey: String?
    /// How the writer's locale separates decimals (default `.`): with `,` a comma is always the decimal separator
    /// (`Money(parsing:currency:decimalSeparator:)`).
    public var decimalSeparator: DecimalSeparator?

    /// Params.
    public init(
        peer: String, amount: String, currency: String, memo: String? = nil, category: String? = nil,
        expiresInSeconds: Int64? = nil, idempotencyKey: String? = nil,
        decimalSeparator: DecimalSeparator? = nil
    ) {
        self.peer = peer
        self.amount = amount
        self.currency = currency
        self.memo = memo
        self.category = category
        self.expiresInSeconds = expiresInSeconds
        self.idempotencyKey = idempotencyKey
        self.decimalSeparator = decimalSeparator
    }
}

/// `{payment, reason?, method?, reference?}`: a payment by ID or unique prefix of at least 4 characters, and what
/// the method takes besides (`reject`: `reason`; `paid`: `method`, `reference`; the others nothing).
public struct PaymentParams: Codable, Sendable, Equatable {
    /// The payment.
    public var payment: String
    /// Why it is rejected (`reject`).
    public var reason: String?
    /// How it was paid (`paid`).
    public var method: PaymentMethod?
    /// The payer's reference (`paid`).
    public var reference: String?

    /// Params.
    public init(payment: String, reason: String? = nil, method: PaymentMethod? = nil, reference: String? = nil) {
        self.payment = payment
        self.reason = reason
        self.method = method
        self.reference = reference
    }
}

/// `{payers, amount?, shares?, currency, memo?, category?, expiresInSeconds?, decimalSeparator?}` (`split`): the
/// total `amount` split evenly among `payers` (PROTOCOL.md §8.8), or one of `shares` per payer, in their order
/// (`amount`, when given too, must be their sum).
public struct SplitParams: Codable, Sendable, Equatable {
    /// The payers: peer IDs, ID prefixes or names, each once, 2 to 32.
    public var payers: [String]
    /// The total, a decimal amount.
    public var amount: String?
    /// Each payer's share, decimal amounts in the order of `payers`.
    public var shares: [String]?
    /// The ISO 4217 code.
    public var currency: String
    /// What it is for.
    public var memo: String?
    /// A category for statistics.
    public var category: String?
    /// How long each share's request stays open (default 900).
    public var expiresInSeconds: Int64?
    /// How the writer's locale separates decimals (as `SendParams.decimalSeparator`).
    public var decimalSeparator: DecimalSeparator?

    /// Params.
    public init(
        payers: [String], amount: String? = nil, shares: [String]? = nil, currency: String, memo: String? = nil,
        category: String? = nil, expiresInSeconds: Int64? = nil, decimalSeparator: DecimalSeparator? = nil
    ) {
        self.payers = payers
        self.amount = amount
        self.shares = shares
        self.currency = currency
        self.memo = memo
        self.category = category
        self.expiresInSeconds = expiresInSeconds
        self.decimalSeparator = decimalSeparator
    }
}

/// `{bill}` (`cancel-bill`).
public struct BillParams: Codable, Sendable, Equatable {
    /// The bill: its ID or a unique part of it.
    public var bill: String

    /// Params.
    public init(bill: String) {
        self.bill = bill
    }
}

/// `{payment, amount?, memo?, decimalSeparator?}` (`refund`).
public struct RefundParams: Codable, Sendable, Equatable {
    /// The payment refunded: its ID or a unique part of it.
    public var payment: String
    /// How much to give back, a decimal amount in the payment's currency; all that is left when absent.
    public var amount: String?
    /// Why.
    public var memo: String?
    /// How the writer's locale separates decimals (as `SendParams.decimalSeparator`).
    public var decimalSeparator: DecimalSeparator?

    /// Params.
    public init(payment: String, amount: String? = nil, memo: String? = nil, decimalSeparator: DecimalSeparator? = nil)
    {
        self.payment = payment
        self.amount = amount
        self.memo = memo
        self.decimalSeparator = decimalSeparator
    }
}

/// `{state?, direction?, peer?, limit?}` (`list`), and `{limit?}` (`history`).
public struct ListParams: Codable, Sendable, Equatable {
    /// Only payments in this state.
    public var state: PaymentState?
    /// Only incoming or only outgoing payments.
    public var direction: PaymentDirection?
    /// Only payments with this peer.
    public var peer: String?
    /// At most this many, newest first.
    public var limit: Int64?

    /// Params.
    public init(
        state: PaymentState? = nil, direction: PaymentDirection? = nil, peer: String? = nil, limit: Int64? = nil
    ) {
        self.state = state
        self.direction = direction
        self.peer = peer
        self.limit = limit
    }
}

/// `{from?, to?, state?}` (`export`): payments created in `[from, to)`, Unix times.
public struct ExportParams: Codable, Sendable, Equatable {
    /// Created on or after (Unix time).
    public var from: Int64?
    /// Created before (Unix time).
    public var to: Int64?
    /// Only payments in this state.
    public var state: PaymentState?

    /// Params.
    public init(from: Int64? = nil, to: Int64? = nil, state: PaymentState? = nil) {
        self.from = from
        self.to = to
        self.state = state
    }
}

/// `{period?, by?}` (`stats`).
public struct StatsParams: Codable, Sendable, Equatable {
    /// The period (default: `month`).
    public var period: StatsPeriod?
    /// The grouping (default: `currency`).
    public var by: StatsGroupBy?

    /// Params.
    public init(period: StatsPeriod? = nil, by: StatsGroupBy? = nil) {
        self.period = period
        self.by = by
    }
}

/// `{amount, from, to}` (`convert`).
public struct ConvertParams: Codable, Sendable, Equatable {
    /// A decimal amount.
    public var amount: String
    /// Its currency.
    public var from: String
    /// The currency to convert to.
    public var to: String
    /// How the writer's locale separates decimals (default `.`): with `,` a comma is always the decimal separator
    /// (`Money(parsing:currency:decimalSeparator:)`).
    public var decimalSeparator: DecimalSeparator?

    /// Params.
    public init(amount: String, from: String, to: String, decimalSeparator: DecimalSeparator? = nil) {
        self.amount = amount
        self.from = from
        self.to = to
        self.decimalSeparator = decimalSeparator
    }
}

/// `{base?}` (`rates`).
public struct RatesParams: Codable, Sendable, Equatable {
    /// The base currency (default: the preferred one, else USD).
    public var base: String?

    /// Params.
    public init(base: String? = nil) {
        self.base = base
    }
}

/// `{currency?, clear?}` (`currency`): without either, only ask.
public struct CurrencyParams: Codable, Sendable, Equatable {
    /// The user's choice.
    public var currency: String?
    /// True: back to the configuration's.
    public var clear: Bool?

    /// Params.
    public init(currency: String? = nil, clear: Bool? = nil) {
        self.currency = currency
        self.clear = clear
    }
}

/// `{peer, amount, currency, every, count?, start?, memo?, category?}` (`offer`, the CLI's `subscribe`).
public struct OfferParams: Codable, Sendable, Equatable {
    /// The payer.
    public var peer: String
    /// The amount of each period.
    public var amount: String
    /// The ISO 4217 code.
    public var currency: String
    /// `week`, `month` or `year`.
    public var every: String
    /// How many periods.
    public var count: Int64?
    /// The first due date, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM` in the daemon's subscription time zone.
    public var start: String?
    /// What it is for.
    public var memo: String?
    /// A category for statistics.
    public var category: String?
    /// How the writer's locale separates decimals (default `.`): with `,` a comma is always the decimal separator
    /// (`Money(parsing:currency:decimalSeparator:)`).
    public var decimalSeparator: DecimalSeparator?

    /// Params.
    public init(
        peer: String, amount: String, currency: String, every: String, count: Int64? = nil, start: String? = nil,
        memo: String? = nil, category: String? = nil, decimalSeparator: DecimalSeparator? = nil
    ) {
        self.peer = peer
        self.amount = amount
        self.currency = currency
        self.every = every
        self.count = count
        self.start = start
        self.memo = memo
        self.category = category
        self.decimalSeparator = decimalSeparator
    }
}

/// `{series, max?, reason?, periods?, total?, peer?}`: a series by ID or unique prefix of at least 4 characters, and
/// what the method takes besides (`approve`: `max`, `periods`, `total`, `peer`; `decline` and `unsubscribe`:
/// `reason`).
public struct SeriesParams: Codable, Sendable, Equatable {
    /// The series.
    public var series: String
    /// The cap per period (`approve`).
    public var max: String?
    /// Why (`decline`, `unsubscribe`).
    public var reason: String?
    /// How many periods the approval accepts without asking (`approve`).
    public var periods: Int64?
    /// The total, a decimal string in the series' currency, the approval accepts without asking (`approve`).
    public var total: String?
    /// The offering peer's ID, full or its short form, which approves an offer from a peer that is not paired
    /// (`approve`).
    public var peer: String?
    /// How the writer's locale separates decimals (default `.`): with `,` a comma is always the decimal separator
    /// (`Money(parsing:currency:decimalSeparator:)`).
    public var decimalSeparator: DecimalSeparator?

    /// Params.
    public init(
        series: String, max: String? = nil, reason: String? = nil, periods: Int64? = nil, total: String? = nil,
        peer: String? = nil, decimalSeparator: DecimalSeparator? = nil
    ) {
        self.series = series
        self.max = max
        self.reason = reason
        self.periods = periods
        self.total = total
        self.peer = peer
        self.decimalSeparator = decimalSeparator
    }
}

/// The params of `backup`.
public struct BackupParams: Codable, Sendable, Equatable {
    /// The shortest passphrase taken.
    public static let minimumPassphraseLength = 8

    /// When given, the file is encrypted (AES-256-GCM under a key scrypt derives from it); at least 8 characters.
    public var passphrase: String?

    /// Params.
    public init(passphrase: String? = nil) {
        self.passphrase = passphrase
    }
}
