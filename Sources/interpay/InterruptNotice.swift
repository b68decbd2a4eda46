import Dispatch
import Glibc

/// What Ctrl-C says while a command waits for the peer's answer (`accept`, `reject`, `cancel`, `paid`,
/// `received`): the daemon committed the command within moments of receiving it and delivers it even after the CLI
/// is gone, so the user is told it stays recorded and how to see what became of it, instead of nothing.
struct InterruptNotice {
    private let source: any DispatchSourceSignal

    /// From now until `end()`, SIGINT prints `message` to standard error and exits 130 (128 + SIGINT).
    init(_ message: String) {
        // The signal is ignored by the default handler so that the dispatch source, not the kernel's default
        // action, sees it.
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { @Sendable in
            writeStandardError(message)
            exit(130)
        }
        source.resume()
    }

    /// Ctrl-C ends the CLI as it did before.
    func end() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
