import Foundation
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger: subscription series", .tearsDown)
struct SeriesStoreTests {
    static func offer() throws -> SeriesOffer {
        try SeriesOffer(
            payee: try Peers.us(), payer: try Peers.bob(),
            amount: Money(minorUnits: 30_00, currency: CurrencyCode("EUR")),
            period: .month, start: at(), count: 12, timeZone: "Europe/Berlin", periodSeconds: nil, memo: "gym",
            category: "sport")
    }

    @Test("a series and its period's payment are one change; the list counts periods and paid ones")
    func seriesWithPayment() async throws {
        let database = try AppDatabase.inMemory()
        let seriesID = UUID()
        var series = SeriesRecord(id: seriesID, offer: try Self.offer(), role: .payee, state: .approved, now: at())
        series.capMinor = 35_00
        series.lastIndex = 0
        let request = try PaymentRequest(
            id: SeriesMachine.instanceID(series: seriesID, index: 0), payee: try Peers.us(), payer: try Peers.bob(),
            amount: Money(minorUnits: 30_00, currency: CurrencyCode("EUR")), memo: "gym", category: "sport",
            createdAt: at(), expiresAt: at(900), series: SeriesLink(seriesID: seriesID, index: 0))
        var change = LedgerChange(
            payment: PaymentRecord(request: request, role: .payee, state: .accepted, confirmed: true, now: at()))
        change.series = series
        try await database.apply(change)
        let views = try await database.seriesList()
        #expect(views.count == 1 && views[0].instances == 1 && views[0].accepted == 1 && views[0].paid == 0)
        #expect(views[0].series == series)
        let stored = try #require(try await database.payment(id: request.id))
        #expect(stored.seriesID == seriesID && stored.seriesIndex == 0)
        #expect(try stored.request.series == SeriesLink(seriesID: seriesID, index: 0))
        #expect(try await database.series(idPrefix: String(seriesID.wireString.prefix(6))).map(\.id) == [seriesID])
    }

    @Test("a series stored with a start later than a frame may carry still reads: the wire's bound is not the ledger's")
    func lateStartStillReads() async throws {
        // A ledger written before frames were bounded may hold a peer's `start` of 2^63 - 1: decoded with the wire's
        // bound, that row, and with it every list of series, would not read.
        let database = try AppDatabase.inMemory()
        let series = SeriesRecord(id: UUID(), offer: try Self.offer(), role: .payer, state: .offered, now: at())
        var change = LedgerChange()
        change.series = series
        try await database.apply(change)
        try await execute("UPDATE series SET start = \(Int64.max)", in: database)
        let views = try await database.seriesList()
        #expect(views.count == 1 && views[0].series.start == Timestamp(secondsSince1970: .max))
    }

    @Test("constraints: an ended series stays ended, the last period never goes back, one payment per period")
    func constraints() async throws {
        let database = try AppDatabase.inMemory()
        let seriesID = UUID()
        var series = SeriesRecord(id: seriesID, offer: try Self.offer(), role: .payee, state: .approved, now: at())
        series.lastIndex = 3
        var change = LedgerChange()
        change.series = series
        try await database.apply(change)
        await expectConstraintViolation { try await execute("UPDATE series SET lastIndex = 2", in: database) }
        try await execute("UPDATE series SET state = 'ended'", in: database)
        await expectConstraintViolation { try await execute("UPDATE series SET state = 'approved'", in: database) }
        await expectConstraintViolation { try await execute("UPDATE series SET capMinor = 0", in: database) }
        await expectConstraintViolation {
            try await execute("UPDATE series SET outMessageID = '\(UUID().wireString)'", in: database)
        }
        let first = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await database.apply(try outgoingRequestChange(first, now: at()))
        let second = try makeRequest(payee: try Peers.us(), payer: try Peers.bob())
        try await database.apply(try outgoingRequestChange(second, now: at()))
        let sid = seriesID.wireString
        try await execute(
            "UPDATE payment SET seriesID = '\(sid)', seriesIndex = 1 WHERE id = '\(first.id.wireString)'", in: database)
        await expectConstraintViolation {
            try await execute(
                "UPDATE payment SET seriesID = '\(sid)', seriesIndex = 1 WHERE id = '\(second.id.wireString)'",
                in: database)
        }
    }
}
