public import InterPayCore

/// A payment as the control methods answer it (`send`, `accept`, `list`, …) and as `interpay watch` and the web app
/// see it in events. Its field names are a stable contract (docs/control-api.md, "JSON output"); every field is present, `null`
/// when it has no value.
public struct PaymentInfo: Codable, Sendable, Equatable {
    /// The payment ID (a UUID).
    public var id: String
    /// The ID as people read and type it (`RecordShortID`): its random tail, unique among the payments of the same
    /// answer (a list lengthens the tails that would be alike).
    public var shortID: String
    /// `out` when this side asked for the money (the payee), `in` when it is asked to pay (the payer).
    public var direction: PaymentDirection
    /// The other side.
    public var peer: PaymentPeer
    /// The amount, a decimal string with the currency's digits (`12.50`).
    public var amount: String
    /// The ISO 4217 currency code.
    public var currency: String
    /// The amount in minor units (1250).
    public var minorUnits: Int64
    /// What it is for.
    public var memo: String
    /// A category for statistics.
    @Nullable public var category: String?
    /// `pending`, `accepted`, `paid`, `settled`, `rejected`, `cancelled` or `expired`.
    public var state: PaymentState {
        didSet { awaitingPayee = StateWords.awaitsPayee(state: state, confirmed: confirmed) }
    }
    /// False while the payer's decision waits for the payee's confirmation.
    public var confirmed: Bool {
        didSet { awaitingPayee = StateWords.awaitsPayee(state: state, confirmed: confirmed) }
    }
    /// Whether the payee has yet to confirm this side's accepted, rejected or paid mark: what every surface shows as
    /// "awaiting payee" (`StateWords`; never for an expired request). Follows `state` and `confirmed`.
    public private(set) var awaitingPayee: Bool
    /// Why it was rejected or cancelled, in the peer's words.
    @Nullable public var reason: String?
    /// Why a decision lost, e.g. `already-cancelled`.
    @Nullable public var reasonCode: String?
    /// The amount in the preferred currency now, when that differs from the payment's.
    @Nullable public var converted: ConvertedAmount?
    /// The amount in the preferred currency when the payment was accepted, when one was stored.
    @Nullable public var quote: Conversion?
    /// Unix times.
    public var createdAt: Int64
    /// When a pending request expires.
    public var expiresAt: Int64
    /// The last change.
    public var updatedAt: Int64
    /// When it was accepted.
    @Nullable public var acceptedAt: Int64?
    /// When the payer marked it paid.
    @Nullable public var paidAt: Int64?
    /// When the payee confirmed the money arrived.
    @Nullable public var settledAt: Int64?
    /// How it was paid: `cash`, `card`, `transfer` or `other`.
    @Nullable public var method: String?
    /// The payer's reference for the payment.
    @Nullable public var reference: String?
    /// Whether a signed receipt is stored (`interpay receipt`).
    public var receipt: Bool
    /// The subscription the payment belongs to.
    @Nullable public var series: PaymentSeriesLink?
    /// For a refund, the ID of the payment it gives money back of (PROTOCOL.md §8.7).
    @Nullable public var refundOf: String?
    /// The split bill the payment is a share of (PROTOCOL.md §8.8).
    @Nullable public var bill: PaymentBillLink?
    /// The sum of the refunds of this payment so far, a decimal string; null when it carries none (or in an event).
    @Nullable public var refunded: String?
    /// What this side may still refund of it (`interpay refund` without an amount gives this): only for a payment of
    /// which this side is the payee, accepted, paid or settled, with something left and fewer than 16 refunds;
    /// null otherwise (and in an event, which does not read the refunds).
    @Nullable public var refundable: String?
    /// Only in `send`'s answer: true when the payer's daemon had not acknowledged the request within 2 s (the
    /// session is down, or was lost without either side knowing yet): it is queued and resent until acknowledged.
    @Nullable public var queued: Bool?

    /// A payment.
    public init(
        id: String, shortID: String, direction: PaymentDirection, peer: PaymentPeer, amount: String, currency: String,
        minorUnits: Int64,
        memo: String, category: String?, state: PaymentState, confirmed: Bool, reason: String?, reasonCode: String?,
        converted: ConvertedAmount?, quote: Conversion?, createdAt: Int64, expiresAt: Int64, updatedAt: Int64,
        acceptedAt: Int64?, paidAt: Int64?, settledAt: Int64?, method: String?, reference: String?, receipt: Bool,
        series: PaymentSeriesLink?, refundOf: String? = nil, bill: PaymentBillLink? = nil, queued: Bool? = nil
    ) {
        self.id = id
        self.shortID = shortID
        self.direction = direction
        self.peer = peer
        self.amount = amount
        self.currency = currency
        self.minorUnits = minorUnits
        self.memo = memo
        self.category = category
        self.state = state
        self.confirmed = confirmed
        self.awaitingPayee = StateWords.awaitsPayee(state: state, confirmed: confirmed)
        self.reason = reason
        self.reasonCode = reasonCode
        self.converted = converted
        self.quote = quote
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.updatedAt = updatedAt
        self.acceptedAt = acceptedAt
        self.paidAt = paidAt
        self.settledAt = settledAt
        self.method = method
        self.reference = reference
        self.receipt = receipt
        self.series = series
        self.refundOf = refundOf
        self.bill = bill
        self.refunded = nil
        self.refundable = nil
        self.queued = queued
    }
}

/// The `peer` of a payment or a series.
public struct PaymentPeer: Codable, Sendable, Equatable {
    /// The full peer ID.
    public var id: String
    /// The short peer ID people compare.
    public var shortID: String
    /// The name it is shown under (pinned at pairing for a paired peer).
    @Nullable public var name: String?
    /// What a paired peer announces, when that differs from `name`.
    @Nullable public var announcedName: String?
    /// Whether it is paired.
    public var trust: PeerTrust

    /// A payment's peer.
    public init(id: String, shortID: String, name: String?, announcedName: String?, trust: PeerTrust) {
        self.id = id
        self.shortID = shortID
        self.name = name
        self.announcedName = announcedName
        self.trust = trust
    }
}

/// An amount converted with the current (or last known) rates: a payment's `converted`, and with `from` the answer
/// of `convert`.
public struct ConvertedAmount: Codable, Sendable, Equatable {
    /// The converted amount and the rate; its members are this value's own on the wire.
    public var conversion: Conversion
    /// True when the rates could not be refreshed.
    public var stale: Bool
    /// How old the rates are, in seconds.
    public var ratesAgeSeconds: Int64
    /// The amount converted: only in the answer of `convert` (left out of a payment's `converted`).
    public var from: MoneyAmount?

    /// A conversion with the rates' freshness.
    public init(conversion: Conversion, stale: Bool, ratesAgeSeconds: Int64, from: MoneyAmount? = nil) {
        self.conversion = conversion
        self.stale = stale
        self.ratesAgeSeconds = ratesAgeSeconds
        self.from = from
    }

    private enum CodingKeys: String, CodingKey {
        case stale, ratesAgeSeconds, from
    }

    /// The conversion's members, `stale`, `ratesAgeSeconds` and `from` when there is one, in one object.
    public init(from decoder: any Decoder) throws {
        conversion = try Conversion(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stale = try container.decode(Bool.self, forKey: .stale)
        ratesAgeSeconds = try container.decode(Int64.self, forKey: .ratesAgeSeconds)
        from = try container.decodeIfPresent(MoneyAmount.self, forKey: .from)
    }

    /// The conversion's members, `stale`, `ratesAgeSeconds` and `from` when there is one, in one object.
    public func encode(to encoder: any Encoder) throws {
        try conversion.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(stale, forKey: .stale)
        try container.encode(ratesAgeSeconds, forKey: .ratesAgeSeconds)
        try container.encodeIfPresent(from, forKey: .from)
    }
}

/// An amount and its currency.
public struct MoneyAmount: Codable, Sendable, Equatable {
    /// A decimal string with the currency's digits.
    public var amount: String
    /// The ISO 4217 code.
    public var currency: String

    /// An amount.
    public init(amount: String, currency: String) {
        self.amount = amount
        self.currency = currency
    }
}

/// An amount in another currency at a rate: a payment's `quote` (its amount in the preferred currency when it was
/// accepted, stored then), and the core of a `ConvertedAmount`.
public struct Conversion: Codable, Sendable, Equatable {
    /// The amount, a decimal string.
    public var amount: String
    /// The currency converted to.
    public var currency: String
    /// The amount in minor units.
    public var minorUnits: Int64
    /// The rate used.
    public var rate: String
    /// When the source had updated the rates used (Unix time).
    public var ratesUpdatedAt: Int64

    /// A conversion.
    public init(amount: String, currency: String, minorUnits: Int64, rate: String, ratesUpdatedAt: Int64) {
        self.amount = amount
        self.currency = currency
        self.minorUnits = minorUnits
        self.rate = rate
        self.ratesUpdatedAt = ratesUpdatedAt
    }
}

/// The subscription a payment belongs to: the series and the period (from 0).
public struct PaymentSeriesLink: Codable, Sendable, Equatable {
    /// The series ID.
    public var id: String
    /// The period, from 0.
    public var period: Int64

    /// A link to a series' period.
    public init(id: String, period: Int64) {
        self.id = id
        self.period = period
    }
}

/// The answer of `show`: a payment with its history.
public struct PaymentDetailInfo: Codable, Sendable, Equatable {
    /// The payment; its fields are the detail's own members on the wire.
    public var payment: PaymentInfo
    /// Its state changes, oldest first.
    public var events: [PaymentEventInfo]
    /// Why the payee's receipt was refused (this side is the payer, and the receipt did not state the payment as
    /// this side holds it, or did not verify); null when none was refused.
    public var receiptRefused: String?

    /// A payment with its events.
    public init(payment: PaymentInfo, events: [PaymentEventInfo], receiptRefused: String? = nil) {
        self.payment = payment
        self.events = events
        self.receiptRefused = receiptRefused
    }

    private enum CodingKeys: String, CodingKey {
        case events, receiptRefused
    }

    /// The payment's members, `events` and `receiptRefused`, in one object.
    public init(from decoder: any Decoder) throws {
        payment = try PaymentInfo(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        events = try container.decode([PaymentEventInfo].self, forKey: .events)
        receiptRefused = try container.decodeIfPresent(String.self, forKey: .receiptRefused)
    }

    /// The payment's members, `events` and `receiptRefused` (null when none), in one object.
    public func encode(to encoder: any Encoder) throws {
        try payment.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(events, forKey: .events)
        try container.encode(receiptRefused, forKey: .receiptRefused)
    }
}

/// One state change of a payment (`show`'s `events`).
public struct PaymentEventInfo: Codable, Sendable, Equatable {
    /// When (Unix time).
    public var at: Int64
    /// The state before; null for the first event.
    @Nullable public var from: String?
    /// The state after.
    public var to: String
    /// What caused it, e.g. `local-command`.
    public var cause: String
    /// More about it.
    @Nullable public var detail: String?

    /// An event.
    public init(at: Int64, from: String?, to: String, cause: String, detail: String?) {
        self.at = at
        self.from = from
        self.to = to
        self.cause = cause
        self.detail = detail
    }
}

/// The answer of `list`, `history` and `export`.
public struct PaymentList: Codable, Sendable, Equatable {
    /// The payments.
    public var payments: [PaymentInfo]
    /// `export` only, when the daemon's configuration sets one: the account pattern of a payment's peer in books
    /// (`[export] account`), which `interpay export --format ledger|beancount` uses unless `--account` is given.
    /// Absent from every other answer.
    public var account: String?

    /// A list.
    public init(payments: [PaymentInfo], account: String? = nil) {
        self.payments = payments
        self.account = account
    }
}

/// The answer of `receipt`.
public struct ReceiptInfo: Codable, Sendable, Equatable {
    /// What the signed receipt says, member by member, for a program (the web app) to word in its own language.
    public struct Details: Codable, Sendable, Equatable {
        /// The amount, a decimal string with the currency's digits.
        public var amount: String
        /// Its ISO 4217 code.
        public var currency: String
        /// The amount in minor units.
        public var minorUnits: Int64
        /// The payer as the receipt names it (its name as it was when signed, and its ID).
        public var payer: PeerIdentity
        /// The payee, who signed it, likewise.
        public var payee: PeerIdentity
        /// The payer as every surface names a signed party (`PeerLabel.identified`: `name (SHORTID)`, escaped).
        public var payerLabel: String
        /// The payee likewise.
        public var payeeLabel: String
        /// When the payment was accepted (Unix time).
        public var acceptedAt: Int64
        /// When it was settled (Unix time).
        public var settledAt: Int64

        public init(
            amount: String, currency: String, minorUnits: Int64, payer: PeerIdentity, payee: PeerIdentity,
            acceptedAt: Int64, settledAt: Int64
        ) {
            self.amount = amount
            self.currency = currency
            self.minorUnits = minorUnits
            self.payer = payer
            self.payee = payee
            self.payerLabel = PeerLabel.identified(name: payer.name, shortID: payer.shortID)
            self.payeeLabel = PeerLabel.identified(name: payee.name, shortID: payee.shortID)
            self.acceptedAt = acceptedAt
            self.settledAt = settledAt
        }
    }

    /// The payment ID.
    public var payment: String
    /// The receipt's canonical text, exactly as the payee signed it.
    public var receipt: String
    /// Its one-line summary, in English.
    @Nullable public var summary: String?
    /// Its members (nil where `summary` is).
    @Nullable public var details: Details?

    /// A receipt.
    public init(payment: String, receipt: String, summary: String?, details: Details? = nil) {
        self.payment = payment
        self.receipt = receipt
        self.summary = summary
        self.details = details
    }
}
