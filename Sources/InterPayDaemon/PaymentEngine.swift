import Foundation
import InterPayCore
import InterPayRates
import InterPayStore
import InterPayTransport
import Logging

/// Runs every payment's lifecycle against the ledger and the sessions.
///
/// The rules of `protocol/PROTOCOL.md` §9 live here: a state change, its event and its outbound frame are committed
/// in one transaction before the frame is sent; an incoming frame's effects and our answer to it are committed
/// before the answer is sent; unacknowledged frames are resent in order whenever a session with the peer comes up;
/// a duplicate frame gets the stored answer again and changes nothing.
///
/// Every ledger step (load a payment, run its lifecycle, commit, send) waits for its turn in the `StepQueue`: the
/// actor alone is not enough, since it is reentrant at each database await, and two steps on one payment (a local
/// cancel and an incoming accept, two local decisions) could otherwise interleave and the later write win. Steps on
/// different payments run at once, so that their commits share a disk flush (`AppDatabase.apply` commits what
/// arrives together in one transaction); session-up, expiry and `error` frames run alone. Incoming frames are
/// admitted in arrival order (`admit`) and may then run concurrently (`receive(_:from:ticket:)`).
actor PaymentEngine {
    private let database: AppDatabase
    private let sessions: SessionManager
    private let me: PeerID
    private let logger: Logger
    private let codec = FrameCodec()
    private let eventContinuation: AsyncStream<EngineEvent>.Continuation
    /// Engine events for watchers.
    nonisolated let events: AsyncStream<EngineEvent>

    /// Quotes stored when a payment is accepted; nil to store none.
    private let conversions: Conversions?
    /// Whose requests are taken (`accept_from`).
    private let acceptFrom: AcceptPolicy
    /// Which ledger steps run and which wait (see the type's documentation).
    private var steps = StepQueue()
    /// Steps admitted before they started waiting, and steps waiting for admission.
    private var admittedSteps: Set<StepQueue.Ticket> = []
    private var stepWaiters: [StepQueue.Ticket: CheckedContinuation<Void, Never>] = [:]
    /// Per-peer limits on incoming requests (pending at once, per minute).
    private var requestLimiter: RequestLimiter
    /// Per peer, the session on which its whole outbox was last sent (PROTOCOL.md §9.3). Frames sent on an earlier
    /// session may have been lost with it, so on a new one they all go out again, in order, before any new frame:
    /// at its `up` event, or at the first `transmit` if that comes earlier (the session manager routes frames to a
    /// new session before this actor has handled its `up` event).
    private var flushedSessions: [PeerID: SessionInfo] = [:]
    /// Peers whose outbox is being resent in full right now, with the transmits waiting for it to finish: steps on
    /// different payments run at once, and none may send a frame ahead of the frames the flush resends.
    private var flushing: [PeerID: [CheckedContinuation<Void, Never>]] = [:]

    init(
        database: AppDatabase, sessions: SessionManager, conversions: Conversions? = nil,
        acceptFrom: AcceptPolicy = .any, requestLimits: RequestLimiter.Limits = .init(), logger: Logger
    ) {
        self.requestLimiter = RequestLimiter(limits: requestLimits)
        self.database = database
        self.sessions = sessions
        self.conversions = conversions
        self.acceptFrom = acceptFrom
        self.me = sessions.identity.peerID
        self.logger = logger
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1_024))
    }

    // MARK: Local commands

    /// Creates a payment request asking `payer` to pay `amount`, commits it, and sends it.
    ///
    /// With an `idempotencyKey`, a second `request` with the same key within 24 hours returns the payment the first
    /// one created (whatever became of it), and the same key with other parameters is a conflict: a client that
    /// lost its connection after the daemon committed can retry without paying twice. The key is committed in the
    /// payment's own transaction.
    func request(
        from payer: PeerID, amount: Money, memo: String, category: String?, expiresIn seconds: Int64,
        idempotencyKey: String? = nil, now: Timestamp = .now
    ) async throws(EngineError) -> PaymentRecord {
        let fingerprint = Self.fingerprint(
            payer: payer, amount: amount, memo: memo, category: category, expiresIn: seconds)
        if let idempotencyKey, let original = try await sentBefore(idempotencyKey, fingerprint: fingerprint, now: now) {
            return original
        }
        let paymentID = UUID()
        let ticket = await beginStep(.payment(paymentID))
        defer { endStep(ticket) }
        guard await sessions.currentSessions().contains(where: { $0.peerID == payer }) else {
            throw .peerUnreachable(payer.shortDescription)
        }
        let payment: PaymentRequest
        do {
            payment = try PaymentRequest(
                id: paymentID, payee: me, payer: payer, amount: amount, memo: memo, category: category, createdAt: now,
                expiresAt: now.adding(seconds: seconds))
        } catch {
            throw .invalid(error.description)
        }
        let messageID = UUID()
        let (lifecycle, actions) = PaymentLifecycle.newRequest(payment, messageID: messageID)
        let record = PaymentRecord(request: payment, lifecycle: lifecycle, now: now)
        var change = LedgerChange(
            payment: record,
            events: [
                .init(paymentID: payment.id, at: now, from: nil, to: .pending, cause: .created, messageID: messageID)
            ])
        let outgoing = try outboxRecords(for: actions, payment: record, now: now, sending: true)
        change.outbox = outgoing
        change.sendKey = idempotencyKey.map {
            SendKeyRecord(key: $0, paymentID: paymentID, fingerprint: fingerprint, createdAt: now)
        }
        do {
            try await commit(change)
        } catch {
            // Two sends with one key at once: the other committed first, and this one is that one's retry.
            if let idempotencyKey,
                let original = try await sentBefore(idempotencyKey, fingerprint: fingerprint, now: now)
            {
                return original
            }
            throw error
        }
        await transmit(outgoing, to: payer, now: now)
        logger.info(
            "request sent",
            metadata: [
                "payment": "\(payment.id.wireString)", "payer": "\(payer.shortDescription)", "amount": "\(amount)",
            ])
        return record
    }

    /// The payment an earlier `request` with `key` created, if the key was used in the last 24 hours; a conflict if
    /// that request asked for something else.
    private func sentBefore(
        _ key: String, fingerprint: String, now: Timestamp
    ) async throws(EngineError) -> PaymentRecord? {
        let stored: SendKeyRecord?
        do { stored = try await database.sendKey(key, now: now) } catch { throw .storage(error.description) }
        guard let stored else { return nil }
        guard stored.fingerprint == fingerprint else { throw .keyReused(key) }
        return try await load(stored.paymentID)
    }

    /// What a `request` asks for, as text to compare: payer, amount, memo, category and lifetime.
    static func fingerprint(
        payer: PeerID, amount: Money, memo: String, category: String?, expiresIn seconds: Int64
    ) -> String {
        let parts = [
            payer.description, amount.currency.code, String(amount.minorUnits), String(seconds), memo, category ?? "",
            category == nil ? "0" : "1",
        ]
        // Lengths first, so that no two different lists of parts give the same text.
        return parts.map { "\($0.utf8.count):\($0)" }.joined(separator: ";")
    }

    /// What the local user can decide.
    enum Decision: Sendable {
        case accept
        case reject(reason: String?)
        case cancel
    }

    /// Applies the local user's decision, commits it, sends the frame, and (for a payer) waits up to `wait` for the
    /// payee's authoritative answer.
    func decide(
        _ decision: Decision, paymentID: UUID, wait: Duration = .seconds(5), now: Timestamp = .now
    )
        async throws(EngineError) -> PaymentRecord
    {
        var record = try await decideStep(decision, paymentID: paymentID, now: now)
        // The payer's decision is tentative until the payee answers; wait for it, bounded. The answer is processed
        // by this actor while it waits (reentrancy), so checking the ledger is enough.
        let deadline = ContinuousClock.now + wait
        while !record.confirmed, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
            record = try await load(paymentID) ?? record
        }
        return record
    }

    /// The reason given when `accept_from = paired` rejects a request from a peer that is not paired.
    static let notPairedReason = "not paired: this peer takes requests from paired peers only"

    /// The ledger step of `decide`, under the step lock.
    private func decideStep(
        _ decision: Decision, paymentID: UUID, now: Timestamp
    )
        async throws(EngineError) -> PaymentRecord
    {
        let ticket = await beginStep(.payment(paymentID))
        defer { endStep(ticket) }
        return try await applyDecision(decision, paymentID: paymentID, now: now)
    }

    /// Applies a local decision, commits it, and sends its frame; the caller holds the step lock.
    private func applyDecision(
        _ decision: Decision, paymentID: UUID, now: Timestamp
    )
        async throws(EngineError) -> PaymentRecord
    {
        guard var record = try await load(paymentID) else { throw .notFound("payment \(paymentID.wireString)") }
        let quote = if case .accept = decision { await acceptanceQuote(record) } else { Quote?.none }
        var lifecycle = record.lifecycle
        let messageID = UUID()
        let event: PaymentLifecycle.Event =
            switch decision {
            case .accept: .localAccept(messageID: messageID)
            case .reject(let reason): .localReject(messageID: messageID, reason: reason)
            case .cancel: .localCancel(messageID: messageID)
            }
        let actions = lifecycle.handle(event, now: now)
        var change = LedgerChange()
        change.events = transitionEvents(actions, paymentID: paymentID, now: now, cause: .local, messageID: messageID)
        if case .reject(let reason) = decision, change.events.contains(where: { $0.toState == .rejected }) {
            record.reason = reason
        }
        if !change.events.isEmpty {
            record.update(from: lifecycle, now: now)
            if record.state == .accepted { record.storeAcceptanceQuote(quote) }
            change.payment = record
        }
        let connected = await sessions.currentSessions().contains { $0.peerID == record.peerID }
        let outgoing = try outboxRecords(for: actions, payment: record, now: now, sending: connected)
        change.outbox = outgoing
        if !change.isEmpty { try await commit(change) }
        if !change.events.isEmpty { publish(record) }
        for action in actions {
            if case .refuse(let refusal) = action {
                switch refusal {
                case .conflict(let reason): throw .conflict(reason)
                case .wrongRole: throw .notPermitted(refusal.description)
                }
            }
        }
        await transmit(outgoing, to: record.peerID, now: now)
        return record
    }

    // MARK: Frames from peers

    /// Handles one frame from `peer` (everything but the transport's own frames), after the frames admitted before
    /// it on the same payment.
    func receive(_ message: PaymentMessage, from peer: PeerID, now: Timestamp = .now) async {
        await receive(message, from: peer, ticket: admit(message), now: now)
    }

    /// Takes a frame's place in line: frames on one payment are processed in the order they were admitted, so the
    /// session's reader admits each frame as it arrives and may then run `receive(_:from:ticket:)` concurrently.
    func admit(_ message: PaymentMessage) -> StepQueue.Ticket {
        let scope: StepQueue.Scope =
            switch message {
            case .error: .everything  // it may end the retransmission of any frame
            default: message.paymentID.map(StepQueue.Scope.payment) ?? .everything
            }
        return enqueueStep(scope)
    }

    /// Handles one admitted frame from `peer` when its turn comes.
    func receive(
        _ message: PaymentMessage, from peer: PeerID, ticket: StepQueue.Ticket, now: Timestamp = .now
    ) async {
        await waitForTurn(ticket)
        defer { endStep(ticket) }
        do {
            switch message {
            case .request(let request):
                try await receiveRequest(request, from: peer, now: now)
            case .accept(let decision):
                try await receiveDecision(
                    .peerAccept(messageID: decision.messageID), messageID: decision.messageID,
                    paymentID: decision.paymentID, from: peer, now: now)
            case .reject(let rejection):
                try await receiveDecision(
                    .peerReject(messageID: rejection.messageID, reason: rejection.reason),
                    messageID: rejection.messageID, paymentID: rejection.paymentID, from: peer, now: now,
                    reason: rejection.reason)
            case .cancel(let decision):
                try await receiveDecision(
                    .peerCancel(messageID: decision.messageID), messageID: decision.messageID,
                    paymentID: decision.paymentID, from: peer, now: now)
            case .ack(let ack):
                try await receiveAck(ack, from: peer, now: now)
            case .error(let error):
                try await receiveError(error, from: peer)
            case .hello, .ping, .pong, .close, .pair:
                break
            }
        } catch {
            logger.error(
                "could not process a frame", metadata: ["peer": "\(peer.shortDescription)", "error": "\(error)"])
            // PROTOCOL.md §9.1: every state-changing frame gets an ack or an error. Nothing was committed, so the
            // peer keeps the frame in its outbox and sends it again later.
            if let messageID = message.messageID {
                await reply(
                    .error(.init(code: .internal, message: "could not process the frame; retry later", ref: messageID)),
                    to: peer)
            }
        }
    }

    private func receiveRequest(
        _ frame: PaymentMessage.Request, from peer: PeerID, now: Timestamp
    )
        async throws(EngineError)
    {
        if try await answerDuplicate(frame.messageID, from: peer) { return }
        let payment = frame.payment
        guard payment.payee == peer, payment.payer == me else {
            await reply(
                .error(.init(code: .notAuthorized, message: "request not between you and me", ref: frame.messageID)),
                to: peer)
            return
        }
        if let problem = Self.timeProblem(payment, now: now) {
            await reply(.error(.init(code: .malformedFrame, message: problem, ref: frame.messageID)), to: peer)
            return
        }
        let existing = try await load(payment.id)
        if existing == nil, now >= payment.expiresAt {
            // Expired on arrival (PROTOCOL.md §10): answered `expired` and never stored, so that such requests cost
            // the ledger nothing; the answer depends only on the clock, so a resend gets the same one.
            await reply(
                .ack(
                    .init(
                        ackedID: frame.messageID, paymentID: payment.id, state: .expired,
                        reasonCode: .alreadyExpired)), to: peer)
            return
        }
        guard let admission = try await admitByLimits(frame, from: peer, isNew: existing == nil, now: now) else {
            return
        }
        defer { requestLimiter.settle(peer, unpaired: admission.unpaired) }
        if let existing {
            // Only a payment this peer asked us to pay is answered with its state; an ID in use by any other
            // payment (one of ours to this peer, or anyone else's) gets one and the same refusal.
            guard existing.peerID == peer, existing.role == .payer else {
                await reply(
                    .error(.init(code: .notAuthorized, message: "payment ID not available", ref: frame.messageID)),
                    to: peer)
                return
            }
            // The same payment again under a new message ID: answer with its current state.
            let ack = PaymentMessage.ack(
                .init(
                    ackedID: frame.messageID, paymentID: payment.id, state: existing.state,
                    reasonCode: existing.state.conflictReason))
            try await commit(
                LedgerChange(
                    seenMessage: try seen(frame.messageID, from: peer, payment: payment.id, answer: ack, now: now)))
            await reply(ack, to: peer)
            return
        }
        var (lifecycle, actions) = PaymentLifecycle.receivedRequest(payment, messageID: frame.messageID, now: now)
        var record = PaymentRecord(request: payment, lifecycle: lifecycle, now: now)
        var events = [
            PaymentEventRecord(
                paymentID: payment.id, at: now, from: nil, to: .pending, cause: .received, messageID: frame.messageID)
        ]
        events += transitionEvents(actions, paymentID: payment.id, now: now, cause: .expiry, messageID: nil)
        let answer = answerFrame(actions, paymentID: payment.id)
        var outgoing: [OutboxRecord] = []
        let refused = acceptFrom == .paired && lifecycle.state == .pending ? try await !isPaired(peer) : false
        if refused {
            // accept_from = paired: the request is stored already rejected, in the same transaction as its ack, so
            // that no crash can leave it pending and shown; both ledgers say why, and the user is not asked.
            let rejectID = UUID()
            let rejection = lifecycle.handle(.localReject(messageID: rejectID, reason: Self.notPairedReason), now: now)
            events += transitionEvents(rejection, paymentID: payment.id, now: now, cause: .local, messageID: rejectID)
            record.reason = Self.notPairedReason
            record.update(from: lifecycle, now: now)
            outgoing = try outboxRecords(for: rejection, payment: record, now: now, sending: true)
        }
        var change = LedgerChange(
            payment: record, events: events,
            seenMessage: try answer.map { answer throws(EngineError) in
                try seen(frame.messageID, from: peer, payment: payment.id, answer: answer, now: now)
            })
        change.outbox = outgoing
        try await commit(change)
        if let answer { await reply(answer, to: peer) }
        if refused {
            await transmit(outgoing, to: peer, now: now)
            publish(record)
            logger.notice(
                "request from a peer not paired rejected (accept_from = paired)",
                metadata: ["payment": "\(payment.id.wireString)", "payee": "\(peer.shortDescription)"])
            return
        }
        logger.info(
            "request received",
            metadata: [
                "payment": "\(payment.id.wireString)", "payee": "\(peer.shortDescription)",
                "amount": "\(payment.amount)",
            ])
        eventContinuation.yield(.requestReceived(record))
    }

    /// Why a request's times are out of bounds on our clock (PROTOCOL.md §10), or nil: `createdAt` at most
    /// `Limits.maxClockSkew` ahead of now (a future date would pin the row at the top of every list), and `expiresAt`
    /// at most `Limits.maxRequestLifetime` after `createdAt` and after now (plus the skew).
    static func timeProblem(_ payment: PaymentRequest, now: Timestamp) -> String? {
        let latestCreation = now.adding(seconds: Limits.maxClockSkew)
        if payment.createdAt > latestCreation {
            return "invalid field 'payment.createdAt': more than \(Limits.maxClockSkew) s ahead of the receiver's clock"
        }
        let lifetime = payment.expiresAt.secondsSince1970 - payment.createdAt.secondsSince1970
        if lifetime > Limits.maxRequestLifetime
            || payment.expiresAt > now.adding(seconds: Limits.maxRequestLifetime + Limits.maxClockSkew)
        {
            return "invalid field 'payment.expiresAt': a request lives at most \(Limits.maxRequestLifetime) s"
        }
        return nil
    }

    private func receiveDecision(
        _ event: PaymentLifecycle.Event, messageID: UUID, paymentID: UUID, from peer: PeerID, now: Timestamp,
        reason: String? = nil
    ) async throws(EngineError) {
        if try await answerDuplicate(messageID, from: peer) { return }
        guard var record = try await load(paymentID), record.peerID == peer else {
            await reply(.error(.init(code: .unknownPayment, message: "unknown payment", ref: messageID)), to: peer)
            return
        }
        var lifecycle = record.lifecycle
        let actions = lifecycle.handle(event, now: now)
        let events = transitionEvents(actions, paymentID: paymentID, now: now, cause: .peer, messageID: messageID)
        var change = LedgerChange(events: events)
        if !events.isEmpty || lifecycle != record.lifecycle {
            if let reason, events.contains(where: { $0.toState == .rejected }) { record.reason = reason }
            record.update(from: lifecycle, now: now)
            if record.state == .accepted { record.storeAcceptanceQuote(await acceptanceQuote(record)) }
            change.payment = record
        }
        let answer = answerFrame(actions, paymentID: paymentID)
        if let answer {
            change.seenMessage = try seen(messageID, from: peer, payment: paymentID, answer: answer, now: now)
        }
        try await commit(change)
        if change.payment != nil { publish(record) }
        if let answer { await reply(answer, to: peer) }
    }

    private func receiveAck(
        _ ack: PaymentMessage.Acknowledgement, from peer: PeerID, now: Timestamp
    )
        async throws(EngineError)
    {
        let acked: OutboxRecord?
        do {
            acked = try await database.outboxRecord(messageID: ack.ackedID, peerID: peer)
        } catch {
            throw .storage(error.description)
        }
        guard let acked, acked.paymentID == ack.paymentID else {
            logger.debug("ack for no pending frame", metadata: ["message": "\(ack.ackedID.wireString)"])
            return
        }
        var change = LedgerChange(removeFromOutbox: [ack.ackedID])
        if var record = try await load(ack.paymentID) {
            var lifecycle = record.lifecycle
            let actions = lifecycle.handle(.peerAck(state: ack.state, reasonCode: ack.reasonCode), now: now)
            change.events = transitionEvents(
                actions, paymentID: record.id, now: now, cause: .ack, messageID: ack.ackedID)
            if lifecycle != record.lifecycle {
                record.update(from: lifecycle, now: now)
                if ack.reasonCode != nil { record.reasonCode = ack.reasonCode }
                change.payment = record
            }
            try await commit(change)
            if change.payment != nil { publish(record) }
        } else {
            try await commit(change)
        }
        eventContinuation.yield(.delivered(paymentID: ack.paymentID, messageID: ack.ackedID))
    }

    private func receiveError(_ error: PaymentMessage.ErrorFrame, from peer: PeerID) async throws(EngineError) {
        logger.notice(
            "peer reported an error",
            metadata: ["peer": "\(peer.shortDescription)", "code": "\(error.code)", "message": "\(error.message)"])
        // These errors will not change on a resend: stop retrying the frame they refer to.
        let final: Set<PaymentMessage.ErrorFrame.Code> = [.malformedFrame, .notAuthorized, .unknownPayment]
        guard let ref = error.ref, final.contains(error.code) else { return }
        if try await outbox(for: peer).contains(where: { $0.messageID == ref }) {
            try await commit(LedgerChange(removeFromOutbox: [ref]))
        }
    }

    /// Answers `error` `limit-exceeded` and returns true when a request from `peer` is over its limits (see
    /// `RequestLimiter`). The refused request is neither stored nor remembered as seen, so the peer's resend can
    /// succeed later. A request for a payment already stored does not count as pending.
    /// An admitted request's place in the limits, to be settled when its step ends.
    private struct Admission {
        /// Whether it counts toward the budget unpaired peers share.
        var unpaired: Bool
    }

    /// Admits a request by the limits, or answers `limit-exceeded` and returns nil.
    private func admitByLimits(
        _ frame: PaymentMessage.Request, from peer: PeerID, isNew: Bool, now: Timestamp
    ) async throws(EngineError) -> Admission? {
        // Requests on different payments are processed concurrently, so two may both see one place left: the
        // pending limits are a bound on a flood, not an exact count.
        var pending = 0
        var unpairedPending: Int?
        let paired = try await isPaired(peer)
        do {
            if isNew { pending = try await database.pendingIncomingCount(from: peer, now: now) }
            if !paired { unpairedPending = isNew ? try await database.pendingIncomingCountFromUnpaired(now: now) : 0 }
        } catch {
            throw .storage(error.description)
        }
        guard
            let verdict = requestLimiter.admit(
                from: peer, pending: pending, unpairedPending: unpairedPending, now: now)
        else { return Admission(unpaired: unpairedPending != nil) }
        if let unlogged = verdict.log {
            logger.notice(
                "request refused: \(verdict.refusal)",
                metadata: [
                    "peer": "\(peer.shortDescription)", "message": "\(frame.messageID.wireString)",
                    "unlogged": "\(unlogged)",
                ])
        }
        await reply(
            .error(.init(code: .limitExceeded, message: "\(verdict.refusal); resend later", ref: frame.messageID)),
            to: peer)
        return nil
    }

    // MARK: Sessions and time

    /// A session came up: remember the peer and resend everything it has not acknowledged, in order.
    func sessionUp(_ info: SessionInfo, now: Timestamp = .now) async {
        let ticket = await beginStep(.everything)
        defer { endStep(ticket) }
        do {
            try await database.upsertPeer(info.peerID, name: info.name, address: info.remoteAddress, seenAt: now)
            // Unless a transmit already did it on this session (see `flushedSessions`). A step on everything runs
            // alone, so no transmit is flushing meanwhile.
            if flushedSessions[info.peerID] != info { await flush(to: info, now: now) }
        } catch {
            logger.error("ledger error on session up", metadata: ["error": "\(error)"])
        }
        eventContinuation.yield(.peerUp(info))
    }

    /// A session went down.
    func sessionDown(_ info: SessionInfo, now: Timestamp = .now) async {
        try? await database.upsertPeer(info.peerID, name: info.name, address: info.remoteAddress, seenAt: now)
        eventContinuation.yield(.peerDown(info))
    }

    /// Expires what is due and stops resending what expired.
    func tick(now: Timestamp = .now) async {
        let ticket = await beginStep(.everything)
        defer { endStep(ticket) }
        do {
            for var record in try await database.duePayments(now: now) {
                var lifecycle = record.lifecycle
                let actions = lifecycle.handle(.tick, now: now)
                let events = transitionEvents(actions, paymentID: record.id, now: now, cause: .expiry, messageID: nil)
                guard !events.isEmpty else { continue }
                record.update(from: lifecycle, now: now)
                try await database.apply(LedgerChange(payment: record, events: events))
                publish(record)
            }
            let dropped = try await database.pruneOutbox(now: now)
            if !dropped.isEmpty {
                logger.debug("stopped resending expired frames", metadata: ["count": "\(dropped.count)"])
            }
        } catch {
            logger.error("expiry check failed", metadata: ["error": "\(error)"])
        }
    }

    /// The quote to store if the payment becomes accepted: from the cached rates only, so that a ledger step never
    /// waits on the network (reading the payment in list or show refreshes the rates).
    private func acceptanceQuote(_ record: PaymentRecord) async -> Quote? {
        guard let conversions, let amount = try? record.amount else { return nil }
        return await conversions.cachedQuote(amount)
    }

    /// Enqueues a step and waits for its turn (see the type's documentation). Every caller must `endStep(_:)` the
    /// ticket, e.g. in a `defer`.
    private func beginStep(_ scope: StepQueue.Scope) async -> StepQueue.Ticket {
        let ticket = enqueueStep(scope)
        await waitForTurn(ticket)
        return ticket
    }

    private func enqueueStep(_ scope: StepQueue.Scope) -> StepQueue.Ticket {
        let (ticket, admitted) = steps.enqueue(scope)
        start(admitted)
        return ticket
    }

    private func waitForTurn(_ ticket: StepQueue.Ticket) async {
        if admittedSteps.remove(ticket) != nil { return }
        await withCheckedContinuation { stepWaiters[ticket] = $0 }
    }

    /// Ends a step and starts the steps its end admits.
    private func endStep(_ ticket: StepQueue.Ticket) {
        start(steps.finish(ticket))
    }

    private func start(_ tickets: [StepQueue.Ticket]) {
        for ticket in tickets {
            if let waiter = stepWaiters.removeValue(forKey: ticket) {
                waiter.resume()
            } else {
                admittedSteps.insert(ticket)
            }
        }
    }

    /// Returns at once: an answer shows the engine is not stuck (the systemd watchdog asks before each ping).
    func ping() {}

    // MARK: Helpers

    private func load(_ id: UUID) async throws(EngineError) -> PaymentRecord? {
        do { return try await database.payment(id: id) } catch { throw .storage(error.description) }
    }

    private func isPaired(_ peer: PeerID) async throws(EngineError) -> Bool {
        do { return try await database.trustedPeer(id: peer) != nil } catch { throw .storage(error.description) }
    }

    private func outbox(for peer: PeerID) async throws(EngineError) -> [OutboxRecord] {
        do { return try await database.outbox(peerID: peer) } catch { throw .storage(error.description) }
    }

    private func commit(_ change: LedgerChange) async throws(EngineError) {
        do { try await database.apply(change) } catch { throw .storage(error.description) }
    }

    /// If `messageID` from `peer` was already processed, sends the stored answer again and returns true.
    private func answerDuplicate(_ messageID: UUID, from peer: PeerID) async throws(EngineError) -> Bool {
        let seen: SeenMessageRecord?
        do { seen = try await database.seenMessage(id: messageID, from: peer) } catch {
            throw .storage(error.description)
        }
        guard let seen else { return false }
        do {
            await reply(try seen.responseMessage, to: peer)
        } catch {
            throw .storage(error.description)
        }
        logger.debug("duplicate frame answered again", metadata: ["message": "\(messageID.wireString)"])
        return true
    }

    private func seen(
        _ messageID: UUID, from peer: PeerID, payment: UUID, answer: PaymentMessage, now: Timestamp
    )
        throws(EngineError) -> SeenMessageRecord
    {
        do {
            return try SeenMessageRecord(
                messageID: messageID, peerID: peer, paymentID: payment, receivedAt: now, response: answer, codec: codec)
        } catch {
            throw .storage(error.description)
        }
    }

    /// The events recording each transition (and confirmation) among `actions`.
    private func transitionEvents(
        _ actions: [PaymentLifecycle.Action], paymentID: UUID, now: Timestamp, cause: PaymentEventRecord.Cause,
        messageID: UUID?
    ) -> [PaymentEventRecord] {
        actions.compactMap { action in
            switch action {
            case .transition(let from, let to):
                PaymentEventRecord(
                    paymentID: paymentID, at: now, from: from, to: to,
                    cause: to == .expired && cause != .ack ? .expiry : cause,
                    messageID: messageID)
            case .confirmed(let state):
                PaymentEventRecord(
                    paymentID: paymentID, at: now, from: state, to: state, cause: cause, messageID: messageID,
                    detail: "confirmed by the payee")
            default:
                nil
            }
        }
    }

    /// Outbox rows for the frames the actions send. Requests and cancels are resent until the payment expires; a
    /// payer's accept or reject until the payee answers.
    /// `sending`: a session is up and the frames are sent right after the commit, so they are stored as sent once
    /// (no second write to record it; if the session fails meanwhile, the next session-up resends them anyway).
    private func outboxRecords(
        for actions: [PaymentLifecycle.Action], payment: PaymentRecord, now: Timestamp, sending: Bool = false
    )
        throws(EngineError) -> [OutboxRecord]
    {
        var records: [OutboxRecord] = []
        for case .send(let message) in actions {
            let retryUntil: Timestamp? =
                switch message {
                case .request, .cancel: payment.expiresAt
                default: nil
                }
            guard let messageID = message.messageID else { continue }
            do {
                var record = try OutboxRecord(
                    message: message, to: payment.peerID, createdAt: now, retryUntil: retryUntil, codec: codec)
                if sending {
                    record.attempts = 1
                    record.lastSentAt = now
                }
                records.append(record)
            } catch {
                throw .storage(error.description)
            }
            _ = messageID
        }
        return records
    }

    /// The ack or error frame the actions answer an incoming frame with.
    private func answerFrame(_ actions: [PaymentLifecycle.Action], paymentID: UUID) -> PaymentMessage? {
        for action in actions {
            switch action {
            case .acknowledge(let messageID, let state, let reason):
                return .ack(.init(ackedID: messageID, paymentID: paymentID, state: state, reasonCode: reason))
            case .violation(let messageID, let text):
                return .error(.init(code: .notAuthorized, message: text, ref: messageID))
            default:
                continue
            }
        }
        return nil
    }

    /// Sends newly committed outbox frames to `peer` if a session is up; they stay queued otherwise. Frames never
    /// sent go out first, in order, so that a cancel never overtakes its own unsent request; on a session that has
    /// not had the whole outbox yet, everything goes out again first (see `flushedSessions`).
    private func transmit(_ records: [OutboxRecord], to peer: PeerID, now: Timestamp) async {
        guard !records.isEmpty else { return }
        let recorded = Set(records.filter { $0.lastSentAt != nil }.map(\.messageID))
        let session = await sessions.currentSessions().first { $0.peerID == peer }
        while flushing[peer] != nil {
            await withCheckedContinuation { flushing[peer, default: []].append($0) }
        }
        if let session, flushedSessions[peer] != session {
            // The whole outbox, ours included (it is committed), in order.
            await flush(to: session, now: now, recorded: recorded)
            return
        }
        let fresh = Set(records.map(\.messageID))
        let unsent = (try? await database.unsentOutbox(peerID: peer)) ?? []
        await resend(
            unsent.filter { !fresh.contains($0.messageID) } + records, to: peer, now: now, recorded: recorded)
    }

    /// Resends the whole outbox of the session's peer on it, in order, while other transmits to that peer wait.
    private func flush(to session: SessionInfo, now: Timestamp, recorded: Set<UUID> = []) async {
        let peer = session.peerID
        flushedSessions[peer] = session
        flushing[peer] = []
        let pending = (try? await database.outbox(peerID: peer)) ?? []
        if !pending.isEmpty {
            logger.info(
                "resending unacknowledged frames", metadata: ["peer": "\(session.name)", "count": "\(pending.count)"])
        }
        await resend(pending, to: peer, now: now, recorded: recorded)
        for waiter in flushing.removeValue(forKey: peer) ?? [] { waiter.resume() }
    }

    /// Hands outbox frames to the session with `peer`, in order, and records the attempts (except those `recorded`
    /// with the commit that queued them).
    private func resend(
        _ records: [OutboxRecord], to peer: PeerID, now: Timestamp, recorded: Set<UUID> = []
    ) async {
        var unrecorded: [UUID] = []
        for record in records {
            guard let message = try? record.message else { continue }
            guard await sessions.send(message, to: peer) else { break }
            if !recorded.contains(record.messageID) { unrecorded.append(record.messageID) }
        }
        if !unrecorded.isEmpty { try? await database.markSent(messageIDs: unrecorded, at: now) }
    }

    private func reply(_ message: PaymentMessage, to peer: PeerID) async {
        await sessions.send(message, to: peer)
    }

    private func publish(_ record: PaymentRecord) {
        eventContinuation.yield(.paymentUpdated(record))
    }
}
