import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay untrust`
struct Untrust: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "untrust",
        abstract: "Forget the pairing with a peer, and the key pinned for it at a static peer address.",
        discussion: """
            The peer is shown as unverified again. A static peer (--peer HOST:PORT) pins the first key it sees; \
            when that peer's key really changed, untrust the old one and the next key seen is pinned. Exit 4 if \
            the peer is unknown, or neither paired nor pinned.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The peer: its display name or a prefix of its ID.")
    var peer: String

    func run() throws {
        global.output(try global.call(ControlAPI.untrust, PeerParams(peer: peer))) { result in
            var done: [String] = []
            if result.untrusted { done.append("is no longer paired") }
            let addresses = result.unpinned.map(\.printable)
            if !addresses.isEmpty { done.append("is no longer pinned at \(addresses.joined(separator: ", "))") }
            print("\(peer) (\(result.shortID.printable)) \(done.joined(separator: " and ")).")
        }
    }
}
