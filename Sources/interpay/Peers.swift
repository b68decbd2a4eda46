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
                    peer.string("name", "?") + Formatting.announced(peer), peer.string("shortID"), peer.string("address", "-"),
                    peer.string("session"), Pair.describe(trust: peer.field("trust")),
                    Formatting.localTime(peer.field("lastSeen")?.integer))
            }
            table.print()
        }
    }
}
