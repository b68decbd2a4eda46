import ArgumentParser
import FoundationEssentials
import Glibc

/// `interpay`: the command-line companion of `interpayd`.
@main
struct Interpay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interpay",
        abstract: "Ask peers on your LAN for money, and answer their requests, through the local interpayd.",
        discussion: """
            A payment request goes from the payee (who asks for money) to the payer (who is asked to pay): \
            'interpay send bob 12.50 MXN' asks bob to pay you 12.50 MXN. The payer accepts or rejects it; you may \
            cancel it while it is pending. Once accepted, the payer may mark it paid ('interpay paid') and the payee \
            confirms the money arrived ('interpay received'): the payment is settled and the payee's daemon signs \
            a receipt ('interpay receipt', checked offline by 'interpay verify-receipt'). Every command but \
            verify-receipt talks to the local interpayd over its control socket.

            Where the daemon is: --socket, else $INTERPAY_SOCKET, else the socket the daemon's configuration file \
            names ([control] socket), else $XDG_RUNTIME_DIR/interpay/interpayd.sock, else \
            /run/interpay/interpayd.sock. The configuration file (--config) is, by default, the one interpayd reads \
            when this user starts it: $CONFIGURATION_DIRECTORY/interpayd.toml, else /etc/interpay/interpayd.toml for \
            root, else $XDG_CONFIG_HOME/interpay/interpayd.toml (~/.config/interpay/interpayd.toml); when that file \
            names no socket, /etc/interpay/interpayd.toml (the system daemon's).

            Exit codes: 0 ok, 1 other error, 2 usage, 3 daemon unreachable, 4 not found, \
            5 conflict (already accepted/cancelled/rejected/expired, or already paid/settled), 6 peer unreachable.
            """,
        version: "0.1.0",
        subcommands: [
            Status.self, Peers.self, Pair.self, Untrust.self, Rename.self, Send.self, Accept.self, Reject.self,
            Cancel.self, Paid.self, Received.self, Refund.self, Split.self, Bills.self, CancelBill.self,
            ReceiptCommand.self, VerifyReceipt.self,
            List.self, Show.self, Export.self, BackupCommand.self,
            Watch.self, History.self, Stats.self, Convert.self, Rates.self, Web.self,
            Subscribe.self, Approve.self, Decline.self, Unsubscribe.self, Subscriptions.self, Currency.self,
        ])

    /// `--socket` and `--json` given before the subcommand (`interpay --json status`), as git, docker and systemctl
    /// accept them; each subcommand reads them through `GlobalOptions`, wherever they were given.
    @OptionGroup var globals: GlobalOptions

    /// Parses and runs a subcommand, mapping every failure to the documented exit codes.
    ///
    /// Synchronous on purpose: every command only waits for the daemon, on this thread (`ControlClient`'s blocking
    /// calls), so a command starts no thread and no concurrency runtime; they were most of a short command's time.
    static func main() {
        // The argument parser reads '-1' as an option ("Missing expected argument '<currency>'" for `send bob -1
        // EUR`); no value this CLI takes is negative, so it is named for what it is.
        if let negative = negativeNumber(in: Array(CommandLine.arguments.dropFirst())) {
            writeStandardError(
                """
                interpay: '\(negative)' is a negative number: amounts, limits and counts are positive (to ask for money: \
                'interpay send PEER 12.50 MXN'; to pay, accept the peer's request)

                """)
            terminate(2)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as CLIError {
            writeStandardError("interpay: \(error.message)\n")
            terminate(error.exitCode)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                terminate(0)
            }
            writeStandardError((message.isEmpty ? "\(error)" : message) + "\n")
            // Usage errors exit 2, as documented; anything else that escaped is 1.
            terminate(code == .validationFailure ? 2 : 1)
        }
    }
}

/// The first argument before `--` that is a negative number (`-1`, `-12.50`, `-12,50`), if any.
func negativeNumber(in arguments: [String]) -> String? {
    arguments.prefix { $0 != "--" }.first { argument in
        let rest = argument.dropFirst()
        return argument.hasPrefix("-") && rest.first?.isNumber == true
            && rest.allSatisfy { $0.isNumber || $0 == "." || $0 == "," }
    }
}

/// Writes `text` to standard error, whole (a short write is continued; a failed one is given up, there being nowhere
/// left to report it).
/// Sleeps the calling thread for `duration` (the CLI has no concurrency runtime to sleep in).
func pause(for duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1, errno == EINTR { request = remaining }
}

func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

/// Exits the process with `code` (the C library's exit, which the command type's own `exit` hides inside it).
private func terminate(_ code: Int32) -> Never {
    exit(code)
}
