import Foundation
import GRDB
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("Ledger: peers seen are bounded (SECURITY.md T-RESIDUE)", .tearsDown)
struct BarePeerTests {
    @Test("beyond the bound, the peers seen longest ago without payment, series or pairing are forgotten")
    func barePeersForgotten() async throws {
        let database = try AppDatabase.inMemory()
        let (bob, carol) = (try Peers.bob(), try Peers.carol())
        // Seen first (longest ago), but kept: bob has a payment, carol is paired.
        try await database.upsertPeer(PeerRecord(peerID: bob, name: "Bob", address: nil, seenAt: at(0)))
        try await database.upsertPeer(PeerRecord(peerID: carol, name: "Carol", address: nil, seenAt: at(0)))
        try await storePayment(in: database, role: .payee, peer: bob)
        try await database.trust(TrustedPeerRecord(peerID: carol, name: "Carol", pairedAt: at(0)))
        // Fresh keys, one session each.
        let fresh = (0..<(AppDatabase.maxBarePeers * 2)).map { index in
            PeerID(subjectPublicKeyInfoDER: Array("fresh key \(index)".utf8))
        }
        for (index, peer) in fresh.enumerated() {
            try await database.upsertPeer(
                PeerRecord(peerID: peer, name: "k\(index)", address: nil, seenAt: at(Int64(index) + 1)))
        }
        let remembered = try await database.reader.read { db in
            try Set(String.fetchAll(db, sql: "SELECT peerID FROM peer"))
        }
        #expect(remembered.count <= AppDatabase.maxBarePeers + 2, "before, every key stayed: \(remembered.count)")
        #expect(remembered.contains(bob.description) && remembered.contains(carol.description))
        #expect(remembered.contains(fresh[fresh.count - 1].description), "the latest seen is kept")
        #expect(!remembered.contains(fresh[0].description), "the earliest fresh key is forgotten")
    }
}
