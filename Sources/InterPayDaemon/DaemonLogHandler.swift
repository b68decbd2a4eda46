public import Foundation
public import Logging

/// The daemon's log lines on standard error: for journald when standard error is the journal (`JOURNAL_STREAM`
/// names it), else for people.
///
/// Journal lines carry the syslog priority as a `<N>` prefix and no timestamp (journald adds its own):
/// `<6>session up peer=bob id=ABCDEFG`. Human lines: `2026-11-22T14:00:00+0000 info session up peer=bob id=ABCDEFG`.
/// One `write(2)` per line, so lines from concurrent tasks never interleave.
public struct DaemonLogHandler: LogHandler {
    /// How lines are written.
    public enum Style: Sendable {
        /// `<N>`-prefixed lines without a timestamp, for journald.
        case journal
        /// Timestamped lines for a terminal or a file.
        case human
    }

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let style: Style
    private let write: @Sendable (String) -> Void

    /// A handler writing to standard error in `style`.
    public init(label: String, level: Logger.Level, style: Style) {
        self.init(level: level, style: style) { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// A handler handing each finished line (with its newline) to `write`; for tests.
    public init(level: Logger.Level, style: Style, write: @escaping @Sendable (String) -> Void) {
        self.logLevel = level
        self.style = style
        self.write = write
    }

    /// The journal style when standard error is the stream `JOURNAL_STREAM` names (`device:inode`), else human.
    public static func style(environment: [String: String]) -> Style {
        guard let stream = environment["JOURNAL_STREAM"] else { return .human }
        let parts = stream.split(separator: ":").compactMap { UInt64($0) }
        var status = stat()
        guard parts.count == 2, fstat(2, &status) == 0 else { return .human }
        return UInt64(status.st_dev) == parts[0] && UInt64(status.st_ino) == parts[1] ? .journal : .human
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        write(Self.line(event.level, "\(event.message)", all, style: style, date: Date()))
    }

    /// One formatted line, newline included. Newlines inside the message are escaped so a line stays one entry.
    static func line(
        _ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata, style: Style, date: Date
    ) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let text = ([message.replacingOccurrences(of: "\n", with: "\\n")] + fields).joined(separator: " ")
        switch style {
        case .journal:
            return "<\(priority(level))>\(text)\n"
        case .human:
            return "\(date.formatted(.iso8601)) \(level) \(text)\n"
        }
    }

    /// The syslog priority of a level (sd-daemon(3)).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
