#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text forms of the rdata of A and AAAA records, as `DNSServiceQueryRecord` delivers it.
enum AddressRecord {
    /// The DNS type of an IPv4 address record.
    static let typeA: UInt16 = 1
    /// The DNS type of an IPv6 address record.
    static let typeAAAA: UInt16 = 28

    /// `198.18.7.1` for A rdata; IPv6 text for AAAA rdata, with `%<interface>` appended for link-local addresses
    /// (which are only usable with a scope). Nil for anything else or a wrong length.
    static func text(type: UInt16, rdata: [UInt8], interfaceIndex: UInt32) -> String? {
        switch type {
        case typeA where rdata.count == 4:
            return rdata.map(String.init).joined(separator: ".")
        case typeAAAA where rdata.count == 16:
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let converted = rdata.withUnsafeBytes { bytes in
                inet_ntop(AF_INET6, bytes.baseAddress, &buffer, socklen_t(buffer.count))
            }
            guard converted != nil else { return nil }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let linkLocal = rdata[0] == 0xFE && rdata[1] & 0xC0 == 0x80
            guard linkLocal, interfaceIndex != 0 else { return text }
            return text + "%" + interfaceName(interfaceIndex)
        default:
            return nil
        }
    }

    /// The name of an interface (`lan0`), or its number when it has none.
    static func interfaceName(_ index: UInt32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return String(index) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
