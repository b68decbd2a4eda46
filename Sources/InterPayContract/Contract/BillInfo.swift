public import InterPayCore

/// A split bill this daemon made, as `split`, `bills` and `cancel-bill` answer it and the `bill-updated` event
/// carries it (PROTOCOL.md §8.8): its terms, its state derived from its shares', and what was collected and is left.
public struct BillInfo: Codable, Sendable, Equatable {
    /// The bill's ID (a UUID).
    public var id: String
    /// The ID as people read and type it (`RecordShortID`).
    public var shortID: String
    /// `open`, `complete`, `partial` or `failed` (`BillState`).
    public var state: BillState
    /// The total, a decimal string with the currency's digits.
    public var total: String
    /// The ISO 4217 code.
    public var currency: String
    /// The total in minor units.
    public var minorUnits: Int64
    /// What it is for (every share's memo).
    public var memo: String
    /// Every share's category.
    @Nullable public var category: String?
    /// How many payers.
    public var payers: Int64
    /// The sum of the shares accepted (and possibly paid or settled since), a decimal string.
    public var collected: String
    /// What is left: the sum of the shares not accepted (pending, or rejected, cancelled or expired).
    public var left: String
    /// How many shares are accepted, pending, and rejected, cancelled or expired.
    public var accepted: Int64
    /// How many shares wait for their payer.
    public var pending: Int64
    /// How many shares were refused, cancelled or expired.
    public var declined: Int64
    /// When it was made, and when the user cancelled it (null if never), Unix times.
    public var createdAt: Int64
    /// When the user cancelled it.
    @Nullable public var cancelledAt: Int64?
    /// Its shares, one payment per payer, in the order they were named.
    public var shares: [PaymentInfo]

    /// A bill.
    public init(
        id: String, shortID: String, state: BillState, total: String, currency: String, minorUnits: Int64,
        memo: String, category: String?, payers: Int64, collected: String, left: String, accepted: Int64,
        pending: Int64, declined: Int64, createdAt: Int64, cancelledAt: Int64?, shares: [PaymentInfo]
    ) {
        self.id = id
        self.shortID = shortID
        self.state = state
        self.total = total
        self.currency = currency
        self.minorUnits = minorUnits
        self.memo = memo
        self.category = category
        self.payers = payers
        self.collected = collected
        self.left = left
        self.accepted = accepted
        self.pending = pending
        self.declined = declined
        self.createdAt = createdAt
        self.cancelledAt = cancelledAt
        self.shares = shares
    }
}

/// The answer of `bills`: this daemon's bills, newest first.
public struct BillList: Codable, Sendable, Equatable {
    /// The bills.
    public var bills: [BillInfo]

    /// A list.
    public init(bills: [BillInfo]) {
        self.bills = bills
    }
}

/// A payment's link to the split bill it is a share of (`bill` of a payment).
public struct PaymentBillLink: Codable, Sendable, Equatable {
    /// The bill's ID: one of this daemon's bills for a payment it asked for, the payee's for one it is asked to pay.
    public var id: String
    /// How many payers the bill has.
    public var payers: Int64

    /// A link.
    public init(id: String, payers: Int64) {
        self.id = id
        self.payers = payers
    }
}

extension BillState: ControlChoice {}
