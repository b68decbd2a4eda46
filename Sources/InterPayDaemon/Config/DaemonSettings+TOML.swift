import Foundation
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
        let reader = TOMLReader(table: table, text: text, path: path)
        self.init()
        for key in ConfigKey.all where key.inFile {
            self[key.name] = try reader.value(of: key)
        }
        try reader.rejectUnknown()
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

/// Access to a TOML document's keys (`table.key` paths) by the table of keys: a value of the wrong type, or a key
/// the table does not have, is an error naming the key and the line it is on.
private struct TOMLReader {
    let table: TOMLTable
    let text: String
    let path: String
    /// The keys a file may set.
    static let known = Set(ConfigKey.all.filter(\.inFile).map(\.name))
    /// The tables of those keys; any other table is unknown.
    static let tables = Set(known.compactMap { name in name.firstIndex(of: ".").map { String(name[..<$0]) } })

    /// The value of `key`, or nil when the file does not set it.
    func value(of key: ConfigKey) throws(ConfigError) -> ConfigValue? {
        let parts = key.name.split(separator: ".").map(String.init)
        var current = table
        for part in parts.dropLast() {
            guard let node = current[part] else { return nil }
            guard let next = node.table else {
                throw .wrongType(path: path, key: part, expected: "a table ([\(part)])", line: line(of: part, in: nil))
            }
            current = next
        }
        guard let node = parts.last.flatMap({ current[$0] }) else { return nil }
        guard let value = key.type.read(node) else {
            throw .wrongType(path: path, key: key.name, expected: key.type.expected, line: line(of: key.name))
        }
        return value
    }

    /// Throws for the first key or table that the table of keys does not have.
    func rejectUnknown() throws(ConfigError) {
        for (key, node) in table {
            if let inner = node.table, Self.tables.contains(key) {
                for (innerKey, _) in inner where !Self.known.contains("\(key).\(innerKey)") {
                    throw .unknownKey(path: path, key: "\(key).\(innerKey)", line: line(of: "\(key).\(innerKey)"))
                }
            } else if node.table != nil {
                throw .unknownKey(path: path, key: "[\(key)]", line: line(ofTable: key))
            } else if !Self.known.contains(key) {
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
