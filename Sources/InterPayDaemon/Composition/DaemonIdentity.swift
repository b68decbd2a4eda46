public import Foundation
import InterPayTransport

/// Access to the daemon's identity for commands that only need the peer ID.
public enum DaemonIdentity {
    /// The peer ID text of the identity in `directory`, created there if it does not exist yet.
    public static func peerID(in directory: URL) throws(DaemonError) -> String {
        do {
            return try Identity.loadOrCreate(in: directory).peerID.description
        } catch {
            throw .transport(error.description)
        }
    }
}
