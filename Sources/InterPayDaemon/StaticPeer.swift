/// A peer given by address (`--peer HOST:PORT`) for networks without DNS-SD.
public struct StaticPeer: Sendable, Hashable, CustomStringConvertible {
    /// Host name or IP address.
    public let host: String
    /// TCP port.
    public let port: Int

    /// Parses `HOST:PORT`, `IPv4:PORT` or `[IPv6]:PORT`.
    public init(parsing text: String) throws(DaemonError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .invalidPeer(text, reason: "expected [ADDRESS]:PORT") }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon else {
                throw .invalidPeer(text, reason: "expected HOST:PORT (write IPv6 addresses as [ADDRESS]:PORT)")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalidPeer(text, reason: "the host is empty") }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw .invalidPeer(text, reason: "the port must be a number from 1 to 65535")
        }
        self.host = String(host)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
