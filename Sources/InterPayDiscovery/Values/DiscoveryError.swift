/// Why a DNS-SD operation failed, with the code libdns_sd returned.
public enum DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A DNS-SD call failed at once, or its callback reported an error. `code` is the `DNSServiceErrorType`;
    /// -65537 (`kDNSServiceErr_Unknown`) means avahi-daemon or D-Bus is not reachable (or, for a resolve, that
    /// it timed out).
    case dnsService(operation: Operation, code: Int32)
    /// The advertisement cannot be registered.
    case invalidAdvertisement(String)

    /// The DNS-SD operation that failed.
    public enum Operation: String, Sendable, Hashable, CustomStringConvertible {
        /// `DNSServiceRegister`: advertising our instance.
        case register
        /// `DNSServiceBrowse`: finding instances.
        case browse
        /// `DNSServiceResolve`: an instance's host, port and TXT.
        case resolve
        /// `DNSServiceQueryRecord` (A, AAAA): the host's address.
        case addressLookup = "address lookup"

        public var description: String { rawValue }
    }

    /// The `DNSServiceErrorType`, for `dnsService`.
    public var code: Int32? {
        if case .dnsService(_, let code) = self { return code }
        return nil
    }

    /// Whether the error says that avahi-daemon (or the D-Bus system bus) is not reachable.
    public var isDaemonUnreachable: Bool { code == DNSServiceErrorCode.unknown }

    public var description: String {
        switch self {
        case .dnsService(let operation, let code) where code == DNSServiceErrorCode.unknown:
            "avahi-daemon is not reachable (DNS-SD error \(code) in \(operation))"
        case .dnsService(let operation, let code):
            "DNS-SD \(operation) failed: \(DNSServiceErrorCode.name(of: code)) (error \(code))"
        case .invalidAdvertisement(let reason):
            "cannot advertise: \(reason)"
        }
    }
}
