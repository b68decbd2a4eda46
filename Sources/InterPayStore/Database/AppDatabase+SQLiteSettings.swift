import CSQLite

extension AppDatabase {
    /// Applies SQLite's process-wide settings, once per process and before the first connection opens: SQLite takes
    /// them only until it initializes. `init(path:)` and `inMemory()` call it first; a program that opens SQLite
    /// otherwise before them (the engine benchmark's commit baseline) calls it itself, so that both are measured
    /// alike.
    ///
    /// The one setting: no memory statistics. With them on (SQLite's default, and Debian's build), every allocation
    /// and free in SQLite takes a process-wide mutex to count bytes that nothing here reads (no soft heap limit, no
    /// `sqlite3_memory_used`); a payment step allocates hundreds of times. Measured with `interpay-bench`, 64
    /// senders, alternated runs: 2,769–2,953 → 3,493–3,550 requests/s, CPU per request 461–525 → 400–410 µs.
    /// Where SQLite was initialized already, the statistics stay on: slower, not wrong.
    public static func applySQLiteSettings() {
        _ = sqliteSettingsApplied
    }

    /// Whether SQLite took the settings (false: it was initialized before). Swift runs a static's initializer once,
    /// whichever thread asks first.
    static let sqliteSettingsApplied: Bool = interpay_sqlite3_disable_memory_statistics() != 0
}
