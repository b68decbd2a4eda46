import Foundation
import Synchronization

/// Desktop notifications through `org.freedesktop.Notifications` on the user's session bus, spoken by GLib's
/// `gdbus` tool (Debian's libglib2.0-bin): `gdbus call … Notify` to show one, `gdbus monitor` to hear which action
/// the user chose. No D-Bus wire code of our own: `gdbus` is the well-kept client, and the daemon links no D-Bus
/// library for a feature a system daemon never uses.
struct GDBusNotifications: Sendable {
    /// The `gdbus` executable.
    let gdbus: String
    /// The session bus address (`DBUS_SESSION_BUS_ADDRESS`), handed to `gdbus` as its environment.
    let busAddress: String

    static let destination = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"

    /// Desktop notifications for a daemon run with `environment`: nil without a session bus or without `gdbus`.
    static func available(environment: [String: String]) -> GDBusNotifications? {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else { return nil }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/gdbus" }
        guard let gdbus = path.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        return GDBusNotifications(gdbus: gdbus, busAddress: address)
    }

    /// The arguments of `gdbus call` that show `notification` (`Notify`: app name, replaces-id, icon, summary, body,
    /// actions as key/label pairs, hints, the server's default timeout).
    static func notifyArguments(_ notification: DesktopNotification) -> [String] {
        let actions = notification.actions.flatMap { [$0.key, $0.label] }.map(GVariantText.string)
        return [
            "call", "--session", "--dest", destination, "--object-path", objectPath,
            "--method", "\(destination).Notify", GVariantText.string("InterPay"), "uint32 0", GVariantText.string(""),
            GVariantText.string(notification.summary), GVariantText.string(notification.body),
            "@as [\(actions.joined(separator: ", "))]", "@a{sv} {}", "int32 -1",
        ]
    }

    /// Whether the notification server reads markup in bodies (`GetCapabilities` lists `body-markup`); true when it
    /// cannot be asked, so that text is escaped rather than risked.
    func readsMarkup() async -> Bool {
        let output = await run([
            "call", "--session", "--dest", Self.destination, "--object-path", Self.objectPath,
            "--method", "\(Self.destination).GetCapabilities",
        ])
        return output.map { $0.contains("'body-markup'") } ?? true
    }

    /// Shows `notification`; the server's ID for it, or nil when it could not be shown (no server on the bus).
    func notify(_ notification: DesktopNotification) async -> UInt32? {
        let output = await run(Self.notifyArguments(notification))
        return output.flatMap(GVariantText.notificationID)
    }

    /// Runs `gdbus` with `arguments`; its standard output when it exits 0. Process' termination handler wakes the
    /// caller: no thread waits on the child.
    private func run(_ arguments: [String]) async -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gdbus)
        process.arguments = arguments
        process.environment = ["DBUS_SESSION_BUS_ADDRESS": busAddress]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            process.terminationHandler = { process in
                // The child has exited: what it wrote is in the pipe, and reading it ends at once.
                let data = output.fileHandleForReading.readDataToEndOfFile()
                continuation.resume(
                    returning: process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(returning: nil)
            }
        }
    }

    /// The actions the user chooses, as `(notification ID, action key)`, read from `gdbus monitor` on a thread of
    /// its own (its reads block for as long as the daemon runs); the stream ends when the monitor exits, and
    /// `stop` ends the monitor.
    func actions() -> (stream: AsyncStream<(UInt32, String)>, stop: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: (UInt32, String).self, bufferingPolicy: .bufferingNewest(64))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gdbus)
        process.arguments = ["monitor", "--session", "--dest", Self.destination, "--object-path", Self.objectPath]
        process.environment = ["DBUS_SESSION_BUS_ADDRESS": busAddress]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            continuation.finish()
            return (stream, {})
        }
        let handle = output.fileHandleForReading
        let thread = Thread {
            var buffered = Data()
            while true {
                let chunk = handle.availableData  // blocks until the monitor writes or exits
                if chunk.isEmpty { break }
                buffered.append(chunk)
                while let newline = buffered.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                    buffered.removeSubrange(buffered.startIndex...newline)
                    if let action = GVariantText.actionInvoked(line) { continuation.yield(action) }
                }
            }
            continuation.finish()
        }
        thread.name = "gdbus-monitor"
        thread.start()
        let pid = process.processIdentifier
        return (stream, { if pid > 0 { kill(pid, SIGTERM) } })
    }
}

/// The GVariant text form `gdbus` reads its arguments in, and what its output says.
enum GVariantText {
    /// A string literal: single quotes, with backslash and quote escaped. Text from peers reaches it escaped
    /// already (`SafeText`), so it holds no control characters.
    static func string(_ text: String) -> String {
        var quoted = "'"
        for character in text.unicodeScalars {
            switch character {
            case "\\": quoted += "\\\\"
            case "'": quoted += "\\'"
            default: quoted.unicodeScalars.append(character)
            }
        }
        return quoted + "'"
    }

    /// The ID in `Notify`'s answer, `(uint32 7,)`.
    static func notificationID(_ output: String) -> UInt32? {
        let trimmed = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("(uint32 "), trimmed.hasSuffix(",)") else { return nil }
        return UInt32(trimmed.dropFirst("(uint32 ".count).dropLast(2))
    }

    /// The notification ID and action key of a `gdbus monitor` line reporting `ActionInvoked`:
    /// `/org/freedesktop/Notifications: org.freedesktop.Notifications.ActionInvoked (uint32 7, 'accept')`.
    static func actionInvoked(_ line: String) -> (UInt32, String)? {
        let marker = "org.freedesktop.Notifications.ActionInvoked (uint32 "
        guard let start = line.range(of: marker) else { return nil }
        let rest = line[start.upperBound...]
        guard let comma = rest.firstIndex(of: ","), let id = UInt32(rest[..<comma]) else { return nil }
        let key = rest[rest.index(after: comma)...].trimmingCharacters(in: CharacterSet(charactersIn: " ')"))
        guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0 == "-" }) else { return nil }
        return (id, key)
    }
}
