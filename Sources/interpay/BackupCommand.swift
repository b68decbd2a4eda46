import ArgumentParser
import FoundationEssentials
import InterPayContract
import InterPayControlClient

#if canImport(Glibc)
    import Glibc
#endif

/// `interpay backup FILE`
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the daemon while it runs: its identity, its ledger and its configuration in one file.",
        discussion: """
            The daemon copies its ledger as one consistent snapshot (payments keep flowing meanwhile) and writes it, \
            with its identity key and the configuration file it read, into its state directory; the file is then \
            moved to FILE (mode 0600; an existing FILE is not replaced). The identity key is in it: keep the file \
            as safe as the state directory, or encrypt it with --passphrase-file (AES-256-GCM, the key derived with \
            scrypt; the passphrase is the file's first line, at least 8 characters).

            Restore it, with the daemon stopped, into an empty state directory: \
            interpayd --restore FILE [--passphrase-file PASSFILE]. The restored daemon keeps its peer ID and its \
            pairings, and sends what its peers have not acknowledged yet.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Where to write the backup.", valueName: "file"))
    var file: String

    @Option(
        help: ArgumentHelp(
            "Encrypt the backup with the passphrase on this file's first line.", valueName: "passfile"))
    var passphraseFile: String?

    func run() throws {
        var passphrase: String?
        if let passphraseFile { passphrase = try Self.passphrase(in: passphraseFile) }
        if access(file, F_OK) == 0 {
            throw CLIError(message: "\(file) exists already; choose a new file", exitCode: 1)
        }
        // A large ledger takes a while to copy: ten minutes, not the 30 s of other commands.
        let info = try global.call(ControlAPI.backup, BackupParams(passphrase: passphrase), timeout: .seconds(600))
            .value
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: info.path)))
        } catch {
            throw CLIError(
                message: "the daemon wrote \(info.path), which this user cannot read: \(CLIError.fileProblem(error))",
                exitCode: 1)
        }
        if let problem = FileOutput.write(bytes, to: file, flags: O_EXCL, mode: 0o600) {
            throw CLIError(message: "cannot write \(file): \(problem) (the backup stays at \(info.path))", exitCode: 1)
        }
        _ = unlink(info.path)  // Moved: a failed removal leaves a copy in the daemon's own directory, 0600.
        if global.json {
            var moved = info
            moved.path = file
            // The answer's own types always encode.
            print((try? JSONValue(encoding: moved))?.jsonText ?? "{}")
        } else {
            let identity = PeerLabel.shortID(info.peerID)
            print(
                "backed up \(info.payments) \(info.payments == 1 ? "payment" : "payments") and the identity "
                    + "\(identity) to \(file) (\(info.bytes) bytes\(info.encrypted ? ", encrypted" : ""))")
        }
    }

    /// The passphrase: the file's first line, without its line ending.
    static func passphrase(in path: String) throws(CLIError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError(message: "cannot read \(path): \(CLIError.fileProblem(error))", exitCode: 1)
        }
        let line =
            String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .first.map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) } ?? ""
        guard line.count >= BackupParams.minimumPassphraseLength else {
            throw CLIError(
                message: "the passphrase in \(path) is shorter than \(BackupParams.minimumPassphraseLength) characters",
                exitCode: 2)
        }
        return line
    }
}
