/// Which side of a pair of instances resolves the other first, decided by the two instance names alone, so that both
/// sides agree without a word.
///
/// A mesh needs each pair resolved by one side only: that side dials, and the session serves both. On a LAN that
/// comes up at once, every daemon resolving every other doubles the resolutions, and each of them makes every
/// avahi-daemon on the segment read a question (and, through `libdns_sd`, costs two avahi clients). So a daemon
/// resolves at once the instances this rule gives to its side and leaves the others a moment
/// (`DiscoverySession.otherSideDelay`) to dial first; one that has not by then is resolved all the same, so a peer
/// that never dials (another implementation, a one-way firewall) costs a delay, not a session.
///
/// The rule: FNV-1a (64 bits) over the lower name, a line feed and the higher name (byte order of their UTF-8); the
/// lower name's side resolves first when the hash is even, the higher's when it is odd. A name and itself: resolved
/// (that is our own instance, recognised and ignored when resolved).
enum ResolutionSide {
    /// Whether `own`'s side resolves `other` first.
    static func resolvesFirst(own: String, other: String) -> Bool {
        let ownBytes = Array(own.utf8)
        let otherBytes = Array(other.utf8)
        guard ownBytes != otherBytes else { return true }
        let ownIsLower = ownBytes.lexicographicallyPrecedes(otherBytes)
        let (low, high) = ownIsLower ? (ownBytes, otherBytes) : (otherBytes, ownBytes)
        let even = fnv1a(low + [0x0A] + high) % 2 == 0
        return ownIsLower == even
    }

    /// FNV-1a, 64 bits.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return value
    }
}
