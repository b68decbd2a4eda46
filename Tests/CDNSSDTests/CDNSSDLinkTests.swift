import CDNSSD
import Foundation
import Testing

/// Proves the `CDNSSD` system-library target links against Avahi's libdns_sd and that it answers.
///
/// Outside a LAN sandbox host no avahi-daemon is reachable, and libdns_sd answers every call with
/// `kDNSServiceErr_Unknown` (-65537) at once. Inside a sandbox host (`LAN_SANDBOX_HOST` is set by
/// `scripts/lan-sandbox exec`), a browse must succeed.
@Suite("CDNSSD links and answers")
struct CDNSSDLinkTests {
    /// Whether this process runs inside a sandbox host whose avahi-daemon must answer.
    static let inSandbox = ProcessInfo.processInfo.environment["LAN_SANDBOX_HOST"] != nil

    init() {
        setenv("AVAHI_COMPAT_NOWARN", "1", 1)
    }

    @Test("DNSServiceBrowse answers: success with avahi, kDNSServiceErr_Unknown without")
    func browse() {
        var ref: DNSServiceRef?
        let error = DNSServiceBrowse(&ref, 0, 0, "_interpay._tcp", nil, nil, nil)
        if let ref { DNSServiceRefDeallocate(ref) }
        if Self.inSandbox {
            #expect(error == DNSServiceErrorType(kDNSServiceErr_NoError))
            #expect(ref != nil)
        } else {
            #expect(error == DNSServiceErrorType(kDNSServiceErr_Unknown), "no avahi-daemon here, got \(error)")
            #expect(ref == nil)
        }
    }

    @Test("TXT record helpers build what they are given")
    func txtRecord() {
        var record = TXTRecordRef()
        TXTRecordCreate(&record, 0, nil)
        defer { TXTRecordDeallocate(&record) }
        let status = TXTRecordSetValue(&record, "v", 1, "1")
        #expect(status == DNSServiceErrorType(kDNSServiceErr_NoError))
        // "v=1" is stored as one length-prefixed string: 1 length byte + 3 bytes.
        #expect(TXTRecordGetLength(&record) == 4)
    }
}
