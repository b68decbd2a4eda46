import ArgumentParser
import InterPayControl

/// `interpay pair`
struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair with a peer by comparing a 6-digit verification code, so that you know who it is.",
        discussion: """
            Run 'interpay pair PEER' on both machines (or on one: the other sees the code in 'interpay watch' and \
            'interpay peers'). Both daemons derive the same code from both identities and fresh random values; a \
            device impersonating the peer cannot make it match. Check that both screens show the same code, then \
            confirm on each machine with 'interpay pair PEER --code CODE'. A paired peer stays trusted until \
            'interpay untrust PEER'.

            A code is valid for 2 minutes. After 3 wrong codes, pairing with that peer is locked for 10 minutes.
            Exit codes: 0 paired (or code shown), 1 wrong code, no code or locked, 4 peer not found, 6 peer \
            unreachable.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The peer: its display name or a prefix of its ID.")
    var peer: String

    @Option(help: "The 6-digit code the peer's screen shows, to confirm the pairing.")
    var code: String?

    func validate() throws {
        if let code {
            let digits = code.filter { $0 != " " && $0 != "-" }
            guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw ValidationError("--code must be the 6 digits the peer shows, e.g. 123456")
            }
        }
    }

    func run() async throws {
        var params: [String: JSONValue] = ["peer": .string(peer)]
        if let code { params["code"] = .string(code) }
        let result = try await global.call("pair", params)
        global.output(result) {
            let name = result.field("peer")?.string("name", peer) ?? peer
            let trust = result.field("trust")
            if code != nil {
                print("Paired with \(name) (\(result.field("peer")?.string("id") ?? "")).")
                return
            }
            switch trust?.string("pairing") {
            case "code":
                let digits = trust?.string("code") ?? ""
                print("Verification code for \(name): \(Self.grouped(digits))")
                print("Check that \(name) shows the same code, then run: interpay pair \(peer) --code \(digits)")
                print("The code is valid until \(Formatting.localTime(trust?.field("until")?.integer)).")
            case "locked":
                print(
                    "Pairing with \(name) is locked until \(Formatting.localTime(trust?.field("until")?.integer)).")
            default:
                print("Pairing with \(name) started; the code appears in 'interpay watch' and 'interpay peers'.")
            }
        }
    }

    /// `123 456`.
    static func grouped(_ digits: String) -> String {
        digits.count == 6 ? "\(digits.prefix(3)) \(digits.suffix(3))" : digits
    }

    /// The TRUST column of `peers`: `paired`, `unverified`, or the pairing in progress.
    static func describe(trust: JSONValue?) -> String {
        guard let trust else { return "-" }
        let state = trust.string("state", "unverified")
        switch trust.string("pairing") {
        case "code": return "\(state), code \(grouped(trust.string("code")))"
        case "waiting": return "\(state), pairing"
        case "locked": return "\(state), pairing locked"
        default: return state
        }
    }
}
