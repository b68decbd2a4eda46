public import Foundation
import GRDB
public import InterPayCore

extension Ledger {
    // MARK: Series

    /// The series with this ID, if stored.
    public func series(id: UUID) throws -> SeriesRecord? {
        try SeriesRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM series WHERE id = ?"), arguments: [id.wireString])
    }

    /// The series `payerID` is asked to pay, ours as the payee, offered or approved: those whose periods' payment
    /// IDs are still to be used by us.
    public func seriesBilling(payerID: PeerID) throws -> [SeriesRecord] {
        try SeriesRecord
            .filter(
                sql: "role = 'payee' AND payerID = ? AND state IN ('offered', 'approved')",
                arguments: [payerID.description]
            )
            .fetchAll(db)
    }

    /// The series this side requests periods of: ours as the payee, approved, with periods left to request.
    public func seriesToSchedule() throws -> [SeriesRecord] {
        try SeriesRecord
            .filter(
                sql:
                    "role = 'payee' AND state = 'approved' AND (lastIndex IS NULL OR lastIndex < COALESCE(count, 10000) - 1)"
            )
            .order(SeriesRecord.Columns.createdAt, SeriesRecord.Columns.id)
            .fetchAll(db)
    }

    /// The series with a frame of ours waiting for `peerID`'s ack, oldest first.
    public func seriesOutbox(peerID: PeerID) throws -> [SeriesRecord] {
        try SeriesRecord
            .filter(sql: "peerID = ? AND outMessageID IS NOT NULL", arguments: [peerID.description])
            .order(SeriesRecord.Columns.updatedAt, SeriesRecord.Columns.id)
            .fetchAll(db)
    }

    /// Makes room for one more offer from `peerID` among the offers this side never approved (waiting for the user,
    /// or declined or ended before any approval): at most `perPeer` of the peer's and `total` of everyone's are kept.
    /// The oldest that are over, have no payment and no frame of ours still to deliver (a decline the peer has not
    /// acknowledged) go first. False when the rest fill a bound (offers waiting for the user, or with payments): the
    /// new offer is then refused.
    ///
    /// Counting only the waiting offers let a peer offer and end, or (with `accept_from = "paired"`) just offer,
    /// again and again: a row each, for good, and every `list` read them all.
    public func makeRoomForOffer(from peerID: PeerID, perPeer: Int, total: Int) throws -> Bool {
        let unapproved = "role = 'payer' AND capMinor IS NULL"
        func room(_ scope: String, _ arguments: StatementArguments, limit: Int) throws -> Bool {
            let count =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM series WHERE \(unapproved)\(scope)", arguments: arguments)
                ?? 0
            guard count >= limit else { return true }
            try db.execute(
                sql: """
                    DELETE FROM series WHERE id IN (
                        SELECT id FROM series WHERE \(unapproved)\(scope) AND state IN ('declined', 'ended')
                            AND outMessageID IS NULL
                            AND NOT EXISTS (SELECT 1 FROM payment WHERE payment.seriesID = series.id)
                        ORDER BY updatedAt, id LIMIT ?)
                    """, arguments: arguments + [count - limit + 1])
            return db.changesCount == count - limit + 1
        }
        return try room(" AND peerID = ?", [peerID.description], limit: perPeer)
            && room("", [], limit: total)
    }
}

extension AppDatabase {
    /// Every series stored, newest first, with how many of its periods were requested, accepted and paid here.
    public func seriesList() async throws(StoreError) -> [SeriesView] {
        try await read("list series") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT series.*,
                        (SELECT COUNT(*) FROM payment WHERE payment.seriesID = series.id) AS instances,
                        (SELECT COUNT(*) FROM payment WHERE payment.seriesID = series.id
                            AND payment.state IN ('accepted', 'paid', 'settled')) AS acceptedCount,
                        (SELECT COUNT(*) FROM payment WHERE payment.seriesID = series.id
                            AND payment.state IN ('paid', 'settled')) AS paidCount,
                        (SELECT name FROM trustedPeer WHERE trustedPeer.peerID = series.peerID) AS pinnedName,
                        (SELECT pairedName FROM trustedPeer WHERE trustedPeer.peerID = series.peerID)
                            AS pairedName,
                        (SELECT name FROM peer WHERE peer.peerID = series.peerID) AS announcedName
                    FROM series ORDER BY createdAt DESC, id
                    """)
            return try rows.map { row in
                SeriesView(
                    series: try SeriesRecord(row: row), instances: row["instances"], accepted: row["acceptedCount"],
                    paid: row["paidCount"],
                    announcedName: row["announcedName"], pinnedName: row["pinnedName"],
                    pairedName: row["pairedName"])
            }
        }
    }

    /// The series whose ID starts or ends with `idPrefix` (at least `minimumPrefixLength` characters,
    /// `RecordShortID`), newest first.
    public func series(idPrefix: String) async throws(StoreError) -> [SeriesRecord] {
        try await records(SeriesRecord.self, idPrefix: idPrefix, named: "series")
    }
}
