import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayDiscovery

@Suite("TXT record", .tearsDown)
struct TXTRecordTests {
    let peerID: PeerID

    init() throws {
        peerID = try PeerID(bytes: Array(0..<32))
    }

    /// TXT rdata from strings: each a length byte and the bytes.
    func rdata(_ items: String...) -> [UInt8] {
        items.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
    }

    @Test("carries exactly v (ascending, no duplicates) and id (canonical)")
    func encode() throws {
        let bytes = try #require(TXTRecord.encode(peerID: peerID, versions: [2, 1, 2]))
        #expect(bytes == rdata("v=1,2", "id=AAAQEAY-EAUDAO5-CAJBIFQ-YDIOB4X-IBCEQTC-QKRMFYM-YDENBWH-A5DYPQS"))
        let parsed = TXTRecord(parsing: bytes)
        #expect(parsed.peerID == peerID)
        #expect(parsed.versions == [1, 2])
    }

    @Test("keys match case-insensitively and only their first occurrence counts")
    func caseAndDuplicates() {
        let parsed = TXTRecord(parsing: rdata("ID=\(peerID)", "id=nonsense", "V=3,1", "v=9", "extra=1"))
        #expect(parsed.peerID == peerID)
        #expect(parsed.versions == [1, 3])
    }

    @Test("a missing v means version 1; entries that are not decimal integers are ignored")
    func versions() {
        #expect(TXTRecord(parsing: rdata("id=\(peerID)")).versions == [1])
        #expect(TXTRecord(parsing: rdata("v=1,x,+2,,3 ,4", "id=\(peerID)")).versions == [1, 4])
        #expect(TXTRecord(parsing: rdata("v", "id=\(peerID)")).versions == [])
    }

    @Test("the id is parsed leniently; missing, empty or invalid ids give no peer ID")
    func ids() {
        let lenient = peerID.description.lowercased().replacingOccurrences(of: "-", with: " ")
        #expect(TXTRecord(parsing: rdata("id=\(lenient)")).peerID == peerID)
        #expect(TXTRecord(parsing: rdata("v=1")).peerID == nil)
        #expect(TXTRecord(parsing: rdata("v=1")).rawID == nil)
        #expect(TXTRecord(parsing: rdata("id")).peerID == nil)
        let typo = TXTRecord(parsing: rdata("id=B" + peerID.description.dropFirst()))
        #expect(typo.peerID == nil)
        #expect(typo.rawID == "B" + peerID.description.dropFirst())
    }

    @Test("truncated rdata and empty strings do not crash")
    func malformed() {
        #expect(TXTRecord(parsing: [UInt8]([])).peerID == nil)
        #expect(TXTRecord(parsing: [0]).versions == [1])
        #expect(TXTRecord(parsing: [10, 65]).peerID == nil)
        #expect(TXTRecord(parsing: rdata("=x", "id=\(peerID)")).peerID == peerID)
    }
}

@Suite("Instance names", .tearsDown)
struct ServiceInstanceNameTests {
    @Test("names longer than 63 UTF-8 bytes are cut at a code point boundary")
    func truncation() {
        #expect(ServiceInstanceName.truncated("Alice") == "Alice")
        let long = String(repeating: "é", count: 40)  // 80 bytes
        let cut = ServiceInstanceName.truncated(long)
        #expect(cut == String(repeating: "é", count: 31))
        #expect(cut.utf8.count == 62)
    }

    @Test("alternatives count up like Avahi's: Alice #2, Alice #3")
    func alternatives() {
        #expect(ServiceInstanceName.alternative(to: "Alice") == "Alice #2")
        #expect(ServiceInstanceName.alternative(to: "Alice #2") == "Alice #3")
        #expect(ServiceInstanceName.alternative(to: "Alice #9") == "Alice #10")
        #expect(ServiceInstanceName.alternative(to: "Alice#2") == "Alice#2 #2")
        #expect(ServiceInstanceName.alternative(to: "#") == "# #2")
        let long = ServiceInstanceName.alternative(to: String(repeating: "a", count: 63))
        #expect(long == String(repeating: "a", count: 60) + " #2")
    }
}

@Suite("Advertisement", .tearsDown)
struct AdvertisementTests {
    @Test("validation refuses an empty name, a bad port and missing or non-positive versions")
    func validation() throws {
        let id = try PeerID(bytes: Array(repeating: 7, count: 32))
        try Advertisement(name: "Ana", port: 7420, peerID: id, versions: [1]).validate()
        #expect(throws: DiscoveryError.self) {
            try Advertisement(name: "", port: 1, peerID: id, versions: [1]).validate()
        }
        #expect(throws: DiscoveryError.self) {
            try Advertisement(name: "A", port: 0, peerID: id, versions: [1]).validate()
        }
        #expect(throws: DiscoveryError.self) {
            try Advertisement(name: "A", port: 65_536, peerID: id, versions: [1]).validate()
        }
        #expect(throws: DiscoveryError.self) {
            try Advertisement(name: "A", port: 1, peerID: id, versions: []).validate()
        }
        #expect(throws: DiscoveryError.self) {
            try Advertisement(name: "A", port: 1, peerID: id, versions: [0]).validate()
        }
    }
}

@Suite("Retry policy", .tearsDown)
struct RetryPolicyTests {
    @Test("the default doubles from 0.5 s to at most 10 s, ±20 %")
    func defaultPolicy() {
        let policy = RetryPolicy.default
        let cases: [(attempt: Int, random: Double, expected: Duration)] = [
            (0, 0.5, .milliseconds(500)), (1, 0.5, .seconds(1)), (4, 0.5, .seconds(8)), (5, 0.5, .seconds(10)),
            (1_000, 0.5, .seconds(10)), (0, 0, .milliseconds(400)), (0, 1, .milliseconds(600)), (9, 1, .seconds(12)),
        ]
        for (attempt, random, expected) in cases {
            let delay = policy.delay(attempt: attempt, random: random)
            #expect(
                max(delay - expected, expected - delay) < .microseconds(1),
                "attempt \(attempt), random \(random): \(delay)")
        }
    }

    @Test("delays are logged as milliseconds below a second, else as tenths of seconds")
    func logText() {
        #expect(Duration.milliseconds(10).logText == "10 ms")
        #expect(Duration.milliseconds(480).logText == "480 ms")
        #expect(Duration.milliseconds(999).logText == "999 ms")
        #expect(Duration.milliseconds(1_049).logText == "1.0 s")
        #expect(Duration.milliseconds(9_960).logText == "10.0 s")
    }
}

@Suite("Errors and addresses", .tearsDown)
struct DiscoveryErrorTests {
    @Test("-65537 reads as avahi-daemon not reachable; other codes get their name")
    func descriptions() {
        let unreachable = DiscoveryError.dnsService(operation: .browse, code: -65537)
        #expect(unreachable.isDaemonUnreachable)
        #expect(unreachable.description == "avahi-daemon is not reachable (DNS-SD error -65537 in browse)")
        let conflict = DiscoveryError.dnsService(operation: .register, code: -65548)
        #expect(!conflict.isDaemonUnreachable)
        #expect(conflict.description == "DNS-SD register failed: NameConflict (error -65548)")
    }

    @Test("A and AAAA rdata are written as text; link-local IPv6 gets a scope")
    func addresses() {
        #expect(AddressRecord.text(type: 1, rdata: [198, 18, 7, 1], interfaceIndex: 2) == "198.18.7.1")
        #expect(AddressRecord.text(type: 1, rdata: [1, 2, 3], interfaceIndex: 2) == nil)
        let global: [UInt8] = [0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]
        #expect(AddressRecord.text(type: 28, rdata: global, interfaceIndex: 2) == "fd00::5")
        let linkLocal: [UInt8] = [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
        #expect(AddressRecord.text(type: 28, rdata: linkLocal, interfaceIndex: 1) == "fe80::1%lo")
        #expect(AddressRecord.text(type: 16, rdata: [1, 2, 3, 4], interfaceIndex: 1) == nil)
    }
}

@Suite("Which resolutions can wait", .tearsDown)
struct ResolutionPriorityTests {
    @Test("a name can wait while a session of that name is up, counting the peers that gave it")
    func sessionsCount() {
        let priority = ResolutionPriority()
        #expect(!priority.canWait("bob"))
        priority.sessionUp(peer: "P1", name: "bob")
        priority.sessionUp(peer: "P2", name: "bob")
        #expect(priority.canWait("bob"))
        #expect(!priority.canWait("carol"))
        priority.sessionDown(peer: "P1")
        #expect(priority.canWait("bob"), "the other peer's session is still up")
        priority.sessionDown(peer: "P2")
        priority.sessionDown(peer: "P2")
        #expect(!priority.canWait("bob"))
        #expect(priority.trackedPeers == 0)
    }

    @Test("a replaced session (up twice, down once) leaves nothing behind, nor a renamed peer's old name")
    func replacedSession() {
        let priority = ResolutionPriority()
        priority.sessionUp(peer: "P1", name: "bob")
        // Replaced by a newer session of the same peer: only the new one comes up. Before, "bob" then stayed
        // connected for good.
        priority.sessionUp(peer: "P1", name: "bob")
        priority.sessionDown(peer: "P1")
        #expect(!priority.canWait("bob"))
        priority.sessionUp(peer: "P1", name: "bob")
        priority.sessionUp(peer: "P1", name: "robert")
        #expect(!priority.canWait("bob"), "the old name is gone with the replaced session")
        #expect(priority.canWait("robert"))
        priority.sessionDown(peer: "P1")
        #expect(!priority.canWait("robert"))
        #expect(priority.trackedPeers == 0)
    }
}
