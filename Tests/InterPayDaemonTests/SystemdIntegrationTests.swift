import Foundation
import InterPayTestSupport
import Logging
import Synchronization
import Testing

@testable import InterPayDaemon

/// What systemd sees: sd_notify datagrams on a real socket, and journal-style log lines.
@Suite("systemd integration", .tearsDown)
struct SystemdIntegrationTests {
    /// A datagram socket bound to a path (or an abstract name), standing in for systemd's `NOTIFY_SOCKET`.
    final class FakeNotifySocket {
        let descriptor: Int32
        let address: String

        init(abstract: Bool) throws {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            let name = "interpay-notify-test-\(UUID().uuidString.prefix(8))"
            address = abstract ? "@\(name)" : FileManager.default.temporaryDirectory.appending(path: name).path
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(address.utf8)
            if abstract { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            let bound = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            try #require(bound == 0, "bind \(address): errno \(errno)")
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        /// The next datagram, or nil after 2 s.
        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
        }

        deinit {
            close(descriptor)
            if !address.hasPrefix("@") { unlink(address) }
        }
    }

    @Test("notify sends each state as one datagram, to a path or an abstract socket", arguments: [false, true])
    func notify(abstract: Bool) throws {
        let socket = try FakeNotifySocket(abstract: abstract)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.address])
        #expect(notifier.notify("READY=1\nSTATUS=serving"))
        #expect(socket.receive() == "READY=1\nSTATUS=serving")
        #expect(notifier.notify("STOPPING=1"))
        #expect(socket.receive() == "STOPPING=1")
    }

    @Test("without NOTIFY_SOCKET nothing is sent; the watchdog interval comes from WATCHDOG_USEC for this process")
    func withoutSystemd() {
        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
        #expect(SystemdNotifier.watchdogInterval(environment: [:]) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == .seconds(30))
        #expect(
            SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"])
                == .seconds(30))
        #expect(
            SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]) == nil)
    }

    @Test("readiness waits for the control socket, the listener and discovery, in any order; cancelling ends the wait")
    func readiness() async {
        let readiness = Readiness()
        let done = Mutex(false)
        let waiter = Task {
            await readiness.wait()
            done.withLock { $0 = true }
        }
        readiness.mark(.discovery)
        readiness.mark(.controlSocket)
        try? await Task.sleep(for: .milliseconds(50))
        #expect(!done.withLock { $0 }, "ready before the listener")
        readiness.mark(.peerListener)
        await waiter.value
        #expect(done.withLock { $0 })

        let never = Readiness()
        let cancelled = Task { await never.wait() }
        cancelled.cancel()
        await cancelled.value
    }

    @Test("journal lines carry the syslog priority and no timestamp; human lines a timestamp and the level")
    func logLines() {
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let metadata: Logger.Metadata = ["peer": "bob", "id": "ABCDEFG"]
        #expect(
            DaemonLogHandler.line(.info, "session up", metadata, style: .journal, date: date)
                == "<6>session up id=ABCDEFG peer=bob\n")
        #expect(
            DaemonLogHandler.line(.warning, "two\nlines", [:], style: .journal, date: date)
                == "<4>two\\u{000A}lines\n")
        let human = DaemonLogHandler.line(.error, "oops", [:], style: .human, date: date)
        #expect(human.hasPrefix("2026-") && human.hasSuffix(" error oops\n"))
        #expect(
            human.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z error oops\n/) != nil,
            "to the millisecond")
        #expect(
            [Logger.Level.trace, .debug, .info, .notice, .warning, .error, .critical].map(DaemonLogHandler.priority)
                == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test("the journal style is chosen only when JOURNAL_STREAM names standard error")
    func journalDetection() {
        #expect(DaemonLogHandler.style(environment: [:]) == .human)
        #expect(DaemonLogHandler.style(environment: ["JOURNAL_STREAM": "1:2"]) == .human)
        var status = stat()
        fstat(2, &status)
        #expect(
            DaemonLogHandler.style(environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]) == .journal)
    }

    @Test("the handler writes one line per event with the logger's and the event's metadata, above its level")
    func handler() {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "test") { _ in
            DaemonLogHandler(level: .info, style: .journal) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "service"] = "peers"
        logger.debug("hidden")
        logger.notice("hello", metadata: ["n": "1"])
        #expect(lines.withLock { $0 } == ["<5>hello n=1 service=peers\n"])
    }
}
