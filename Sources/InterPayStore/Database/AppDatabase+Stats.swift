import GRDB
public import InterPayCore

extension AppDatabase {
    /// Count, total and average of accepted payments per group, currency and role, and how many of them (and how
    /// much) are settled; refunds net out of the totals (and are not counted as payments).
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
        // A refund (PROTOCOL.md §8.7) nets out of the payment it gives money back of: counted under that payment's
        // role (a shop's refund takes from its sales, not adds to its spending) with its amount negative, and not as
        // a payment of its own. It carries the refunded payment's category, so each group nets too.
        var sql = """
            SELECT \(grouping.column) AS groupKey, currency, netRole AS role, SUM(refundOf IS NULL) AS count,
                SUM(signedMinor) AS totalMinor, 0 AS averageMinor,
                SUM(state = 'settled' AND refundOf IS NULL) AS settledCount,
                COALESCE(SUM(CASE WHEN state = 'settled' THEN signedMinor END), 0) AS settledMinor
            FROM (
                SELECT *,
                    CASE WHEN refundOf IS NULL THEN role WHEN role = 'payee' THEN 'payer' ELSE 'payee' END AS netRole,
                    CASE WHEN refundOf IS NULL THEN amountMinor ELSE -amountMinor END AS signedMinor
                FROM payment
                WHERE \(conditions.joined(separator: " AND "))
            )
            GROUP BY groupKey, currency, netRole
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
