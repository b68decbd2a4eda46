import Foundation
import InterPayContract
import InterPayControl
import InterPayControlClient
import InterPayCore
import InterPayEngine
import InterPayRates
import InterPayTransport
import InterPayWeb
import Logging

extension ConfigKey {
    /// Every configuration key, in the order of the example file (`config/interpayd.toml`) and of
    /// `interpayd --check-config`.
    ///
    /// Adding a key is a row here (its name, type, range, flag, environment, default, and where the value goes in
    /// `DaemonConfiguration`), its lines in the example file and a row in the README's table; a flag also needs its
    /// declaration in `DaemonFlags`. The tests check the example file, the README and the flags against this table.
    public static let all: [ConfigKey] = [
        .string(
            "name", flag: .value("--name"), environment: [.named("INTERPAY_NAME")],
            default: .computed("the host name", example: "alice") { .string($0.hostName) }
        ) { configuration, name throws(ConfigProblem) in
            if let problem = DisplayName.problem(with: name) { throw ConfigProblem(problem) }
            configuration.name = name
        },
        .string("listen", flag: .value("--listen"), default: .value("0.0.0.0")) { $0.listenHost = $1 },
        .integer("port", 0...65_535, flag: .value("--port"), default: .value(0)) { $0.port = $1 },
        .string(
            "state_dir", flag: .value("--state-dir"),
            environment: [.named("INTERPAY_STATE_DIR"), .firstPath("STATE_DIRECTORY")],
            default: .computed(
                "/var/lib/interpay for root, else $XDG_STATE_HOME/interpay", example: "/var/lib/interpay"
            ) { host in
                if host.isRoot { return "/var/lib/interpay" }
                if let state = host.environment["XDG_STATE_HOME"], !state.isEmpty {
                    return .string(state + "/interpay")
                }
                return .string(host.home + "/.local/state/interpay")
            }
        ) { $0.stateDirectory = URL(fileURLWithPath: $1) },
        .string(
            "log_level", .oneOf(Logger.Level.allCases.map(\.rawValue)), flag: .value("--log-level"),
            environment: [.named("INTERPAY_LOG_LEVEL")], default: .value("info")
        ) { configuration, text throws(ConfigProblem) in
            guard let level = Logger.Level(rawValue: text) else { throw ConfigProblem("not a log level") }
            configuration.logLevel = level
        },
        .string(
            "accept_from", .oneOf(["any", "paired"]), flag: .value("--accept-from"),
            environment: [.named("INTERPAY_ACCEPT_FROM")], default: .value("any")
        ) { configuration, text throws(ConfigProblem) in
            guard let policy = AcceptPolicy(rawValue: text) else { throw ConfigProblem("\"any\" or \"paired\"") }
            configuration.acceptFrom = policy
        },
        .string(
            "control.socket", flag: .value("--socket"), environment: [.named(ControlSocketPath.environmentVariable)],
            default: .computed(
                "$XDG_RUNTIME_DIR/interpay/interpayd.sock, else /run/interpay/interpayd.sock",
                example: .string(ControlSocketPath.systemDefault)
            ) { host in
                var withoutOverride = host.environment
                withoutOverride[ControlSocketPath.environmentVariable] = nil
                return .string(ControlSocketPath.resolve(explicit: nil, environment: withoutOverride))
            }
        ) { $0.socketPath = $1 },
        .string(
            "control.group", flag: .value("--socket-group"),
            default: .unset("only the daemon's user and root may use the socket", example: "interpay"),
            type: .nameOrNumber
        ) { configuration, group throws(ConfigProblem) in
            guard let id = EffectiveConfiguration.groupIDNamed(group) else { throw ConfigProblem("no such group") }
            configuration.socketGroupID = id
        },
        .bool("web.enabled", flag: .off("--no-web"), default: .value(true)) { $0.webEnabled = $1 },
        .string(
            "web.listen", flag: .value("--web"), default: .value(.string(WebListenAddress.default.description))
        ) { configuration, text throws(ConfigProblem) in
            do throws(WebListenAddressError) {
                configuration.webAddress = try WebListenAddress(parsing: text)
            } catch {
                throw ConfigProblem(error.description)
            }
        },
        .string(
            "metrics.listen", default: .unset("no metrics are served", example: "127.0.0.1:9464")
        ) { configuration, text throws(ConfigProblem) in
            do throws(WebListenAddressError) {
                configuration.metricsListen = try WebListenAddress(parsing: text)
            } catch {
                throw ConfigProblem(error.description.replacingOccurrences(of: "the web app is", with: "metrics are"))
            }
        },
        .string(
            "metrics.token_file",
            default: .unset("metrics-token in the state directory", example: "/var/lib/interpay/metrics-token")
        ) { $0.metricsTokenFile = $1 },
        .bool("notifications.desktop", flag: .off("--no-desktop-notifications"), default: .value(true)) {
            $0.desktopNotifications = $1
        },
        .bool("receipts.enabled", flag: .off("--no-receipts"), default: .value(true)) { $0.receipts = $1 },
        .bool("discovery.enabled", flag: .off("--no-discovery"), default: .value(true)) { $0.discoveryEnabled = $1 },
        .strings("discovery.peers", flag: .value("--peer"), default: .value([])) {
            configuration, texts throws(ConfigProblem) in
            var peers: [StaticPeer] = []
            for text in texts {
                do throws(DaemonError) {
                    peers.append(try StaticPeer(parsing: text))
                } catch {
                    throw ConfigProblem(error.description, value: text)
                }
            }
            configuration.staticPeers = peers
        },
        .string(
            "rates.currency", flag: .value("--currency"), environment: [.named("INTERPAY_CURRENCY")],
            default: .unset("amounts are shown as they are", example: "EUR")
        ) { configuration, text throws(ConfigProblem) in
            do throws(MoneyError) {
                configuration.preferredCurrency = try CurrencyCode(userInput: text)
            } catch {
                throw ConfigProblem(error.description)
            }
        },
        .string(
            "rates.url", flag: .value("--rates-url"), environment: [.named("INTERPAY_RATES_URL")],
            default: .value(.string(ExchangeRateAPIProvider.defaultURLTemplate))
        ) { $0.ratesURLTemplate = $1 },
        .string("rates.api_key_env", default: .value(.string(RatesAPIKey.environmentVariable))) { _, _ in },
        .string(
            "rates.api_key", environment: [.namedByKey("rates.api_key_env")],
            default: .unset("the URL template must not need {key}", example: "****"), secret: true
        ) { configuration, secret throws(ConfigProblem) in
            do throws(RatesError) {
                configuration.ratesAPIKey = try RatesAPIKey(secret)
            } catch {
                throw ConfigProblem(error.description)
            }
        },
        .duration("rates.timeout", 1...300, default: .value(10)) { $0.ratesTimeout = $1 },
        .integer(
            "limits.max_frame_bytes", 4_096...Limits.maxFrameSize, unit: " bytes",
            default: .value(.integer(Limits.maxFrameSize))
        ) {
            $0.maxFrameSize = $1
        },
        .duration("limits.handshake_timeout", 1...60, default: .value(5)) { $0.handshakeTimeout = $1 },
        .duration("limits.keepalive_interval", 5...60, default: .value(15)) { $0.keepaliveInterval = $1 },
        .integer(
            "limits.max_pending_per_peer", 1...100_000,
            default: .value(.integer(RequestLimiter.Limits.defaultMaxPending))
        ) { $0.maxPendingPerPeer = $1 },
        .integer(
            "limits.max_requests_per_minute", 1...1_000_000,
            default: .value(.integer(RequestLimiter.Limits.defaultMaxPerMinute))
        ) { $0.maxRequestsPerMinute = $1 },
        .integer(
            "limits.max_unauthenticated", 1...100_000,
            default: .value(.integer(TransportConfiguration.defaultMaxUnauthenticated))
        ) { $0.maxUnauthenticated = $1 },
        .integer(
            "limits.max_sessions", 1...100_000, default: .value(.integer(TransportConfiguration.defaultMaxSessions))
        ) { $0.maxSessions = $1 },
        .integer(
            "limits.max_sessions_per_address", 1...100_000,
            default: .unset("a quarter of max_sessions, at least 1", example: 64)
        ) { $0.maxSessionsPerAddress = $1 },
        // At least the replay window (PROTOCOL.md §9.2: 7 days after expiry) and a day; at most ten years.
        .duration("ledger.retention", 8 * 86_400...3_650 * 86_400, default: .value(.integer(90 * 86_400))) {
            $0.ledgerRetention = $1
        },
        .string(
            "export.account",
            default: .unset(
                "assets:interpay:{peer} (beancount: Assets:InterPay:{peer})", example: "assets:tills:{name}")
        ) { configuration, pattern throws(ConfigProblem) in
            do throws(Books.BooksError) {
                _ = try Books.journal([], format: .ledger, account: pattern)
                _ = try Books.journal(
                    [], format: .beancount, account: Books.account(configured: pattern, for: .beancount))
            } catch {
                throw ConfigProblem(error.description)
            }
            configuration.exportAccount = pattern
        },
        .bool("subscriptions.enabled", default: .value(true)) { $0.subscriptions = $1 },
        .string(
            "subscriptions.time_zone",
            // Unset rather than computed: the system's zone is looked up when a subscription is offered, so that
            // start-up runs none of ICU's time-zone code (its pages would stay resident in every idle daemon).
            default: .unset(
                "the system's time zone, looked up when a subscription is offered", example: "Europe/Berlin")
        ) { configuration, identifier throws(ConfigProblem) in
            guard TimeZone(identifier: identifier) != nil else {
                throw ConfigProblem("not a time zone this system knows (an IANA name such as Europe/Berlin)")
            }
            configuration.subscriptionTimeZone = identifier
        },
        .integer(
            "subscriptions.period_seconds", 1...Int(Limits.maxRequestLifetime),
            default: .unset("calendar weeks, months and years", example: 60)
        ) { $0.subscriptionPeriodSeconds = Int64($1) },
        .bool("subscriptions.accept_test_periods", default: .value(false)) { $0.acceptTestPeriods = $1 },
        .bool("bills.enabled", default: .value(true)) { $0.bills = $1 },
    ]
}
