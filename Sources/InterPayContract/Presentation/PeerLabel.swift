import InterPayCore

/// How a peer is named to people: the one rule that the CLI's tables and messages, `watch`, the daemon's own
/// messages (an ambiguous name or ID lists its candidates this way), receipts' text and exports follow, and that the
/// web app's `peerLabel` mirrors.
///
/// A peer is always `name (SHORTID)`: anyone can announce any name, so the short peer ID is what tells two "bob"s
/// apart. A peer that is not paired is marked ` [unverified]`; a paired peer that announces another name than the one
/// kept at pairing is marked ` (announces "X") [name changed]`. Peer text is escaped (`SafeText`): it is the peer's
/// own and may hold anything the wire allows.
public enum PeerLabel {
    /// The mark of a peer that is not paired.
    public static let unverifiedMark = "[unverified]"

    /// `name (SHORTID)` with its marks; `?` for a peer whose name is not known.
    public static func text(name: String?, shortID: String, paired: Bool, announcedName: String? = nil) -> String {
        var text = identified(name: name, shortID: shortID)
        if !paired {
            text += " " + unverifiedMark
        } else if let announcedName {
            text += " (announces \"\(SafeText.escaped(announcedName))\") [name changed]"
        }
        return text
    }

    /// A peer ID's short form, as every surface shows it (`PeerID.shortDescription`), from its text in an answer;
    /// text that is not a peer ID is shown escaped as it is.
    public static func shortID(_ id: String) -> String {
        (try? PeerID(parsing: id))?.shortDescription ?? SafeText.escaped(id)
    }

    /// `name (SHORTID)` without a trust mark: where what vouches for the peer is not pairing but a signature by
    /// its key (a receipt's payee and payer, shown with the full ID beside).
    public static func identified(name: String?, shortID: String) -> String {
        "\(name.map(SafeText.escaped) ?? "?") (\(SafeText.escaped(shortID)))"
    }
}

extension PaymentPeer {
    /// The peer as people see it (`PeerLabel`).
    public var label: String {
        PeerLabel.text(name: name, shortID: shortID, paired: trust == .paired, announcedName: announcedName)
    }
}

/// A record a list shows by its short ID: a payment, a series, a bill.
public protocol ShortIdentified {
    /// Its whole ID.
    var id: String { get }
    /// The ID as people read and type it.
    var shortID: String { get set }
}

extension PaymentInfo: ShortIdentified {}
extension SeriesInfo: ShortIdentified {}
extension BillInfo: ShortIdentified {}

extension Array where Element: ShortIdentified {
    /// The records with their `shortID`s made unique among them (`RecordShortID.unique`): what a list answers.
    public func withUniqueShortIDs() -> [Element] {
        var records = self
        for (index, short) in RecordShortID.unique(map(\.id)).enumerated() { records[index].shortID = short }
        return records
    }
}
