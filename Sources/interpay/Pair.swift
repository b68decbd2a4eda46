import ArgumentParser
import InterPayContract
import InterPayControlClient
import InterPayCore

/// `interpay pair`
struct Pair: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a peer by comparing a 6-digit verification code, so that you know who it is.",
        discussion: """
            Pairing needs both users: run 'interpay pair PEER' on both machines, within 2 minutes of each other. \
            Until its user runs it, a daemon answers nothing to the peer; it only shows 'PEER wants to pair' in \
            'interpay watch'. Each daemon commits to a fresh random value before either reveals one, and both derive \
            the same 6-digit code from both identities and both values: a device impersonating the peer cannot \
            choose or retry it unseen. Check that both screens show the same code, then confirm on each machine with \
            'interpay pair PEER --code CODE', typing the code the other screen shows. A paired peer stays trusted \
            until 'interpay untrust PEER'.

            An attempt lasts 2 minutes. Every attempt that does not end in a pairing counts (wrong code, expiry, \
            abort, lost session); after 3, pairing with that peer is locked for 10 minutes, across restarts.

            Exit codes: 0 paired, code shown or waiting for the peer's user, 1 wrong code, no code, locked or \
            unsupported, 4 peer not found, 6 peer unreachable.
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

    func run() throws {
        global.output(try global.call(ControlAPI.pair, PairParams(peer: peer, code: code))) { result in
            let name = "\(result.peer.name.printable) (\(result.peer.shortID.printable))"
            // What goes into a command to paste is the short ID, never the peer's own text.
            let short = PeerID.isShortID(result.peer.shortID) ? result.peer.shortID : "PEER"
            let trust = result.trust
            if code != nil {
                print("Paired with \(name); its full peer ID: \(result.peer.id.printable)")
                return
            }
            switch trust.pairing {
            case .code:
                let digits = trust.code?.printable ?? ""
                print("Verification code for \(name): \(Self.grouped(digits))")
                print("Check that \(name) shows the same code, then run: interpay pair \(short) --code <its code>")
                print("The code is valid until \(Formatting.localTime(trust.until)).")
            case .locked:
                print(
                    "Pairing with \(name) is locked until \(Formatting.localTime(trust.until)).")
            case .exchanging:
                print("Pairing with \(name) is in progress; the code appears in 'interpay watch' and 'interpay peers'.")
            case .idle, .requested, .waiting:
                let me = result.me?.shortID.printable ?? ""
                print("Waiting for the peer's user to run: interpay pair \(me)")
                print(
                    "The attempt lasts until \(Formatting.localTime(trust.until)); the code "
                        + "appears in 'interpay watch' and 'interpay peers'.")
            }
        }
    }

    /// `123 456`.
    static func grouped(_ digits: String) -> String {
        let digits = Self.digits(digits)
        return digits.count == 6 ? "\(digits.prefix(3)) \(digits.suffix(3))" : digits
    }

    /// Only the ASCII digits of `text`: what a code may hold, and all of it that goes into a command to paste.
    static func digits(_ text: String) -> String {
        String(text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init))
    }

    /// The TRUST column of `peers`: `paired`, `unverified`, or the pairing in progress.
    static func describe(trust: TrustInfo) -> String {
        let state = trust.state.rawValue
        switch trust.pairing {
        case .code: return "\(state), code \(grouped(trust.code?.printable ?? ""))"
        case .waiting: return "\(state), pairing: waiting for the peer's user"
        case .exchanging: return "\(state), pairing"
        case .requested: return "\(state), wants to pair"
        case .locked: return "\(state), pairing locked"
        case .idle: return state
        }
    }
}
