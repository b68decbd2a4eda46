/// Where pairing with one peer stands, as `peers` and `pair` show it.
public enum PairingPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// No attempt, no code, no lock.
    case idle
    /// The peer's user started; the local user has not (a code lifetime long after the peer's last commit).
    case requested
    /// The local user started; the peer's user has not, as far as this side knows.
    case waiting
    /// Both started: the nonces are being revealed.
    case exchanging
    /// The code is shown, to be compared and confirmed before it expires.
    case code
    /// Too many failed attempts: pairing with the peer is locked for a while.
    case locked
}
