public import Foundation
import GRDB
public import InterPayCore

extension AppDatabase {
    /// How many characters of a payment ID a person must type at least (`payments(idPrefix:)`).
    public static let minimumPrefixLength = 4

    /// The payment with this ID, if stored.
    public func payment(id: UUID) async throws(StoreError) -> PaymentRecord? {
        try await read("read payment \(id.wireString)") { db in
            try Ledger(db).payment(id: id)
        }
    }

    /// How many refunds payment `id` carries and their sum (see `Ledger.refundTotals(of:)`).
    public func refundTotals(of id: UUID) async throws(StoreError) -> RefundTotals {
        try await read("read the refunds of payment \(id.wireString)") { db in
            try Ledger(db).refundTotals(of: id)
        }
    }

    /// The payments whose ID starts or ends with `idPrefix` (case-insensitive, in the text form with dashes:
    /// `RecordShortID`), newest first. The CLI resolves abbreviated IDs with it: one result is a match, several are
    /// ambiguous.
    ///
    /// Throws `StoreError.invalidPrefix` when the text is shorter than `minimumPrefixLength` or has characters
    /// that cannot appear in a UUID.
    public func payments(idPrefix: String) async throws(StoreError) -> [PaymentRecord] {
        try await records(PaymentRecord.self, idPrefix: idPrefix, named: "payments")
    }

    /// `idPrefix` trimmed and lowercased, or `StoreError.invalidPrefix` when it is shorter than
    /// `minimumPrefixLength` or has characters that cannot appear in a UUID.
    static func checkedPrefix(_ idPrefix: String) throws(StoreError) -> String {
        if let typed = RecordShortID.typed(idPrefix) { return typed }
        let prefix = idPrefix.trimmingCharacters(in: .whitespaces)
        guard prefix.count >= Self.minimumPrefixLength else {
            throw .invalidPrefix(
                idPrefix, reason: "type at least \(Self.minimumPrefixLength) characters of the ID, as lists show it")
        }
        throw .invalidPrefix(idPrefix, reason: "an ID has only the digits 0-9, the letters a-f and '-'")
    }

    /// The SQL condition on `id` that `RecordShortID.matches(_:id:)` is, for a checked text: a range scan of the
    /// primary key for the prefix (IDs are stored in lower case, a CHECK guarantees it, and the text has no GLOB
    /// wildcard), and a scan of the table for the tail.
    static let idMatchSQL = "(id GLOB ? OR id GLOB ?)"

    /// The two arguments of `idMatchSQL` for a checked text.
    static func idMatchArguments(_ typed: String) -> StatementArguments { [typed + "*", "*" + typed] }

    /// The rows of `Record`'s table whose `id` starts or ends with `idPrefix` (see `checkedPrefix(_:)`), newest (by
    /// `createdAt`) first; `what` names them in an error.
    func records<Record: FetchableRecord & TableRecord & Sendable>(
        _: Record.Type, idPrefix: String, named what: String
    ) async throws(StoreError) -> [Record] {
        let prefix = try Self.checkedPrefix(idPrefix)
        return try await read("find \(what) by ID \(prefix)") { db in
            try Record
                .filter(sql: Self.idMatchSQL, arguments: Self.idMatchArguments(prefix))
                .order(Column("createdAt").desc, Column("id"))
                .fetchAll(db)
        }
    }

    /// The payments that match `filter`, newest (by `createdAt`) first.
    public func payments(filter: PaymentFilter = PaymentFilter()) async throws(StoreError) -> [PaymentRecord] {
        try await read("list payments") { db in
            var request = PaymentRecord.all()
            if let state = filter.state {
                request = request.filter(PaymentRecord.Columns.state == state.rawValue)
            }
            if let role = filter.role {
                request = request.filter(PaymentRecord.Columns.role == role.rawValue)
            }
            if let peerID = filter.peerID {
                request = request.filter(PaymentRecord.Columns.peerID == peerID.description)
            }
            if filter.finalOnly {
                request = request.filter(PaymentRecord.Columns.state != PaymentState.pending.rawValue)
            }
            request = request.order(PaymentRecord.Columns.createdAt.desc, PaymentRecord.Columns.id)
            if let limit = filter.limit {
                request = request.limit(max(0, limit))
            }
            return try request.fetchAll(db)
        }
    }

    /// The payments an expiry check must look at: those still `pending`, and a payer's unconfirmed ones (which
    /// never expire locally but wait for the payee's answer). Soonest `expiresAt` first.
    public func pendingPayments() async throws(StoreError) -> [PaymentRecord] {
        try await read("list open payments") { db in
            try PaymentRecord
                .filter(sql: "state = 'pending' OR confirmed = 0")
                .order(PaymentRecord.Columns.expiresAt, PaymentRecord.Columns.id)
                .fetchAll(db)
        }
    }

    /// The pending payments whose `expiresAt` has come (`expiresAt <= now`): what one expiry check handles, soonest
    /// first. Only `pending` ones: expiry changes nothing else (a payer's unconfirmed decision waits for the payee's
    /// answer, not for the clock), and listing those too made every check reload every expired payer row, forever.
    /// The partial index `payment_pending_on_expiresAt` makes this a look-up of what is due, whatever the ledger's
    /// size.
    public func duePayments(now: Timestamp) async throws(StoreError) -> [PaymentRecord] {
        try await read("list due payments") { db in
            try Ledger(db).duePayments(now: now)
        }
    }

    /// How many of `peerID`'s requests to us are pending and not yet past expiry at `now` (a count, not a list).
    public func pendingIncomingCount(from peerID: PeerID, now: Timestamp) async throws(StoreError) -> Int {
        try await read("count pending requests of \(peerID.shortDescription)") { db in
            try Ledger(db).pendingIncomingCount(from: peerID, now: now)
        }
    }

    /// How many requests to us from peers that are not paired are pending and not yet past expiry at `now`, all
    /// such peers together: a flood from many fresh keys is bounded as one.
    public func pendingIncomingCountFromUnpaired(now: Timestamp) async throws(StoreError) -> Int {
        try await read("count pending requests of peers not paired") { db in
            try Ledger(db).pendingIncomingCountFromUnpaired(now: now)
        }
    }

    /// The event log of one payment, oldest first.
    public func events(paymentID: UUID) async throws(StoreError) -> [PaymentEventRecord] {
        try await read("read the events of payment \(paymentID.wireString)") { db in
            try PaymentEventRecord
                .filter(PaymentEventRecord.Columns.paymentID == paymentID.wireString)
                .order(PaymentEventRecord.Columns.id)
                .fetchAll(db)
        }
    }

    /// The frame with this `messageID` from `peer` that we already processed, with the answer we gave, if any.
    /// (`messageID`s are unique per sender only.)
    public func seenMessage(id: UUID, from peer: PeerID) async throws(StoreError) -> SeenMessageRecord? {
        try await read("look up message \(id.wireString)") { db in
            try Ledger(db).seenMessage(id: id, from: peer)
        }
    }
}

/// The refunds one payment carries: how many, and their sum in minor units of its currency.
public struct RefundTotals: Sendable, Hashable {
    /// How many refunds.
    public var count: Int
    /// Their sum.
    public var minor: Int64

    /// Counts and sums.
    public init(count: Int, minor: Int64) {
        self.count = count
        self.minor = minor
    }
}
