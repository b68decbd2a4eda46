import Logging
import Synchronization

/// A log handler that keeps every line with its metadata as text, so tests can check what was logged.
struct RecordingLogHandler: LogHandler {
    /// The lines, shared by every copy of the handler.
    final class Storage: Sendable {
        private let lines = Mutex<[String]>([])

        func append(_ line: String) { lines.withLock { $0.append(line) } }

        var all: [String] { lines.withLock { $0 } }
    }

    let storage: Storage
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let details = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }
        storage.append("[\(event.level)] \(event.message) \(details.joined(separator: " "))")
    }

    /// A logger that records into `storage`.
    static func logger(_ storage: Storage) -> Logger {
        Logger(label: "interpay.rates.test") { _ in RecordingLogHandler(storage: storage) }
    }
}
