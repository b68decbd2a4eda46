/// Where the web app listens: a loopback address and a port (`[web] listen`, `--web ADDR:PORT`).
///
/// Only loopback addresses are accepted: the app moves money, and its only protections against the network are that
/// nothing off this machine can reach it and the access token. `localhost` means `127.0.0.1`.
public struct WebListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric loopback address to bind: `127.x.y.z` or `::1`.
    public let host: String
    /// The TCP port; 0 picks a free one.
    public let port: Int

    /// The default, `127.0.0.1:7780`.
    public static let `default` = WebListenAddress(checkedHost: "127.0.0.1", port: 7780)

    private init(checkedHost: String, port: Int) {
        host = checkedHost
        self.port = port
    }

    /// Parses `HOST:PORT` (`[::1]:PORT` for IPv6), refusing any host that is not a loopback address.
    public init(parsing text: String) throws(WebListenAddressError) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .malformed(text)
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .malformed(text) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw .malformed(text) }
        }
        guard let port = Int(portText), (0...65_535).contains(port) else { throw .badPort(text) }
        if host == "localhost" {
            self.init(checkedHost: "127.0.0.1", port: port)
        } else if host == "::1" {
            self.init(checkedHost: "::1", port: port)
        } else if Self.isLoopbackIPv4(host) {
            self.init(checkedHost: String(host), port: port)
        } else {
            throw .notLoopback(String(host))
        }
    }

    /// Whether `text` is a dotted-quad address in 127.0.0.0/8.
    static func isLoopbackIPv4(_ text: some StringProtocol) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), UInt8(part) != nil else { return false }
        }
        return parts[0] == "127"
    }

    /// `HOST:PORT`, with brackets around an IPv6 host.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why a web listen address is refused.
public enum WebListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `HOST:PORT`.
    case malformed(String)
    /// The port is not a number from 0 to 65535.
    case badPort(String)
    /// The host is not a loopback address.
    case notLoopback(String)

    public var description: String {
        switch self {
        case .malformed(let text):
            "'\(text)' is not HOST:PORT (e.g. 127.0.0.1:7780, [::1]:7780)"
        case .badPort(let text):
            "'\(text)': the port must be a number from 0 to 65535"
        case .notLoopback(let host):
            "'\(host)' is not a loopback address: the web app is served on 127.0.0.0/8, ::1 or localhost only"
        }
    }
}
