import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay peers`
struct Peers: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peers", abstract: "List the peers this daemon knows and their sessions.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.output(try global.call(ControlAPI.peers)) { peers in
            var table = Table("NAME", "ID", "ADDRESS", "SESSION", "TRUST", "LAST HEARD")
            for peer in peers.peers {
                let session =
                    peer.missedKeepalives > 0
                    ? "\(peer.session.rawValue) (no answer to \(peer.missedKeepalives) keepalive"
                        + "\(peer.missedKeepalives == 1 ? "" : "s"))" : peer.session.rawValue
                table.add(
                    peer.name.printable + Formatting.announced(peer.announcedName), peer.shortID.printable,
                    peer.address?.printable ?? "-", session, Pair.describe(trust: peer.trust),
                    Formatting.localTime(peer.lastSeen))
            }
            table.print()
            for item in peers.static {
                guard let refused = item.refusedID.map(PeerLabel.shortID) else { continue }
                let expected = item.peerID.map(PeerLabel.shortID) ?? "?"
                print(
                    "static peer \(item.address.printable): a different key (\(refused)) was refused; it expects "
                        + "\(expected). If that peer's key really changed: interpay untrust \(expected)")
            }
        }
    }
}
