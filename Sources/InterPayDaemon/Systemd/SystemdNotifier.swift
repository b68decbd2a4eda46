import Foundation

/// Sends sd_notify(3) datagrams to the socket systemd names in `NOTIFY_SOCKET` (a path, or `@name` for the abstract
/// namespace), without libsystemd. Without `NOTIFY_SOCKET` it does nothing.
struct SystemdNotifier: Sendable {
    /// The socket address, nil when not run by systemd with `Type=notify`.
    let socketPath: String?

    init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The watchdog interval systemd expects pings within, if it asked for them (`WATCHDOG_USEC`, for this
    /// process when `WATCHDOG_PID` is set).
    static func watchdogInterval(environment: [String: String]) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"].flatMap(Int32.init), pid != getpid() { return nil }
        return .microseconds(microseconds)
    }

    /// Sends `state` (e.g. `READY=1`); returns false when there is no socket or the send failed.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let sent = state.utf8CString.withUnsafeBufferPointer { text in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    sendto(descriptor, text.baseAddress, text.count - 1, 0, socketAddress, length)
                }
            }
        }
        return sent == state.utf8.count
    }
}
