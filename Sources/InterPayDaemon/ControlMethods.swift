import Foundation
import InterPayControl
import InterPayCore
import InterPayEngine
import InterPayRates
import InterPayStore
import InterPayTransport

/// The daemon's JSON-RPC methods on the control socket: what `interpay` calls.
///
/// Field names in results are a stable contract (documented in the README).
struct ControlMethods: ControlHandler {
    let engine: PaymentEngine
    let pairing: PairingCoordinator
    let sessions: SessionManager
    let database: AppDatabase
    let configuration: DaemonConfiguration
    let shared: SharedState
    let startedAt: ContinuousClock.Instant
    let broadcaster: EventBroadcaster
    let conversions: Conversions
    /// The web app's access token, nil when the web app is off.
    var webToken: String? = nil

    func events() -> AsyncStream<JSONValue> { broadcaster.subscribe() }

    func handle(method: String, params: JSONValue?) async throws(RPCError) -> JSONValue {
        let params = Params(params)
        do {
            switch method {
            case "status": return await status()
            case "peers": return try await peers()
            case "pair": return try await pair(params)
            case "untrust": return try await untrust(params)
            case "rename": return try await rename(params)
            case "send": return try await send(params)
            case "accept": return try await decide(.accept, params)
            case "reject": return try await decide(.reject(reason: try reason(params)), params)
            case "cancel": return try await decide(.cancel, params)
            case "paid": return try await paid(params)
            case "received": return try await received(params)
            case "receipt": return try await receipt(params)
            case "export": return try await export(params)
            case "list": return try await list(params)
            case "show": return try await show(params)
            case "history": return try await history(params)
            case "stats": return try await stats(params)
            case "convert": return try await convert(params)
            case "rates": return try await rates(params)
            case "offer", "approve", "decline", "unsubscribe", "subscriptions":
                return try await subscriptionMethod(method, params)
            case "web": return try web()
            case "currency": return try await preferredCurrency(params)
            default: throw RPCError.methodNotFound(method)
            }
        } catch let error as RPCError {
            throw error
        } catch let error as EngineError {
            throw error.rpcError
        } catch let error as RatesError {
            switch error {
            case .unsupportedCurrency: throw RPCError.invalidParams(error.description)
            default: throw RPCError.unavailable(error.description)
            }
        } catch let error as StoreError {
            throw RPCError.internalError("ledger error: \(error.description)")
        } catch {
            throw RPCError.internalError(String(describing: error))
        }
    }

    // MARK: Methods

    private func status() async -> JSONValue {
        let uptime = ContinuousClock.now - startedAt
        return DaemonStatus(
            name: configuration.name, id: sessions.identity.peerID.description,
            shortID: sessions.identity.peerID.shortDescription, port: Int64(shared.port),
            version: configuration.version, uptimeSeconds: uptime.components.seconds, discovery: shared.discovery,
            sessions: Int64(await sessions.currentSessions().count),
            webPort: shared.webPort == 0 ? nil : Int64(shared.webPort),
            currency: conversions.preferred?.code
        ).jsonValue
    }

    /// `web`: the web app's address and the URL that logs in with the token (`interpay web`). Only on the control
    /// socket: whoever may use the socket may use the web app.
    private func web() throws(RPCError) -> JSONValue {
        guard let address = configuration.webListen, let webToken else {
            throw RPCError.unavailable("the web app is off (interpayd --no-web, or [web] enabled = false)")
        }
        let port = shared.webPort
        guard port != 0 else { throw RPCError.unavailable("the web app is not listening yet") }
        return .object([
            "url": .string(address.loginURL(port: port, token: webToken)),
            "address": .string(address.host), "port": .int(Int64(port)),
        ])
    }

    private func peers() async throws -> JSONValue {
        let live = await sessions.currentSessions()
        let known = try await database.peers()
        let trusted = try await database.trustedPeers()
        let names = try await peerNames()
        /// What a paired peer announces when it differs from its pinned name.
        func announced(_ peer: PeerID) -> JSONValue { names[peer]?.announced.map(JSONValue.string) ?? .null }
        var rows: [JSONValue] = []
        for session in live {
            rows.append(
                .object([
                    "name": .string(names[session.peerID]?.shown ?? session.name),
                    "announcedName": announced(session.peerID), "id": .string(session.peerID.description),
                    "shortID": .string(session.peerID.shortDescription), "address": .string(session.remoteAddress),
                    "session": .string("up"), "lastSeen": .int(Timestamp.now.secondsSince1970),
                    "trust": await trust(session.peerID, trusted: trusted),
                ]))
        }
        for peer in known where !live.contains(where: { $0.peerID == peer.peerID }) {
            rows.append(
                .object([
                    "name": .string(names[peer.peerID]?.shown ?? peer.name), "announcedName": announced(peer.peerID),
                    "id": .string(peer.peerID.description),
                    "shortID": .string(peer.peerID.shortDescription),
                    "address": peer.address.map(JSONValue.string) ?? .null,
                    "session": .string("down"), "lastSeen": .int(peer.lastSeen.secondsSince1970),
                    "trust": await trust(peer.peerID, trusted: trusted),
                ]))
        }
        var statics: [JSONValue] = []
        for peer in configuration.staticPeers {
            let pinned = peer.peerID == nil ? try await database.staticPin(address: peer.address) : nil
            statics.append(
                .object([
                    "address": .string(peer.address),
                    "peerID": (peer.peerID ?? pinned).map { .string($0.description) } ?? .null,
                    "pin": .string(peer.peerID != nil ? "configured" : pinned != nil ? "first-seen" : "none"),
                    "refusedID": sessions.refusedPeerID(forKey: peer.dialKey).map { .string($0.description) }
                        ?? .null,
                ]))
        }
        return .object(["peers": .array(rows), "static": .array(statics)])
    }

    /// `trust` of a peer in `peers` and `pair`: paired or unverified, and the pairing in progress if any.
    private func trust(_ peer: PeerID, trusted: [PeerID: TrustedPeerRecord]) async -> JSONValue {
        let status = await pairing.status(of: peer)
        return .object([
            "state": .string(trusted[peer] != nil ? "paired" : "unverified"),
            "pairedAt": trusted[peer].map { .int($0.pairedAt.secondsSince1970) } ?? .null,
            "pairing": .string(status.phase),
            "code": status.code.map { .string($0.digits) } ?? .null,
            "until": status.until.map { .int($0.secondsSince1970) } ?? .null,
            "failures": .int(Int64(status.failures)),
        ])
    }

    /// `pair {peer, code?}`: without a code, starts an attempt (or joins the one in progress) and returns the
    /// verification code once both sides have it, or `waiting` while the peer's user has not started (`me` gives
    /// the short ID that user must name); with a code, confirms it and trusts the peer.
    private func pair(_ params: Params) async throws -> JSONValue {
        let peerText = try params.required("peer")
        if let codeText = params.string("code") {
            guard let code = PairingCode(userInput: codeText) else {
                throw RPCError.invalidParams("a verification code is 6 digits, e.g. 123456")
            }
            let peer = try await resolvePeer(peerText, requireSession: false)
            let record = try await pairing.confirm(code, with: peer)
            return .object([
                "peer": .object([
                    "name": .string(record.name), "id": .string(peer.description),
                    "shortID": .string(peer.shortDescription),
                ]),
                "trust": await trust(peer, trusted: [peer: record]),
            ])
        }
        let peer = try await resolvePeer(peerText)
        _ = try await pairing.start(with: peer)
        let trusted = try await database.trustedPeers()
        return .object([
            "peer": .object([
                "name": .string(try await peerNames()[peer]?.shown ?? peer.shortDescription),
                "id": .string(peer.description),
                "shortID": .string(peer.shortDescription),
            ]),
            "trust": await trust(peer, trusted: trusted),
            "me": .object(["shortID": .string(sessions.identity.peerID.shortDescription)]),
        ])
    }

    /// `untrust {peer}`: forgets a pairing, and the key pinned for it at any static peer address (so that the next
    /// key seen there is pinned instead: a static peer whose key really changed).
    private func untrust(_ params: Params) async throws -> JSONValue {
        let peer = try await resolvePeer(try params.required("peer"), requireSession: false)
        let unpaired = try await pairing.untrust(peer)
        let addresses = try await database.unpinStatic(peer)
        for static_ in configuration.staticPeers where addresses.contains(static_.address) {
            await sessions.resetPin(forKey: static_.dialKey, expectedPeerID: static_.peerID)
        }
        guard unpaired || !addresses.isEmpty else {
            throw RPCError.notFound("\(peer.shortDescription) is neither paired nor pinned at a static address")
        }
        return .object([
            "id": .string(peer.description), "shortID": .string(peer.shortDescription), "untrusted": .bool(unpaired),
            "unpinned": .array(addresses.map(JSONValue.string)),
        ])
    }

    /// `rename {peer, name}`: the name a paired peer is shown under here, whatever it announces.
    private func rename(_ params: Params) async throws -> JSONValue {
        let peer = try await resolvePeer(try params.required("peer"), requireSession: false)
        let name = try params.required("name")
        if let problem = DisplayName.problem(with: name) { throw RPCError.invalidParams(problem) }
        guard try await database.renameTrustedPeer(peer, to: name) else {
            throw RPCError.notFound(
                "\(peer.shortDescription) is not paired: only a paired peer's name is kept (interpay pair)")
        }
        return .object([
            "id": .string(peer.description), "shortID": .string(peer.shortDescription), "name": .string(name),
        ])
    }

    private func send(_ params: Params) async throws -> JSONValue {
        let peerText = try params.required("peer")
        let amount: Money
        do {
            amount = try Money(parsing: try params.required("amount"), currencyCode: try params.required("currency"))
        } catch let error as MoneyError {
            throw RPCError.invalidParams(error.description)
        }
        let key = params.string("idempotencyKey")
        // With a key the session is checked after the key: a retry finds its payment even before the session is up.
        let payer = try await resolvePeer(peerText, requireSession: key == nil)
        let expires = params.integer("expiresInSeconds") ?? 900
        guard (1...(30 * 86_400)).contains(expires) else {
            throw RPCError.invalidParams("expiresInSeconds must be from 1 to 2592000")
        }
        if let key, !SendKeyRecord.isValid(key) {
            throw RPCError.invalidParams(
                "an idempotency key has 1 to \(SendKeyRecord.maxKeyLength) characters from A-Z a-z 0-9 - _ . : ~")
        }
        let record = try await engine.request(
            from: payer, amount: amount, memo: params.string("memo") ?? "", category: params.string("category"),
            expiresIn: expires, idempotencyKey: key)
        return try await json(record)
    }

    /// `accept`, `reject`, `cancel`. A decision that lost to the peer's crossing one (the payee's cancel reached
    /// the payee's ledger first, say) is a conflict naming the outcome, whichever side learned of it first: the same
    /// outcome always gives the same answer (exit 5).
    private func decide(_ decision: PaymentEngine.Decision, _ params: Params) async throws -> JSONValue {
        let record = try await resolvePayment(try params.required("payment"))
        let decided = try await engine.decide(decision, paymentID: record.id)
        let wanted: PaymentState =
            switch decision {
            case .accept: .accepted
            case .reject: .rejected
            case .cancel: .cancelled
            }
        if decided.confirmed, decided.state != wanted, let reason = decided.state.conflictReason {
            throw EngineError.conflict(reason)
        }
        return try await json(decided)
    }

    /// `paid {payment, method?, reference?}`: the payer marks an accepted payment paid and waits (bounded) for the
    /// payee's answer.
    private func paid(_ params: Params) async throws -> JSONValue {
        let record = try await resolvePayment(try params.required("payment"))
        var method: PaymentMethod?
        if let text = params.string("method") {
            guard let known = PaymentMethod(rawValue: text) else {
                throw RPCError.invalidParams("method is cash, card, transfer or other")
            }
            method = known
        }
        let updated = try await engine.markPaid(
            paymentID: record.id, method: method, reference: params.string("reference"))
        return try await json(updated)
    }

    /// `received {payment}`: the payee confirms the money arrived; the payment is settled and the receipt signed.
    private func received(_ params: Params) async throws -> JSONValue {
        let record = try await resolvePayment(try params.required("payment"))
        return try await json(try await engine.settle(paymentID: record.id))
    }

    /// `receipt {payment}`: the stored receipt's canonical text and its one-line summary; `not-found` naming why
    /// when there is none.
    private func receipt(_ params: Params) async throws -> JSONValue {
        let record = try await resolvePayment(try params.required("payment"))
        guard let text = record.receipt else {
            let why: String
            switch record.state {
            case .settled:
                why =
                    record.role == .payee
                    ? "it was settled without one" : "the payee's daemon sent none (it may not support receipts)"
            case .accepted, .paid:
                let capable = sessions.session(with: record.peerID).map { info in
                    info.capabilities.contains(PaymentMessage.receiptsCapability)
                }
                why =
                    capable == false
                    ? "the peer's daemon does not support receipts"
                    : "the payment is \(record.state.rawValue), not settled"
            default: why = "the payment is \(record.state.rawValue)"
            }
            throw EngineError.notFound(
                "receipt of payment \(record.id.wireString.prefix(8)) (no receipt is available: \(why))")
        }
        let summary = (try? SignedReceipt(verifying: text))?.summary  // a stored receipt was verified when stored
        return .object([
            "payment": .string(record.id.wireString), "receipt": .string(text),
            "summary": summary.map(JSONValue.string) ?? .null,
        ])
    }

    /// `export {from?, to?, state?}`: every payment created in `[from, to)` (times as seconds), oldest first, with
    /// its settlement and quote columns (the CLI writes them as CSV or JSON).
    private func export(_ params: Params) async throws -> JSONValue {
        var filter = PaymentFilter()
        if let state = params.string("state") {
            guard let value = PaymentState(rawValue: state) else {
                throw RPCError.invalidParams("unknown state \(state)")
            }
            filter.state = value
        }
        filter.createdFrom = params.integer("from").map(Timestamp.init(secondsSince1970:))
        filter.createdBefore = params.integer("to").map(Timestamp.init(secondsSince1970:))
        let views = try await database.paymentViews(filter: filter).reversed()
        return .object([
            "payments": .array(
                views.map { view in
                    Self.json(view.record, peerName: peerName(view), converted: nil)
                })
        ])
    }

    /// A reject reason from the control socket: at most `Limits.maxReasonLength` code points, no control character.
    private func reason(_ params: Params) throws -> String? {
        guard let reason = params.string("reason") else { return nil }
        guard reason.unicodeScalars.count <= Limits.maxReasonLength else {
            throw RPCError.invalidParams("a reason has at most \(Limits.maxReasonLength) code points")
        }
        if let scalar = SafeText.forbiddenScalar(in: reason) {
            throw RPCError.invalidParams("the reason holds the control character \(SafeText.describe(scalar))")
        }
        return reason
    }

    private func list(_ params: Params) async throws -> JSONValue {
        var filter = PaymentFilter()
        if let state = params.string("state") {
            guard let value = PaymentState(rawValue: state) else {
                throw RPCError.invalidParams("unknown state \(state)")
            }
            filter.state = value
        }
        if let direction = params.string("direction") {
            guard ["in", "out"].contains(direction) else { throw RPCError.invalidParams("direction is in or out") }
            filter.role = direction == "in" ? .payer : .payee
        }
        if let peer = params.string("peer") { filter.peerID = try await resolvePeer(peer, requireSession: false) }
        filter.limit = Int(max(0, min(params.integer("limit") ?? 200, 100_000)))
        return try await paymentList(try await database.paymentViews(filter: filter))
    }

    /// Payments as JSON from one read of the ledger: their peers' names come with them, and the amounts in the
    /// preferred currency from one look-up of the rates for all of them.
    private func paymentList(_ views: [PaymentView]) async throws -> JSONValue {
        let convert = await conversions.quoter()
        return .object([
            "payments": .array(
                views.map { view in
                    Self.json(
                        view.record, peerName: peerName(view), converted: (try? view.record.amount).flatMap(convert))
                })
        ])
    }

    /// The name a listed payment's peer is shown under: the live session's name first, as `PeerName.all` does.
    private func peerName(_ view: PaymentView) -> PeerName {
        let announced = sessions.session(with: view.record.peerID)?.name ?? view.announcedName
        return PeerName(announcedName: announced, pinned: view.pinnedName)
    }

    private func show(_ params: Params) async throws -> JSONValue {
        let text = try params.required("payment")
        let detail = try await database.paymentDetail(idPrefix: text)
        let view = try Self.only(text, in: detail.matches.map(\.record)).flatMap { _ in detail.matches.first }
        guard let view else { throw EngineError.notFound("payment '\(text)'") }
        let converted = (try? view.record.amount).flatMap(await conversions.quoter())
        guard case .object(var object) = Self.json(view.record, peerName: peerName(view), converted: converted)
        else { return .null }
        let events = detail.events
        object["events"] = .array(
            events.map { event in
                .object([
                    "at": .int(event.at.secondsSince1970),
                    "from": event.fromState.map { .string($0.rawValue) } ?? .null,
                    "to": .string(event.toState.rawValue), "cause": .string(event.cause.rawValue),
                    "detail": event.detail.map(JSONValue.string) ?? .null,
                ])
            })
        return .object(object)
    }

    private func history(_ params: Params) async throws -> JSONValue {
        let limit = Int(max(0, min(params.integer("limit") ?? 50, 100_000)))
        return try await paymentList(
            try await database.paymentViews(filter: PaymentFilter(limit: limit, finalOnly: true)))
    }

    private func stats(_ params: Params) async throws -> JSONValue {
        let grouping: StatsGrouping =
            switch params.string("by") ?? "currency" {
            case "category": .category
            case "peer": .peer
            default: .currency
            }
        let now = Timestamp.now
        let since: Timestamp? =
            switch params.string("period") ?? "month" {
            case "day": now.adding(seconds: -86_400)
            case "week": now.adding(seconds: -7 * 86_400)
            case "month": now.adding(seconds: -30 * 86_400)
            default: nil
            }
        let rows = try await database.stats(since: since, groupBy: grouping)
        return .object([
            "rows": .array(
                rows.map { row in
                    let currency = try? CurrencyCode(row.currency)
                    let format = { (minor: Int64) -> String in
                        currency.map { Money(minorUnits: minor, currency: $0).formattedAmount } ?? String(minor)
                    }
                    var group = row.groupKey.map(JSONValue.string) ?? .null
                    if grouping == .peer, let key = row.groupKey, let id = try? PeerID(parsing: key) {
                        let announced = sessions.session(with: id)?.name ?? row.announcedName
                        let name = PeerName(announcedName: announced, pinned: row.pinnedName).shown
                        group = .string(name.isEmpty ? id.shortDescription : name)
                    }
                    return .object([
                        "group": group, "direction": .string(row.role == .payee ? "out" : "in"),
                        "currency": .string(row.currency), "count": .int(Int64(row.count)),
                        "total": .string(format(row.totalMinor)), "average": .string(format(row.averageMinor)),
                        "totalMinor": .int(row.totalMinor), "averageMinor": .int(row.averageMinor),
                        "settledCount": .int(Int64(row.settledCount)),
                        "settledTotal": .string(format(row.settledMinor)),
                        "settledMinor": .int(row.settledMinor),
                    ])
                })
        ])
    }

    /// `convert {amount, from, to}`: the amount converted with the current (or last known) rates.
    private func convert(_ params: Params) async throws -> JSONValue {
        let from = try currency(params.required("from"))
        let to = try currency(params.required("to"))
        let amount: Money
        do {
            amount = try Money(parsing: try params.required("amount"), currency: from)
        } catch let error as MoneyError {
            throw RPCError.invalidParams(error.description)
        }
        let quote = try await conversions.rates.convert(amount, to: to, now: .now)
        guard case .object(var object) = Conversions.json(quote) else { return .null }
        object["from"] = .object(["amount": .string(amount.formattedAmount), "currency": .string(from.code)])
        return .object(object)
    }

    /// `rates {base?}`: where the rates come from, how old they are, and whether they are stale.
    private func rates(_ params: Params) async throws -> JSONValue {
        let base = try params.string("base").map(currency) ?? conversions.preferred ?? conversions.rates.base
        let now = Timestamp.now
        let current = try await conversions.rates.rates(base: base, now: now)
        let snapshot = current.snapshot
        return .object([
            "base": .string(snapshot.base.code), "source": .string(snapshot.source),
            "updatedAt": .int(snapshot.lastUpdate.secondsSince1970),
            "nextUpdateAt": .int(snapshot.nextUpdate.secondsSince1970),
            "fetchedAt": .int(snapshot.fetchedAt.secondsSince1970), "ageSeconds": .int(current.age),
            "stale": .bool(current.isStale),
            "staleReason": current.staleReason.map { .string($0.description) } ?? .null,
            "rates": .object(snapshot.rates.mapValues { .string($0.description) }),
        ])
    }

    /// `currency {currency?, clear?}`: the preferred currency, and where it comes from (`configuration`, `user` or
    /// `none`); with `currency`, the user's choice, kept in the ledger across restarts; with `clear: true`, back to the
    /// configuration's (`rates.currency`).
    private func preferredCurrency(_ params: Params) async throws -> JSONValue {
        if let text = params.string("currency") {
            let chosen = try currency(text)
            try await database.setPreference(.preferredCurrency, to: chosen.code)
            conversions.preference.set(chosen)
        } else if params.members["clear"]?.boolValue == true {
            try await database.setPreference(.preferredCurrency, to: nil)
            conversions.preference.clear()
        }
        return .object([
            "currency": conversions.preferred.map { .string($0.code) } ?? .null,
            "source": .string(conversions.preference.source.rawValue),
        ])
    }

    private func currency(_ text: String) throws -> CurrencyCode {
        do { return try CurrencyCode(userInput: text) } catch { throw RPCError.invalidParams(error.description) }
    }

    // MARK: Resolution and JSON

    /// The peer `text` names (`PeerResolver`: an ID or ID prefix by ID only, a name only when one known peer has
    /// it); with `requireSession`, a known peer without a session is `peerUnreachable`.
    func resolvePeer(_ text: String, requireSession: Bool = true) async throws -> PeerID {
        let names = try await peerNames()
        let candidates = names.map { PeerResolver.Candidate(id: $0.key, name: $0.value.shown) }
        switch PeerResolver.resolve(text, among: candidates) {
        case .found(let peer):
            if requireSession, !(await sessions.currentSessions().contains { $0.peerID == peer }) {
                throw EngineError.peerUnreachable(
                    "\(SafeText.escaped(names[peer]?.shown ?? "")) (\(peer.shortDescription))")
            }
            return peer
        case .ambiguous(let candidates):
            throw EngineError.ambiguous(SafeText.escaped(text), candidates: candidates)
        case .notFound:
            throw EngineError.notFound("peer '\(SafeText.escaped(text))'")
        }
    }

    /// A payment by ID or unique prefix of at least 4 characters.
    private func resolvePayment(_ text: String) async throws -> PaymentRecord {
        guard let match = try Self.only(text, in: try await database.payments(idPrefix: text)) else {
            throw EngineError.notFound("payment '\(text)'")
        }
        return match
    }

    /// The one payment `text` names among `matches`; ambiguous when there are several, nil when none.
    private static func only(_ text: String, in matches: [PaymentRecord]) throws(EngineError) -> PaymentRecord? {
        if matches.count > 1 {
            throw .ambiguous(text, candidates: matches.map { String($0.id.wireString.prefix(8)) })
        }
        return matches.first
    }

    func peerNames() async throws -> [PeerID: PeerName] {
        try await PeerName.all(database: database, sessions: sessions)
    }

    /// The stable JSON form of a payment, with the amount in the preferred currency when it differs.
    func json(_ record: PaymentRecord) async throws -> JSONValue {
        let view = try await database.paymentView(record)
        let converted = try? await conversions.quote(record.amount)  // An unreadable amount has nothing to convert.
        return Self.json(record, peerName: peerName(view), converted: converted ?? nil)
    }

    /// The stable JSON form of a payment: `peer.name` is the name it is shown under (pinned at pairing for a paired
    /// peer), `peer.announcedName` what a paired peer announces when that differs, `peer.trust` `paired` or
    /// `unverified`; `converted` the amount in the preferred currency now, `quote` the one stored when it was
    /// accepted.
    static func json(_ record: PaymentRecord, peerName: PeerName?, converted: Quote?) -> JSONValue {
        var peer: [String: JSONValue] = [
            "id": .string(record.peerID.description), "shortID": .string(record.peerID.shortDescription),
        ]
        peer.merge(peerName?.jsonMembers ?? ["name": .null, "announcedName": .null, "trust": "unverified"]) { $1 }
        let formatted =
            (try? record.amount.formattedAmount) ?? String(record.amountMinor)
        var object: [String: JSONValue] = [
            "id": .string(record.id.wireString), "direction": .string(record.role == .payee ? "out" : "in"),
            "peer": .object(peer),
            "amount": .string(formatted), "currency": .string(record.currency), "minorUnits": .int(record.amountMinor),
            "memo": .string(record.memo), "state": .string(record.state.rawValue), "confirmed": .bool(record.confirmed),
            "createdAt": .int(record.createdAt.secondsSince1970), "expiresAt": .int(record.expiresAt.secondsSince1970),
            "updatedAt": .int(record.updatedAt.secondsSince1970),
        ]
        object["category"] = record.category.map(JSONValue.string) ?? .null
        object["reason"] = record.reason.map(JSONValue.string) ?? .null
        object["reasonCode"] = record.reasonCode.map { .string($0.rawValue) } ?? .null
        object["converted"] = converted.map(Conversions.json) ?? .null
        object["quote"] = Conversions.storedQuote(record) ?? .null
        object["acceptedAt"] = record.acceptedAt.map { .int($0.secondsSince1970) } ?? .null
        object["paidAt"] = record.paidAt.map { .int($0.secondsSince1970) } ?? .null
        object["settledAt"] = record.settledAt.map { .int($0.secondsSince1970) } ?? .null
        object["method"] = record.paidMethod.map { .string($0.rawValue) } ?? .null
        object["reference"] = record.paidReference.map(JSONValue.string) ?? .null
        object["receipt"] = .bool(record.receipt != nil)
        object["series"] =
            record.seriesID.map { id in
                .object(["id": .string(id.wireString), "period": .int(Int64(record.seriesIndex ?? 0))])
            } ?? .null
        return .object(object)
    }
}

/// Typed access to JSON-RPC params (an object).
struct Params {
    let members: [String: JSONValue]

    init(_ value: JSONValue?) {
        members = value?.objectValue ?? [:]
    }

    func string(_ key: String) -> String? { members[key]?.stringValue }
    func integer(_ key: String) -> Int64? { members[key]?.intValue }

    func required(_ key: String) throws -> String {
        guard let value = string(key), !value.isEmpty else {
            throw RPCError.invalidParams("missing parameter '\(key)'")
        }
        return value
    }
}

extension EngineError {
    /// The JSON-RPC error the CLI maps to its exit code.
    var rpcError: RPCError {
        switch self {
        case .notFound: .notFound(description)
        case .ambiguous(_, let candidates): .notFound(description, data: .array(candidates.map(JSONValue.string)))
        case .conflict(let reason): .conflict(description, data: .object(["reasonCode": .string(reason.rawValue)]))
        case .notPermitted: .forbidden(description)
        case .peerUnreachable: .peerUnreachable(description)
        case .invalid: .invalidParams(description)
        case .storage: .internalError(description)
        case .keyReused, .alreadySettling: .conflict(description)
        }
    }
}
