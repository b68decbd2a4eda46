import Foundation
import InterPayContract
import InterPayControl
import InterPayCore
import InterPayEngine
import InterPayStore

extension ControlMethods {
    /// `approve {series, max?, periods?, total?, peer?}`: approves a series offered to us (or renews an approval),
    /// within a cap (default: the offered amount) and a total (default: 12 periods, or the series' count when
    /// smaller). An offer from a peer that is not paired needs `peer`, that peer's ID (full, or its short form).
    func approve(_ params: SeriesParams) async throws -> SeriesInfo {
        let series = try await resolveSeries(params)
        let currency = try series.amount.currency
        func money(_ text: String?, _ option: String) throws -> Money? {
            guard let text else { return nil }
            do {
                return try Money(
                    parsing: text, currency: currency, decimalSeparator: params.decimalSeparator ?? .point)
            } catch {
                throw RPCError.amount(error, field: option)
            }
        }
        let cap = try money(params.max, "--max")
        let total = try money(params.total, "--total")
        if let periods = params.periods, !(1...Int64(Limits.maxSeriesCount)).contains(periods) {
            throw RPCError(
                code: .invalidParams, message: "--periods must be from 1 to \(Limits.maxSeriesCount)",
                reason: .periodsRange, values: ["max": String(Limits.maxSeriesCount)])
        }
        var named: PeerID?
        if let text = params.peer {
            guard Self.names(text, peer: series.peerID) else {
                throw RPCError(
                    code: .invalidParams,
                    message: "--peer \(SafeText.escaped(text)) is not the ID of the peer that offered this series"
                        + " (\(series.peerID.shortDescription))",
                    reason: .seriesPeerMismatch, values: ["peer": series.peerID.shortDescription])
            }
            named = series.peerID
        }
        return try await info(
            try await engine.command(
                .approve(cap: cap, periods: params.periods.map { Int($0) }, total: total, peer: named),
                seriesID: series.id, wait: Self.sendAcknowledgementWait))
    }

    /// Whether `text` is `peer`'s ID, in full or its short form (at least its first 7 characters), read as §4 reads
    /// an ID: case, `-` and spaces do not matter, and `0`, `1`, `8` stand for `O`, `I`, `B`. A name never is.
    static func names(_ text: String, peer: PeerID) -> Bool {
        let given = PeerID.compactPrefix(text)
        return given.count >= 7 && peer.compactDescription.hasPrefix(given)
    }

    /// `decline {series, reason?}`: declines a series offered to us.
    func decline(_ params: SeriesParams) async throws -> SeriesInfo {
        let series = try await resolveSeries(params)
        return try await info(
            try await engine.command(
                .decline(reason: params.reason), seriesID: series.id, wait: Self.sendAcknowledgementWait))
    }

    /// `unsubscribe {series, reason?}`: ends a series, from either side.
    func unsubscribe(_ params: SeriesParams) async throws -> SeriesInfo {
        let series = try await resolveSeries(params)
        return try await info(
            try await engine.command(
                .end(reason: params.reason), seriesID: series.id, wait: Self.sendAcknowledgementWait))
    }

    /// `subscriptions`: every series, both sides.
    func subscriptions() async throws -> SeriesList {
        let views = try await database.seriesList()
        let now = Timestamp.now
        return SeriesList(
            series: views.map { Self.info($0, peerName: seriesPeerName($0), now: now) }.withUniqueShortIDs())
    }

    /// `offer {peer, amount, currency, every, count?, start?, memo?, category?}`: offers a series (payee); the CLI's
    /// `subscribe` (the method name `subscribe` is the event stream's).
    func offer(_ params: OfferParams) async throws -> SeriesInfo {
        let amount = try money(params.amount, params.currency, params.decimalSeparator)
        guard let period = SubscriptionPeriod(rawValue: try required(params.every, "every")) else {
            throw RPCError.invalidParams("every is week, month or year")
        }
        let count = params.count
        if let count, !(1...Int64(Limits.maxSeriesCount)).contains(count) {
            throw RPCError(
                code: .invalidParams, message: "count must be from 1 to \(Limits.maxSeriesCount)",
                reason: .periodsRange, values: ["max": String(Limits.maxSeriesCount)])
        }
        // A start is a wall-clock date (and time) in this daemon's subscription time zone.
        let timeZone = configuration.effectiveSubscriptionTimeZone
        var start: Timestamp?
        if let text = params.start {
            guard let local = CivilDateTime(parsing: text) else {
                throw RPCError.invalidParams("start must be YYYY-MM-DD or YYYY-MM-DDTHH:MM")
            }
            let zone = TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? .gmt
            start = SubscriptionCalendar(start: .now, period: .week, timeZone: zone).instant(of: local)
        }
        let payer = try await resolvePeer(try required(params.peer, "peer"))
        let record = try await engine.offerSeries(
            to: payer, amount: amount, period: period, start: start, count: count.map { Int($0) },
            memo: params.memo ?? "", category: params.category,
            timeZone: timeZone, periodSeconds: configuration.subscriptionPeriodSeconds,
            wait: Self.sendAcknowledgementWait)
        return try await info(record)
    }

    /// A series by ID or unique prefix of at least 4 characters.
    private func resolveSeries(_ params: SeriesParams) async throws -> SeriesRecord {
        let text = try required(params.series, "series")
        let matches = try await database.series(idPrefix: text)
        if matches.count > 1 {
            let names = try await peerNames()
            let shown = RecordShortID.unique(matches.map(\.id.wireString))
            throw EngineError.ambiguous(
                SafeText.escaped(text),
                candidates: zip(shown, matches).map { short, series in
                    let direction = series.role == .payee ? "to" : "from"
                    return "\(short)  \(direction) \(PeerLabel.text(names[series.peerID], series.peerID))"
                })
        }
        guard let match = matches.first else {
            throw EngineError.notFound(kind: "series", text: SafeText.escaped(text))
        }
        return match
    }

    /// A series as `subscriptions` lists it, after a command.
    private func info(_ record: SeriesRecord) async throws -> SeriesInfo {
        let view =
            try await database.seriesList().first { $0.series.id == record.id }
            ?? SeriesView(series: record, instances: 0, accepted: 0, paid: 0, announcedName: nil, pinnedName: nil)
        return Self.info(view, peerName: seriesPeerName(view), now: .now)
    }

    /// The name a listed series' peer is shown under: the live session's name first, as for a payment.
    func seriesPeerName(_ view: SeriesView) -> PeerName {
        let announced = sessions.session(with: view.series.peerID)?.name ?? view.announcedName
        return PeerName(announcedName: announced, pinned: view.pinnedName, pairedName: view.pairedName)
    }

    /// A series as the control methods answer it: its peer as a payment's (`peer.trust` `paired` or
    /// `unverified`); `shortID` its tail (`RecordShortID`), which a list makes unique among its rows.
    static func info(_ view: SeriesView, peerName: PeerName?, now: Timestamp) -> SeriesInfo {
        let series = view.series
        let calendar = series.calendar
        let currency = try? CurrencyCode(series.currency)  // a stored currency was checked when stored
        func amount(_ minor: Int64) -> String {
            currency.map { Money(minorUnits: minor, currency: $0).formattedAmount } ?? String(minor)
        }
        // The first period due after now; none for a final series or one whose periods are all past.
        let nextDue =
            series.state.isFinal
            ? nil : calendar.nextDue(after: now, count: series.count).map { calendar.due($0).secondsSince1970 }
        return SeriesInfo(
            id: series.id.wireString, shortID: RecordShortID.tail(of: series.id.wireString),
            direction: PaymentDirection(series.role),
            peer: peer(series.peerID, peerName),
            amount: amount(series.amountMinor), currency: series.currency,
            every: series.periodSeconds == nil ? series.period.rawValue : "seconds",
            count: series.count.map { Int64($0) }, start: series.start.secondsSince1970, timeZone: series.timeZone,
            periodSeconds: series.periodSeconds, memo: series.memo, category: series.category,
            state: series.state, cap: series.capMinor.map(amount), nextDue: nextDue,
            instances: Int64(view.instances), accepted: Int64(view.accepted), paid: Int64(view.paid),
            reason: series.reason,
            endedBy: series.endedBy?.rawValue, delivered: series.outMessageID == nil,
            createdAt: series.createdAt.secondsSince1970, updatedAt: series.updatedAt.secondsSince1970,
            approvedPeriods: series.approvedPeriods.map { Int64($0) },
            approvedTotal: series.approvedTotalMinor.map(amount),
            autoAccepted: Int64(series.autoAccepted), autoAcceptedTotal: amount(series.autoAcceptedMinor))
    }
}
