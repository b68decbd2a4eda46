public import InterPayCore

/// A subscription (a series of payment requests) as `subscriptions` lists it and `offer`, `approve`, `decline` and
/// `unsubscribe` answer it, and as the `series-updated` event carries it.
public struct SeriesInfo: Codable, Sendable, Equatable {
    /// The series' peer: shown, and trusted, as a payment's peer is.
    public typealias Peer = PaymentPeer

    /// The series ID.
    public var id: String
    /// The ID as people read and type it (`RecordShortID`), unique among the series of the same answer.
    public var shortID: String
    /// `out` for the payee's side, `in` for the payer's.
    public var direction: PaymentDirection
    /// The other side.
    public var peer: Peer
    /// The amount of each period, a decimal string.
    public var amount: String
    /// The ISO 4217 currency code.
    public var currency: String
    /// `week`, `month` or `year`; `seconds` when the series has fixed-length test periods (`periodSeconds`), whatever
    /// calendar period the offer named.
    public var every: String
    /// How many periods; null for no end.
    @Nullable public var count: Int64? {
        didSet { shownState = StateWords.shownState(state, count: count, nextDue: nextDue) }
    }
    /// When the first period falls due (Unix time).
    public var start: Int64
    /// The time zone the due dates are kept in.
    public var timeZone: String
    /// A fixed period in seconds (tests), instead of `every`.
    @Nullable public var periodSeconds: Int64?
    /// What it is for.
    public var memo: String
    /// A category for statistics.
    @Nullable public var category: String?
    /// `offered`, `approved`, `declined` or `ended`.
    public var state: SeriesState {
        didSet { shownState = StateWords.shownState(state, count: count, nextDue: nextDue) }
    }
    /// The state every surface shows (`StateWords`): `ended` also once none of its periods is due any more.
    public private(set) var shownState: SeriesState
    /// The payer's cap per period, a decimal string.
    @Nullable public var cap: String?
    /// The next due date (Unix time); null when none is left.
    @Nullable public var nextDue: Int64? {
        didSet { shownState = StateWords.shownState(state, count: count, nextDue: nextDue) }
    }
    /// Periods requested so far.
    public var instances: Int64
    /// Periods accepted so far (also those since paid or settled).
    public var accepted: Int64
    /// Periods paid or settled so far.
    public var paid: Int64
    /// Why it was declined or ended.
    @Nullable public var reason: String?
    /// Which side ended it.
    @Nullable public var endedBy: String?
    /// False while the peer has not received the last change.
    public var delivered: Bool
    /// Unix times.
    public var createdAt: Int64
    /// The last change.
    public var updatedAt: Int64
    /// The payer: how many periods the approval accepts without asking, if it counts periods.
    @Nullable public var approvedPeriods: Int64?
    /// The payer: the total the approval accepts without asking, a decimal string, if it counts an amount.
    @Nullable public var approvedTotal: String?
    /// The payer: periods accepted without asking under the approval so far.
    public var autoAccepted: Int64
    /// The payer: their sum, a decimal string.
    public var autoAcceptedTotal: String

    /// A series.
    public init(
        id: String, shortID: String, direction: PaymentDirection, peer: Peer, amount: String, currency: String,
        every: String,
        count: Int64?,
        start: Int64, timeZone: String, periodSeconds: Int64?, memo: String, category: String?, state: SeriesState,
        cap: String?, nextDue: Int64?, instances: Int64, accepted: Int64, paid: Int64, reason: String?,
        endedBy: String?,
        delivered: Bool, createdAt: Int64, updatedAt: Int64, approvedPeriods: Int64? = nil,
        approvedTotal: String? = nil, autoAccepted: Int64 = 0, autoAcceptedTotal: String = "0"
    ) {
        self.id = id
        self.shortID = shortID
        self.direction = direction
        self.peer = peer
        self.amount = amount
        self.currency = currency
        self.every = every
        self.count = count
        self.start = start
        self.timeZone = timeZone
        self.periodSeconds = periodSeconds
        self.memo = memo
        self.category = category
        self.state = state
        self.cap = cap
        self.nextDue = nextDue
        self.shownState = StateWords.shownState(state, count: count, nextDue: nextDue)
        self.instances = instances
        self.accepted = accepted
        self.paid = paid
        self.reason = reason
        self.endedBy = endedBy
        self.delivered = delivered
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.approvedPeriods = approvedPeriods
        self.approvedTotal = approvedTotal
        self.autoAccepted = autoAccepted
        self.autoAcceptedTotal = autoAcceptedTotal
    }
}

/// The answer of `subscriptions`.
public struct SeriesList: Codable, Sendable, Equatable {
    /// Every series, both sides.
    public var series: [SeriesInfo]

    /// A list.
    public init(series: [SeriesInfo]) {
        self.series = series
    }
}
