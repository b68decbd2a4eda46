import Crypto
public import FoundationEssentials

extension UUID {
    /// A name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 of the namespace's 16 bytes followed by the name's UTF-8,
    /// the first 16 bytes kept with the version and variant bits set. The same namespace and name always give the
    /// same UUID.
    public static func version5(namespace: UUID, name: String) -> UUID {
        var hasher = Insecure.SHA1()
        withUnsafeBytes(of: namespace.uuid) { hasher.update(bufferPointer: $0) }
        hasher.update(data: Array(name.utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
