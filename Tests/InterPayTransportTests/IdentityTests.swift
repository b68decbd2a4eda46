import Foundation
import InterPayCore
import InterPayTestSupport
import InterPayTransport
import Testing

@Suite("Identity", .tearsDown)
struct IdentityTests {
    @Test("created on first start with private permissions, the same on restart")
    func persistence() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.url.appending(path: "state")
        let first = try Identity.loadOrCreate(in: state)
        let second = try Identity.loadOrCreate(in: state)
        #expect(first.peerID == second.peerID)
        #expect(try PeerID(certificate: first.certificate) == first.peerID)

        let attributes = { (path: String) throws -> Int in
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try attributes(state.path) == 0o700)
        #expect(try attributes(state.appending(path: Identity.keyFileName).path) == 0o600)
        #expect(try attributes(state.appending(path: Identity.certificateFileName).path) == 0o600)
    }

    @Test("a new key is a new peer ID; a lost certificate is remade for the same key")
    func keyChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = try Identity.loadOrCreate(in: directory.url)
        try FileManager.default.removeItem(at: directory.url.appending(path: Identity.certificateFileName))
        #expect(try Identity.loadOrCreate(in: directory.url).peerID == original.peerID)
        try FileManager.default.removeItem(at: directory.url.appending(path: Identity.keyFileName))
        #expect(try Identity.loadOrCreate(in: directory.url).peerID != original.peerID)
    }

    @Test("a damaged key file is reported, not replaced")
    func corruptKey() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("not a key".utf8).write(to: directory.url.appending(path: Identity.keyFileName))
        #expect {
            try Identity.loadOrCreate(in: directory.url)
        } throws: { error in
            if case .identityCorrupt = error as? TransportError { true } else { false }
        }
    }
}
