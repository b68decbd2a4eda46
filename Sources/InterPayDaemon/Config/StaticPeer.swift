public import InterPayCore

/// A peer given by address (`--peer [ID@]HOST:PORT`) for networks without DNS-SD.
///
/// With its peer ID, only that key is accepted at the address (PROTOCOL.md §2.2). Without one, the first key seen
/// there is pinned and kept in the ledger; a different key later is refused until `interpay untrust`.
public struct StaticPeer: Sendable, Hashable, CustomStringConvertible {
    /// The peer ID expected at the address, if given.
    public let peerID: PeerID?
    /// Host name or IP address.
    public let host: String
    /// TCP port.
    public let port: Int

    /// Parses `[ID@]HOST:PORT`, where HOST is a name, an IPv4 address or `[IPv6]`, and ID a peer ID's text form.
    public init(parsing full: String) throws(DaemonError) {
        var text = Substring(full)
        if let at = text.lastIndex(of: "@") {
            do {
                peerID = try PeerID(parsing: String(text[..<at]))
            } catch {
                throw .invalidPeer(full, reason: "the part before @ is not a peer ID: \(error)")
            }
            text = text[text.index(after: at)...]
        } else {
            peerID = nil
        }
        let host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .invalidPeer(full, reason: "expected [ADDRESS]:PORT") }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon else {
                throw .invalidPeer(full, reason: "expected [ID@]HOST:PORT (write IPv6 addresses as [ADDRESS]:PORT)")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalidPeer(full, reason: "the host is empty") }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw .invalidPeer(full, reason: "the port must be a number from 1 to 65535")
        }
        self.host = String(host)
        self.port = port
    }

    /// `HOST:PORT` (`[IPv6]:PORT`), without the ID: the address, which names the dial target.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The session manager's key of its dial target.
    var dialKey: String { "static \(address)" }

    public var description: String { peerID.map { "\($0)@\(address)" } ?? address }
}
