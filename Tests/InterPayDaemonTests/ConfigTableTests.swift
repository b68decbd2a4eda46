import Foundation
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// The table of configuration keys (`ConfigKey.all`) against everything that must follow it: the flags, the example
/// file, the README, and `--check-config`.
@Suite("Configuration table", .tearsDown)
struct ConfigTableTests {
    /// The assignments of the example file, commented out (`# key = value`), with their table: `[(key, value)]`.
    static func exampleAssignments() throws -> [(key: String, value: String)] {
        let text = try String(
            contentsOf: repositoryRoot.appending(path: "config/interpayd.toml"), encoding: .utf8)
        var table: String?
        var assignments: [(key: String, value: String)] = []
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("[") {
                table = String(line.dropFirst().dropLast())
                continue
            }
            guard line.hasPrefix("# "), let equals = line.range(of: " = ") else { continue }
            let key = String(line[line.index(line.startIndex, offsetBy: 2)..<equals.lowerBound])
            guard key.allSatisfy({ $0.isLowercase || $0 == "_" }) else { continue }
            assignments.append((table.map { "\($0).\(key)" } ?? key, String(line[equals.upperBound...])))
        }
        return assignments
    }

    @Test("the example file names every key of the table with its default (or example), and nothing else")
    func exampleFile() throws {
        let assignments = try Self.exampleAssignments()
        let fileKeys = ConfigKey.all.filter(\.inFile)
        #expect(assignments.map(\.key) == fileKeys.map(\.name), "in the table's order, each once")
        for key in fileKeys {
            let line = assignments.first { $0.key == key.name }
            #expect(line?.value == key.type.toml(key.exampleValue), "\(key.name)")
        }
        #expect(!assignments.contains { ConfigKey.named($0.key)?.secret == true }, "no secret in the file")
    }

    @Test("every flag of interpayd's configuration sets a key of the table, and every key's flag is declared")
    func flags() throws {
        let declared = try DaemonFlags.parse([]).given.map(\.flag)
        #expect(Set(declared) == Set(ConfigKey.all.compactMap(\.flag?.name)))
        #expect(Set(declared).count == declared.count)
        for key in ConfigKey.all {
            guard let flag = key.flag else { continue }
            let arguments: [String]
            let expected: ConfigValue
            switch (flag, key.exampleValue) {
            case (.off, _):
                (arguments, expected) = ([flag.name], false)
            case (.value, .strings):
                (arguments, expected) = (
                    [flag.name, "198.18.0.7:7420", flag.name, "[::1]:1"], ["198.18.0.7:7420", "[::1]:1"]
                )
            case (.value, let value):
                (arguments, expected) = ([flag.name, key.type.display(value)], value)
            }
            let settings = try DaemonSettings(flags: DaemonFlags.parse(arguments))
            #expect(settings.values == [key.name: expected], "\(arguments)")
        }
        #expect(try DaemonSettings(flags: DaemonFlags.parse([])) == DaemonSettings())
        #expect(DaemonFlags.flag(ofProperty: "_ratesURL") == "--rates-url")
        #expect(DaemonFlags.flag(ofProperty: "_noWeb") == "--no-web")
    }

    @Test("the README's configuration table names every key with its flag and environment variables")
    func readme() throws {
        let readme = try String(contentsOf: repositoryRoot.appending(path: "README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Configuration\n").dropFirst().first)
        let rows = section.components(separatedBy: "\n## ")[0].split(separator: "\n").filter { $0.hasPrefix("| `") }
        for key in ConfigKey.all {
            let row = rows.first { $0.contains("`\(key.name)`") }
            #expect(row != nil, "README has no row for \(key.name)")
            guard let row else { continue }
            if let flag = key.flag { #expect(row.contains("`\(flag.name)"), "\(key.name): \(flag.name)") }
            for case .named(let variable) in key.environment {
                #expect(row.contains("`\(variable)`"), "\(key.name): \(variable)")
            }
        }
    }

    @Test("--check-config lists every key: a value with its source, the secret masked, or why it is unset")
    func checkConfigSources() throws {
        var flags = DaemonSettings()
        flags["port"] = 7420
        let secret = "s3cr3t-api-key-123"
        let effective = try EffectiveConfiguration.resolve(
            flags: flags,
            file: (try DaemonSettings(toml: "[limits]\nmax_sessions = 9\n", path: "/f.toml"), "/f.toml"),
            host: ConfigHost(
                hostName: "host", isRoot: false, home: "/home/ana",
                environment: ["INTERPAY_LOG_LEVEL": "debug", "INTERPAY_RATES_API_KEY": secret]),
            version: "test")
        let sources = Dictionary(uniqueKeysWithValues: effective.entries.map { ($0.key, $0.source) })
        #expect(sources["port"] == .flag("--port"))
        #expect(sources["log_level"] == .environment("INTERPAY_LOG_LEVEL"))
        #expect(sources["limits.max_sessions"] == .file(path: "/f.toml"))
        #expect(sources["rates.api_key"] == .environment("INTERPAY_RATES_API_KEY"))
        #expect(sources["state_dir"] == .defaultValue)
        #expect(effective.configuration.stateDirectory.path == "/home/ana/.local/state/interpay")
        for key in ConfigKey.all {
            if case .unset = key.defaultValue, !key.secret { #expect(sources[key.name] == nil, "\(key.name)") }
            if case .value = key.defaultValue, key.name != "port", key.name != "log_level",
                key.name != "limits.max_sessions"
            {
                #expect(sources[key.name] == .defaultValue, "\(key.name)")
            }
        }
        #expect(!effective.text.contains(secret))
        #expect(effective.text.contains("api_key = \"****\""))
        #expect(effective.text.contains("max_sessions = 9"))
        #expect(effective.text.contains("# group is not set: "), "an unset key is shown as a comment")
        #expect(effective.text.contains("# default: the host name"), "a computed default says what it is")
    }

    @Test("a secret is refused in the file, and an environment value of the wrong type names the variable")
    func secretAndEnvironment() {
        #expect(throws: ConfigError.unknownKey(path: "/f.toml", key: "rates.api_key", line: 2)) {
            try DaemonSettings(toml: "[rates]\napi_key = \"abc\"\n", path: "/f.toml")
        }
        do {
            _ = try EffectiveConfiguration.resolve(
                flags: DaemonSettings(), file: nil,
                host: ConfigHost(
                    hostName: "host", isRoot: true, home: "/root", environment: ["INTERPAY_NAME": "ABCDEFG"]),
                version: "test")
            Issue.record("a name written like a peer ID was accepted")
        } catch {
            #expect(error.description.contains("(from $INTERPAY_NAME)"))
        }
    }
}
