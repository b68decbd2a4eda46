import Foundation
import InterPayCore
import TOMLKit

extension DaemonSettings {
    /// Reads the settings of a configuration file (see `config/interpayd.toml`): an unknown key or table, or a
    /// value of the wrong type, is an error naming the key and its line. Values are range-checked when resolved.
    public init(toml text: String, path: String) throws(ConfigError) {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .syntax(
                path: path, line: error.source.begin.line, column: error.source.begin.column,
                message: error.description)
        } catch {
            throw .syntax(path: path, line: 0, column: 0, message: String(describing: error))
        }
        var reader = TOMLReader(table: table, text: text, path: path)
        self.init()
        name = try reader.string("name")
        listen = try reader.string("listen")
        port = try reader.integer("port")
        stateDirectory = try reader.string("state_dir")
        logLevel = try reader.string("log_level")
        acceptFrom = try reader.string("accept_from")
        socket = try reader.string("control.socket")
        socketGroup = try reader.stringOrInteger("control.group")
        web = try reader.bool("web.enabled")
        receipts = try reader.bool("receipts.enabled")
        webListen = try reader.string("web.listen")
        discovery = try reader.bool("discovery.enabled")
        peers = try reader.strings("discovery.peers")
        currency = try reader.string("rates.currency")
        ratesURL = try reader.string("rates.url")
        ratesAPIKeyVariable = try reader.string("rates.api_key_env")
        ratesTimeout = try reader.duration("rates.timeout")
        maxFrameBytes = try reader.integer("limits.max_frame_bytes")
        handshakeTimeout = try reader.duration("limits.handshake_timeout")
        keepaliveInterval = try reader.duration("limits.keepalive_interval")
        maxPendingPerPeer = try reader.integer("limits.max_pending_per_peer")
        maxRequestsPerMinute = try reader.integer("limits.max_requests_per_minute")
        maxUnauthenticated = try reader.integer("limits.max_unauthenticated")
        maxSessions = try reader.integer("limits.max_sessions")
        subscriptionPeriodSeconds = try reader.integer("subscriptions.period_seconds").map(Int64.init)
        subscriptionTimeZone = try reader.string("subscriptions.time_zone")
        try reader.rejectUnread()
    }

    /// Reads the configuration file at `path`.
    public init(contentsOf path: String) throws(ConfigError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .fileNotFound(path: path) }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        try self.init(toml: text, path: path)
    }
}

/// Typed access to a TOML document's keys (`table.key` paths), remembering which were read so that any other key
/// can be reported as unknown, with the line it is on.
private struct TOMLReader {
    let table: TOMLTable
    let text: String
    let path: String
    private(set) var read: Set<String> = []
    /// The tables the daemon knows; any other table is unknown.
    static let tables: Set<String> = ["control", "web", "receipts", "discovery", "rates", "limits", "subscriptions"]

    init(table: TOMLTable, text: String, path: String) {
        self.table = table
        self.text = text
        self.path = path
    }

    private mutating func value(_ key: String) throws(ConfigError) -> (any TOMLValueConvertible)? {
        read.insert(key)
        let parts = key.split(separator: ".").map(String.init)
        var current = table
        for part in parts.dropLast() {
            guard let node = current[part] else { return nil }
            guard let next = node.table else {
                throw .wrongType(path: path, key: part, expected: "a table ([\(part)])", line: line(of: part, in: nil))
            }
            current = next
        }
        return parts.last.flatMap { current[$0] }
    }

    private func wrongType(_ key: String, _ expected: String) -> ConfigError {
        .wrongType(path: path, key: key, expected: expected, line: line(of: key))
    }

    mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = try value(key) else { return nil }
        guard let string = value.string else { throw wrongType(key, "a string") }
        return string
    }

    mutating func integer(_ key: String) throws(ConfigError) -> Int? {
        guard let value = try value(key) else { return nil }
        guard let integer = value.int else { throw wrongType(key, "an integer") }
        return integer
    }

    mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = try value(key) else { return nil }
        guard let bool = value.bool else { throw wrongType(key, "true or false") }
        return bool
    }

    mutating func stringOrInteger(_ key: String) throws(ConfigError) -> String? {
        guard let value = try value(key) else { return nil }
        if let string = value.string { return string }
        if let integer = value.int { return String(integer) }
        throw wrongType(key, "a name or a number")
    }

    mutating func strings(_ key: String) throws(ConfigError) -> [String]? {
        guard let value = try value(key) else { return nil }
        guard let array = value.array else { throw wrongType(key, "an array of strings") }
        var strings: [String] = []
        for element in array {
            guard let string = element.string else { throw wrongType(key, "an array of strings") }
            strings.append(string)
        }
        return strings
    }

    /// A duration: a string such as "15s" or "2m", or an integer number of seconds.
    mutating func duration(_ key: String) throws(ConfigError) -> Int64? {
        guard let value = try value(key) else { return nil }
        if let integer = value.int { return Int64(integer) }
        guard let text = value.string, let seconds = DurationText.seconds(text) else {
            throw wrongType(key, "a duration such as \"15s\" or \"2m\", or a number of seconds")
        }
        return seconds
    }

    /// Throws for the first key or table that nothing read.
    func rejectUnread() throws(ConfigError) {
        for (key, node) in table {
            if let inner = node.table, Self.tables.contains(key) {
                for (innerKey, _) in inner where !read.contains("\(key).\(innerKey)") {
                    throw .unknownKey(path: path, key: "\(key).\(innerKey)", line: line(of: "\(key).\(innerKey)"))
                }
            } else if node.table != nil {
                throw .unknownKey(path: path, key: "[\(key)]", line: line(ofTable: key))
            } else if !read.contains(key) {
                throw .unknownKey(path: path, key: key, line: line(of: key, in: nil))
            }
        }
    }

    /// The 1-based line on which `key` (a `table.key` path) is set, found in the text: TOMLKit keeps no positions.
    func line(of key: String) -> Int? {
        let parts = key.split(separator: ".").map(String.init)
        return parts.count == 2 ? line(of: parts[1], in: parts[0]) : line(of: key, in: nil)
    }

    /// The line of `key = ...` inside `[table]` (nil: before any table header).
    func line(of key: String, in table: String?) -> Int? {
        var current: String?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")).lowercased()
                continue
            }
            guard current == table, line.hasPrefix(key) else { continue }
            let rest = line.dropFirst(key.count).trimmingCharacters(in: .whitespaces)
            if rest.hasPrefix("=") { return index + 1 }
        }
        return nil
    }

    func line(ofTable table: String) -> Int? {
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("["), line.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")) == table {
                return index + 1
            }
        }
        return nil
    }
}
