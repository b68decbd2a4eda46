/// Whose payment requests the daemon takes (`accept_from`).
public enum AcceptPolicy: String, Sendable, CaseIterable {
    /// Every authenticated peer's; requests from peers not paired are flagged unverified in every view.
    case any
    /// Paired peers' only; a request from any other peer is refused with `not-authorized`.
    case paired
}
