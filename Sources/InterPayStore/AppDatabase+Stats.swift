import GRDB
public import InterPayCore

extension AppDatabase {
    /// Count, total and average of accepted payments per group, currency and role, and how many of them (and how
    /// much) are settled.
    ///
    /// Only payments in state `accepted`, `paid` or `settled` count, and by default only confirmed ones (a payer's own accept is not
    /// final until the payee's ack arrives; it may still end `cancelled` or `expired`). `since` keeps payments
    /// created at or after that time. Amounts of different currencies are never added: each row has one currency.
    /// Sums and averages are integers in minor units; the average is `totalMinor / count` rounded half to even
    /// (`Money.averageMinorUnits`).
    /// A sum beyond 64 bits fails with `StoreError.database` (SQLite's "integer overflow") rather than being wrong.
    ///
    /// Rows are ordered by group key (nil last), currency, role. Grouped by peer, each row carries the peer's names
    /// (`announcedName`, `pinnedName`) from the same read.
    public func stats(
        since: Timestamp? = nil, groupBy grouping: StatsGrouping, includingUnconfirmed: Bool = false
    ) async throws(StoreError) -> [StatsRow] {
        var conditions = ["state IN ('accepted', 'paid', 'settled')"]
        var arguments = StatementArguments()
        if !includingUnconfirmed {
            // A payer's own `paid` mark awaits the payee, but the acceptance under it was confirmed already.
            conditions.append("(confirmed = 1 OR state = 'paid')")
        }
        if let since {
            conditions.append("createdAt >= ?")
            _ = arguments.append(contentsOf: [since.secondsSince1970])
        }
        // `grouping.column` is one of three fixed column names, never user input.
        var sql = """
            SELECT \(grouping.column) AS groupKey, currency, role, COUNT(*) AS count,
                SUM(amountMinor) AS totalMinor, 0 AS averageMinor,
                SUM(state = 'settled') AS settledCount,
                COALESCE(SUM(CASE WHEN state = 'settled' THEN amountMinor END), 0) AS settledMinor
            FROM payment
            WHERE \(conditions.joined(separator: " AND "))
            GROUP BY groupKey, currency, role
            """
        if grouping == .peer {
            sql = """
                SELECT s.*, peer.name AS announcedName, trustedPeer.name AS pinnedName,
                    trustedPeer.pairedName AS pairedName FROM (\(sql)) AS s
                LEFT JOIN peer ON peer.peerID = s.groupKey LEFT JOIN trustedPeer ON trustedPeer.peerID = s.groupKey
                """
        }
        sql += "\nORDER BY groupKey IS NULL, groupKey, currency, role"
        return try await read("compute statistics by \(grouping.rawValue)") { [sql, arguments] db in
            try StatsRow.fetchAll(db, sql: sql, arguments: arguments).map { row in
                var row = row
                row.averageMinor = Money.averageMinorUnits(total: row.totalMinor, count: row.count)
                return row
            }
        }
    }
}
