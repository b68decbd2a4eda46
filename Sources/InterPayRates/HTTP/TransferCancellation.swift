import Synchronization

/// A flag set when the task waiting for a transfer is cancelled; libcurl's progress callback reads it on the
/// transfer's thread and aborts the transfer.
final class TransferCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Asks the transfer to stop.
    func cancel() {
        flag.store(true, ordering: .releasing)
    }

    /// Whether `cancel()` was called.
    var isCancelled: Bool { flag.load(ordering: .acquiring) }
}
