import InterPayContract
import InterPayCore
import Testing

/// A peer ID's short form from an answer's text (`PeerLabel.shortID`), as `peers` and `backup` print it.
@Suite("Peer short IDs")
struct PeerShortIDTests {
    @Test("an ID's text gives the short form every surface shows; other text is shown escaped as it is")
    func shortForm() {
        let id = PeerID(subjectPublicKeyInfoDER: Array("a key".utf8))
        #expect(PeerLabel.shortID(id.description) == id.shortDescription)
        #expect(PeerLabel.shortID("not\nan id") == "not\\u{000A}an id", "a line break cannot start a forged line")
    }
}
