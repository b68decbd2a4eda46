import Foundation
import InterPayCore
import Testing

/// The calendar of subscriptions, over a fake clock: every "now" is a value the test passes in.
@Suite("Subscription calendar")
struct SubscriptionCalendarTests {
    static let utc = TimeZone(secondsFromGMT: 0) ?? .gmt

    static func zone(_ identifier: String) throws -> TimeZone {
        try #require(TimeZone(identifier: identifier))
    }

    /// The instant of a wall-clock time in `zone` (through the calendar under test).
    static func at(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, in zone: TimeZone = utc
    ) -> Timestamp {
        let probe = SubscriptionCalendar(start: Timestamp(secondsSince1970: 0), period: .week, timeZone: zone)
        return probe.instant(
            of: CivilDateTime(year: year, month: month, day: day, secondOfDay: hour * 3600 + minute * 60))
    }

    @Test("monthly on the 31st falls on the last day of shorter months, and comes back to the 31st")
    func monthEnds() {
        let calendar = SubscriptionCalendar(start: Self.at(2025, 1, 31, 10), period: .month, timeZone: Self.utc)
        let days = (0..<13).map { calendar.localDue($0).description }
        #expect(
            days == [
                "2025-01-31T10:00:00", "2025-02-28T10:00:00", "2025-03-31T10:00:00", "2025-04-30T10:00:00",
                "2025-05-31T10:00:00", "2025-06-30T10:00:00", "2025-07-31T10:00:00", "2025-08-31T10:00:00",
                "2025-09-30T10:00:00", "2025-10-31T10:00:00", "2025-11-30T10:00:00", "2025-12-31T10:00:00",
                "2026-01-31T10:00:00",
            ])
        #expect(calendar.due(1) == Self.at(2025, 2, 28, 10))
    }

    @Test("monthly on the 30th or 29th: February of a leap year has a 29th, a common year's does not")
    func leapFebruary() {
        let leap = SubscriptionCalendar(start: Self.at(2024, 1, 30), period: .month, timeZone: Self.utc)
        #expect(leap.localDue(1) == CivilDateTime(year: 2024, month: 2, day: 29))
        #expect(leap.localDue(2) == CivilDateTime(year: 2024, month: 3, day: 30))
        let common = SubscriptionCalendar(start: Self.at(2023, 1, 29), period: .month, timeZone: Self.utc)
        #expect(common.localDue(1) == CivilDateTime(year: 2023, month: 2, day: 28))
        // 1900 is not a leap year, 2000 is.
        #expect(!CivilDateTime.isLeapYear(1900) && CivilDateTime.isLeapYear(2000) && !CivilDateTime.isLeapYear(2100))
        let century = SubscriptionCalendar(start: Self.at(2099, 12, 31), period: .month, timeZone: Self.utc)
        #expect(century.localDue(2) == CivilDateTime(year: 2100, month: 2, day: 28))
    }

    @Test("yearly on 29 February falls on 28 February in common years and on the 29th in leap years")
    func yearlyLeapDay() {
        let calendar = SubscriptionCalendar(start: Self.at(2024, 2, 29, 9), period: .year, timeZone: Self.utc)
        #expect(calendar.localDue(1) == CivilDateTime(year: 2025, month: 2, day: 28, secondOfDay: 9 * 3600))
        #expect(calendar.localDue(3) == CivilDateTime(year: 2027, month: 2, day: 28, secondOfDay: 9 * 3600))
        #expect(calendar.localDue(4) == CivilDateTime(year: 2028, month: 2, day: 29, secondOfDay: 9 * 3600))
    }

    @Test("weekly keeps the local time across a daylight-saving change (Europe/Berlin, spring and autumn)")
    func weeklyAcrossDST() throws {
        let berlin = try Self.zone("Europe/Berlin")
        // 24 March 2025 09:00 CET is 08:00 UTC; a week later, after the 30 March change, 09:00 CEST is 07:00 UTC.
        let spring = SubscriptionCalendar(
            start: Timestamp(secondsSince1970: 1_742_803_200), period: .week, timeZone: berlin)
        #expect(spring.localStart.description == "2025-03-24T09:00:00")
        #expect(spring.due(1).secondsSince1970 == 1_742_803_200 + 7 * 86_400 - 3600)
        // 20 October 2025 09:00 CEST (07:00 UTC); a week later, after the 26 October change, 09:00 CET (08:00 UTC).
        let autumn = SubscriptionCalendar(
            start: Timestamp(secondsSince1970: 1_760_943_600), period: .week, timeZone: berlin)
        #expect(autumn.localStart.description == "2025-10-20T09:00:00")
        #expect(autumn.due(1).secondsSince1970 == 1_760_943_600 + 7 * 86_400 + 3600)
    }

    @Test("a local time skipped by the spring change is taken that much after it; a repeated one is the first")
    func gapsAndOverlaps() throws {
        let berlin = try Self.zone("Europe/Berlin")
        // 23 March 2025 02:30 CET = 01:30 UTC. On 30 March 02:30 does not exist: 03:30 CEST, which is 01:30 UTC
        // again, exactly a week later; the week after, 02:30 CEST is 00:30 UTC.
        let gap = SubscriptionCalendar(
            start: Timestamp(secondsSince1970: 1_742_693_400), period: .week, timeZone: berlin)
        #expect(gap.localStart.description == "2025-03-23T02:30:00")
        #expect(gap.due(1).secondsSince1970 == 1_742_693_400 + 7 * 86_400)
        #expect(gap.due(2).secondsSince1970 == 1_742_693_400 + 14 * 86_400 - 3600)
        // 19 October 2025 02:30 CEST = 00:30 UTC. On 26 October 02:30 occurs twice: the first, CEST, 00:30 UTC.
        let overlap = SubscriptionCalendar(
            start: Timestamp(secondsSince1970: 1_760_833_800), period: .week, timeZone: berlin)
        #expect(overlap.localStart.description == "2025-10-19T02:30:00")
        #expect(overlap.due(1).secondsSince1970 == 1_760_833_800 + 7 * 86_400)
    }

    @Test("a start at the largest time (stored before frames were bounded) is read as 9999-12-31, not a crash")
    func latestStart() throws {
        // A peer's offer with `start` = Int64.max in Tokyo (+09:00) made the calendar add the offset and trap, on
        // every `list` after it was stored. Frames now refuse such a time; a ledger may still hold one.
        for zone in [try Self.zone("Asia/Tokyo"), try Self.zone("America/New_York"), Self.utc] {
            for period in [SubscriptionPeriod.week, .month, .year] {
                let calendar = SubscriptionCalendar(
                    start: Timestamp(secondsSince1970: .max), period: period, timeZone: zone)
                #expect(calendar.start.secondsSince1970 == Limits.maxTime)
                #expect(calendar.due(1) > calendar.start)
                #expect(calendar.latestDue(at: .now, count: 12) == nil, "never due")
            }
        }
    }

    @Test("the payee's time zone decides the day: 31 January 23:30 in New York is 1 February in UTC")
    func payeeTimeZone() throws {
        let newYork = try Self.zone("America/New_York")
        let start = Self.at(2025, 1, 31, 23, 30, in: newYork)
        #expect(start.secondsSince1970 == Self.at(2025, 2, 1, 4, 30).secondsSince1970)
        let calendar = SubscriptionCalendar(start: start, period: .month, timeZone: newYork)
        #expect(calendar.localDue(1).description == "2025-02-28T23:30:00")
        #expect(calendar.due(1) == Self.at(2025, 3, 1, 4, 30))
        // Across the 9 March change: 31 March 23:30 EDT is 1 April 03:30 UTC.
        #expect(calendar.due(2) == Self.at(2025, 4, 1, 3, 30))
        // The same start read in UTC would fall on the 1st of every month instead.
        let utc = SubscriptionCalendar(start: start, period: .month, timeZone: Self.utc)
        #expect(utc.localDue(1).description == "2025-03-01T04:30:00")
    }

    @Test("latest period due, next due, over a fake clock; every due date is found again exactly")
    func latestDue() throws {
        let berlin = try Self.zone("Europe/Berlin")
        for period in SubscriptionPeriod.allCases {
            for startDay in stride(from: 0, to: 400, by: 29) {
                let start = Timestamp(secondsSince1970: 1_704_067_200 + Int64(startDay) * 86_400 + 5_400)
                let calendar = SubscriptionCalendar(start: start, period: period, timeZone: berlin)
                #expect(calendar.latestDue(at: start.adding(seconds: -1)) == nil)
                var previous = calendar.due(0)
                for index in 0..<30 {
                    let due = calendar.due(index)
                    #expect(index == 0 || due > previous)
                    previous = due
                    #expect(calendar.latestDue(at: due) == index)
                    #expect(index == 0 || calendar.latestDue(at: due.adding(seconds: -1)) == index - 1)
                    #expect(calendar.nextDue(after: due) == index + 1)
                }
            }
        }
    }

    @Test("a daemon back after missed periods requests only the latest one, once; a finite series stops")
    func missedPeriods() {
        let calendar = SubscriptionCalendar(start: Self.at(2025, 1, 31, 10), period: .month, timeZone: Self.utc)
        // Nothing before the start.
        #expect(calendar.periodToRequest(at: Self.at(2025, 1, 31, 9), lastRequested: nil) == nil)
        // The first period at its due time.
        #expect(calendar.periodToRequest(at: Self.at(2025, 1, 31, 10), lastRequested: nil) == 0)
        #expect(calendar.periodToRequest(at: Self.at(2025, 2, 15), lastRequested: 0) == nil)
        // Off from 1 February to 1 May: periods 1, 2 and 3 were due; only 3 is requested, and only once.
        let back = Self.at(2025, 5, 1)
        #expect(calendar.periodToRequest(at: back, lastRequested: 0) == 3)
        #expect(calendar.periodToRequest(at: back, lastRequested: 3) == nil)
        #expect(calendar.periodToRequest(at: back.adding(seconds: 86_400), lastRequested: 3) == nil)
        // A series of 2 periods has nothing more to request after period 1.
        #expect(calendar.periodToRequest(at: back, lastRequested: 0, count: 2) == 1)
        #expect(calendar.periodToRequest(at: back, lastRequested: 1, count: 2) == nil)
        #expect(calendar.nextDue(after: back, count: 2) == nil)
        #expect(calendar.nextDue(after: back, count: 5) == 4)
    }

    @Test("fixed-length periods (the daemon's period_seconds setting) ignore the calendar")
    func fixedPeriods() {
        let calendar = SubscriptionCalendar(
            start: Timestamp(secondsSince1970: 1_000), period: .month, timeZone: Self.utc, fixedSeconds: 5)
        #expect(calendar.due(3) == Timestamp(secondsSince1970: 1_015))
        #expect(calendar.latestDue(at: Timestamp(secondsSince1970: 1_012)) == 2)
        #expect(calendar.periodToRequest(at: Timestamp(secondsSince1970: 1_031), lastRequested: 2) == 6)
        #expect(calendar.periodToRequest(at: Timestamp(secondsSince1970: 1_031), lastRequested: 2, count: 4) == 3)
    }
}

@Suite("Subscription series")
struct SeriesMachineTests {
    static func mxn(_ text: String) throws -> Money { try Money(parsing: text, currencyCode: "MXN") }

    @Test("offered → approved → ended; offered → declined; final states stay final")
    func transitions() throws {
        let amount = try Self.mxn("100")
        #expect(try SeriesMachine.apply(.approve(cap: Self.mxn("120")), to: .offered, amount: amount) == .approved)
        #expect(try SeriesMachine.apply(.decline, to: .offered, amount: amount) == .declined)
        #expect(try SeriesMachine.apply(.end, to: .approved, amount: amount) == .ended)
        #expect(try SeriesMachine.apply(.end, to: .offered, amount: amount) == .ended)
        #expect(try SeriesMachine.apply(.end, to: .ended, amount: amount) == .ended)
        #expect(try SeriesMachine.apply(.end, to: .declined, amount: amount) == .declined)
        #expect(throws: SeriesTransitionError.invalid(from: .ended, event: "approved")) {
            try SeriesMachine.apply(.approve(cap: Self.mxn("120")), to: .ended, amount: amount)
        }
        #expect(throws: SeriesTransitionError.invalid(from: .approved, event: "declined")) {
            try SeriesMachine.apply(.decline, to: .approved, amount: amount)
        }
        let euros = try Money(parsing: "100", currencyCode: "EUR")
        #expect(throws: SeriesTransitionError.capCurrencyMismatch(series: amount.currency, cap: euros.currency)) {
            try SeriesMachine.apply(.approve(cap: euros), to: .offered, amount: amount)
        }
        #expect(throws: SeriesTransitionError.capNotPositive) {
            try SeriesMachine.apply(
                .approve(cap: Money(minorUnits: 0, currency: amount.currency)), to: .offered, amount: amount)
        }
    }

    @Test("a request within the cap of an approved series is accepted; anything else waits for the user")
    func standingApproval() throws {
        let cap = try Self.mxn("120")
        #expect(
            SeriesMachine.decide(amount: try Self.mxn("100"), index: 0, state: .approved, cap: cap, count: nil)
                == .acceptAutomatically)
        #expect(
            SeriesMachine.decide(amount: try Self.mxn("120"), index: 5, state: .approved, cap: cap, count: 6)
                == .acceptAutomatically)
        #expect(
            SeriesMachine.decide(amount: try Self.mxn("120.01"), index: 0, state: .approved, cap: cap, count: nil)
                == .askUser(.aboveCap))
        #expect(
            SeriesMachine.decide(
                amount: try Money(parsing: "1", currencyCode: "EUR"), index: 0, state: .approved, cap: cap, count: nil)
                == .askUser(.aboveCap))
        #expect(
            SeriesMachine.decide(amount: try Self.mxn("1"), index: 6, state: .approved, cap: cap, count: 6)
                == .askUser(.outsideSeries))
        #expect(
            SeriesMachine.decide(amount: try Self.mxn("1"), index: 0, state: .offered, cap: nil, count: nil)
                == .askUser(.notApproved))
        #expect(
            SeriesMachine.decide(amount: try Self.mxn("1"), index: 0, state: .ended, cap: cap, count: nil)
                == .askUser(.seriesEnded))
    }

    @Test("a period's request ID is a UUIDv5 of the series and index: stable, distinct per period")
    func instanceIDs() throws {
        // RFC 9562 appendix A.4: the DNS namespace and "www.example.com".
        let dns = try #require(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        #expect(
            UUID.version5(namespace: dns, name: "www.example.com").uuidString.lowercased()
                == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
        let series = Fixtures.fixedUUID(9)
        #expect(
            SeriesMachine.instanceID(series: series, index: 3) == SeriesMachine.instanceID(series: series, index: 3))
        #expect(
            SeriesMachine.instanceID(series: series, index: 3) != SeriesMachine.instanceID(series: series, index: 4))
        #expect(
            SeriesMachine.instanceID(series: series, index: 3)
                != SeriesMachine.instanceMessageID(series: series, index: 3))
        #expect(
            SeriesMachine.instanceID(series: series, index: 0)
                != SeriesMachine.instanceID(series: Fixtures.fixedUUID(10), index: 0))
    }
    /// How many periods a payee asking for every period at every `step` seconds over `span` seconds gets accepted
    /// by the payer's timing rule (PROTOCOL.md §8.6), from `start` seconds before the first request.
    static func acceptedByTiming(
        _ calendar: SubscriptionCalendar, from first: Timestamp, span: Int64, step: Int64
    )
        -> Int
    {
        var lastIndex: Int?
        var lastAt: Timestamp?
        var accepted = 0
        var now = first
        while now.secondsSince1970 - first.secondsSince1970 <= span {
            // The payee tries every period near the latest one, in order, at each instant.
            let latest = calendar.latestDue(at: now) ?? 0
            for index in max(0, latest - 5)...(latest + 5) {
                guard
                    SeriesMachine.timing(
                        index: index, now: now, calendar: calendar, lastIndex: lastIndex, lastAt: lastAt) == nil
                else { continue }
                accepted += 1
                lastIndex = index
                lastAt = now
            }
            now = now.adding(seconds: step)
        }
        return accepted
    }

    @Test(
        "whatever the period, a standing approval accepts at most one period per period of wall time (S-STRETCH)",
        arguments: [1, 4, 9, 10, 60, 3_600] as [Int64])
    func onePeriodPerPeriod(seconds: Int64) {
        let now = Timestamp(secondsSince1970: 1_800_000_000)
        // Started 300 s back, as the attack did (601 periods of 1 s accepted in 7.5 s).
        let calendar = SubscriptionCalendar(
            start: now.adding(seconds: -300), period: .month, timeZone: SubscriptionCalendarTests.utc,
            fixedSeconds: seconds)
        let span = 100 * seconds
        let accepted = Self.acceptedByTiming(calendar, from: now, span: span, step: 1)
        // Never two within nine tenths of a period, and never more than the periods that fall due in the span, plus
        // the one due at its start and, with the skew allowance, the one before it.
        let spacing = seconds - SeriesMachine.skewAllowance(periodLength: seconds)
        #expect(accepted >= 1 && accepted <= Int(span / seconds) + 2, "\(accepted) periods in \(span) s")
        #expect(accepted <= Int(span / spacing) + 1, "\(accepted) periods in \(span) s")
    }

    @Test("monthly: one period a month, also when a period is asked up to a tenth of a period early or late")
    func monthlyTiming() {
        let start = SubscriptionCalendarTests.at(2025, 1, 31, 10)
        let calendar = SubscriptionCalendar(start: start, period: .month, timeZone: SubscriptionCalendarTests.utc)
        #expect(Self.acceptedByTiming(calendar, from: start, span: 364 * 86_400, step: 3_600) == 12)
        // The skew allowance is 300 s for calendar periods: 299 s early is due, 301 s early is not.
        let due = calendar.due(1)
        let early = SeriesMachine.timing(
            index: 1, now: due.adding(seconds: -299), calendar: calendar, lastIndex: 0, lastAt: start)
        #expect(early == nil)
        #expect(
            SeriesMachine.timing(
                index: 1, now: due.adding(seconds: -301), calendar: calendar, lastIndex: 0, lastAt: start)
                == .notDue)
        // An approval a day after the start does not hold up the next period.
        #expect(
            SeriesMachine.timing(
                index: 1, now: due, calendar: calendar, lastIndex: 0, lastAt: start.adding(seconds: 86_400)) == nil)
        // Two periods within nine tenths of a period: the second waits.
        #expect(
            SeriesMachine.timing(
                index: 1, now: due, calendar: calendar, lastIndex: 0, lastAt: due.adding(seconds: -86_400))
                == .tooSoon)
        // The last period of a series stays the latest; a period of an open-ended one does not once the next is due
        // (beyond the allowance).
        #expect(
            SeriesMachine.timing(
                index: 0, now: due.adding(seconds: 301), calendar: calendar, count: 1, lastIndex: nil, lastAt: nil)
                == nil)
        #expect(
            SeriesMachine.timing(
                index: 0, now: due.adding(seconds: 301), calendar: calendar, lastIndex: nil, lastAt: nil)
                == .notLatest)
        #expect(SeriesMachine.skewAllowance(periodLength: 1) == 0)
        #expect(SeriesMachine.skewAllowance(periodLength: 60) == 6)
        #expect(SeriesMachine.skewAllowance(periodLength: 28 * 86_400) == 300)
    }
}
