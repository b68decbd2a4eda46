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

    /// How many offers are waiting for this side's answer: from `peerID`, and from everyone (bounds on offers).
    public func offeredCounts(from peerID: PeerID) throws -> (peer: Int, all: Int) {
        let peer =
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM series WHERE role = 'payer' AND state = 'offered' AND peerID = ?",
                arguments: [peerID.description]) ?? 0
        let all =
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM series WHERE role = 'payer' AND state = 'offered'") ?? 0
        return (peer, all)
    }
}

extension AppDatabase {
    /// Every series stored, newest first, with how many of its periods were requested and paid here.
    public func seriesList() async throws(StoreError) -> [SeriesView] {
        try await read("list series") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT series.*,
                        (SELECT COUNT(*) FROM payment WHERE payment.seriesID = series.id) AS instances,
                        (SELECT COUNT(*) FROM payment WHERE payment.seriesID = series.id
                            AND payment.state IN ('accepted', 'paid', 'settled')) AS paidCount,
                        COALESCE((SELECT name FROM trustedPeer WHERE trustedPeer.peerID = series.peerID),
                            (SELECT name FROM peer WHERE peer.peerID = series.peerID)) AS peerName
                    FROM series ORDER BY createdAt DESC, id
                    """)
            return try rows.map { row in
                SeriesView(
                    series: try SeriesRecord(row: row), instances: row["instances"], paid: row["paidCount"],
                    peerName: row["peerName"])
            }
        }
    }

    /// The series whose ID starts with `idPrefix` (at least `minimumPrefixLength` characters), newest first.
    public func series(idPrefix: String) async throws(StoreError) -> [SeriesRecord] {
        try await records(SeriesRecord.self, idPrefix: idPrefix, named: "series")
    }
}
