import ArgumentParser
import InterPayControl

/// `interpay peers`
struct Peers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the peers this daemon knows and their sessions.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let peers = try await global.call("peers")
        global.output(peers) {
            var table = Table("NAME", "ID", "ADDRESS", "SESSION", "TRUST", "LAST SEEN")
            for peer in peers.field("peers")?.items ?? [] {
                table.add(
                    peer.string("name", "?") + Formatting.announced(peer), peer.string("shortID"),
                    peer.string("address", "-"),
                    peer.string("session"), Pair.describe(trust: peer.field("trust")),
                    Formatting.localTime(peer.field("lastSeen")?.integer))
            }
            table.print()
            for item in peers.field("static")?.items ?? [] {
                guard let refused = item.field("refusedID")?.text else { continue }
                let expected = item.string("peerID", "?")
                print(
                    "static peer \(item.string("address")): a different key (\(refused.prefix(7))) was refused; it "
                        + "expects \(expected.prefix(7)). If that peer's key really changed: interpay untrust "
                        + "\(expected.prefix(7))")
            }
        }
    }
}
