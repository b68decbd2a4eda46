import ArgumentParser
import InterPayControl

/// `interpay untrust`
struct Untrust: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Forget the pairing with a peer: it is shown as unverified again.",
        discussion: "Exit 4 if the peer is unknown or not paired.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The peer: its display name or a prefix of its ID.")
    var peer: String

    func run() async throws {
        let result = try await global.call("untrust", ["peer": .string(peer)])
        global.output(result) {
            print("\(peer) (\(result.string("shortID"))) is no longer paired.")
        }
    }
}
