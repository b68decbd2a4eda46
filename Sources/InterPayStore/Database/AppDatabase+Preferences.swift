import GRDB

extension AppDatabase {
    /// A preference the user set at run time, kept across restarts (`preference` table).
    public enum Preference: String, Sendable {
        /// The currency amounts are shown and quoted in: an ISO 4217 code.
        case preferredCurrency
    }

    /// The value stored for `preference`, or nil when the user never set it (or cleared it).
    public func preference(_ preference: Preference) async throws(StoreError) -> String? {
        try await read("read the \(preference.rawValue) preference") { db in
            try String.fetchOne(
                db, sql: "SELECT value FROM preference WHERE name = ?", arguments: [preference.rawValue])
        }
    }

    /// Stores `value` for `preference`, replacing what was there; nil removes it.
    public func setPreference(_ preference: Preference, to value: String?) async throws(StoreError) {
        try await write("store the \(preference.rawValue) preference") { db in
            if let value {
                try db.execute(
                    sql: "INSERT INTO preference (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = ?",
                    arguments: [preference.rawValue, value, value])
            } else {
                try db.execute(sql: "DELETE FROM preference WHERE name = ?", arguments: [preference.rawValue])
            }
        }
    }
}

extension AppDatabase {
    /// `preference(_:)` without suspending: for start-up, when the services are being composed and nothing else
    /// uses the ledger yet (one indexed read).
    public func preferenceAtStartup(_ preference: Preference) throws(StoreError) -> String? {
        do {
            return try writer.read { db in
                try String.fetchOne(
                    db, sql: "SELECT value FROM preference WHERE name = ?", arguments: [preference.rawValue])
            }
        } catch {
            throw StoreError(operation: "read the \(preference.rawValue) preference", error)
        }
    }
}
