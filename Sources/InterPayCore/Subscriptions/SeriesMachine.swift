public import FoundationEssentials

/// The state of a subscription series (PROTOCOL.md §8.6), the same on both sides once the frames have crossed.
public enum SeriesState: String, Sendable, Hashable, Codable, CaseIterable {
    /// The payee offered it; the payer has not answered.
    case offered
    /// The payer approved it: requests within the cap are accepted without asking.
    case approved
    /// The payer declined the offer. Final.
    case declined
    /// Either side ended it, or its last period was requested. Final.
    case ended

    /// Whether no event changes the state any more.
    public var isFinal: Bool { self == .declined || self == .ended }
}

/// Something that happens to a series.
public enum SeriesEvent: Sendable, Hashable {
    /// The payer approves, with the largest amount a single period may ask without asking the user.
    case approve(cap: Money)
    /// The payer declines the offer.
    case decline
    /// Either side ends the series.
    case end
}

/// Why an event does not apply to a series.
public enum SeriesTransitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The event does not apply in this state (e.g. approving a declined series).
    case invalid(from: SeriesState, event: String)
    /// The cap's currency is not the series'.
    case capCurrencyMismatch(series: CurrencyCode, cap: CurrencyCode)
    /// The cap is zero or negative.
    case capNotPositive

    public var description: String {
        switch self {
        case .invalid(let from, let event): "a series that is \(from.rawValue) cannot be \(event)"
        case .capCurrencyMismatch(let series, let cap):
            "the cap is in \(cap.code) but the series is in \(series.code)"
        case .capNotPositive: "the cap must be more than zero"
        }
    }
}

/// What the payer's daemon does with a request that belongs to a series.
public enum SeriesInstanceDecision: Sendable, Hashable {
    /// Accept it without asking: the series is approved, the period is within the series and the amount within
    /// the cap.
    case acceptAutomatically
    /// Leave it pending for the user, like any other request, for this reason.
    case askUser(SeriesHoldReason)
}

/// Why a series' request waits for the user.
public enum SeriesHoldReason: String, Sendable, Hashable, Codable {
    /// The payer has not approved the series (yet).
    case notApproved = "not-approved"
    /// The series was declined or ended.
    case seriesEnded = "series-ended"
    /// The amount is above the approved cap (or in another currency).
    case aboveCap = "above-cap"
    /// The period index lies outside the series (beyond its count).
    case outsideSeries = "outside-series"
    /// The period is not due yet by the series' calendar (the payer's daemon checks this; `decide` does not).
    case notDue = "not-due"
    /// The period is not the latest one due, or not later than the last one accepted without the user: a payee
    /// requests only the latest period due, once (PROTOCOL.md §8.6), so an earlier one is never approved in advance
    /// (the payer's daemon checks this; `decide` does not).
    case notLatest = "not-latest"
    /// Less than nine tenths of a period of wall time passed since the series' last period accepted without the
    /// user: a standing approval yields at most one period per period of wall time, whatever the offer's calendar
    /// (PROTOCOL.md §8.6; the payer's daemon checks this; `decide` does not).
    case tooSoon = "too-soon"
    /// The approval's total (a number of periods, or an amount) is used up: the user approves again or accepts each
    /// request by hand (the payer's daemon checks this; `decide` does not).
    case approvalUsed = "approval-used"
}

/// The pure state machine of a subscription series: transitions and the payer's standing-approval decision.
public enum SeriesMachine {
    /// The state after `event`, or why it does not apply. Ending an ended series is idempotent.
    public static func apply(
        _ event: SeriesEvent, to state: SeriesState, amount: Money
    ) throws(SeriesTransitionError) -> SeriesState {
        switch (state, event) {
        case (.offered, .approve(let cap)):
            guard cap.currency == amount.currency else {
                throw .capCurrencyMismatch(series: amount.currency, cap: cap.currency)
            }
            guard cap.minorUnits > 0 else { throw .capNotPositive }
            return .approved
        case (.offered, .decline): return .declined
        case (.declined, .decline): return .declined
        case (.offered, .end), (.approved, .end), (.ended, .end): return .ended
        case (.declined, .end): return .declined
        case (_, .approve): throw .invalid(from: state, event: "approved")
        case (_, .decline): throw .invalid(from: state, event: "declined")
        }
    }

    /// Whether a series' request for period `index` asking `amount` is accepted without the user.
    ///
    /// - Parameters:
    ///   - state: the series' state on the payer's side.
    ///   - cap: the approved cap (nil before approval).
    ///   - count: the number of periods of the series, nil when open-ended.
    public static func decide(
        amount: Money, index: Int, state: SeriesState, cap: Money?, count: Int?
    ) -> SeriesInstanceDecision {
        switch state {
        case .offered: return .askUser(.notApproved)
        case .declined, .ended: return .askUser(.seriesEnded)
        case .approved: break
        }
        if index < 0 || (count.map { index >= $0 } ?? false) { return .askUser(.outsideSeries) }
        guard let cap, cap.currency == amount.currency, amount.minorUnits <= cap.minorUnits else {
            return .askUser(.aboveCap)
        }
        return .acceptAutomatically
    }

    /// The clock skew a period's timing tolerates: the 300 s of PROTOCOL.md §10, but never more than a tenth of a
    /// period of `length` seconds (nothing for periods under 10 s), so that the allowance can never cover a whole
    /// period.
    public static func skewAllowance(periodLength length: Int64) -> Int64 {
        min(Limits.maxClockSkew, max(0, length / 10))
    }

    /// Whether, by time alone, period `index` of a series with `calendar` may be accepted without the user at `now`
    /// (PROTOCOL.md §8.6): nil when it may, else why it waits.
    ///
    /// With `P` the period's length, `P′` the one before it and `s` the skew allowance of the shorter:
    /// - the period is due, allowing `s`: `due(index) ≤ now + s`;
    /// - it is the latest period due, allowing `s`: `due(index + 1) > now − s`, unless it is the series' last
    ///   (`count − 1`);
    /// - it is later than the last period accepted so (`lastIndex`);
    /// - at least `P′ − P′/10` seconds passed since that acceptance (`lastAt`): never two periods within nine
    ///   tenths of a period of wall time, however short the periods or however far back the start.
    public static func timing(
        index: Int, now: Timestamp, calendar: SubscriptionCalendar, count: Int? = nil, lastIndex: Int?,
        lastAt: Timestamp?
    ) -> SeriesHoldReason? {
        guard index >= 0 else { return .outsideSeries }
        let due = calendar.due(index)
        let next = calendar.due(index + 1)
        let length = max(0, next.secondsSince1970 - due.secondsSince1970)
        let previous = index > 0 ? max(0, due.secondsSince1970 - calendar.due(index - 1).secondsSince1970) : length
        let skew = skewAllowance(periodLength: min(length, previous))
        if due > now.adding(seconds: skew) { return .notDue }
        let last = count.map { index + 1 >= $0 } ?? false
        if !last, next <= now.adding(seconds: -skew) { return .notLatest }
        if let lastIndex, index <= lastIndex { return .notLatest }
        if let lastAt, now.secondsSince1970 - lastAt.secondsSince1970 < previous - previous / 10 { return .tooSoon }
        return nil
    }

    /// The period of series `seriesID`, from `first` and below `count`, whose payment ID is `id`, if any. Only a
    /// version 5 UUID can be one; for others nothing is computed.
    public static func period(withID id: UUID, series seriesID: UUID, from first: Int, count: Int) -> Int? {
        guard id.uuid.6 >> 4 == 5, first < count else { return nil }
        return (max(first, 0)..<count).first { instanceID(series: seriesID, index: $0) == id }
    }

    /// The namespace of period request IDs (a UUIDv5 namespace of its own).
    public static let instanceNamespace = UUID(
        uuid: (
            0x6B, 0x3F, 0x1C, 0x52, 0x8E, 0x2A, 0x4D, 0x7B, 0x9A, 0x61, 0x0C, 0x4E, 0x2F, 0x88, 0x13, 0xD5
        ))

    /// The payment ID of period `index` of series `seriesID`: a UUIDv5 (RFC 9562) over the namespace
    /// `instanceNamespace` and the name `"<series ID, lower case>/<index>"`, so that a daemon that crashed while
    /// sending a period's request resends the same request, which the payer recognises, instead of a second one.
    public static func instanceID(series seriesID: UUID, index: Int) -> UUID {
        UUID.version5(namespace: instanceNamespace, name: "\(seriesID.uuidString.lowercased())/\(index)")
    }

    /// The message ID of the request frame of period `index` (derived the same way, name suffixed `/request`).
    public static func instanceMessageID(series seriesID: UUID, index: Int) -> UUID {
        UUID.version5(
            namespace: instanceNamespace, name: "\(seriesID.uuidString.lowercased())/\(index)/request")
    }
}
