import Foundation
import GRDBSQLite
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger: SQLite's process-wide settings", .tearsDown)
struct SQLiteSettingsTests {
    @Test("SQLite counts no memory: its allocations take no process-wide lock")
    func noMemoryStatistics() async throws {
        // Every connection of this test process is opened after `applySQLiteSettings()` (AppDatabase, and the two
        // migration tests that open GRDB directly), so SQLite took the settings whichever test ran first.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try AppDatabase(path: directory.path("ledger.sqlite"))
        let request = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await database.apply(try outgoingRequestChange(request, now: at()))
        #expect(try await database.payment(id: request.id) != nil)
        #expect(AppDatabase.sqliteSettingsApplied, "SQLite was initialized before the ledger's settings")
        // With the statistics on, this is the number of bytes SQLite holds now: never 0 with a ledger open.
        #expect(sqlite3_memory_used() == 0)
    }
}
