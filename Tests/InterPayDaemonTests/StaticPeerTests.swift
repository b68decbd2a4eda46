import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// `--peer [ID@]HOST:PORT` and `discovery.peers` (PROTOCOL.md §2.2).
@Suite("Static peers", .tearsDown)
struct StaticPeerTests {
    let bob = PeerID(subjectPublicKeyInfoDER: Array("bob".utf8))

    @Test("an address alone, or with the peer ID expected there")
    func parsing() throws {
        let plain = try StaticPeer(parsing: "198.18.0.2:7000")
        #expect(plain.peerID == nil && plain.host == "198.18.0.2" && plain.port == 7000)
        let pinned = try StaticPeer(parsing: "\(bob)@198.18.0.2:7000")
        #expect(pinned.peerID == bob && pinned.address == "198.18.0.2:7000")
        #expect(pinned.description == "\(bob)@198.18.0.2:7000")
        let lower = try StaticPeer(parsing: "\(bob.description.lowercased())@[fd00::2]:7000")
        #expect(lower.peerID == bob && lower.host == "fd00::2" && lower.address == "[fd00::2]:7000")
    }

    @Test("a malformed ID or address is refused with the reason")
    func refusals() {
        for text in ["NOTANID@198.18.0.2:7000", "@198.18.0.2:7000", "\(bob)@", "\(bob)@host", "host:0", "::1:7"] {
            #expect(throws: DaemonError.self, "\(text)") { try StaticPeer(parsing: text) }
        }
    }
}
