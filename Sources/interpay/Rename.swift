import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay rename`
struct Rename: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename",
        abstract: "Change the name a paired peer is shown under on this machine.",
        discussion: """
            A paired peer is shown under the name confirmed when pairing, whatever name it announces later; a \
            different announced name is shown beside it, flagged. This changes the kept name. Exit 4 if the peer \
            is unknown or not paired, 2 if the name is not acceptable (control characters, or written like a \
            peer ID).
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The peer: its ID (or a prefix of at least 4 characters) or its name.")
    var peer: String

    @Argument(help: "The new name, 1 to 63 code points.")
    var name: String

    func run() throws {
        global.output(try global.call(ControlAPI.rename, RenameParams(peer: peer, name: name))) { result in
            print("\(result.shortID.printable) is now shown as \(result.name.printable).")
        }
    }
}
