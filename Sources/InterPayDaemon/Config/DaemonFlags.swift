public import ArgumentParser

/// The flags of `interpayd` that set configuration keys: thin declarations for help and parsing only.
///
/// Each property is named after its flag (`stateDir` is `--state-dir`) and maps to the key of `ConfigKey.all` with
/// that flag, which gives its type, range and default; `settings` reads them by reflection, so there is no second
/// list of keys. A flag here that the table does not have fails the tests.
public struct DaemonFlags: ParsableArguments {
    @Option(help: "Display name shown to peers (default: this machine's host name).")
    var name: String?

    @Option(
        help:
            "Directory for the identity key and the ledger (default: $XDG_STATE_HOME/interpay, or /var/lib/interpay for root)."
    )
    var stateDir: String?

    @Option(help: "Address to listen on (default: 0.0.0.0).")
    var listen: String?

    @Option(help: "TCP port to listen on; 0 (the default) picks a free port, which DNS-SD advertises.")
    var port: Int?

    @Option(help: "A peer to connect to without DNS-SD, as HOST:PORT (repeatable).")
    var peer: [String] = []

    @Flag(help: "Neither advertise nor browse with DNS-SD (use --peer).")
    var noDiscovery = false

    @Option(
        help: ArgumentHelp(
            "Control socket for the interpay CLI.",
            discussion:
                "Default: $INTERPAY_SOCKET, else $XDG_RUNTIME_DIR/interpay/interpayd.sock, else /run/interpay/interpayd.sock."
        ))
    var socket: String?

    @Option(help: "A group (name or number) whose members may use the control socket too (socket mode 0660).")
    var socketGroup: String?

    @Option(
        help: ArgumentHelp(
            "Serve the web app on this loopback ADDR:PORT (default 127.0.0.1:7780; port 0 picks a free one).",
            discussion: "Only 127.0.0.0/8, [::1] and localhost are accepted: the app is never served to the network."
        ))
    var web: String?

    @Flag(help: "Do not serve the web app.")
    var noWeb = false

    @Flag(help: "No desktop notification when a request, an offer or a pairing attempt arrives.")
    var noDesktopNotifications = false

    @Flag(
        help: ArgumentHelp(
            "Do not settle with signed receipts (receipts.enabled = false).",
            discussion:
                "The daemon then does not announce the receipts capability and behaves as one that predates receipts."
        ))
    var noReceipts = false

    @Option(help: "Lowest level of log messages: trace, debug, info (default), notice, warning, error, critical.")
    var logLevel: String?

    @Option(
        help: ArgumentHelp(
            "Whose payment requests to take: any (default; unpaired peers are flagged unverified) or paired.",
            discussion:
                "With 'paired', requests from peers not paired with 'interpay pair' are refused. Also $INTERPAY_ACCEPT_FROM."
        ))
    var acceptFrom: String?

    @Option(help: "Show amounts also in this currency (ISO 4217, e.g. EUR); also $INTERPAY_CURRENCY.")
    var currency: String?

    @Option(
        help: ArgumentHelp(
            "Exchange rates: an ExchangeRate-API v6 URL template with {base} (and {key}).",
            discussion:
                "Default: the keyless open endpoint, https://open.er-api.com/v6/latest/{base}. The API key, if the template needs one, comes only from the environment ($INTERPAY_RATES_API_KEY, or the variable rates.api_key_env names)."
        ))
    var ratesURL: String?

    public init() {}

    /// Every declared flag as typed (`--state-dir`) with the value given, nil when it was not given.
    var given: [(flag: String, value: ConfigValue?)] {
        Mirror(reflecting: self).children.compactMap { child in
            guard let label = child.label else { return nil }
            return (Self.flag(ofProperty: label), Self.value(of: child.value))
        }
    }

    /// The flag of a property: `_stateDir` is `--state-dir`, `_ratesURL` is `--rates-url` (as ArgumentParser
    /// names it).
    static func flag(ofProperty label: String) -> String {
        let characters = Array(label.drop { $0 == "_" })
        var flag = "--"
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    flag.append("-")
                }
            }
            flag += character.lowercased()
        }
        return flag
    }

    /// The value of a parsed `@Option` or `@Flag`, nil when it was not given.
    private static func value(of wrapper: Any) -> ConfigValue? {
        switch wrapper {
        case let option as Option<String?>: option.wrappedValue.map(ConfigValue.string)
        case let option as Option<Int?>: option.wrappedValue.map(ConfigValue.integer)
        case let option as Option<[String]>: option.wrappedValue.isEmpty ? nil : .strings(option.wrappedValue)
        case let flag as Flag<Bool>: flag.wrappedValue ? .bool(true) : nil
        default: nil
        }
    }
}

extension DaemonSettings {
    /// The settings the flags give, by the table of keys: a text value is read as its key's type (`--rates-timeout
    /// 20s`), and an `off` flag (`--no-web`) sets its switch to false.
    public init(flags: DaemonFlags) throws(ConfigError) {
        self.init()
        for (flag, value) in flags.given {
            guard let value else { continue }
            guard let key = ConfigKey.flagged(flag) else {
                throw .invalidValue(
                    key: flag, value: "", reason: "a flag without a configuration key", source: .flag(flag))
            }
            switch (key.flag, value) {
            case (.off?, _):
                self[key.name] = .bool(false)
            case (_, .string(let text)) where key.type != .string && key.type != .nameOrNumber:
                guard let typed = key.type.parse(text) else {
                    throw .invalidValue(
                        key: key.name, value: text, reason: "must be \(key.type.expected)", source: .flag(flag))
                }
                self[key.name] = typed
            default:
                self[key.name] = value
            }
        }
    }
}
