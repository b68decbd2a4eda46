import InterPayCore

/// The InterPay TXT record (protocol §2.1): built from the advertisement, and read from resolved instances.
///
/// TXT rdata is a sequence of strings, each a length byte and up to 255 bytes `key=value`. Keys match
/// case-insensitively, and only the first occurrence of a key counts (RFC 6763 §6.4).
struct TXTRecord: Sendable, Hashable {
    /// The peer ID from `id`: nil when the key is missing or its value is not a valid peer ID.
    var peerID: PeerID?
    /// The raw `id` value, for log lines about invalid ones (nil when the key is missing).
    var rawID: String?
    /// The versions from `v`: decimal integers, ascending, without duplicates; entries that are not decimal
    /// integers are ignored; `[1]` when the key is missing.
    var versions: [Int]

    /// Parses TXT rdata. Malformed trailing bytes (a length running past the end) are ignored.
    init(parsing rdata: some Collection<UInt8>) {
        var values: [String: String?] = [:]
        var bytes = rdata[...]
        while let length = bytes.first {
            let item = bytes.dropFirst().prefix(Int(length))
            guard item.count == Int(length) else { break }
            bytes = bytes.dropFirst(1 + Int(length))
            let keyBytes = item.prefix { $0 != UInt8(ascii: "=") }
            guard !keyBytes.isEmpty else { continue }
            let key = String(decoding: keyBytes, as: UTF8.self).lowercased()
            guard values[key] == nil else { continue }
            let value: String? =
                keyBytes.count < item.count ? String(decoding: item.dropFirst(keyBytes.count + 1), as: UTF8.self) : nil
            values[key] = .some(value)
        }
        rawID = values["id"] ?? nil
        // An `id` that is not a peer ID is kept as text (`rawID`) for the log; the session proves the real one.
        peerID = rawID.flatMap { try? PeerID(parsing: $0) }
        if let versionText = values["v"] {
            let entries = (versionText ?? "").split(separator: ",", omittingEmptySubsequences: true)
            let numbers = entries.compactMap { entry -> Int? in
                guard !entry.isEmpty, entry.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                else { return nil }
                return Int(entry)
            }
            versions = Array(Set(numbers)).sorted()
        } else {
            versions = [1]
        }
    }

    /// The rdata advertised for `peerID` and `versions`: `v=1,2` then `id=<canonical peer ID>`, and nothing else.
    /// Nil when one string would exceed 255 bytes.
    static func encode(peerID: PeerID, versions: [Int]) -> [UInt8]? {
        let versionText = Array(Set(versions)).sorted().map(String.init).joined(separator: ",")
        var rdata: [UInt8] = []
        for item in ["v=\(versionText)", "id=\(peerID.description)"] {
            let bytes = Array(item.utf8)
            guard bytes.count <= 255 else { return nil }
            rdata.append(UInt8(bytes.count))
            rdata += bytes
        }
        return rdata
    }
}
