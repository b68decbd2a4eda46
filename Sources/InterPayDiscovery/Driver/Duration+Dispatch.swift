import Dispatch

extension Duration {
    /// The duration as a dispatch interval (nanoseconds; negative durations are zero, huge ones are capped).
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return .nanoseconds(0) }
        guard seconds < 1_000_000_000 else { return .seconds(1_000_000_000) }
        return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// `250 ms` below a second, else `1.5 s` (tenths): for log lines.
    var logText: String {
        let (seconds, attoseconds) = components
        let milliseconds = max(0, seconds * 1_000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000)
        guard milliseconds >= 1_000 else { return "\(milliseconds) ms" }
        let tenths = (milliseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
