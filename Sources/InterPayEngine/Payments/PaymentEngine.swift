import CoreMetrics
import Foundation
public import InterPayCore
import InterPayMetrics
public import InterPayStore
public import Logging
import Synchronization

/// Runs every payment's lifecycle against the ledger and the link to the peers.
///
/// The rules of `protocol/PROTOCOL.md` §9 live here: a state change, its event and its outbound frame are committed
/// in one transaction before the frame is sent; an incoming frame's effects and our answer to it are committed
/// before the answer is sent; unacknowledged frames are resent in order whenever a session with the peer comes up;
/// a duplicate frame gets the stored answer again and changes nothing.
///
/// Each step (a local command, an inbound frame, a session event, an expiry check) is one ledger transaction: it
/// reads what it needs, runs the pure `PaymentLifecycle`, and writes payment, events, outbox and seen rows
/// (`AppDatabase.transact`). Steps run one after another in the order they were submitted, so two steps on one
/// payment never interleave, and steps submitted while a transaction is in flight share the next one (one disk
/// flush for the batch). After each commit the frames it produced (the outbox rows' stored bytes, and the answers)
/// are handed to the link in commit order, before the next transaction begins.
///
/// On the first frames to a peer on a new session, the peer's whole outbox goes out first, in order (§9.3): a frame
/// committed before the session's `up` event is handled never overtakes frames lost with the previous session.
public final class PaymentEngine: Sendable {
    /// Fetches the quote stored with a payment when it is accepted: from cached rates only, never waiting on the
    /// network; nil when there is none.
    public typealias AcceptanceQuote = @Sendable (Money) async -> Quote?

    /// The reason given when `accept_from = paired` rejects a request from a peer that is not paired.
    public static let notPairedReason = "not paired: this peer takes requests from paired peers only"

    let database: AppDatabase
    let link: any PaymentLink
    let me: PeerID
    let logger: Logger
    let codec = FrameCodec()
    let acceptFrom: AcceptPolicy
    /// Whether series offers with fixed-length periods (`periodSeconds`) are taken; otherwise they are declined.
    let acceptTestPeriods: Bool
    let acceptanceQuote: AcceptanceQuote?
    /// Signs receipts when this node settles a payment as the payee; nil: settlements carry no receipt.
    let receiptIssuer: ReceiptIssuer?
    /// Per-peer limits on incoming requests; used only inside steps, which run one at a time.
    let requestLimiter: Mutex<RequestLimiter>
    /// The limits `requestLimiter` applies.
    let requestLimits: RequestLimiter.Limits
    /// Per peer, the session on which its whole outbox was last sent (see the type's documentation). Read and
    /// written only inside steps.
    let flushedSessions = Mutex<[PeerID: LinkSession]>([:])
    /// Pairing with each peer (`PaymentEngine+Pairing`): written inside steps, read outside them for a status.
    let pairingState = Mutex(PairingState())
    let waiters = AckWaiters()
    private let eventContinuation: AsyncStream<EngineEvent>.Continuation
    /// Engine events for watchers (the newest 1,024 are kept for a slow watcher).
    public let events: AsyncStream<EngineEvent>
    // Set once in `init`, after the closures it is built from can refer to `self`.
    private let pipelineBox = Mutex<StepPipeline<Step, StepOutcome, PeerID>?>(nil)
    private let transactions = Atomic<Int>(0)

    /// An engine for the node `me` with its ledger and link.
    /// - Parameters:
    ///   - inboundCapacity: how many frames from peers may wait for the ledger before `handle(_:)` waits (and a
    ///     sixteenth of that from one peer).
    ///   - acceptTestPeriods: whether series offers with fixed-length test periods are taken (else declined).
    public init(
        me: PeerID, database: AppDatabase, link: any PaymentLink, acceptanceQuote: AcceptanceQuote? = nil,
        acceptFrom: AcceptPolicy = .any, requestLimits: RequestLimiter.Limits = .init(), inboundCapacity: Int = 1_024,
        receiptIssuer: ReceiptIssuer? = nil, acceptTestPeriods: Bool = false, logger: Logger
    ) {
        self.me = me
        self.acceptTestPeriods = acceptTestPeriods
        self.receiptIssuer = receiptIssuer
        self.database = database
        self.link = link
        self.acceptanceQuote = acceptanceQuote
        self.acceptFrom = acceptFrom
        self.requestLimiter = Mutex(RequestLimiter(limits: requestLimits))
        self.requestLimits = requestLimits
        self.logger = logger
        (events, eventContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1_024))
        let metrics = CommitMetrics()
        let pipeline = StepPipeline<Step, StepOutcome, PeerID>(
            inboundCapacity: inboundCapacity,
            commit: { [database, weak self] steps in
                self?.transactions.add(1, ordering: .relaxed)
                let started = ContinuousClock.now
                var committed = false
                let results = database.transact(steps.map(\.body)) { entered in
                    committed = true
                    metrics.entered(entered)
                }
                metrics.record(steps: steps.count, duration: ContinuousClock.now - started, committed: committed)
                return results.map { result in
                    switch result {
                    case .success(let outcome): outcome
                    case .failure(let error): StepOutcome(failure: error)
                    }
                }
            },
            afterCommit: { [weak self] done in self?.committed(done) })
        pipelineBox.withLock { $0 = pipeline }
    }

    private var pipeline: StepPipeline<Step, StepOutcome, PeerID>? { pipelineBox.withLock { $0 } }

    /// The ledger's and the engine's metrics of each commit (`InterPayMetric`), made once: a commit is the hot path.
    private struct CommitMetrics: Sendable {
        let commits = InterPayMetric.ledgerCommits.counter()
        let failures = InterPayMetric.ledgerCommitFailures.counter()
        let seconds = CoreMetrics.Timer(label: InterPayMetric.ledgerCommitSeconds.name, preferredDisplayUnit: .seconds)
        let batch = Recorder(label: InterPayMetric.ledgerBatchSteps.name)
        let steps = InterPayMetric.engineSteps.counter()
        let payments: [PaymentStateEntry: Counter] = Dictionary(
            uniqueKeysWithValues: PaymentRole.allCases.flatMap { role in
                PaymentState.allCases.map { state in
                    (
                        PaymentStateEntry(role: role, state: state),
                        InterPayMetric.payments.counter([("role", role.rawValue), ("state", state.rawValue)])
                    )
                }
            })

        /// Counts the states payments entered in a committed transaction.
        func entered(_ entries: [PaymentStateEntry]) {
            for entry in entries { payments[entry]?.increment() }
        }

        /// Counts one transaction of `steps` steps.
        func record(steps count: Int, duration: Duration, committed: Bool) {
            guard committed else {
                failures.increment()
                return
            }
            commits.increment()
            steps.increment(by: Int64(count))
            batch.record(count)
            seconds.recordNanoseconds(
                duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        }
    }

    // MARK: Steps

    /// One step: what it does in its transaction, and who waits for its outcome.
    struct Step: Sendable {
        /// The peer the step concerns, if one: its flushed session is forgotten if the step fails.
        var peer: PeerID?
        var body: @Sendable (Ledger) throws -> StepOutcome
        var done: (@Sendable (StepOutcome) -> Void)?
        /// For an inbound frame: its `messageID`, answered with an `internal` error if the step fails (nothing was
        /// committed, so the peer keeps the frame in its outbox and resends it later). The answer is built only then.
        var answersFailureOf: UUID?
    }

    /// Frames to hand to a session after the commit.
    struct Transmission: Sendable {
        var session: LinkSession
        var bodies: [[UInt8]]
    }

    /// What a step produced.
    struct StepOutcome: Sendable {
        var transmissions: [Transmission] = []
        var events: [EngineEvent] = []
        /// Our frames the peer answered (or that left the outbox unanswered), for `AckWaiters`.
        var answered: [(messageID: UUID, outcome: AckWaiters.Outcome)] = []
        /// For local commands: the payment as the step left it.
        var record: PaymentRecord?
        /// For series commands: the series as the step left it.
        var series: SeriesRecord?
        /// For bill commands: the bill's shares as the step left them.
        var bill: [PaymentRecord]?
        /// For `request`: the payment with its peer's names.
        var view: PaymentView?
        /// For a pairing's confirmation: the pairing it recorded.
        var trusted: TrustedPeerRecord?
        /// For `untrust`: whether a pairing was forgotten.
        var untrusted = false
        /// For local commands: why the command failed (its step may still have committed).
        var refusal: EngineError?
        /// Set when the transaction failed: nothing of the step is stored.
        var failure: StoreError?

        init(failure: StoreError? = nil) { self.failure = failure }
    }

    /// Runs a local step that sends frame `messageID` about `paymentID` (a decision, `paid`): the step's record
    /// while it is not confirmed is tentative, so this waits up to `wait` for the peer's answer to that frame, woken
    /// by the ack (never polling), and returns the answered record, or the committed one when none came in time.
    func performAwaitingAnswer(
        messageID: UUID, paymentID: UUID, wait: Duration,
        _ step: @escaping @Sendable (Ledger) throws -> StepOutcome
    ) async throws(EngineError) -> PaymentRecord {
        let (outcome, answer) = try await perform(
            concerning: nil, awaitingAnswerTo: messageID, for: wait,
            if: { outcome in outcome.record.map { !$0.confirmed } ?? false }, step)
        guard let record = outcome.record else { throw .storage("the step returned no payment") }
        switch answer {
        case .answered(let answered?): return answered
        case nil, .answered(nil), .timedOut: return record
        case .dropped:
            do {
                return try await database.payment(id: paymentID) ?? record
            } catch {
                logger.warning(
                    "cannot read a payment after its answer; reporting it as committed here",
                    metadata: ["payment": "\(paymentID)", "error": "\(error)"])
                return record  // the latest we can tell
            }
        }
    }

    /// Runs a local step that sends frame `messageID` and, when `shouldWait` holds for what it committed, waits up to
    /// `wait` for the peer's answer to that frame, in one suspension: the step's completion arms the wait on the
    /// commit's thread, so the caller is woken once (by the answer, or at the timeout) instead of once for the commit
    /// and again for the answer. The answer is nil when no wait was wanted.
    func perform(
        concerning peer: PeerID?, awaitingAnswerTo messageID: UUID, for wait: Duration,
        if shouldWait: @escaping @Sendable (StepOutcome) -> Bool,
        _ body: @escaping @Sendable (Ledger) throws -> StepOutcome
    ) async throws(EngineError) -> (StepOutcome, AckWaiters.Outcome?) {
        guard wait > .zero else { return (try await perform(concerning: peer, body), nil) }
        guard let pipeline else { throw .storage("the engine is shut down") }
        let waiters = waiters
        // Registered before the step is queued, so that the answer cannot come first unseen.
        waiters.register(messageID)
        let (outcome, answer) = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<(StepOutcome, AckWaiters.Outcome?), Never>) in
                let done: @Sendable (StepOutcome) -> Void = { outcome in
                    guard outcome.failure == nil, outcome.refusal == nil, shouldWait(outcome) else {
                        waiters.cancel(messageID)
                        continuation.resume(returning: (outcome, nil))
                        return
                    }
                    waiters.wait(for: messageID, timeout: wait) { continuation.resume(returning: (outcome, $0)) }
                }
                pipeline.submit(Step(peer: peer, body: body, done: done))
            }
        } onCancel: {
            // The step still commits; the wait after it ends at once.
            waiters.cancel(messageID)
        }
        if let failure = outcome.failure { throw .storage(failure.description) }
        if let refusal = outcome.refusal { throw refusal }
        return (outcome, answer)
    }

    /// Runs a local step and returns its outcome once committed.
    func perform(
        concerning peer: PeerID?, _ body: @escaping @Sendable (Ledger) throws -> StepOutcome
    ) async throws(EngineError) -> StepOutcome {
        guard let pipeline else { throw .storage("the engine is shut down") }
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<StepOutcome, Never>) in
            pipeline.submit(Step(peer: peer, body: body, done: { continuation.resume(returning: $0) }))
        }
        if let failure = outcome.failure { throw .storage(failure.description) }
        if let refusal = outcome.refusal { throw refusal }
        return outcome
    }

    /// After a commit, in commit order: sends (one hand-over per session for the whole batch, so that the frames of
    /// one commit leave with one flush), events, waiters, callers.
    private func committed(_ done: [(Step, StepOutcome)]) {
        var order: [LinkSession] = []
        var frames: [LinkSession: [[UInt8]]] = [:]
        func queue(_ bodies: [[UInt8]], on session: LinkSession) {
            if frames[session] == nil { order.append(session) }
            frames[session, default: []] += bodies
        }
        for (step, outcome) in done {
            if outcome.failure != nil {
                // What the step planned to send was not committed: the next frame to that peer resends its whole
                // outbox (a duplicate is harmless, the peer answers it again).
                if let peer = step.peer { _ = flushedSessions.withLock { $0.removeValue(forKey: peer) } }
                if let ref = step.answersFailureOf, let peer = step.peer, let session = link.session(with: peer),
                    let body = try? codec.encodeBody(Self.failureAnswer(to: ref))  // our error frames always encode
                {
                    queue([body], on: session)
                }
                continue
            }
            for transmission in outcome.transmissions { queue(transmission.bodies, on: transmission.session) }
        }
        for session in order {
            if let bodies = frames[session] { link.send(bodies, on: session) }
        }
        for (step, outcome) in done {
            if let failure = outcome.failure, step.done == nil {
                // Nobody waits for this step's outcome (a peer's frame or session event): the log is all it gets.
                logger.error(
                    step.answersFailureOf != nil ? "could not process a frame" : "could not process a session's step",
                    metadata: ["peer": "\(step.peer?.shortDescription ?? "?")", "error": "\(failure)"])
            }
            for event in outcome.events {
                if case .pairing(let pairing) = event { report(pairing) }
                eventContinuation.yield(event)
            }
            for (messageID, answer) in outcome.answered { waiters.resolve(messageID, answer) }
            step.done?(outcome)
        }
    }

    // MARK: Link events

    /// Handles one link event in order: a frame's step is queued in its peer's lane (waiting while `inboundCapacity`
    /// frames are, or a sixteenth of that from the peer), and this returns before it commits; session events likewise,
    /// in the lane of the session's peer, so that they keep their place among its frames.
    public func handle(_ event: LinkEvent) async {
        guard let pipeline else { return }
        let now = Timestamp.now
        switch event {
        case .up(let session):
            await pipeline.submitInbound(
                Step(
                    peer: session.peerID,
                    body: { [self] ledger in
                        try sessionUpStep(session, ledger: ledger, now: now)
                    }), lane: session.peerID)
        case .down(let session):
            await pipeline.submitInbound(
                Step(
                    peer: nil,
                    body: { [self] ledger in
                        try ledger.upsertPeer(
                            PeerRecord(
                                peerID: session.peerID, name: session.name, address: session.address, seenAt: now))
                        // The session is gone: so is what was kept about it, else each fresh key that ever held a
                        // session would leave its entry (and its `hello`) behind for good.
                        flushedSessions.withLock { flushed in
                            if flushed[session.peerID] == session { flushed.removeValue(forKey: session.peerID) }
                        }
                        var outcome = StepOutcome()
                        outcome.events = [.peerDown(session)]
                        try pairingSessionChanged(session.peerID, up: false, ledger: ledger, now: now, into: &outcome)
                        return outcome
                    }), lane: session.peerID)
        case .frame(let message, let peer):
            await receive(message, from: peer, now: now)
        }
    }

    /// Queues the step of one frame from `peer` (everything but the transport's own frames).
    public func receive(_ message: PaymentMessage, from peer: PeerID, now: Timestamp = .now) async {
        guard let pipeline else { return }
        if case .pair(let frame) = message {
            // Pairing frames are not acknowledged (the machines answer what they answer), nor answered on failure.
            await pipeline.submitInbound(
                Step(
                    peer: peer,
                    body: { [self] ledger in try receivePairing(frame, from: peer, ledger: ledger, now: now) }),
                lane: peer)
            return
        }
        let quote = await quoteForIncoming(message)
        await pipeline.submitInbound(
            Step(
                peer: peer,
                body: { [self] ledger in try receiveStep(message, from: peer, quote: quote, ledger: ledger, now: now) },
                answersFailureOf: message.messageID), lane: peer)
    }

    /// The answer to a frame whose step failed: the peer resends it later.
    static func failureAnswer(to ref: UUID) -> PaymentMessage {
        .error(.init(code: .internal, message: "could not process the frame; retry later", ref: ref))
    }

    /// A session came up: remember the peer and resend everything it has not acknowledged, in order (unless a step
    /// already did on this session).
    func sessionUpStep(_ session: LinkSession, ledger: Ledger, now: Timestamp) throws -> StepOutcome {
        try ledger.upsertPeer(
            PeerRecord(peerID: session.peerID, name: session.name, address: session.address, seenAt: now))
        var outcome = StepOutcome()
        let plan = try planSend(to: session.peerID, ledger: ledger, now: now)
        outcome.add(plan.transmission(then: [], answer: nil))
        outcome.events = [.peerUp(session)]
        try pairingSessionChanged(session.peerID, up: true, ledger: ledger, now: now, into: &outcome)
        return outcome
    }

    /// Expires what is due, stops resending what expired, schedules series periods and ends pairing attempts, codes
    /// and locks past their time; one step.
    public func tick(now: Timestamp = .now) async {
        do {
            _ = try await perform(concerning: nil) { [self] ledger in
                var outcome = StepOutcome()
                for var record in try ledger.duePayments(now: now) {
                    var lifecycle = record.lifecycle
                    let actions = lifecycle.handle(.tick, now: now)
                    let events = Self.transitionEvents(
                        actions, paymentID: record.id, now: now, cause: .expiry, messageID: nil)
                    guard !events.isEmpty else { continue }
                    let unanswered = record.role == .payer && record.state == .pending
                    record.update(from: lifecycle, now: now)
                    try ledger.apply(LedgerChange(payment: record, events: events))
                    if unanswered, record.state == .expired {
                        // A request that expired before this side answered it: its peer's day budget of those.
                        requestLimiter.withLock { $0.expiredUnanswered(from: record.peerID, now: now) }
                    }
                    outcome.events.append(.paymentUpdated(record))
                }
                try scheduleSeries(ledger: ledger, now: now, into: &outcome)
                try tickPairing(ledger: ledger, now: now, into: &outcome)
                let dropped = try ledger.pruneOutbox(now: now)
                if !dropped.isEmpty {
                    logger.debug("stopped resending expired frames", metadata: ["count": "\(dropped.count)"])
                }
                outcome.answered = dropped.map { ($0.messageID, .dropped) }
                return outcome
            }
        } catch {
            logger.error("expiry check failed", metadata: ["error": "\(error)"])
        }
    }

    /// Returns once an empty step has gone through the ledger queue: an answer shows the engine is not stuck (the
    /// systemd watchdog asks before each ping). False if that step failed.
    @discardableResult
    public func ping() async -> Bool {
        do {
            _ = try await perform(concerning: nil) { _ in StepOutcome() }
            return true
        } catch {
            logger.error("the ledger queue failed a liveness check", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// How many ledger transactions the engine's steps have taken so far (for tests and benchmarks: steps share them).
    public var transactionCount: Int { transactions.load(ordering: .relaxed) }

    /// How many peers' sessions the engine keeps state for (for tests: only sessions that are up).
    var sessionStateCount: Int { flushedSessions.withLock { $0.count } }

    /// How many steps wait for a transaction now (for diagnostics and benchmarks).
    public var queuedSteps: Int { pipeline?.queuedCount ?? 0 }

    /// How many lanes (peers' frames, and the local commands') have steps waiting now.
    public var queuedLanes: Int { pipeline?.readyLaneCount ?? 0 }

    // MARK: Sending

    /// Where a step's frames to one peer go, decided inside its transaction.
    struct SendPlan {
        /// The session the frames go on; nil when there is none (they stay in the outbox).
        var session: LinkSession?
        /// The peer's outbox as it was before the step, when this is the first step to send on `session`: resent
        /// first, in order.
        var flush: [OutboxRecord] = []
        /// The series frames waiting for the peer's ack (`SeriesRecord.outFrame`), resent after `flush`.
        var seriesFlush: [[UInt8]] = []

        /// The frames in order: the flushed outbox, the answer to an incoming frame, then the step's new outbox rows.
        func transmission(then stored: [OutboxRecord], answer: [UInt8]?) -> Transmission? {
            guard let session else { return nil }
            var bodies = flush.map { Array($0.frame) } + seriesFlush
            if let answer { bodies.append(answer) }
            bodies += stored.map { Array($0.frame) }
            return bodies.isEmpty ? nil : Transmission(session: session, bodies: bodies)
        }
    }

    /// Decides, inside a step, where frames to `peer` go: on the current session, after the whole outbox if this is
    /// the first step to send on it (the outbox is then marked sent in the same transaction).
    func planSend(to peer: PeerID, ledger: Ledger, now: Timestamp) throws -> SendPlan {
        guard let session = link.session(with: peer) else { return SendPlan(session: nil) }
        let first = flushedSessions.withLock { flushed -> Bool in
            guard flushed[peer] != session else { return false }
            flushed[peer] = session
            return true
        }
        guard first else { return SendPlan(session: session) }
        var pending = try ledger.outbox(peerID: peer)
        if !link.shares(PaymentMessage.receiptsCapability, on: session)
            || !link.shares(PaymentMessage.refundsCapability, on: session)
        {
            // Settlement and refund frames queued while the peer was away, for a peer that turns out not to speak
            // them: it could never acknowledge them, so they leave the outbox (the step stays recorded on this side).
            let unreadable = Set(
                pending.filter { record in
                    // A row that does not decode is resent as it is; the peer answers it.
                    guard let message = try? record.message, let capability = Self.capabilityNeeded(by: message)
                    else { return false }
                    return !link.shares(capability, on: session)
                }.map(\.messageID))
            if !unreadable.isEmpty {
                try ledger.apply(LedgerChange(removeFromOutbox: Array(unreadable)))
                pending.removeAll { unreadable.contains($0.messageID) }
                logger.notice(
                    "dropped frames of a capability the peer lacks",
                    metadata: ["peer": "\(session.name)", "count": "\(unreadable.count)"])
            }
        }
        if !pending.isEmpty {
            try ledger.markOutboxSent(peerID: peer, at: now)
            logger.info(
                "resending unacknowledged frames", metadata: ["peer": "\(session.name)", "count": "\(pending.count)"])
        }
        // Series frames wait in their series' row, one per series; a peer without the capability never gets one.
        let seriesFrames =
            link.shares(PaymentMessage.subscriptionsCapability, on: session)
            ? try ledger.seriesOutbox(peerID: peer).compactMap { $0.outFrame } : []
        return SendPlan(session: session, flush: pending, seriesFlush: seriesFrames.map { Array($0) })
    }

    /// Outbox rows for the frames the actions send. Requests and cancels are resent until the payment expires; a
    /// payer's accept, reject or paid, and a payee's settle, until the peer answers. `sending`: they go out right after the commit, so they are
    /// stored as sent once.
    func outboxRecords(
        for actions: [PaymentLifecycle.Action], payment: PaymentRecord, now: Timestamp, sending: Bool
    ) throws -> [OutboxRecord] {
        var records: [OutboxRecord] = []
        for case .send(let message) in actions {
            let retryUntil: Timestamp? =
                switch message {
                case .request, .cancel: payment.expiresAt
                default: nil
                }
            var record = try OutboxRecord(
                message: message, to: payment.peerID, createdAt: now, retryUntil: retryUntil, codec: codec)
            if sending {
                record.attempts = 1
                record.lastSentAt = now
            }
            records.append(record)
        }
        return records
    }

    /// The ack or error frame the actions answer an incoming frame with.
    static func answerFrame(_ actions: [PaymentLifecycle.Action], paymentID: UUID) -> PaymentMessage? {
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

    /// The events recording each transition (and confirmation) among `actions`.
    static func transitionEvents(
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

    /// The quote to store if `message` makes a payment accepted here (an `accept` from the payer, or a subscription's
    /// request that its standing approval accepts); read before the step, since a step never waits on anything but
    /// the ledger.
    private func quoteForIncoming(_ message: PaymentMessage) async -> Quote? {
        guard let acceptanceQuote else { return nil }
        if case .request(let request) = message, request.payment.series != nil {
            return await acceptanceQuote(request.payment.amount)
        }
        guard case .accept(let decision) = message else { return nil }
        do {
            // Unknown payment: the step answers it; no quote needed.
            guard let record = try await database.payment(id: decision.paymentID) else { return nil }
            return await acceptanceQuote(try record.amount)
        } catch {
            // The step reads the payment again and reports what fails there; the quote is only left out.
            logger.warning(
                "cannot read a payment to quote its acceptance",
                metadata: ["payment": "\(decision.paymentID)", "error": "\(error)"])
            return nil
        }
    }

    /// An answer encoded for the wire.
    func encoded(_ message: PaymentMessage) throws -> [UInt8] {
        try codec.encodeBody(message)
    }
}

extension PaymentEngine.StepOutcome {
    /// Adds a transmission, if there is one.
    mutating func add(_ transmission: PaymentEngine.Transmission?) {
        if let transmission { transmissions.append(transmission) }
    }
}

extension PaymentRecord {
    /// Stores `quote` as the one used when the payment was accepted (once; a later quote never replaces it).
    public mutating func storeAcceptanceQuote(_ quote: Quote?) {
        guard let quote, quoteCurrency == nil else { return }
        quoteCurrency = quote.to.code
        quoteMinor = quote.converted.minorUnits
        quoteRate = quote.rate
        quoteRatesAt = quote.ratesUpdatedAt
    }
}
