import Foundation
import InterPayControl
import InterPayCore
import InterPayEngine
import InterPayStore

extension ControlMethods {
    /// The subscription methods: `offer` (the CLI's `subscribe`; the method name `subscribe` is the event stream's), `approve`, `decline`, `unsubscribe`, `subscriptions` (README).
    func subscriptionMethod(_ method: String, _ params: Params) async throws -> JSONValue {
        switch method {
        case "offer": return try await subscribe(params)
        case "approve":
            let series = try await resolveSeries(try params.required("series"))
            var cap: Money?
            if let text = params.string("max") {
                do {
                    cap = try Money(parsing: text, currency: try series.amount.currency)
                } catch let error as MoneyError {
                    throw RPCError.invalidParams("--max: \(error.description)")
                }
            }
            return try await json(try await engine.command(.approve(cap: cap), seriesID: series.id))
        case "decline":
            let series = try await resolveSeries(try params.required("series"))
            return try await json(
                try await engine.command(.decline(reason: params.string("reason")), seriesID: series.id))
        case "unsubscribe":
            let series = try await resolveSeries(try params.required("series"))
            return try await json(try await engine.command(.end(reason: params.string("reason")), seriesID: series.id))
        default:
            let views = try await database.seriesList()
            let now = Timestamp.now
            return .object(["series": .array(views.map { Self.json($0, now: now) })])
        }
    }

    /// `offer {peer, amount, currency, every, count?, start?, memo?, category?}`: offers a series (payee).
    private func subscribe(_ params: Params) async throws -> JSONValue {
        let amount: Money
        do {
            amount = try Money(parsing: try params.required("amount"), currencyCode: try params.required("currency"))
        } catch let error as MoneyError {
            throw RPCError.invalidParams(error.description)
        }
        guard let period = SubscriptionPeriod(rawValue: try params.required("every")) else {
            throw RPCError.invalidParams("every is week, month or year")
        }
        let count = params.integer("count")
        if let count, !(1...Int64(Limits.maxSeriesCount)).contains(count) {
            throw RPCError.invalidParams("count must be from 1 to \(Limits.maxSeriesCount)")
        }
        // A start is a wall-clock date (and time) in this daemon's subscription time zone.
        var start: Timestamp?
        if let text = params.string("start") {
            guard let local = CivilDateTime(parsing: text) else {
                throw RPCError.invalidParams("start must be YYYY-MM-DD or YYYY-MM-DDTHH:MM")
            }
            let zone = TimeZone(identifier: configuration.subscriptionTimeZone) ?? TimeZone(secondsFromGMT: 0) ?? .gmt
            start = SubscriptionCalendar(start: .now, period: .week, timeZone: zone).instant(of: local)
        }
        let payer = try await resolvePeer(try params.required("peer"))
        let record = try await engine.offerSeries(
            to: payer, amount: amount, period: period, start: start, count: count.map { Int($0) },
            memo: params.string("memo") ?? "", category: params.string("category"),
            timeZone: configuration.subscriptionTimeZone, periodSeconds: configuration.subscriptionPeriodSeconds)
        return try await json(record)
    }

    /// A series by ID or unique prefix of at least 4 characters.
    private func resolveSeries(_ text: String) async throws -> SeriesRecord {
        let matches = try await database.series(idPrefix: text)
        if matches.count > 1 {
            throw EngineError.ambiguous(text, candidates: matches.map { String($0.id.wireString.prefix(8)) })
        }
        guard let match = matches.first else { throw EngineError.notFound("series '\(text)'") }
        return match
    }

    /// A series as `subscriptions` lists it, after a command.
    private func json(_ record: SeriesRecord) async throws -> JSONValue {
        let view = try await database.seriesList().first { $0.series.id == record.id }
        return Self.json(view ?? SeriesView(series: record, instances: 0, paid: 0, peerName: nil), now: .now)
    }

    /// The stable JSON form of a series.
    static func json(_ view: SeriesView, now: Timestamp) -> JSONValue {
        let series = view.series
        let calendar = series.calendar
        let currency = try? CurrencyCode(series.currency)  // a stored currency was checked when stored
        func amount(_ minor: Int64) -> JSONValue {
            .string(currency.map { Money(minorUnits: minor, currency: $0).formattedAmount } ?? String(minor))
        }
        // The first period due after now; none for a final series or one whose periods are all past.
        let nextDue: JSONValue =
            series.state.isFinal
            ? .null
            : calendar.nextDue(after: now, count: series.count).map { .int(calendar.due($0).secondsSince1970) } ?? .null
        return .object([
            "id": .string(series.id.wireString), "direction": .string(series.role == .payee ? "out" : "in"),
            "peer": .object([
                "id": .string(series.peerID.description), "shortID": .string(series.peerID.shortDescription),
                "name": view.peerName.map(JSONValue.string) ?? .null,
            ]),
            "amount": amount(series.amountMinor), "currency": .string(series.currency),
            "every": .string(series.period.rawValue), "count": series.count.map { .int(Int64($0)) } ?? .null,
            "start": .int(series.start.secondsSince1970), "timeZone": .string(series.timeZone),
            "periodSeconds": series.periodSeconds.map(JSONValue.int) ?? .null,
            "memo": .string(series.memo), "category": series.category.map(JSONValue.string) ?? .null,
            "state": .string(series.state.rawValue), "cap": series.capMinor.map(amount) ?? .null,
            "nextDue": nextDue, "instances": .int(Int64(view.instances)), "paid": .int(Int64(view.paid)),
            "reason": series.reason.map(JSONValue.string) ?? .null,
            "endedBy": series.endedBy.map { .string($0.rawValue) } ?? .null,
            "delivered": .bool(series.outMessageID == nil),
            "createdAt": .int(series.createdAt.secondsSince1970), "updatedAt": .int(series.updatedAt.secondsSince1970),
        ])
    }
}
