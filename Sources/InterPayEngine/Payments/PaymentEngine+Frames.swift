import Foundation
import InterPayCore
import InterPayMetrics
import InterPayStore

extension PaymentEngine {
    /// The step of one frame from `peer`: everything it reads, decides and writes, in its transaction.
    func receiveStep(
        _ message: PaymentMessage, from peer: PeerID, quote: Quote?, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        if let capability = Self.capabilityNeeded(by: message), !link.shares(capability, on: link.session(with: peer)) {
            return try refuseUnannounced(message, capability: capability, from: peer)
        }
        switch message {
        case .request(let request):
            return try receiveRequest(request, from: peer, quote: quote, ledger: ledger, now: now)
        case .accept(let decision):
            return try receiveDecision(
                .peerAccept(messageID: decision.messageID), messageID: decision.messageID,
                paymentID: decision.paymentID, from: peer, quote: quote, ledger: ledger, now: now)
        case .reject(let rejection):
            return try receiveDecision(
                .peerReject(messageID: rejection.messageID, reason: rejection.reason),
                messageID: rejection.messageID, paymentID: rejection.paymentID, from: peer, quote: nil,
                ledger: ledger, now: now, reason: rejection.reason)
        case .cancel(let decision):
            return try receiveDecision(
                .peerCancel(messageID: decision.messageID), messageID: decision.messageID,
                paymentID: decision.paymentID, from: peer, quote: nil, ledger: ledger, now: now)
        case .paid(let paid):
            return try receivePaid(paid, from: peer, ledger: ledger, now: now)
        case .settle(let settle):
            return try receiveSettle(settle, from: peer, ledger: ledger, now: now)
        case .ack(let ack):
            return try receiveAck(ack, from: peer, ledger: ledger, now: now)
        case .error(let error):
            return try receiveError(error, from: peer, ledger: ledger)
        case .series(let series):
            return try receiveSeries(series, from: peer, ledger: ledger, now: now)
        case .refund(let refund):
            return try receiveRefund(refund, from: peer, ledger: ledger, now: now)
        case .hello, .ping, .pong, .close, .pair:
            return StepOutcome()
        }
    }

    /// The `hello` capability a frame belongs to, if any (PROTOCOL.md §14): `paid` and `settle` to `receipts`,
    /// `series` to `subscriptions`, `refund` to `refunds`.
    static func capabilityNeeded(by message: PaymentMessage) -> String? {
        switch message {
        case .paid, .settle: PaymentMessage.receiptsCapability
        case .series: PaymentMessage.subscriptionsCapability
        case .refund: PaymentMessage.refundsCapability
        default: nil
        }
    }

    /// A frame of a capability its session does not speak (the peer, or this side, did not announce it): answered
    /// as a frame of an unknown type, `error` `unknown-type` with its `ref`, and nothing else happens (PROTOCOL.md
    /// §14). Nothing is stored or remembered. Before this, a peer that announced nothing had its `paid` and `series`
    /// frames processed: its offers were stored, and their approval could never be delivered.
    func refuseUnannounced(_ message: PaymentMessage, capability: String, from peer: PeerID) throws -> StepOutcome {
        logger.info(
            "frame of a capability the session lacks refused",
            metadata: [
                "peer": "\(peer.shortDescription)", "type": "\(message.type.rawValue)", "capability": "\(capability)",
            ])
        return try answering(
            .error(
                .init(
                    code: .unknownType,
                    message: "'\(message.type.rawValue)' belongs to the capability '\(capability)', which this session "
                        + "lacks", ref: message.messageID)),
            to: peer)
    }

    /// An outcome that only answers `peer` (on its current session, if any) with `message`.
    func answering(_ message: PaymentMessage, to peer: PeerID) throws -> StepOutcome {
        var outcome = StepOutcome()
        if let session = link.session(with: peer) {
            outcome.transmissions = [Transmission(session: session, bodies: [try encoded(message)])]
        }
        return outcome
    }

    /// If `messageID` from `peer` was already processed, the stored answer again.
    func duplicateAnswer(_ messageID: UUID, from peer: PeerID, ledger: Ledger) throws -> StepOutcome? {
        guard let seen = try ledger.seenMessage(id: messageID, from: peer) else { return nil }
        logger.debug("duplicate frame answered again", metadata: ["message": "\(messageID.wireString)"])
        return answering(stored: seen, to: peer)
    }

    /// An outcome that only answers `peer` (on its current session, if any) with the answer stored in `seen`, its
    /// own bytes as first sent.
    func answering(stored seen: SeenMessageRecord, to peer: PeerID) -> StepOutcome {
        var outcome = StepOutcome()
        if let session = link.session(with: peer) {
            outcome.transmissions = [Transmission(session: session, bodies: [Array(seen.response)])]
        }
        return outcome
    }

    func seen(
        _ messageID: UUID, from peer: PeerID, payment: UUID, answer: PaymentMessage, now: Timestamp
    ) throws -> SeenMessageRecord {
        try SeenMessageRecord(
            messageID: messageID, peerID: peer, paymentID: payment, receivedAt: now, response: answer, codec: codec)
    }

    /// Whether `id` is the payment ID of a period not yet requested of a series in which we bill `payer`.
    func isFuturePeriodOfOurs(_ id: UUID, payer: PeerID, ledger: Ledger) throws -> Bool {
        guard id.uuid.6 >> 4 == 5 else { return false }  // a period's ID is a version 5 UUID; most IDs are not
        return try ledger.seriesBilling(payerID: payer).contains { series in
            SeriesMachine.period(
                withID: id, series: series.id, from: (series.lastIndex ?? -1) + 1,
                count: series.count ?? Limits.maxSeriesCount) != nil
        }
    }

    private func receiveRequest(
        _ frame: PaymentMessage.Request, from peer: PeerID, quote: Quote?, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        if let again = try duplicateAnswer(frame.messageID, from: peer, ledger: ledger) { return again }
        let payment = frame.payment
        guard payment.payee == peer, payment.payer == me else {
            return try answering(
                .error(.init(code: .notAuthorized, message: "request not between you and me", ref: frame.messageID)),
                to: peer)
        }
        if let problem = Self.timeProblem(payment, now: now) {
            return try answering(.error(.init(code: .malformedFrame, message: problem, ref: frame.messageID)), to: peer)
        }
        let existing = try ledger.payment(id: payment.id)
        if existing == nil, now >= payment.expiresAt {
            // Expired on arrival (PROTOCOL.md §10): answered `expired` and never stored, so that such requests cost
            // the ledger nothing; the answer depends only on the clock, so a resend gets the same one.
            return try answering(
                .ack(
                    .init(
                        ackedID: frame.messageID, paymentID: payment.id, state: .expired, reasonCode: .alreadyExpired)),
                to: peer)
        }
        if let refusal = try refusalByLimits(frame, from: peer, isNew: existing == nil, ledger: ledger, now: now) {
            return refusal
        }
        if let existing {
            // Only a payment this peer asked us to pay is answered with its state; an ID in use by any other
            // payment (one of ours to this peer, or anyone else's) gets one and the same refusal.
            guard existing.peerID == peer, existing.role == .payer else {
                return try answering(
                    .error(.init(code: .notAuthorized, message: "payment ID not available", ref: frame.messageID)),
                    to: peer)
            }
            // The same payment again under a new message ID: answer with its current state. It changes nothing, so
            // it is not remembered (PROTOCOL.md §9.2): a peer sending it again and again must not grow the ledger.
            return try answering(
                .ack(
                    .init(
                        ackedID: frame.messageID, paymentID: payment.id, state: existing.state.decisionState,
                        reasonCode: existing.state.conflictReason)),
                to: peer)
        }
        if try isFuturePeriodOfOurs(payment.id, payer: peer, ledger: ledger) {
            // The ID of a period we are still to request of this peer (PROTOCOL.md §8.6): taken first by its request,
            // the period could never be requested, and the payer would never be billed for it again.
            return try answering(
                .error(.init(code: .notAuthorized, message: "payment ID not available", ref: frame.messageID)),
                to: peer)
        }
        let session = link.session(with: peer)
        if payment.series != nil, session == nil {
            // The session this request came on ended before its step ran, and whether its `series` member is spoken
            // is a property of that session: dropped unanswered, as a frame still unread when a connection closes
            // is (its ack could not be sent anyway). The payee resends it on its next session, where the capability
            // is known. Decided without a session, a period that arrived just before a disconnect was stored as an
            // ordinary request and acked as one, and was never accepted by the standing approval.
            logger.debug(
                "a subscription's request arrived on a session that has ended; left for the payee to resend",
                metadata: ["payment": "\(payment.id.wireString)", "payee": "\(peer.shortDescription)"])
            return StepOutcome()
        }
        var (lifecycle, actions) = PaymentLifecycle.receivedRequest(payment, messageID: frame.messageID, now: now)
        var record = PaymentRecord(request: payment, lifecycle: lifecycle, now: now)
        if payment.bill != nil, !link.shares(BillLink.capability, on: session) {
            // A `bill` member on a session without `bills` is a member this session does not know (PROTOCOL.md §14,
            // §8.8): an ordinary request. With it, the link is kept with this payee's payment only.
            record.billID = nil
            record.billPayers = nil
        }
        let linked = payment.series != nil && link.shares(PaymentMessage.subscriptionsCapability, on: session)
        if payment.series != nil, !linked {
            // A `series` member on a session without `subscriptions` is a member this session does not know
            // (PROTOCOL.md §14): ignored, so the request is an ordinary one that waits for the user.
            logger.info(
                "a request's series link ignored: the session lacks subscriptions",
                metadata: ["payment": "\(payment.id.wireString)", "payee": "\(peer.shortDescription)"])
            record.seriesID = nil
            record.seriesIndex = nil
        }
        var events = [
            PaymentEventRecord(
                paymentID: payment.id, at: now, from: nil, to: .pending, cause: .received, messageID: frame.messageID)
        ]
        events += Self.transitionEvents(actions, paymentID: payment.id, now: now, cause: .expiry, messageID: nil)
        let answer = Self.answerFrame(actions, paymentID: payment.id)
        let refused = acceptFrom == .paired && lifecycle.state == .pending ? try !ledger.isPaired(peer) : false
        let plan = try planSend(to: peer, ledger: ledger, now: now)
        var outgoing: [OutboxRecord] = []
        if refused {
            // accept_from = paired: the request is stored already rejected, in the same transaction as its ack, so
            // that no crash can leave it pending and shown; both ledgers say why, and the user is not asked.
            let rejectID = UUID.timeOrdered()
            let rejection = lifecycle.handle(.localReject(messageID: rejectID, reason: Self.notPairedReason), now: now)
            events += Self.transitionEvents(
                rejection, paymentID: payment.id, now: now, cause: .local, messageID: rejectID)
            record.reason = Self.notPairedReason
            // No series of ours with a peer not paired can be approved (its offers are stored declined): the link is
            // dropped, as `standingApproval` drops a foreign one. Kept, a second request naming the same period broke
            // the unique index on series and period, and every resend failed its step and logged an error.
            record.seriesID = nil
            record.seriesIndex = nil
            record.update(from: lifecycle, now: now)
            outgoing = try outboxRecords(for: rejection, payment: record, now: now, sending: plan.session != nil)
        }
        var automatic: String?
        var acceptedSeries: SeriesRecord?
        if !refused, linked {
            // A period of a subscription series: accepted here without the user when the series is approved and
            // the amount within its cap (PROTOCOL.md §8.6); any other request naming a series waits for the user.
            let standing = try standingApproval(
                for: &record, lifecycle: &lifecycle, from: peer, ledger: ledger, now: now)
            events += standing.events
            outgoing = try outboxRecords(
                for: standing.actions, payment: record, now: now, sending: plan.session != nil)
            automatic = standing.detail
            acceptedSeries = standing.series
            // Accepted by the standing approval: the quote of the moment is kept, as a user's acceptance keeps it.
            if record.state == .accepted { record.storeAcceptanceQuote(quote) }
        }
        let seenRow = try answer.map {
            try seen(frame.messageID, from: peer, payment: payment.id, answer: $0, now: now)
        }
        var change = LedgerChange(payment: record, events: events, seenMessage: seenRow)
        change.paymentIsNew = true  // `existing` is nil here
        change.outbox = outgoing
        change.series = acceptedSeries
        let stored = try ledger.apply(change)
        var outcome = StepOutcome()
        // The answer's bytes as stored with the seen row: a resend of this frame gets the same ones.
        outcome.add(plan.transmission(then: stored, answer: seenRow.map { Array($0.response) }))
        if refused {
            outcome.events = [.paymentUpdated(record)]
            logger.notice(
                "request from a peer not paired rejected (accept_from = paired)",
                metadata: ["payment": "\(payment.id.wireString)", "payee": "\(peer.shortDescription)"])
            return outcome
        }
        logger.info(
            "request received",
            metadata: [
                "payment": "\(payment.id.wireString)", "payee": "\(peer.shortDescription)",
                "amount": "\(payment.amount)",
            ])
        outcome.events = [.requestReceived(record)]
        if let automatic {
            outcome.events.append(.paymentUpdated(record))
            logger.info(
                "request of a subscription accepted automatically",
                metadata: ["payment": "\(payment.id.wireString)", "detail": "\(automatic)"])
        }
        return outcome
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

    /// The `limit-exceeded` answer when a request from `peer` is over its limits (see `RequestLimiter`), or nil to
    /// admit it. The counts are read in this step's transaction, and steps run one at a time, so they are exact. A
    /// refused request is neither stored nor remembered as seen, so the peer's resend can succeed later; a request
    /// for a payment already stored does not count as pending.
    private func refusalByLimits(
        _ frame: PaymentMessage.Request, from peer: PeerID, isNew: Bool, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome? {
        let paired = try ledger.isPaired(peer)
        // Counted up to the limit only: beyond it the answer is the same, and "no limit" needs no count at all.
        let limits = requestLimits
        let pending =
            isNew && limits.maxPending < .max
            ? try ledger.pendingIncomingCount(from: peer, now: now, upTo: limits.maxPending) : 0
        let unpairedPending =
            paired
            ? nil
            : isNew && limits.maxPendingUnpaired < .max
                ? try ledger.pendingIncomingCountFromUnpaired(now: now, upTo: limits.maxPendingUnpaired) : 0
        // Requests past expiry that the expiry check has not reached yet are expired unanswered already: they count
        // against the day's budget of those (counted only when something else of the budget is spent).
        let due =
            isNew && requestLimiter.withLock({ $0.hasExpired(from: peer) })
            ? try ledger.dueIncomingCount(from: peer, now: now) : 0
        let verdict = requestLimiter.withLock {
            $0.admit(from: peer, pending: pending, dueUnanswered: due, unpairedPending: unpairedPending, now: now)
        }
        guard let verdict else { return nil }
        if let unlogged = verdict.log {
            logger.notice(
                "request refused: \(verdict.refusal)",
                metadata: [
                    "peer": "\(peer.shortDescription)", "message": "\(frame.messageID.wireString)",
                    "unlogged": "\(unlogged)",
                ])
        }
        Limit.requests.hit()
        return try answering(
            .error(.init(code: .limitExceeded, message: "\(verdict.refusal); resend later", ref: frame.messageID)),
            to: peer)
    }

    /// A peer's `accept`, `reject` or `cancel`: the lifecycle, the reason of a rejection, the quote of an acceptance.
    private func receiveDecision(
        _ event: PaymentLifecycle.Event, messageID: UUID, paymentID: UUID, from peer: PeerID, quote: Quote?,
        ledger: Ledger, now: Timestamp, reason: String? = nil
    ) throws -> StepOutcome {
        try receivePeerStep(
            event, messageID: messageID, paymentID: paymentID, from: peer, ledger: ledger, now: now
        ) { record, events in
            if let reason, events.contains(where: { $0.toState == .rejected }) { record.reason = reason }
            if record.state == .accepted { record.storeAcceptanceQuote(quote) }
        }
    }

    /// The step for a peer's frame about one of its payments: a duplicate answered again, an unknown payment
    /// refused; else the lifecycle, `amend` on the record, the answer, all in one change (a record `amend` leaves
    /// as it was is not written). The answer is remembered only when the frame changed the payment: one that changes
    /// nothing is answered from the payment's state each time it comes (PROTOCOL.md §9.2), so that a peer repeating
    /// a decision under new message IDs cannot grow the ledger.
    func receivePeerStep(
        _ event: PaymentLifecycle.Event, messageID: UUID, paymentID: UUID, from peer: PeerID, ledger: Ledger,
        now: Timestamp, amend: (inout PaymentRecord, inout [PaymentEventRecord]) -> Void
    ) throws -> StepOutcome {
        if let again = try duplicateAnswer(messageID, from: peer, ledger: ledger) { return again }
        guard var record = try ledger.payment(id: paymentID), record.peerID == peer else {
            return try answering(
                .error(.init(code: .unknownPayment, message: "unknown payment", ref: messageID)), to: peer)
        }
        var lifecycle = record.lifecycle
        let actions = lifecycle.handle(event, now: now)
        var events = Self.transitionEvents(
            actions, paymentID: paymentID, now: now, cause: .peer, messageID: messageID)
        var outcome = StepOutcome()
        let before = record
        record.update(from: lifecycle, now: now)
        amend(&record, &events)
        var change = LedgerChange(events: events)
        if !events.isEmpty || lifecycle != before.lifecycle || record.receipt != before.receipt {
            change.payment = record
            outcome.events = [.paymentUpdated(record)]
        } else {
            record = before
        }
        let answer = Self.answerFrame(actions, paymentID: paymentID)
        if let answer, change.payment != nil || !events.isEmpty {
            change.seenMessage = try seen(messageID, from: peer, payment: paymentID, answer: answer, now: now)
        }
        if !change.isEmpty { try ledger.apply(change) }
        guard let session = link.session(with: peer) else { return outcome }
        if let seen = change.seenMessage {
            // The answer's bytes as stored with the seen row (a duplicate of the frame gets the same ones).
            outcome.transmissions = [Transmission(session: session, bodies: [Array(seen.response)])]
        } else if let answer {
            outcome.transmissions = [Transmission(session: session, bodies: [try encoded(answer)])]
        }
        return outcome
    }

    private func receiveAck(
        _ ack: PaymentMessage.Acknowledgement, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard let acked = try ledger.outboxRecord(messageID: ack.ackedID, peerID: peer),
            acked.paymentID == ack.paymentID
        else {
            logger.debug("ack for no pending frame", metadata: ["message": "\(ack.ackedID.wireString)"])
            return outcome
        }
        var change = LedgerChange(removeFromOutbox: [ack.ackedID])
        var record = try ledger.payment(id: ack.paymentID)
        if var current = record {
            var lifecycle = current.lifecycle
            let actions = lifecycle.handle(.peerAck(state: ack.state, reasonCode: ack.reasonCode), now: now)
            change.events = Self.transitionEvents(
                actions, paymentID: current.id, now: now, cause: .ack, messageID: ack.ackedID)
            if lifecycle != current.lifecycle {
                current.update(from: lifecycle, now: now)
                if ack.reasonCode != nil { current.reasonCode = ack.reasonCode }
                change.payment = current
                outcome.events.append(.paymentUpdated(current))
            }
            record = current
        }
        try ledger.apply(change)
        outcome.events.append(.delivered(paymentID: ack.paymentID, messageID: ack.ackedID))
        outcome.answered = [(ack.ackedID, .answered(record))]
        return outcome
    }

    private func receiveError(
        _ error: PaymentMessage.ErrorFrame, from peer: PeerID, ledger: Ledger
    ) throws -> StepOutcome {
        logger.notice(
            "peer reported an error",
            metadata: ["peer": "\(peer.shortDescription)", "code": "\(error.code)", "message": "\(error.message)"])
        var outcome = StepOutcome()
        // These errors will not change on a resend: stop retrying the frame they refer to.
        let final: Set<PaymentMessage.ErrorFrame.Code> = [.malformedFrame, .notAuthorized, .unknownPayment]
        guard let ref = error.ref, final.contains(error.code) else { return outcome }
        if try ledger.outboxRecord(messageID: ref, peerID: peer) != nil {
            try ledger.apply(LedgerChange(removeFromOutbox: [ref]))
            outcome.answered = [(ref, .dropped)]
        }
        return outcome
    }
}
