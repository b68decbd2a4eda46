import Foundation
import GRDB
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger: the pending request counts kept by triggers (v13)", .tearsDown)
struct PendingRequestCountTests {
    /// The counts as rows say them, counted one by one: what the kept counts must always equal.
    static func counted(_ db: Database, peer: PeerID?, now: Timestamp) throws -> Int {
        let peerCondition = peer == nil ? "peerID NOT IN (SELECT peerID FROM trustedPeer)" : "peerID = ?"
        return try Int.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) FROM payment WHERE state = 'pending' AND role = 'payer' AND expiresAt > ?
                    AND \(peerCondition)
                """,
            arguments: StatementArguments([now.secondsSince1970] + (peer.map { [$0.description] } ?? []))) ?? -1
    }

    /// Expects the ledger's counts to equal the rows' at each of `times`.
    static func expectCountsMatch(
        _ database: AppDatabase, peers: [PeerID], at times: [Timestamp],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let pairs = try await database.reader.read { db -> [(kept: Int, counted: Int, what: String)] in
            let ledger = Ledger(db)
            var pairs: [(kept: Int, counted: Int, what: String)] = []
            for now in times {
                for peer in peers {
                    pairs.append(
                        (
                            try ledger.pendingIncomingCount(from: peer, now: now),
                            try counted(db, peer: peer, now: now), "\(peer.shortDescription) at \(now)"
                        ))
                }
                pairs.append(
                    (
                        try ledger.pendingIncomingCountFromUnpaired(now: now), try counted(db, peer: nil, now: now),
                        "peers not paired at \(now)"
                    ))
            }
            return pairs
        }
        for pair in pairs {
            #expect(pair.kept == pair.counted, "\(pair.what)", sourceLocation: sourceLocation)
        }
    }

    @Test("requests stored, decided, expired by time and by the expiry check, of paired and other peers")
    func countsFollowTheRows() async throws {
        let database = try AppDatabase.inMemory()
        let (bob, carol) = (try Peers.bob(), try Peers.carol())
        try await database.trust(TrustedPeerRecord(peerID: carol, name: "Carol", pairedAt: at(0)))
        var bobs: [PaymentRecord] = []
        for index in 0..<5 {
            bobs.append(
                try await storePayment(
                    in: database, role: .payer, peer: bob, state: .pending, createdAt: at(Int64(index))))
        }
        for index in 0..<3 {
            try await storePayment(
                in: database, role: .payer, peer: carol, state: .pending, createdAt: at(Int64(index)))
        }
        // Neither a payment of ours to bob nor one already decided is a pending request to us.
        try await storePayment(in: database, role: .payee, peer: bob, state: .pending)
        try await storePayment(in: database, role: .payer, peer: bob, state: .accepted)
        // Each request lives 900 s from its creation: bob's expire at 900…904.
        let times = [at(0), at(902), at(903), at(1_000)]
        try await Self.expectCountsMatch(database, peers: [bob, carol], at: times)
        #expect(try await database.reader.read { try Ledger($0).pendingIncomingCount(from: bob, now: at(0)) } == 5)
        #expect(
            try await database.reader.read { try Ledger($0).pendingIncomingCount(from: bob, now: at(0), upTo: 2) } == 2)
        #expect(try await database.reader.read { try Ledger($0).pendingIncomingCount(from: bob, now: at(902)) } == 2)
        #expect(try await database.reader.read { try Ledger($0).pendingIncomingCountFromUnpaired(now: at(0)) } == 5)

        // Decided: accepted, rejected; expired by the expiry check.
        for (record, state) in [(bobs[0], PaymentState.accepted), (bobs[1], .rejected), (bobs[4], .expired)] {
            var decided = record
            decided.state = state
            try await database.apply(LedgerChange(payment: decided))
        }
        try await Self.expectCountsMatch(database, peers: [bob, carol], at: times)
        #expect(try await database.reader.read { try Ledger($0).pendingIncomingCount(from: bob, now: at(0)) } == 2)

        // Pairing moves a peer's requests out of the unpaired count, unpairing back into it.
        try await database.trust(TrustedPeerRecord(peerID: bob, name: "Bob", pairedAt: at(5)))
        try await Self.expectCountsMatch(database, peers: [bob, carol], at: times)
        #expect(try await database.untrust(carol))
        try await Self.expectCountsMatch(database, peers: [bob, carol], at: times)

        // A peer whose last pending request is decided has no row left.
        for record in bobs[2...3] {
            var decided = record
            decided.state = .rejected
            try await database.apply(LedgerChange(payment: decided))
        }
        let rows = try await database.reader.read { db in
            try String.fetchAll(db, sql: "SELECT peerID FROM pendingRequestCount")
        }
        #expect(rows == [carol.description])
        try await Self.expectCountsMatch(database, peers: [bob, carol], at: times)
    }

    @Test("v13 counts the pending requests a v12 ledger already holds")
    func migratesAV12Ledger() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (queue, path) = try ledger(migratedUpTo: "v12-write-path", in: directory)
        let (us, bob, carol) = (try Peers.us().description, try Peers.bob().description, try Peers.carol().description)
        try await queue.write { db in
            for (peer, state, role) in [
                (bob, "pending", "payer"), (bob, "pending", "payer"), (bob, "accepted", "payer"),
                (carol, "pending", "payer"), (carol, "pending", "payee"),
            ] {
                let (payee, payer) = role == "payer" ? (peer, us) : (us, peer)
                try db.execute(
                    sql: """
                        INSERT INTO payment (id, role, peerID, payeeID, payerID, amountMinor, currency, memo, state,
                            confirmed, createdAt, expiresAt, updatedAt) VALUES (?, ?, ?, ?, ?, 1250, 'MXN', '', ?, 1, 100,
                            1000, 100)
                        """,
                    arguments: [UUID().wireString, role, peer, payee, payer, state])
            }
        }
        try queue.close()
        let database = try AppDatabase(path: path)
        let counts = try await database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT peerID, count FROM pendingRequestCount ORDER BY count DESC")
                .map { ($0["peerID"] as String, $0["count"] as Int) }
        }
        #expect(counts.map(\.0) == [bob, carol] && counts.map(\.1) == [2, 1])
        try await Self.expectCountsMatch(
            database, peers: [try Peers.bob(), try Peers.carol()],
            at: [Timestamp(secondsSince1970: 500), Timestamp(secondsSince1970: 1_000)])
    }
}
