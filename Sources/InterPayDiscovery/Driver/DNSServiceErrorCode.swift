import CDNSSD

/// The `DNSServiceErrorType` values discovery reacts to, and readable names for all of them.
enum DNSServiceErrorCode {
    static let noError = DNSServiceErrorType(kDNSServiceErr_NoError)
    /// Avahi's answer to everything when avahi-daemon or D-Bus is not reachable, when the daemon goes away,
    /// and (from `AVAHI_ERR_TIMEOUT`) when a resolve times out.
    static let unknown = DNSServiceErrorType(kDNSServiceErr_Unknown)
    /// The name is already registered by another client of the same avahi-daemon (a local collision).
    static let nameConflict = DNSServiceErrorType(kDNSServiceErr_NameConflict)

    /// The `kDNSServiceErr_` name of a code, without the prefix.
    static func name(of code: DNSServiceErrorType) -> String {
        switch Int(code) {
        case Int(kDNSServiceErr_NoError): "NoError"
        case Int(kDNSServiceErr_Unknown): "Unknown"
        case Int(kDNSServiceErr_NoSuchName): "NoSuchName"
        case Int(kDNSServiceErr_NoMemory): "NoMemory"
        case Int(kDNSServiceErr_BadParam): "BadParam"
        case Int(kDNSServiceErr_BadReference): "BadReference"
        case Int(kDNSServiceErr_BadState): "BadState"
        case Int(kDNSServiceErr_BadFlags): "BadFlags"
        case Int(kDNSServiceErr_Unsupported): "Unsupported"
        case Int(kDNSServiceErr_NotInitialized): "NotInitialized"
        case Int(kDNSServiceErr_AlreadyRegistered): "AlreadyRegistered"
        case Int(kDNSServiceErr_NameConflict): "NameConflict"
        case Int(kDNSServiceErr_Invalid): "Invalid"
        case Int(kDNSServiceErr_Incompatible): "Incompatible"
        case Int(kDNSServiceErr_BadInterfaceIndex): "BadInterfaceIndex"
        case Int(kDNSServiceErr_Refused): "Refused"
        case Int(kDNSServiceErr_NoSuchRecord): "NoSuchRecord"
        case Int(kDNSServiceErr_NoAuth): "NoAuth"
        case Int(kDNSServiceErr_NoSuchKey): "NoSuchKey"
        default: "unknown error"
        }
    }
}
