import Foundation
import InterPayContract
import InterPayControl
import InterPayCore
import InterPayEngine
import InterPayRates
import InterPayStore
import InterPayTransport
import InterPayWeb

/// The daemon's side of the control contract (`ControlService`): what `interpay` and the web app call.
///
/// Field names in results are a stable contract (documented in docs/control-api.md).
struct ControlMethods: ControlService, UsesDaemonServices {
    let services: DaemonServices
    let startedAt: ContinuousClock.Instant
    /// The web app's access (its token, login codes and sessions), nil when the web app is off.
    var webAccess: WebAccess? = nil

    func events() -> AsyncStream<JSONValue> { broadcaster.subscribe() }

    /// The JSON-RPC error for what a method threw: engine refusals by kind (a peer named as every surface names one),
    /// rates and ledger errors by what the user can do about them.
    func rpcError(for error: any Error) async -> RPCError {
        switch error {
        case let error as EngineError:
            if case .peerUnreachable(let peer) = error {
                // Named as every surface names a peer (`PeerLabel`: its trust mark included); a ledger that cannot
                // say leaves the short ID alone.
                let names = try? await peerNames()
                let label = PeerLabel.text(names?[peer], peer)
                return RPCError(
                    code: .peerUnreachable, message: EngineError.unreachable(label), reason: .peerUnreachable,
                    values: ["peer": label])
            }
            return error.rpcError
        case let error as MoneyError:
            return RPCError.amount(error)
        case let error as RatesError:
            switch error {
            case .unsupportedCurrency(let code, _):
                return RPCError(
                    code: .invalidParams, message: error.description, reason: .ratesUnsupportedCurrency,
                    values: ["code": code])
            default: return RPCError(code: .unavailable, message: error.description, reason: .ratesUnavailable)
            }
        case let error as StoreError:
            if case .invalidPrefix = error {
                return RPCError(code: .invalidParams, message: error.description, reason: .invalid)
            }
            return RPCError(
                code: .internalError, message: "ledger error: \(error.description)", reason: .internalError)
        default:
            return RPCError(code: .internalError, message: String(describing: error), reason: .internalError)
        }
    }

    // MARK: Methods

    func status() async -> DaemonStatus {
        let uptime = ContinuousClock.now - startedAt
        return DaemonStatus(
            name: configuration.name, id: sessions.identity.peerID.description,
            shortID: sessions.identity.peerID.shortDescription, port: Int64(shared.port),
            version: configuration.version, uptimeSeconds: uptime.components.seconds, discovery: shared.discovery,
            sessions: Int64(await sessions.currentSessions().count),
            webPort: shared.webPort == 0 ? nil : Int64(shared.webPort),
            currency: conversions.preferred?.code, ledger: await ledgerStatus()
        )
    }

    /// The ledger's size for `status`; nil when it cannot be measured (`status` still answers: it is what a user
    /// runs to see whether the daemon is alive, and a ledger that cannot be read shows in every other command).
    private func ledgerStatus() async -> DaemonStatus.LedgerStatus? {
        guard let size = try? await database.size() else { return nil }
        return .init(
            bytes: size.bytes, freeBytes: size.freeBytes, payments: Int64(size.payments),
            events: Int64(size.events), queuedFrames: Int64(size.outbox), pruned: Int64(size.pruned),
            retentionDays: configuration.ledgerRetention.components.seconds / 86_400)
    }

    /// `web`: the web app's address and the URL that logs in with the token (`interpay web`). Only on the control
    /// socket: whoever may use the socket may use the web app.
    func web() throws(RPCError) -> WebLogin {
        guard let address = configuration.webListen, let webAccess else {
            throw RPCError(
                code: .unavailable, message: "the web app is off (interpayd --no-web, or [web] enabled = false)",
                reason: .webUnavailable)
        }
        let port = shared.webPort
        if port == 0, let failure = shared.webFailure { throw RPCError.unavailable(failure) }
        guard port != 0 else { throw RPCError.unavailable("the web app is not listening yet") }
        return WebLogin(
            url: address.loginURL(port: port, code: webAccess.issueLoginCode()), address: address.host,
            port: Int64(port))
    }

    /// `peers`: from one read of the ledger (`peerDirectory`) and one look at the sessions.
    func peers() async throws -> PeerList {
        let live = await sessions.currentSessions()
        let unpinned = configuration.staticPeers.filter { $0.peerID == nil }.map(\.address)
        let directory = try await database.peerDirectory(pinnedAt: unpinned)
        let known = directory.peers
        let trusted = directory.trusted
        let names = PeerName.all(peers: known, sessions: live, trusted: trusted)
        var rows: [PeerInfo] = []
        let interval = configuration.keepaliveInterval
        for session in live {
            let silence = sessions.silence(of: session.peerID) ?? .zero
            // A peer that dialed us is shown where it listens (a discovered or static address naming its key), else
            // by its host alone: its connection's source port is an ephemeral one.
            let address =
                session.direction == .outbound
                ? session.remoteAddress : await sessions.listeningAddress(of: session.peerID) ?? session.host
            rows.append(
                PeerInfo(
                    name: names[session.peerID]?.shown ?? session.name, announcedName: names[session.peerID]?.announced,
                    id: session.peerID.description, shortID: session.peerID.shortDescription,
                    address: address, session: .up,
                    lastSeen: Timestamp.now.secondsSince1970 - silence.components.seconds,
                    trust: await trust(session.peerID, trusted: trusted),
                    missedKeepalives: Self.missedKeepalives(silence: silence, interval: interval)))
        }
        for peer in known where !live.contains(where: { $0.peerID == peer.peerID }) {
            rows.append(
                PeerInfo(
                    name: names[peer.peerID]?.shown ?? peer.name, announcedName: names[peer.peerID]?.announced,
                    id: peer.peerID.description, shortID: peer.peerID.shortDescription, address: peer.address,
                    session: .down, lastSeen: peer.lastSeen.secondsSince1970,
                    trust: await trust(peer.peerID, trusted: trusted)))
        }
        var statics: [StaticPeerInfo] = []
        for peer in configuration.staticPeers {
            // The ledger's pin is written just after the session comes up; until then the session manager's is the
            // one it enforces.
            var pinned: PeerID? = nil
            if peer.peerID == nil {
                pinned = directory.pins[peer.address]
                if pinned == nil { pinned = await sessions.pinnedPeerID(forKey: peer.dialKey) }
            }
            statics.append(
                StaticPeerInfo(
                    address: peer.address, peerID: (peer.peerID ?? pinned)?.description,
                    pin: peer.peerID != nil ? .configured : pinned != nil ? .firstSeen : StaticPin.none,
                    refusedID: sessions.refusedPeerID(forKey: peer.dialKey)?.description))
        }
        return PeerList(peers: rows, static: statics)
    }

    /// The keepalive intervals a peer silent for `silence` has let pass unanswered: a ping goes out every
    /// `interval` and a live peer's pong comes back within moments (2 s allowed for a slow link).
    static func missedKeepalives(silence: Duration, interval: Duration) -> Int64 {
        guard interval > .zero, silence > interval + .seconds(2) else { return 0 }
        return Int64((silence - .seconds(2)) / interval)
    }

    /// `trust` of a peer in `peers` and `pair`: paired or unverified, and the pairing in progress if any.
    private func trust(_ peer: PeerID, trusted: [PeerID: TrustedPeerRecord]) async -> TrustInfo {
        let status = await engine.pairingStatus(of: peer)
        return TrustInfo(
            state: trusted[peer] != nil ? .paired : .unverified, pairedAt: trusted[peer]?.pairedAt.secondsSince1970,
            pairing: status.phase, code: status.code?.digits, until: status.until?.secondsSince1970,
            failures: Int64(status.failures))
    }

    /// `pair {peer, code?}`: without a code, starts an attempt (or joins the one in progress) and returns the
    /// verification code once both sides have it, or `waiting` while the peer's user has not started (`me` gives
    /// the short ID that user must name); with a code, confirms it and trusts the peer.
    func pair(_ params: PairParams) async throws -> PairingInfo {
        let peerText = try required(params.peer, "peer")
        if let codeText = params.code {
            guard let code = PairingCode(userInput: codeText) else {
                throw RPCError(
                    code: .invalidParams, message: "a verification code is 6 digits, e.g. 123456",
                    reason: .pairingCodeFormat)
            }
            let peer = try await resolvePeer(peerText, requireSession: false)
            let record = try await engine.confirmPairing(code, with: peer)
            return PairingInfo(
                peer: PeerIdentity(name: record.name, id: peer.description, shortID: peer.shortDescription),
                trust: await trust(peer, trusted: [peer: record]), me: nil)
        }
        let peer = try await resolvePeer(peerText)
        _ = try await engine.startPairing(with: peer)
        let directory = try await database.peerDirectory()
        let names = PeerName.all(
            peers: directory.peers, sessions: await sessions.currentSessions(), trusted: directory.trusted)
        return PairingInfo(
            peer: PeerIdentity(
                name: names[peer]?.shown ?? peer.shortDescription, id: peer.description,
                shortID: peer.shortDescription),
            trust: await trust(peer, trusted: directory.trusted),
            me: PairingInfo.Me(shortID: sessions.identity.peerID.shortDescription))
    }

    /// `untrust {peer}`: forgets a pairing, and the key pinned for it at any static peer address (so that the next
    /// key seen there is pinned instead: a static peer whose key really changed).
    func untrust(_ params: PeerParams) async throws -> UntrustInfo {
        let peer = try await resolvePeer(try required(params.peer, "peer"), requireSession: false)
        let unpaired = try await engine.untrust(peer)
        let addresses = try await database.unpinStatic(peer)
        for static_ in configuration.staticPeers where addresses.contains(static_.address) {
            await sessions.resetPin(forKey: static_.dialKey, expectedPeerID: static_.peerID)
        }
        guard unpaired || !addresses.isEmpty else {
            throw RPCError.notFound("\(peer.shortDescription) is neither paired nor pinned at a static address")
        }
        return UntrustInfo(
            id: peer.description, shortID: peer.shortDescription, untrusted: unpaired, unpinned: addresses)
    }

    /// `rename {peer, name}`: the name a paired peer is shown under here, whatever it announces.
    func rename(_ params: RenameParams) async throws -> PeerIdentity {
        let peer = try await resolvePeer(try required(params.peer, "peer"), requireSession: false)
        let name = try required(params.name, "name")
        if let problem = DisplayName.problem(with: name) {
            throw RPCError(
                code: .invalidParams, message: problem, reason: .textRefused,
                values: ["field": "name", "max": String(Limits.maxNameLength)])
        }
        guard try await database.renameTrustedPeer(peer, to: name) else {
            throw RPCError.notFound(
                "\(peer.shortDescription) is not paired: only a paired peer's name is kept (interpay pair)")
        }
        return PeerIdentity(name: name, id: peer.description, shortID: peer.shortDescription)
    }

    /// How long `send` waits for the payer's daemon to acknowledge the request before answering it queued.
    static let sendAcknowledgementWait = Duration.seconds(2)

    func send(_ params: SendParams) async throws -> PaymentInfo {
        let peerText = try required(params.peer, "peer")
        let amount = try money(params.amount, params.currency, params.decimalSeparator)
        let key = params.idempotencyKey
        // With a key the session is checked after the key: a retry finds its payment even before the session is up.
        let payer = try await resolvePeer(peerText, requireSession: key == nil)
        let expires = params.expiresInSeconds ?? 900
        guard (1...(30 * 86_400)).contains(expires) else {
            throw RPCError(
                code: .invalidParams, message: "expiresInSeconds must be from 1 to 2592000", reason: .expiryRange)
        }
        if let key, !SendKeyRecord.isValid(key) {
            throw RPCError.invalidParams(
                "an idempotency key has 1 to \(SendKeyRecord.maxKeyLength) characters from A-Z a-z 0-9 - _ . : ~")
        }
        // Up to 2 s for the payer's daemon to acknowledge: a session that looks up but went dead (its keepalives
        // not yet missed) is told to the user as a queued request instead of a silent success.
        let (view, delivered) = try await engine.requestReportingDelivery(
            from: payer, amount: amount, memo: params.memo ?? "", category: params.category,
            expiresIn: expires, idempotencyKey: key, wait: Self.sendAcknowledgementWait)
        var payment = await info(view)
        payment.queued = delivered.map { !$0 }
        return payment
    }

    /// `accept`, `reject`, `cancel`. A decision that lost to the peer's crossing one (the payee's cancel reached
    /// the payee's ledger first, say) is a conflict naming the outcome, whichever side learned of it first: the same
    /// outcome always gives the same answer (exit 5).
    func accept(_ params: PaymentParams) async throws -> PaymentInfo { try await decide(.accept, params) }

    func reject(_ params: PaymentParams) async throws -> PaymentInfo {
        try await decide(.reject(reason: try reason(params)), params)
    }

    func cancel(_ params: PaymentParams) async throws -> PaymentInfo { try await decide(.cancel, params) }

    private func decide(_ decision: PaymentEngine.Decision, _ params: PaymentParams) async throws -> PaymentInfo {
        let record = try await resolvePayment(params)
        let decided = try await engine.decide(decision, paymentID: record.id)
        let wanted: PaymentState =
            switch decision {
            case .accept: .accepted
            case .reject: .rejected
            case .cancel: .cancelled
            }
        if decided.confirmed, decided.state != wanted, let reason = decided.state.conflictReason {
            throw EngineError.conflict(reason, state: decided.state)
        }
        return try await info(decided)
    }

    /// `paid {payment, method?, reference?}`: the payer marks an accepted payment paid and waits (bounded) for the
    /// payee's answer.
    func paid(_ params: PaymentParams) async throws -> PaymentInfo {
        let record = try await resolvePayment(params)
        let updated = try await engine.markPaid(
            paymentID: record.id, method: params.method, reference: params.reference)
        return try await info(updated)
    }

    /// `received {payment}`: the payee confirms the money arrived; the payment is settled and the receipt signed.
    func received(_ params: PaymentParams) async throws -> PaymentInfo {
        let record = try await resolvePayment(params)
        return try await info(try await engine.settle(paymentID: record.id))
    }

    /// `refund {payment, amount?, memo?}`: the payee gives back all that is left of a payment, or `amount` of it
    /// (PROTOCOL.md §8.7); the answer is the refund, a payment of its own.
    func refund(_ params: RefundParams) async throws -> PaymentInfo {
        let record = try await resolvePayment(PaymentParams(payment: params.payment))
        return try await info(
            try await engine.refund(
                paymentID: record.id, amount: params.amount, decimalSeparator: params.decimalSeparator ?? .point,
                memo: params.memo ?? ""))
    }

    /// `receipt {payment}`: the stored receipt's canonical text and its one-line summary; `not-found` naming why
    /// when there is none.
    func receipt(_ params: PaymentParams) async throws -> ReceiptInfo {
        let record = try await resolvePayment(params)
        guard let text = record.receipt else {
            let why: String
            switch record.state {
            case .settled:
                // A receipt comes from the peer to the payer of a payment, and to the payee of a refund (the refunded
                // payment's payee signs it).
                let received = (record.role == .payer) == (record.refundOf == nil)
                let refusal =
                    received
                    ? Self.receiptRefusal(in: try await database.paymentDetail(idPrefix: record.id.wireString).events)
                    : nil
                why =
                    if let refusal {
                        "the payee's receipt was refused: \(refusal)"
                    } else {
                        received
                            ? "the payee's daemon sent none (it may not support receipts)"
                            : "it was settled without one"
                    }
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
            let shortID = String(record.id.wireString.prefix(8))
            throw RPCError(
                code: .notFound, message: "receipt of payment \(shortID) (no receipt is available: \(why)) not found",
                reason: .notFound, values: ["kind": "receipt", "text": shortID])
        }
        // A stored receipt was verified when stored: one that no longer verifies is given without its summary.
        guard let signed = try? SignedReceipt(verifying: text) else {
            return ReceiptInfo(payment: record.id.wireString, receipt: text, summary: nil)
        }
        let receipt = signed.receipt
        let details = ReceiptInfo.Details(
            amount: receipt.amount.formattedAmount, currency: receipt.amount.currency.code,
            minorUnits: receipt.amount.minorUnits,
            payer: PeerIdentity(
                name: receipt.payerName, id: receipt.payerID.description, shortID: receipt.payerID.shortDescription),
            payee: PeerIdentity(
                name: receipt.payeeName, id: receipt.payeeID.description, shortID: receipt.payeeID.shortDescription),
            acceptedAt: receipt.acceptedAt.secondsSince1970, settledAt: receipt.settledAt.secondsSince1970)
        return ReceiptInfo(payment: record.id.wireString, receipt: text, summary: signed.summary, details: details)
    }

    /// `export {from?, to?, state?}`: every payment created in `[from, to)` (times as seconds), oldest first, with
    /// its settlement and quote columns (the CLI writes them as CSV or JSON).
    func export(_ params: ExportParams) async throws -> PaymentList {
        var filter = PaymentFilter()
        filter.state = params.state
        filter.createdFrom = params.from.map(Timestamp.init(secondsSince1970:))
        filter.createdBefore = params.to.map(Timestamp.init(secondsSince1970:))
        let views = try await database.paymentViews(filter: filter).reversed()
        return PaymentList(
            payments: views.map { Self.info($0.record, peerName: peerName($0), converted: nil) }.withUniqueShortIDs(),
            account: configuration.exportAccount)
    }

    /// `backup`: the ledger, the identity and the configuration in one file in the state directory.
    func backup(_ params: BackupParams) async throws -> BackupInfo {
        if let passphrase = params.passphrase, passphrase.count < BackupArchive.minimumPassphraseLength {
            throw RPCError(code: .invalidParams, message: BackupError.weakPassphrase.description)
        }
        do {
            return try await Backup.take(
                database: database, configuration: configuration, peerID: sessions.identity.peerID,
                passphrase: params.passphrase)
        } catch {
            throw RPCError(code: .internalError, message: "cannot take the backup: \(error)")
        }
    }

    /// A reject reason from the control socket: at most `Limits.maxReasonLength` code points, no control character.
    private func reason(_ params: PaymentParams) throws -> String? {
        guard let reason = params.reason else { return nil }
        guard reason.unicodeScalars.count <= Limits.maxReasonLength else {
            throw RPCError(
                code: .invalidParams, message: "a reason has at most \(Limits.maxReasonLength) code points",
                reason: .textRefused, values: ["field": "reason", "max": String(Limits.maxReasonLength)])
        }
        if let scalar = SafeText.forbiddenScalar(in: reason) {
            throw RPCError(
                code: .invalidParams, message: "the reason holds the control character \(SafeText.describe(scalar))",
                reason: .textRefused, values: ["field": "reason", "max": String(Limits.maxReasonLength)])
        }
        return reason
    }

    func list(_ params: ListParams) async throws -> PaymentList {
        var filter = PaymentFilter()
        filter.state = params.state
        filter.role = params.direction?.role
        if let peer = params.peer { filter.peerID = try await resolvePeer(peer, requireSession: false) }
        filter.limit = Int(max(0, min(params.limit ?? 200, 100_000)))
        return try await paymentList(try await database.paymentViews(filter: filter))
    }

    /// Payments from one read of the ledger: their peers' names come with them, and the amounts in the preferred
    /// currency from one look-up of the rates for all of them.
    private func paymentList(_ views: [PaymentView]) async throws -> PaymentList {
        let convert = await conversions.quoter()
        // A stored amount was checked when stored; one that no longer reads is listed without a conversion.
        return PaymentList(
            payments: views.map { view in
                Self.info(view, peerName: peerName(view), converted: (try? view.record.amount).flatMap(convert))
            }.withUniqueShortIDs())
    }

    /// The name a listed payment's peer is shown under: the live session's name first, as `PeerName.all` does.
    func peerName(_ view: PaymentView) -> PeerName {
        let announced = sessions.session(with: view.record.peerID)?.name ?? view.announcedName
        return PeerName(announcedName: announced, pinned: view.pinnedName, pairedName: view.pairedName)
    }

    func show(_ params: PaymentParams) async throws -> PaymentDetailInfo {
        let text = try required(params.payment, "payment")
        let detail = try await database.paymentDetail(idPrefix: text)
        let view = try Self.only(text, in: detail.matches.map { ($0.record, peerName($0)) }).flatMap { _ in
            detail.matches.first
        }
        guard let view else { throw EngineError.notFound(kind: "payment", text: SafeText.escaped(text)) }
        // As in `paymentList`: an amount that does not read is shown without a conversion.
        let converted = (try? view.record.amount).flatMap(await conversions.quoter())
        return PaymentDetailInfo(
            payment: Self.info(view, peerName: peerName(view), converted: converted),
            events: detail.events.map { event in
                PaymentEventInfo(
                    at: event.at.secondsSince1970, from: event.fromState?.rawValue, to: event.toState.rawValue,
                    cause: event.cause.rawValue, detail: event.detail)
            },
            receiptRefused: view.record.receipt == nil ? Self.receiptRefusal(in: detail.events) : nil)
    }

    /// Why a payee's receipt was refused, from the event that recorded it (`PaymentEngine.receiveSettle`); nil when
    /// none was.
    static func receiptRefusal(in events: [PaymentEventRecord]) -> String? {
        let prefix = PaymentEngine.receiptRefusedPrefix
        return events.last { $0.detail?.hasPrefix(prefix) == true }?.detail.map { String($0.dropFirst(prefix.count)) }
    }

    func history(_ params: ListParams) async throws -> PaymentList {
        let limit = Int(max(0, min(params.limit ?? 50, 100_000)))
        return try await paymentList(
            try await database.paymentViews(filter: PaymentFilter(limit: limit, finalOnly: true)))
    }

    func stats(_ params: StatsParams) async throws -> StatsInfo {
        let grouping: StatsGrouping =
            switch params.by ?? .currency {
            case .category: .category
            case .peer: .peer
            case .currency: .currency
            }
        let now = Timestamp.now
        let since: Timestamp? =
            switch params.period ?? .month {
            case .day: now.adding(seconds: -86_400)
            case .week: now.adding(seconds: -7 * 86_400)
            case .month: now.adding(seconds: -30 * 86_400)
            case .all: nil
            }
        let rows = try await database.stats(since: since, groupBy: grouping)
        return StatsInfo(
            rows: rows.map { row in
                let currency = try? CurrencyCode(row.currency)  // a stored currency was checked when stored
                let format = { (minor: Int64) -> String in
                    currency.map { Money(minorUnits: minor, currency: $0).formattedAmount } ?? String(minor)
                }
                var group = row.groupKey
                // A stored peer ID was checked when stored; a key that no longer reads is shown as it is.
                if grouping == .peer, let key = row.groupKey, let id = try? PeerID(parsing: key) {
                    let announced = sessions.session(with: id)?.name ?? row.announcedName
                    // Named as every surface names a peer (`PeerLabel`): two peers announcing one name stay apart.
                    group = PeerLabel.text(
                        PeerName(announcedName: announced, pinned: row.pinnedName, pairedName: row.pairedName), id)
                }
                return StatsInfo.Row(
                    group: group, direction: PaymentDirection(row.role), currency: row.currency,
                    count: Int64(row.count), total: format(row.totalMinor), average: format(row.averageMinor),
                    totalMinor: row.totalMinor, averageMinor: row.averageMinor, settledCount: Int64(row.settledCount),
                    settledTotal: format(row.settledMinor), settledMinor: row.settledMinor)
            })
    }

    /// `convert {amount, from, to}`: the amount converted with the current (or last known) rates.
    func convert(_ params: ConvertParams) async throws -> ConvertedAmount {
        let from = try currencyCode(required(params.from, "from"))
        let to = try currencyCode(required(params.to, "to"))
        let amount: Money
        do {
            amount = try Money(
                parsing: try required(params.amount, "amount"), currency: from,
                decimalSeparator: params.decimalSeparator ?? .point)
        } catch let error as MoneyError {
            throw RPCError.amount(error)
        }
        var converted = Conversions.info(
            try await conversions.rates.convert(amount, to: to, base: conversions.base, now: .now))
        converted.from = MoneyAmount(amount: amount.formattedAmount, currency: from.code)
        return converted
    }

    /// `rates {base?}`: where the rates come from, how old they are, and whether they are stale.
    func rates(_ params: RatesParams) async throws -> RatesInfo {
        let base = try params.base.map(currencyCode) ?? conversions.base
        let now = Timestamp.now
        let current = try await conversions.rates.rates(base: base, now: now)
        let snapshot = current.snapshot
        return RatesInfo(
            base: snapshot.base.code, source: snapshot.source, updatedAt: snapshot.lastUpdate.secondsSince1970,
            nextUpdateAt: snapshot.nextUpdate.secondsSince1970, fetchedAt: snapshot.fetchedAt.secondsSince1970,
            ageSeconds: current.age, stale: current.isStale, staleReason: current.staleReason?.description,
            rates: snapshot.rates.mapValues(\.description))
    }

    /// `currency {currency?, clear?}`: the preferred currency, and where it comes from (`configuration`, `user` or
    /// `none`); with `currency`, the user's choice, kept in the ledger across restarts; with `clear: true`, back to the
    /// configuration's (`rates.currency`).
    func currency(_ params: CurrencyParams) async throws -> PreferredCurrencyInfo {
        if let text = params.currency {
            let chosen = try currencyCode(text)
            try await database.setPreference(.preferredCurrency, to: chosen.code)
            conversions.preference.set(chosen)
        } else if params.clear == true {
            try await database.setPreference(.preferredCurrency, to: nil)
            conversions.preference.clear()
        }
        return PreferredCurrencyInfo(
            currency: conversions.preferred?.code, source: conversions.preference.source.rawValue)
    }

    private func currencyCode(_ text: String) throws -> CurrencyCode {
        do { return try CurrencyCode(userInput: text) } catch { throw RPCError.amount(error) }
    }

    /// A required string param: empty counts as missing.
    func required(_ value: String, _ key: String) throws(RPCError) -> String {
        guard !value.isEmpty else { throw RPCError.missing(key) }
        return value
    }

    /// The `amount` and `currency` params as money, read as a writer with `separator` writes decimals; either
    /// missing or not valid is invalid params.
    func money(_ amount: String, _ currency: String, _ separator: DecimalSeparator?) throws(RPCError) -> Money {
        let amount = try required(amount, "amount")
        let currency = try required(currency, "currency")
        do {
            return try Money(parsing: amount, currencyCode: currency, decimalSeparator: separator ?? .point)
        } catch {
            throw RPCError.amount(error)
        }
    }

    // MARK: Resolution and JSON

    /// The peer `text` names (`PeerResolver`: an ID or ID prefix by ID only, a name only when one known peer has
    /// it); with `requireSession`, a known peer without a session is `peerUnreachable`.
    func resolvePeer(_ text: String, requireSession: Bool = true) async throws -> PeerID {
        // A whole peer ID with a session names that peer without reading every peer's name: what the web app and
        // other programs send (a known peer by definition; the rules below would find it too).
        if let peer = try? PeerID(parsing: text), sessions.session(with: peer) != nil { return peer }
        let names = try await peerNames()
        let candidates = names.map { PeerResolver.Candidate(id: $0.key, name: $0.value.shown, paired: $0.value.paired) }
        switch PeerResolver.resolve(text, among: candidates) {
        case .found(let peer):
            if requireSession, !(await sessions.currentSessions().contains { $0.peerID == peer }) {
                throw EngineError.peerUnreachable(peer)
            }
            return peer
        case .ambiguous(let candidates):
            throw EngineError.ambiguous(SafeText.escaped(text), candidates: candidates)
        case .notFound:
            throw EngineError.notFound(kind: "peer", text: SafeText.escaped(text))
        }
    }

    /// The payment `params` name: its ID, or the start or the end of it (`RecordShortID`), at least 4 characters.
    private func resolvePayment(_ params: PaymentParams) async throws -> PaymentRecord {
        let text = try required(params.payment, "payment")
        let matches = try await database.payments(idPrefix: text)
        let names = matches.count > 1 ? try await peerNames() : [:]
        guard let match = try Self.only(text, in: matches.map { ($0, names[$0.peerID]) }) else {
            throw EngineError.notFound(kind: "payment", text: SafeText.escaped(text))
        }
        return match
    }

    /// The one payment `text` names among `matches`; ambiguous when there are several, each candidate listed as
    /// lists show it (its short ID unique among them, the peer as `PeerLabel` names it, the amount and the
    /// state); nil when none.
    private static func only(
        _ text: String, in matches: [(record: PaymentRecord, peerName: PeerName?)]
    ) throws(EngineError) -> PaymentRecord? {
        if matches.count > 1 {
            let shown = RecordShortID.unique(matches.map(\.record.id.wireString))
            throw .ambiguous(
                SafeText.escaped(text),
                candidates: zip(shown, matches).map { short, match in
                    let record = match.record
                    let direction = record.role == .payee ? "to" : "from"
                    let amount = (try? record.amount.formattedAmount) ?? String(record.amountMinor)
                    return "\(short)  \(direction) \(PeerLabel.text(match.peerName, record.peerID))  "
                        + "\(amount) \(SafeText.escaped(record.currency))  \(record.state.rawValue)"
                })
        }
        return matches.first?.record
    }

    func peerNames() async throws -> [PeerID: PeerName] {
        try await PeerName.all(database: database, sessions: sessions)
    }

    /// A payment as the control methods answer it, with the amount in the preferred currency when it differs.
    func info(_ record: PaymentRecord) async throws -> PaymentInfo {
        await info(try await database.paymentView(record))
    }

    /// A payment with its peer's names as the control methods answer it (`info(_:)` without the read).
    func info(_ view: PaymentView) async -> PaymentInfo {
        // An unreadable amount has nothing to convert.
        let converted = try? await conversions.quote(view.record.amount)
        return Self.info(view.record, peerName: peerName(view), converted: converted ?? nil)
    }

    /// A payment as the control methods answer it: `peer.name` is the name it is shown under (pinned at pairing for
    /// a paired peer), `peer.announcedName` what a paired peer announces when that differs, `peer.trust` `paired` or
    /// `unverified`; `converted` the amount in the preferred currency now, `quote` the one stored when it was
    /// accepted.
    static func info(_ record: PaymentRecord, peerName: PeerName?, converted: Quote?) -> PaymentInfo {
        PaymentInfo(
            id: record.id.wireString, shortID: RecordShortID.tail(of: record.id.wireString),
            direction: PaymentDirection(record.role),
            peer: peer(record.peerID, peerName),
            // An amount the ledger cannot read (an unknown currency) is shown in minor units.
            amount: (try? record.amount.formattedAmount) ?? String(record.amountMinor), currency: record.currency,
            minorUnits: record.amountMinor, memo: record.memo, category: record.category,
            state: record.state, confirmed: record.confirmed, reason: record.reason,
            reasonCode: record.reasonCode?.rawValue, converted: converted.map(Conversions.info),
            quote: Conversions.storedQuote(record), createdAt: record.createdAt.secondsSince1970,
            expiresAt: record.expiresAt.secondsSince1970, updatedAt: record.updatedAt.secondsSince1970,
            acceptedAt: record.acceptedAt?.secondsSince1970, paidAt: record.paidAt?.secondsSince1970,
            settledAt: record.settledAt?.secondsSince1970, method: record.paidMethod?.rawValue,
            reference: record.paidReference, receipt: record.receipt != nil,
            series: record.seriesID.map {
                PaymentSeriesLink(id: $0.wireString, period: Int64(record.seriesIndex ?? 0))
            },
            refundOf: record.refundOf?.wireString,
            bill: record.billID.map { id in
                PaymentBillLink(id: id.wireString, payers: Int64(record.billPayers ?? 0))
            })
    }
}

extension ControlMethods {
    /// A listed or shown payment: `info(_:peerName:converted:)` with what its refunds leave (`RefundRules`, the
    /// rules the refund command checks): how much was refunded, and what may still be.
    static func info(_ view: PaymentView, peerName: PeerName?, converted: Quote?) -> PaymentInfo {
        var info = info(view.record, peerName: peerName, converted: converted)
        guard let amount = try? view.record.amount, view.record.refundOf == nil else { return info }
        let original = RefundRules.Original(
            role: view.record.role, state: view.record.state, amount: amount, refundedMinor: view.refunds.minor,
            refunds: view.refunds.count)
        if view.refunds.count > 0 {
            info.refunded = Money(minorUnits: view.refunds.minor, currency: amount.currency).formattedAmount
        }
        if RefundRules.give(Money(minorUnits: 1, currency: amount.currency), of: original) == nil {
            info.refundable = original.left.formattedAmount
        }
        return info
    }

    /// A payment's or a series' peer as the contract shows it: its IDs, the name it is shown under, what it
    /// announces when that differs, and whether it is paired (the one place a peer's view is made).
    static func peer(_ id: PeerID, _ name: PeerName?) -> PaymentPeer {
        PaymentPeer(
            id: id.description, shortID: id.shortDescription, name: name?.shown, announcedName: name?.announced,
            trust: name?.paired == true ? .paired : .unverified)
    }
}

extension EngineError {
    /// The JSON-RPC error the CLI maps to its exit code.
    var rpcError: RPCError {
        switch self {
        case .notFound(let kind, let text):
            RPCError(code: .notFound, message: description, reason: .notFound, values: ["kind": kind, "text": text])
        case .ambiguous(let text, let candidates):
            RPCError(
                code: .notFound, message: description, reason: .ambiguous, values: ["text": text],
                extra: ["candidates": .array(candidates.map(JSONValue.string))])
        case .conflict(let reason, let state):
            RPCError(
                code: .conflict, message: description, reason: .conflict,
                values: ["reasonCode": reason.rawValue, "state": (state ?? reason.state).rawValue])
        case .notPermitted: RPCError(code: .forbidden, message: description, reason: .notPermitted)
        case .peerUnreachable(let peer):
            RPCError(
                code: .peerUnreachable, message: description, reason: .peerUnreachable,
                values: ["peer": peer.shortDescription])
        case .invalid: RPCError(code: .invalidParams, message: description, reason: .invalid)
        case .storage: RPCError(code: .internalError, message: description, reason: .internalError)
        case .alreadySettling: RPCError(code: .conflict, message: description, reason: .alreadySettled)
        case .keyReused: RPCError(code: .conflict, message: description, reason: .keyReused)
        case .unpairedOffer(let peer):
            RPCError(
                code: .forbidden, message: description, reason: .seriesUnpaired,
                values: ["peer": peer.shortDescription])
        case .seriesAmount(let field, let currency):
            RPCError(
                code: .invalidParams, message: description, reason: .seriesAmount,
                values: ["field": field, "currency": currency.code])
        case .textRefused(let field, let max):
            RPCError(
                code: .invalidParams, message: description, reason: .textRefused,
                values: ["field": field, "max": String(max)])
        }
    }
}
