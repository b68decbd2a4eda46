import Foundation
import InterPayCore
import InterPayEngine
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
    private let budget: PeerLogBudget

    /// The metadata key and value that mark a line the local user caused (a pairing started, a peer paired): such a
    /// line names a peer but is not held to the peers' log budget, so that a flood from others cannot hide it.
    public static let causeKey = UserCause.key
    /// See `causeKey`.
    public static let userCause = UserCause.value

    /// A handler writing to standard error in `style`.
    public init(label: String, level: Logger.Level, style: Style) {
        self.init(level: level, style: style) { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// A handler handing each finished line (with its newline) to `write`, holding back lines peers caused past
    /// `budget` (per peer, per address, daemon-wide); for tests.
    public init(
        level: Logger.Level, style: Style, budget: PeerLogBudget = .shared,
        write: @escaping @Sendable (String) -> Void
    ) {
        self.logLevel = level
        self.style = style
        self.budget = budget
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
        if event.level < .error, all[Self.causeKey] != Self.userCause,
            let peer = all["id"] ?? all["peer"] ?? all["address"]
        {
            let address = all["address"].map { "\($0)" }
            // A line naming a peer and its address teaches the budget where the peer's other lines come from.
            if let key = all["id"] ?? all["peer"], let address {
                budget.associate(peer: "\(key)", host: PeerLogBudget.host(of: address))
            }
            guard let suppressed = budget.admit("\(peer)", address: address) else { return }
            if suppressed > 0 { all["suppressed"] = "\(suppressed)" }
        }
        write(Self.line(event.level, "\(event.message)", all, style: style, date: Date()))
    }

    /// A human line's time: UTC, to the millisecond (what follows what within a second shows).
    static let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// One formatted line, newline included. Every control character in the message and the metadata is escaped
    /// (`SafeText`), so that text a peer chose (a name with a newline and `<2>`, an `ESC` sequence) can neither
    /// start a forged line nor rewrite a terminal; a value with a space, `"` or `=` in it, or an empty one, is
    /// quoted, so that it cannot pose as another field.
    static func line(
        _ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata, style: Style, date: Date
    ) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\(SafeText.escaped($0.key))=\(quoted("\($0.value)"))" }
        let text = ([SafeText.escaped(message)] + fields).joined(separator: " ")
        switch style {
        case .journal:
            return "<\(priority(level))>\(text)\n"
        case .human:
            return "\(date.formatted(Self.timestamp)) \(level) \(text)\n"
        }
    }

    /// A metadata value as written: escaped, and in double quotes (with `"` as `\"`) when it holds a space, `"` or
    /// `=`, or is empty.
    static func quoted(_ value: String) -> String {
        let escaped = SafeText.escaped(value)
        guard escaped.isEmpty || escaped.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else {
            return escaped
        }
        return "\"" + escaped.replacingOccurrences(of: "\"", with: "\\\"") + "\""
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
