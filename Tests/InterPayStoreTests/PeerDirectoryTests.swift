import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayStore

@Suite("The peer list's one read: known peers, pairings, pins at static addresses", .tearsDown)
struct PeerDirectoryTests {
    @Test("peers by name then ID, pairings by ID, and the pin of each address asked for that has one")
    func directory() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        let carol = try Peers.carol()
        try await database.upsertPeer(carol, name: "carol", address: "198.18.0.3:7070", seenAt: at(0))
        try await database.upsertPeer(bob, name: "Bob", address: nil, seenAt: at(5))
        try await database.trust(TrustedPeerRecord(peerID: bob, name: "Bobby", pairedAt: at(10)))
        #expect(try await database.pinStatic(address: "198.18.0.3:7070", to: carol, at: at(20)))

        let directory = try await database.peerDirectory(pinnedAt: ["198.18.0.3:7070", "198.18.0.9:7070"])
        #expect(directory.peers.map(\.peerID) == [bob, carol])
        #expect(directory.peers.map(\.name) == ["Bob", "carol"])
        #expect(directory.trusted.keys.sorted { $0.description < $1.description } == [bob])
        #expect(directory.trusted[bob]?.name == "Bobby")
        #expect(directory.pins == ["198.18.0.3:7070": carol])

        let unasked = try await database.peerDirectory()
        #expect(unasked.pins.isEmpty)
        #expect(unasked.peers == directory.peers)
    }

    @Test("a rename keeps the name the peer was paired under, once, across later renames and in the views")
    func renameKeepsThePairedName() async throws {
        let database = try AppDatabase.inMemory()
        let bob = try Peers.bob()
        try await database.trust(TrustedPeerRecord(peerID: bob, name: "bob", pairedAt: at(0)))
        #expect(try await database.peerDirectory().trusted[bob]?.pairedName == nil)
        #expect(try await database.renameTrustedPeer(bob, to: "Bob the plumber"))
        #expect(try await database.renameTrustedPeer(bob, to: "Robert"))
        let record = try #require(try await database.peerDirectory().trusted[bob])
        #expect(record.name == "Robert" && record.pairedName == "bob")
        #expect(try await !database.renameTrustedPeer(try Peers.carol(), to: "x"))
    }
}
