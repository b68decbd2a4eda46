import InterPayCore
import InterPayStore
import Logging

extension AppDatabase {
    /// Whether `peer` is paired. A ledger that cannot be read trusts no one: false then, logged with `consequence`
    /// (what the caller does about it), unless the read was cut short by shutdown, which is not worth a line.
    func isPaired(_ peer: PeerID, logger: Logger, otherwise consequence: String) async -> Bool {
        do {
            return try await trustedPeer(id: peer) != nil
        } catch {
            guard !Task.isCancelled else { return false }
            logger.error(
                "cannot read whether a peer is paired; \(consequence)",
                metadata: ["peer": "\(peer.shortDescription)", "error": "\(error)"])
            return false
        }
    }
}
