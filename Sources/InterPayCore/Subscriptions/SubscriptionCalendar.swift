public import FoundationEssentials

/// How often a subscription's requests fall due.
public enum SubscriptionPeriod: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every 7 days, at the same local time.
    case week
    /// Every calendar month, on the start's day of the month (or the month's last day when it is shorter).
    case month
    /// Every calendar year, on the start's date (29 February falls on 28 February in common years).
    case year
}

/// A date and time of day on a wall clock, without a time zone: what a payee's calendar shows.
public struct CivilDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year (proleptic Gregorian).
    public var year: Int
    /// The month, 1...12.
    public var month: Int
    /// The day of the month, 1...31.
    public var day: Int
    /// Seconds since the local midnight, 0..<86 400.
    public var secondOfDay: Int

    /// A wall-clock date and time; the parts are taken as given (`SubscriptionCalendar` only builds valid ones).
    public init(year: Int, month: Int, day: Int, secondOfDay: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.secondOfDay = secondOfDay
    }

    /// A date or date and time as a person types it, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`; nil for anything else or
    /// a day the month does not have.
    public init?(parsing text: String) {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
            let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
            (1970...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var second = 0
        if parts.count == 2 {
            let time = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard time.count == 2, time[0].count == 2, time[1].count == 2, let hour = Int(time[0]),
                let minute = Int(time[1]), (0...23).contains(hour), (0...59).contains(minute)
            else { return nil }
            second = hour * 3600 + minute * 60
        }
        self.init(year: year, month: month, day: day, secondOfDay: second)
    }

    /// Days since 1970-01-01 of this date (H. Hinnant's `days_from_civil`).
    var daysSinceEpoch: Int64 {
        CivilDays.days(year: Int64(year), month: Int64(month), day: Int64(day))
    }

    /// Seconds since the epoch if this wall-clock time were UTC.
    var secondsAsUTC: Int64 { daysSinceEpoch * 86_400 + Int64(secondOfDay) }

    /// The wall-clock time of `seconds` since the epoch read as UTC (H. Hinnant's `civil_from_days`).
    init(secondsAsUTC seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let date = CivilDays.date(fromDays: days)
        self.init(year: Int(date.year), month: Int(date.month), day: Int(date.day), secondOfDay: secondOfDay)
    }

    /// Whether `year` has a 29 February.
    public static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// The number of days of a month.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public var description: String {
        let h = secondOfDay / 3600
        let m = secondOfDay / 60 % 60
        let s = secondOfDay % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(h)):\(two(m)):\(two(s))"
    }

    public static func < (lhs: CivilDateTime, rhs: CivilDateTime) -> Bool {
        lhs.secondsAsUTC < rhs.secondsAsUTC
    }
}

/// When each period of a subscription falls due: pure arithmetic over a start, a period and a time zone.
///
/// Period `n` (0 is the first) falls due at the start's wall-clock time in the payee's time zone, `n` periods
/// later:
/// - weekly: `7 × n` days later, at the same local time, whatever daylight-saving changes lie between;
/// - monthly: on the start's day of the month, or on the month's last day when the month is shorter (a series
///   started on 31 January falls due on 28 or 29 February, 31 March, 30 April…); always counted from the start, so
///   a short month does not move later periods;
/// - yearly: on the start's date; a series started on 29 February falls due on 28 February in common years.
///
/// A local time that a daylight-saving change skips (02:30 on a spring-forward night) is taken with the offset in
/// force before the change, i.e. that many minutes after the change (03:30); a local time that occurs twice (an
/// autumn night) is its first occurrence.
///
/// A schedule may instead use fixed-length periods (`fixedSeconds`): each period lasts exactly that many seconds
/// from the start, whatever its nominal length. The daemon uses it only when configured with
/// `[subscriptions] period_seconds` (README), for demonstrations and tests that cannot wait a week.
///
/// Nothing here reads a clock: callers pass the current time in.
public struct SubscriptionCalendar: Sendable, Hashable {
    /// The instant of the first period.
    public let start: Timestamp
    /// How often periods fall due.
    public let period: SubscriptionPeriod
    /// The payee's time zone, in which the start's wall-clock time is kept.
    public let timeZone: TimeZone
    /// When set, every period lasts exactly this many seconds instead of a calendar week, month or year.
    public let fixedSeconds: Int64?

    /// The start's wall-clock time in `timeZone`.
    public let localStart: CivilDateTime

    /// A schedule starting at `start`, taken as `Limits.maxTime` if later: a frame cannot carry a later time, and a
    /// ledger written before that limit may still hold one, which would overflow the calendar's arithmetic.
    public init(start: Timestamp, period: SubscriptionPeriod, timeZone: TimeZone, fixedSeconds: Int64? = nil) {
        let start = min(start, Timestamp(secondsSince1970: Limits.maxTime))
        self.start = start
        self.period = period
        self.timeZone = timeZone
        self.fixedSeconds = fixedSeconds.map { max(1, $0) }
        let offset = Int64(timeZone.secondsFromGMT(for: start.date))
        self.localStart = CivilDateTime(secondsAsUTC: start.secondsSince1970 + offset)
    }

    /// The wall-clock time at which period `index` falls due (index ≥ 0), in the calendar schedule.
    public func localDue(_ index: Int) -> CivilDateTime {
        switch period {
        case .week:
            let seconds = localStart.secondsAsUTC + Int64(index) * 7 * 86_400
            return CivilDateTime(secondsAsUTC: seconds)
        case .month:
            let months = localStart.year * 12 + (localStart.month - 1) + index
            let year = months >= 0 ? months / 12 : (months - 11) / 12
            let month = months - year * 12 + 1
            let day = min(localStart.day, CivilDateTime.daysIn(month: month, year: year))
            return CivilDateTime(year: year, month: month, day: day, secondOfDay: localStart.secondOfDay)
        case .year:
            let year = localStart.year + index
            let day = min(localStart.day, CivilDateTime.daysIn(month: localStart.month, year: year))
            return CivilDateTime(year: year, month: localStart.month, day: day, secondOfDay: localStart.secondOfDay)
        }
    }

    /// The instant at which period `index` falls due (index ≥ 0).
    public func due(_ index: Int) -> Timestamp {
        if let fixedSeconds {
            let (product, overflow) = fixedSeconds.multipliedReportingOverflow(by: Int64(index))
            return overflow ? Timestamp(secondsSince1970: Int64.max) : start.adding(seconds: product)
        }
        if index == 0 { return start }
        return instant(of: localDue(index))
    }

    /// The instant of a wall-clock time in `timeZone` (gaps: the offset before the change; overlaps: the first).
    public func instant(of local: CivilDateTime) -> Timestamp {
        let wall = local.secondsAsUTC
        // The offset in force a day before is the one before any change near this time.
        let before = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall - 86_400))))
        let after = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall + 86_400))))
        // Try the earlier-offset reading first (the first occurrence of a repeated time), then the other.
        for offset in [max(before, after), min(before, after)] {
            let candidate = wall - offset
            if Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(candidate)))) == offset {
                return Timestamp(secondsSince1970: max(0, candidate))
            }
        }
        // In a gap no reading matches: use the offset before the change.
        return Timestamp(secondsSince1970: max(0, wall - before))
    }

    /// The latest period due at `now`, or nil before the start. `count` bounds the series (periods 0..<count).
    public func latestDue(at now: Timestamp, count: Int? = nil) -> Int? {
        guard now >= start else { return nil }
        var index: Int
        if let fixedSeconds {
            index = Int((now.secondsSince1970 - start.secondsSince1970) / fixedSeconds)
        } else {
            let elapsedDays = (now.secondsSince1970 - start.secondsSince1970) / 86_400
            let estimate: Int64 =
                switch period {
                case .week: elapsedDays / 7
                case .month: elapsedDays * 12 / 366
                case .year: elapsedDays / 366
                }
            index = Int(max(0, estimate - 1))
            while due(index + 1) <= now { index += 1 }
            while index > 0 && due(index) > now { index -= 1 }
        }
        if let count {
            guard count > 0 else { return nil }
            index = min(index, count - 1)
        }
        return index
    }

    /// The first period due after `now` (the next due date a listing shows), or nil when the series of `count`
    /// periods has none left.
    public func nextDue(after now: Timestamp, count: Int? = nil) -> Int? {
        let next = (latestDue(at: now) ?? -1) + 1
        if let count, next >= count { return nil }
        return next
    }

    /// Which period to request now, if any, given the last period already requested (PROTOCOL.md §8.6): only the
    /// latest period due, once. Periods missed while the payee's daemon was off are never requested on their own.
    public func periodToRequest(at now: Timestamp, lastRequested: Int?, count: Int? = nil) -> Int? {
        guard let latest = latestDue(at: now, count: count) else { return nil }
        if let lastRequested, latest <= lastRequested { return nil }
        return latest
    }
}
