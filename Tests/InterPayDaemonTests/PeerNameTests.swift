import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

@Suite("Peer names from one read of the ledger", .tearsDown)
struct PeerNameTests {
    @Test("a paired peer is shown under its pinned name, flagged when it announces another; others as they announce")
    func names() throws {
        let bob = try PeerID(bytes: [UInt8](repeating: 0x22, count: 32))
        let carol = try PeerID(bytes: [UInt8](repeating: 0x33, count: 32))
        let dave = try PeerID(bytes: [UInt8](repeating: 0x44, count: 32))
        let erin = try PeerID(bytes: [UInt8](repeating: 0x55, count: 32))
        let seen = Timestamp(secondsSince1970: 1_700_000_000)
        let peers = [
            PeerRecord(peerID: bob, name: "landlord", address: nil, seenAt: seen),
            PeerRecord(peerID: carol, name: "carol", address: nil, seenAt: seen),
            PeerRecord(peerID: erin, name: "Erin", address: nil, seenAt: seen),
        ]
        let trusted = [
            bob: TrustedPeerRecord(peerID: bob, name: "Bob", pairedAt: seen),
            dave: TrustedPeerRecord(peerID: dave, name: "Dave", pairedAt: seen),
            erin: TrustedPeerRecord(peerID: erin, name: "Erin", pairedAt: seen),
        ]

        let names = PeerName.all(peers: peers, sessions: [], trusted: trusted)

        #expect(names.count == 4)
        #expect(names[bob] == PeerName(announcedName: "landlord", pinned: "Bob"))
        #expect(names[bob]?.shown == "Bob")
        #expect(names[bob]?.announced == "landlord")
        #expect(names[bob]?.paired == true)
        #expect(names[carol]?.shown == "carol")
        #expect(names[carol]?.announced == nil)
        #expect(names[carol]?.paired == false)
        #expect(names[dave]?.shown == "Dave")
        #expect(names[dave]?.paired == true)
        #expect(names[erin]?.announced == nil)
    }

    @Test("the user's own rename is not flagged; a name the peer announces other than the one it was paired under is")
    func ownRename() throws {
        let bob = try PeerID(bytes: [UInt8](repeating: 0x22, count: 32))
        let seen = Timestamp(secondsSince1970: 1_700_000_000)
        var record = TrustedPeerRecord(peerID: bob, name: "Bob the plumber", pairedAt: seen)
        record.pairedName = "bob"
        let renamed = PeerName.all(
            peers: [PeerRecord(peerID: bob, name: "bob", address: nil, seenAt: seen)], sessions: [],
            trusted: [bob: record])
        #expect(renamed[bob]?.shown == "Bob the plumber" && renamed[bob]?.announced == nil)
        let changed = PeerName.all(
            peers: [PeerRecord(peerID: bob, name: "landlord", address: nil, seenAt: seen)], sessions: [],
            trusted: [bob: record])
        #expect(changed[bob]?.shown == "Bob the plumber" && changed[bob]?.announced == "landlord")
    }
}

@Suite("Keepalives a silent peer let pass", .tearsDown)
struct MissedKeepaliveTests {
    @Test(
        "none while the peer answers within the interval and 2 s; one per interval after",
        arguments: [(0, 0), (15, 0), (17, 0), (18, 1), (32, 2), (47, 3)] as [(Int64, Int64)])
    func missed(seconds: Int64, missed: Int64) {
        #expect(ControlMethods.missedKeepalives(silence: .seconds(seconds), interval: .seconds(15)) == missed)
    }
}
