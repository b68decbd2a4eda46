import Foundation
import InterPayControl
import InterPayControlClient
import InterPayCore
import InterPayTestSupport
import Logging
import Testing

@testable import InterPayDaemon

/// `interpayd`'s configuration: TOML file, environment and flags merged key by key, with every error named.
@Suite("Daemon configuration", .tearsDown)
struct ConfigurationTests {
    static let path = "/etc/interpay/interpayd.toml"

    /// A root daemon on host "host": the defaults of the system daemon.
    static func host(environment: [String: String] = [:]) -> ConfigHost {
        ConfigHost(hostName: "host", isRoot: true, home: "/root", environment: environment)
    }

    static func resolve(
        flags: DaemonSettings = DaemonSettings(), environment: [String: String] = [:], toml: String? = nil
    ) throws(ConfigError) -> EffectiveConfiguration {
        let file = try toml.map { text throws(ConfigError) in (try DaemonSettings(toml: text, path: path), path) }
        return try EffectiveConfiguration.resolve(
            flags: flags, file: file, host: host(environment: environment), version: "test")
    }

    static func source(_ effective: EffectiveConfiguration, _ key: String) -> ConfigSource? {
        effective.entries.first { $0.key == key }?.source
    }

    @Test("every key of the file is read, with durations as text or seconds")
    func fileKeys() throws {
        let effective = try Self.resolve(
            toml: """
                name = "alice"
                listen = "127.0.0.1"
                port = 7420
                state_dir = "/srv/interpay"
                log_level = "debug"
                accept_from = "paired"

                [control]
                socket = "/run/custom.sock"
                group = 0

                [web]
                enabled = true
                listen = "localhost:8080"

                [notifications]
                desktop = false

                [receipts]
                enabled = false

                [discovery]
                enabled = false
                peers = ["192.0.2.7:7420", "[2001:db8::5]:7420"]

                [limits]
                max_frame_bytes = 8192
                handshake_timeout = "3s"
                keepalive_interval = 20
                max_pending_per_peer = 5
                max_requests_per_minute = 30
                max_unauthenticated = 8
                max_sessions = 40

                [ledger]
                retention = "30d"

                [subscriptions]
                enabled = false
                time_zone = "America/New_York"
                period_seconds = 4
                accept_test_periods = true

                [bills]
                enabled = false
                """)
        let configuration = effective.configuration
        #expect(!configuration.bills)
        #expect(configuration.subscriptionTimeZone == "America/New_York")
        #expect(configuration.subscriptionPeriodSeconds == 4)
        #expect(!configuration.subscriptions)
        #expect(configuration.acceptTestPeriods)
        #expect(configuration.name == "alice")
        #expect(configuration.listenHost == "127.0.0.1" && configuration.port == 7420)
        #expect(configuration.stateDirectory.path == "/srv/interpay")
        #expect(effective.logLevel == .debug)
        #expect(configuration.acceptFrom == .paired)
        #expect(configuration.socketPath == "/run/custom.sock" && configuration.socketGroupID == 0)
        #expect(configuration.webListen?.description == "127.0.0.1:8080")
        #expect(!configuration.receipts)
        #expect(!configuration.desktopNotifications)
        #expect(!configuration.discoveryEnabled)
        #expect(configuration.staticPeers.map(\.description) == ["192.0.2.7:7420", "[2001:db8::5]:7420"])
        #expect(configuration.maxFrameSize == 8_192)
        #expect(configuration.handshakeTimeout == .seconds(3) && configuration.keepaliveInterval == .seconds(20))
        #expect(configuration.maxPendingPerPeer == 5 && configuration.maxRequestsPerMinute == 30)
        #expect(configuration.maxUnauthenticated == 8)
        #expect(configuration.maxSessions == 40)
        #expect(configuration.ledgerRetention == .seconds(30 * 86_400))
        #expect(effective.text.contains("max_requests_per_minute = 30"))
        #expect(effective.text.contains("retention = \"30d\""))
        #expect(
            effective.entries.filter { !$0.key.hasPrefix("rates.") }.allSatisfy { $0.source == .file(path: Self.path) })
    }

    @Test("flags win over the environment, which wins over the file, which wins over the defaults")
    func precedence() throws {
        let toml = """
            name = "from-file"
            port = 1111
            log_level = "warning"
            [control]
            socket = "/file.sock"
            """
        var flags = DaemonSettings()
        flags["port"] = 3333
        let environment = ["INTERPAY_NAME": "from-env", "INTERPAY_SOCKET": "/env.sock"]
        let effective = try Self.resolve(flags: flags, environment: environment, toml: toml)
        #expect(effective.configuration.port == 3333)
        #expect(Self.source(effective, "port") == .flag("--port"))
        #expect(effective.configuration.name == "from-env")
        #expect(Self.source(effective, "name") == .environment("INTERPAY_NAME"))
        #expect(effective.configuration.socketPath == "/env.sock")
        #expect(effective.logLevel == .warning)
        #expect(Self.source(effective, "log_level") == .file(path: Self.path))
        #expect(effective.configuration.listenHost == "0.0.0.0")
        #expect(Self.source(effective, "listen") == .defaultValue)

        flags["control.socket"] = "/flag.sock"
        flags["discovery.peers"] = ["198.51.100.1:1"]
        flags["discovery.enabled"] = false
        let flagged = try Self.resolve(flags: flags, environment: environment, toml: toml)
        #expect(flagged.configuration.socketPath == "/flag.sock")
        #expect(flagged.configuration.staticPeers.map(\.description) == ["198.51.100.1:1"])
        #expect(!flagged.configuration.discoveryEnabled)
    }

    @Test("systemd's STATE_DIRECTORY is used when INTERPAY_STATE_DIR is not set")
    func systemdStateDirectory() throws {
        let systemd = try Self.resolve(environment: ["STATE_DIRECTORY": "/var/lib/interpay:/var/lib/other"])
        #expect(systemd.configuration.stateDirectory.path == "/var/lib/interpay")
        #expect(Self.source(systemd, "state_dir") == .environment("STATE_DIRECTORY"))
        let both = try Self.resolve(environment: ["STATE_DIRECTORY": "/a", "INTERPAY_STATE_DIR": "/b"])
        #expect(both.configuration.stateDirectory.path == "/b")
    }

    @Test(
        "file errors name the key and its line",
        arguments: [
            ("name = \"a\"\nport = = 1\n", ConfigError.syntax(path: path, line: 2, column: 8, message: "")),
            ("name = \"a\"\ncolour = 3\n", .unknownKey(path: path, key: "colour", line: 2)),
            ("[control]\nsokcet = \"/x\"\n", .unknownKey(path: path, key: "control.sokcet", line: 2)),
            ("\n[extra]\nx = 1\n", .unknownKey(path: path, key: "[extra]", line: 2)),
            ("port = \"7420\"\n", .wrongType(path: path, key: "port", expected: "an integer", line: 1)),
            ("name = 5\n", .wrongType(path: path, key: "name", expected: "a string", line: 1)),
            (
                "[discovery]\nenabled = \"yes\"\n",
                .wrongType(path: path, key: "discovery.enabled", expected: "true or false", line: 2)
            ),
            (
                "[discovery]\npeers = [1, 2]\n",
                .wrongType(path: path, key: "discovery.peers", expected: "an array of strings", line: 2)
            ),
            (
                "[control]\ngroup = true\n",
                .wrongType(path: path, key: "control.group", expected: "a name or a number", line: 2)
            ),
            (
                "[limits]\nkeepalive_interval = \"soon\"\n",
                .wrongType(
                    path: path, key: "limits.keepalive_interval",
                    expected: "a duration such as \"15s\" or \"2m\", or a number of seconds", line: 2)
            ),
            ("control = 3\n", .wrongType(path: path, key: "control", expected: "a table ([control])", line: 1)),
        ])
    func fileErrors(toml: String, expected: ConfigError) {
        do {
            _ = try DaemonSettings(toml: toml, path: Self.path)
            Issue.record("accepted: \(toml)")
        } catch {
            if case .syntax(let path, let line, _, _) = expected {
                guard case .syntax(path, line, _, let message) = error else {
                    Issue.record("expected a syntax error on line \(line), got \(error)")
                    return
                }
                #expect(!message.isEmpty)
            } else {
                #expect(error == expected)
            }
            #expect(error.description.contains(Self.path))
        }
    }

    @Test(
        "values out of range are refused, naming the key, the value and its source",
        arguments: [
            ("port = 70000\n", "port", ConfigSource.file(path: path)),
            ("name = \"\"\n", "name", .file(path: path)),
            ("log_level = \"loud\"\n", "log_level", .file(path: path)),
            ("accept_from = \"friends\"\n", "accept_from", .file(path: path)),
            ("[discovery]\npeers = [\"nohost\"]\n", "discovery.peers", .file(path: path)),
            ("[control]\ngroup = \"no-such-group-here\"\n", "control.group", .file(path: path)),
            ("[limits]\nmax_frame_bytes = 100\n", "limits.max_frame_bytes", .file(path: path)),
            ("[limits]\nhandshake_timeout = \"2m\"\n", "limits.handshake_timeout", .file(path: path)),
            ("[limits]\nkeepalive_interval = 2\n", "limits.keepalive_interval", .file(path: path)),
            ("[limits]\nmax_pending_per_peer = 0\n", "limits.max_pending_per_peer", .file(path: path)),
            ("[limits]\nmax_requests_per_minute = -1\n", "limits.max_requests_per_minute", .file(path: path)),
            ("[limits]\nmax_unauthenticated = 0\n", "limits.max_unauthenticated", .file(path: path)),
            ("[limits]\nmax_sessions = 0\n", "limits.max_sessions", .file(path: path)),
            ("[subscriptions]\nperiod_seconds = 0\n", "subscriptions.period_seconds", .file(path: path)),
            ("[subscriptions]\ntime_zone = \"Mars/Olympus\"\n", "subscriptions.time_zone", .file(path: path)),
            // The web app is served on loopback only.
            ("[web]\nlisten = \"0.0.0.0:7780\"\n", "web.listen", .file(path: path)),
            ("[web]\nlisten = \"198.18.0.5:7780\"\n", "web.listen", .file(path: path)),
            ("[web]\nlisten = \"[::]:7780\"\n", "web.listen", .file(path: path)),
        ])
    func invalidValues(toml: String, key: String, source: ConfigSource) {
        do {
            _ = try Self.resolve(toml: toml)
            Issue.record("accepted: \(toml)")
        } catch {
            guard case .invalidValue(let badKey, _, _, let badSource) = error else {
                Issue.record("expected an invalid value, got \(error)")
                return
            }
            #expect(badKey == key && badSource == source)
        }
    }

    @Test("rates: currency, URL template and timeout; the API key only from the environment, shown masked")
    func rates() throws {
        let toml = """
            [rates]
            currency = "mxn"
            url = "https://rates.example/v6/{key}/latest/{base}"
            api_key_env = "MY_RATES_KEY"
            timeout = "20s"
            """
        let secret = "s3cr3t-api-key-123"
        let effective = try Self.resolve(environment: ["MY_RATES_KEY": secret], toml: toml)
        let configuration = effective.configuration
        #expect(configuration.preferredCurrency?.code == "MXN")
        #expect(configuration.ratesURLTemplate == "https://rates.example/v6/{key}/latest/{base}")
        #expect(configuration.ratesTimeout == .seconds(20))
        #expect(configuration.ratesAPIKey != nil)
        #expect(!effective.text.contains(secret), "the key is never printed")
        #expect(effective.text.contains("api_key = \"****\""))
        #expect(Self.source(effective, "rates.api_key") == .environment("MY_RATES_KEY"))

        // {key} without a key, an unknown currency, a template that is not http(s): errors naming the key.
        for (bad, key) in [
            (toml, "rates.url"), ("[rates]\ncurrency = \"XXY\"\n", "rates.currency"),
            ("[rates]\nurl = \"ftp://x/{base}\"\n", "rates.url"), ("[rates]\ntimeout = \"1h\"\n", "rates.timeout"),
        ] {
            do {
                _ = try Self.resolve(toml: bad)
                Issue.record("accepted: \(bad)")
            } catch {
                guard case .invalidValue(let badKey, _, _, _) = error else {
                    Issue.record("expected an invalid value, got \(error)")
                    continue
                }
                #expect(badKey == key)
            }
        }
        var flags = DaemonSettings()
        flags["rates.currency"] = "JPY"
        let flagged = try Self.resolve(
            flags: flags, environment: ["INTERPAY_CURRENCY": "EUR"],
            toml: toml.replacingOccurrences(of: "{key}/", with: ""))
        #expect(flagged.configuration.preferredCurrency?.code == "JPY")
    }

    @Test("a bad value from the environment names the variable")
    func invalidEnvironment() {
        #expect(throws: ConfigError.self) { try Self.resolve(environment: ["INTERPAY_LOG_LEVEL": "loud"]) }
        do {
            _ = try Self.resolve(environment: ["INTERPAY_LOG_LEVEL": "loud"])
        } catch {
            #expect(error.description.contains("$INTERPAY_LOG_LEVEL"))
        }
    }

    @Test("an explicit file must exist; the default locations are in order")
    func locations() throws {
        #expect(throws: ConfigError.fileNotFound(path: "/nonexistent/interpayd.toml")) {
            try DaemonSettings(contentsOf: "/nonexistent/interpayd.toml")
        }
        let home = "/home/ana"
        #expect(
            ConfigFileLocation.resolve(explicit: "/x.toml", isRoot: true, environment: [:], home: home) == (
                "/x.toml", true
            ))
        #expect(
            ConfigFileLocation.resolve(
                explicit: nil, isRoot: false, environment: ["CONFIGURATION_DIRECTORY": "/etc/interpay"], home: home)
                == ("/etc/interpay/interpayd.toml", false))
        #expect(
            ConfigFileLocation.resolve(explicit: nil, isRoot: true, environment: [:], home: home)
                == ("/etc/interpay/interpayd.toml", false))
        #expect(
            ConfigFileLocation.resolve(explicit: nil, isRoot: false, environment: ["XDG_CONFIG_HOME": "/c"], home: home)
                == ("/c/interpay/interpayd.toml", false))
        #expect(
            ConfigFileLocation.resolve(explicit: nil, isRoot: false, environment: [:], home: home)
                == ("/home/ana/.config/interpay/interpayd.toml", false))
    }

    @Test("the shipped example file is valid and sets nothing (every line is a comment)")
    func exampleFile() throws {
        let example = repositoryRoot.appending(path: "config/interpayd.toml").path
        let settings = try DaemonSettings(contentsOf: example)
        #expect(settings == DaemonSettings())
        // Uncommented, every example key is known and well typed.
        let text = try String(contentsOfFile: example, encoding: .utf8)
        let uncommented = text.split(separator: "\n").map { line in
            line.hasPrefix("# ") && line.contains(" = ") ? String(line.dropFirst(2)) : String(line)
        }.joined(separator: "\n")
        let all = try DaemonSettings(toml: uncommented, path: example)
        #expect(all["name"] == "alice" && all["discovery.peers"] == [] && all["limits.keepalive_interval"] == 15)
        #expect(all["accept_from"] == "any")
        #expect(all["rates.currency"] == "EUR" && all["rates.timeout"] == 10)
        #expect(all["rates.api_key_env"] == "INTERPAY_RATES_API_KEY")
    }

    @Test("limits.max_sessions is 256 by default, and --check-config shows it with its source")
    func maxSessionsDefault() throws {
        let effective = try Self.resolve()
        #expect(effective.configuration.maxSessions == 256)
        #expect(Self.source(effective, "limits.max_sessions") == .defaultValue)
        #expect(effective.text.contains("max_sessions = 256"))
    }

    @Test("--check-config text shows each value with its source, in file order")
    func checkText() throws {
        var flags = DaemonSettings()
        flags["port"] = 7420
        let text = try Self.resolve(flags: flags, toml: "[limits]\nkeepalive_interval = \"20s\"\n").text
        #expect(text.contains("port = 7420"))
        #expect(text.contains("# --port"))
        let keepalive = text.split(separator: "\n").first { $0.hasPrefix("keepalive_interval = \"20s\"") }
        #expect(keepalive?.hasSuffix("# \(Self.path)") == true)
        #expect(text.contains("[limits]\nmax_frame_bytes = 65536"), "defaults are shown too")
        #expect(text.contains("accept_from = \"any\""), "the default policy is shown")
        #expect(try #require(text.range(of: "name =")).lowerBound < #require(text.range(of: "[control]")).lowerBound)
    }
}

/// The repository's root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
