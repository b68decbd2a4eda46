public import InterPayCore

/// Which payments `AppDatabase.payments(filter:)` lists: every criterion that is set must match.
public struct PaymentFilter: Sendable, Hashable {
    /// Only payments in this state.
    public var state: PaymentState?
    /// Only payments where this side has this role (`payee`: outgoing requests; `payer`: incoming ones).
    public var role: PaymentRole?
    /// Only payments with this peer.
    public var peerID: PeerID?
    /// At most this many payments (newest first); nil for all.
    public var limit: Int?
    /// Only final payments (every state but `pending`): the history.
    public var finalOnly: Bool
    /// Only payments created at or after this time.
    public var createdFrom: Timestamp?
    /// Only payments created before this time.
    public var createdBefore: Timestamp?

    /// Builds a filter; the default lists every payment.
    public init(
        state: PaymentState? = nil, role: PaymentRole? = nil, peerID: PeerID? = nil, limit: Int? = nil,
        finalOnly: Bool = false
    ) {
        self.state = state
        self.role = role
        self.peerID = peerID
        self.limit = limit
        self.finalOnly = finalOnly
    }
}
