import Foundation
public import Logging
import Synchronization

/// A log handler that keeps every line, so tests can check what was logged (levels, messages, and that no secret
/// appears in the metadata). With `INTERPAY_TEST_LOG` set, it also prints each line.
public struct RecordingLogHandler: LogHandler {
    /// One recorded line.
    public struct Entry: Sendable {
        /// Its level.
        public var level: Logger.Level
        /// Its message.
        public var message: String
        /// The logger's and the event's metadata, as `key=value` pairs sorted by key.
        public var metadata: String

        /// `[level] message key=value ...`.
        public var line: String { "[\(level)] \(message) \(metadata)" }
    }

    /// The lines, shared by every copy of the handler.
    public final class Storage: Sendable {
        private let entries = Mutex<[Entry]>([])

        /// An empty record.
        public init() {}

        func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

        /// Every entry so far.
        public var all: [Entry] { entries.withLock { $0 } }
        /// Every entry so far as one line of text each.
        public var lines: [String] { all.map(\.line) }
    }

    /// Where lines go.
    public let storage: Storage
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    /// A handler recording into `storage`.
    public init(storage: Storage) {
        self.storage = storage
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let details = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let entry = Entry(level: event.level, message: event.message.description, metadata: details)
        storage.append(entry)
        if ProcessInfo.processInfo.environment["INTERPAY_TEST_LOG"] != nil { print(entry.line) }
    }

    /// A logger labelled `label` that records into `storage`.
    public static func logger(_ label: String, storage: Storage = Storage()) -> Logger {
        Logger(label: label) { _ in RecordingLogHandler(storage: storage) }
    }
}
