/// Durations as people type them: a whole number with an optional unit, `90s`, `15m`, `2h`, `1d` (no unit means
/// seconds). Used by the CLI's `--expires` and by the daemon's configuration.
public enum DurationText {
    /// The number of seconds `text` stands for, or nil when it is not a duration or overflows. Callers check the
    /// range they accept (it may be zero or negative).
    public static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        if let unit = text.last, let factor = units[unit], let value = Int64(text.dropLast()) {
            let (product, overflow) = value.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        return Int64(text)
    }

    /// `seconds` in the largest unit that writes it exactly: "90d", "2h", "5m", "15s" (what `seconds(_:)` reads).
    public static func text(_ seconds: Int64) -> String {
        for (unit, factor) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60)]
        where seconds != 0 && seconds % factor == 0 {
            return "\(seconds / factor)\(unit)"
        }
        return "\(seconds)s"
    }
}
