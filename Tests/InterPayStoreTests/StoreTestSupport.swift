import Foundation
import GRDB
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

/// A base time for tests: `createdAt` of most payments (2026-11-18).
let baseTime: Int64 = 1_795_000_000

/// `baseTime` moved by `seconds`.
func at(_ seconds: Int64 = 0) -> Timestamp { Timestamp(secondsSince1970: baseTime + seconds) }

/// Test identities: 32 bytes of one repeated value each.
enum Peers {
    static func us() throws -> PeerID { try PeerID(bytes: Array(repeating: 1, count: 32)) }
    static func bob() throws -> PeerID { try PeerID(bytes: Array(repeating: 2, count: 32)) }
    static func carol() throws -> PeerID { try PeerID(bytes: Array(repeating: 3, count: 32)) }
}

/// A payment request with defaults for everything a test does not care about.
func makeRequest(
    id: UUID = UUID(), payee: PeerID, payer: PeerID, minorUnits: Int64 = 1250, currency: String = "MXN",
    memo: String = "tacos", category: String? = nil, createdAt: Timestamp = at(), lifetime: Int64 = 900
) throws -> PaymentRequest {
    try PaymentRequest(
        id: id, payee: payee, payer: payer, amount: Money(minorUnits: minorUnits, currency: try CurrencyCode(currency)),
        memo: memo, category: category, createdAt: createdAt, expiresAt: createdAt.adding(seconds: lifetime))
}

/// The change the payee commits for a new outgoing request (E1): the payment, its event and the `request` frame.
func outgoingRequestChange(
    _ request: PaymentRequest, messageID: UUID = UUID(), now: Timestamp
) throws
    -> LedgerChange
{
    let (lifecycle, actions) = PaymentLifecycle.newRequest(request, messageID: messageID)
    guard case .send(let message) = actions.first else {
        Issue.record("newRequest did not ask to send a frame")
        return LedgerChange()
    }
    return LedgerChange(
        payment: PaymentRecord(request: request, lifecycle: lifecycle, now: now),
        events: [
            PaymentEventRecord(
                paymentID: request.id, at: now, from: nil, to: .pending, cause: .created, messageID: messageID)
        ],
        outbox: [
            try OutboxRecord(message: message, to: request.payer, createdAt: now, retryUntil: request.expiresAt)
        ])
}

/// The change the payer commits for an incoming request (R1/R2): the payment, its event and the answer.
func incomingRequestChange(
    _ request: PaymentRequest, messageID: UUID = UUID(), now: Timestamp
) throws
    -> LedgerChange
{
    let (lifecycle, actions) = PaymentLifecycle.receivedRequest(request, messageID: messageID, now: now)
    guard case .acknowledge(let ackedID, let state, let reasonCode) = actions.last else {
        Issue.record("receivedRequest did not ask to acknowledge")
        return LedgerChange()
    }
    let ack = PaymentMessage.ack(.init(ackedID: ackedID, paymentID: request.id, state: state, reasonCode: reasonCode))
    return LedgerChange(
        payment: PaymentRecord(request: request, lifecycle: lifecycle, now: now),
        events: [
            PaymentEventRecord(
                paymentID: request.id, at: now, from: nil, to: lifecycle.state, cause: .received, messageID: messageID)
        ],
        seenMessage: try SeenMessageRecord(
            messageID: messageID, peerID: request.payee, paymentID: request.id, receivedAt: now, response: ack),
        peer: PeerRecord(peerID: request.payee, name: "Bob", address: nil, seenAt: now))
}

/// Stores a payment directly in a given state (for list and statistics tests).
@discardableResult
func storePayment(
    in database: AppDatabase, role: PaymentRole, peer: PeerID, state: PaymentState = .accepted,
    confirmed: Bool = true, minorUnits: Int64 = 1250, currency: String = "MXN", category: String? = nil,
    createdAt: Timestamp = at(), id: UUID = UUID()
) async throws -> PaymentRecord {
    let us = try Peers.us()
    let request = try makeRequest(
        id: id, payee: role == .payee ? us : peer, payer: role == .payee ? peer : us, minorUnits: minorUnits,
        currency: currency, category: category, createdAt: createdAt)
    let record = PaymentRecord(request: request, role: role, state: state, confirmed: confirmed, now: createdAt)
    try await database.apply(
        LedgerChange(
            payment: record,
            events: [PaymentEventRecord(paymentID: id, at: createdAt, from: nil, to: state, cause: .created)]))
    return record
}

/// Runs raw SQL in a write transaction, as a test's way around the typed API.
func execute(_ sql: String, in database: AppDatabase) async throws(StoreError) {
    try await database.write("test SQL") { db in
        try db.execute(sql: sql)
    }
}

/// Expects `body` to fail with `StoreError.constraintViolated` and returns the reason.
@discardableResult
func expectConstraintViolation(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> String? {
    do {
        try await body()
        Issue.record("expected a constraint violation, but it succeeded", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        if case .constraintViolated(_, let reason) = error { return reason }
        Issue.record("expected a constraint violation, got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A ledger file in `directory` with the schema as it was after `migration`, opened as every ledger is (foreign keys
/// on, SQLite's process-wide settings applied before its first connection, which this process's other tests count on:
/// SQLiteSettingsTests): for a migration's test to fill as an older version would have.
func ledger(migratedUpTo migration: String, in directory: TemporaryDirectory) throws -> (DatabaseQueue, String) {
    let path = directory.path("ledger.sqlite")
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    AppDatabase.applySQLiteSettings()
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    try AppDatabase.migrator.migrate(queue, upTo: migration)
    return (queue, path)
}
