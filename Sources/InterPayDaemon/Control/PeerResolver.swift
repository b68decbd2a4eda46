import Foundation
import InterPayContract
import InterPayControl
import InterPayCore

/// Finds the peer a user means by the text they typed (`interpay send PEER`, `pair PEER`, …): pure, so that the
/// rules are tested alone.
///
/// Text written like a peer ID (`PeerID.isWrittenLikeID`) names a peer by ID only: the whole ID, or a prefix of at
/// least 4 characters that exactly one known peer's ID has; no display name can take it over. Any other text is a
/// display name, compared without case, and resolves only when exactly one known peer (online or not) has that
/// name and no other peer's ID starts with it; otherwise the answer lists every candidate with its short ID.
/// Peers choose their own names, so two peers may well announce the same one.
enum PeerResolver {
    /// A peer the daemon knows: its ID and the name it is shown under.
    struct Candidate: Sendable, Hashable {
        var id: PeerID
        var name: String
        /// Whether it is paired: an ambiguity lists the others marked `[unverified]` (`PeerLabel`).
        var paired: Bool = false
    }

    /// What the text names.
    enum Resolution: Sendable, Hashable {
        /// Exactly this peer.
        case found(PeerID)
        /// Several peers: each as `name (SHORTID)`, sorted.
        case ambiguous([String])
        /// No known peer.
        case notFound
    }

    /// Shortest ID prefix that names a peer.
    static let minimumPrefixLength = 4

    static func resolve(_ text: String, among candidates: [Candidate]) -> Resolution {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let compact = PeerID.compactPrefix(trimmed)
        let byID =
            compact.count >= minimumPrefixLength
            ? candidates.filter { $0.id.compactDescription.hasPrefix(compact) } : []
        let matches: [Candidate]
        // As it reads, not only as it is typed: `HS8EJ8T` is the ID prefix HSBEJBT (§4.3), never a name.
        if PeerID.isWrittenLikeID(trimmed) || PeerID.isWrittenLikeID(IDSkeleton.of(trimmed)) {
            matches = byID
        } else {
            let byName = candidates.filter { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame }
            // A name that is also the start of some peer's ID (typed in small letters) is ambiguous between them.
            matches = byName + byID.filter { candidate in !byName.contains { $0.id == candidate.id } }
        }
        switch matches.count {
        case 0: return .notFound
        case 1: return .found(matches[0].id)
        default:
            let unique = Dictionary(matches.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            if unique.count == 1, let only = unique.first { return .found(only.key) }
            return .ambiguous(
                unique.values.map { PeerLabel.text(name: $0.name, shortID: $0.id.shortDescription, paired: $0.paired) }
                    .sorted())
        }
    }
}
