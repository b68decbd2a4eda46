public import Foundation
public import InterPayCore
import InterPayMetrics
public import InterPayStore

extension PaymentEngine {
    /// What the local user can do to a subscription series.
    public enum SeriesCommand: Sendable, Hashable {
        /// The payer approves the offer (or renews an approval): requests up to `cap` each (default: the offered
        /// amount) are accepted without asking, `periods` of them or up to `total` in all (default:
        /// `defaultApprovedPeriods`, or the series' count when smaller). `peer` is the peer ID the user named: an
        /// offer from a peer that is not paired is approved only when it names that peer (SECURITY.md S-IMPOSTOR).
        case approve(cap: Money?, periods: Int? = nil, total: Money? = nil, peer: PeerID? = nil)
        /// The payer declines the offer.
        case decline(reason: String?)
        /// Either side ends the series.
        case end(reason: String?)
    }

    /// How many offers this side never approved (waiting for the user, or declined or ended before an approval) are
    /// kept from one peer, and from all peers together: beyond, the oldest that are over make room, and when those
    /// waiting fill the bound a further offer is refused with `limit-exceeded` (SECURITY.md: floods of offers).
    public static let maxOffersPerPeer = 16
    /// See `maxOffersPerPeer`.
    public static let maxOffersTotal = 256
    /// How many periods an approval that states no total accepts without the user (or the series' count when
    /// smaller); then its requests wait for the user until it is approved again.
    public static let defaultApprovedPeriods = 12
    /// The reason a series offer with fixed-length periods is declined when this daemon does not take them.
    public static let testPeriodsReason =
        "test periods (periodSeconds) are not enabled here ([subscriptions] accept_test_periods)"

    /// Offers a subscription series to `payer`, commits it and sends the `series` offer. The payee's daemon then
    /// requests each period once the payer approves (`tick`).
    ///
    /// - Parameters:
    ///   - start: when the first period falls due (default: now).
    ///   - timeZone: the payee's time zone identifier, in which due dates are kept.
    ///   - periodSeconds: fixed-length periods instead of calendar ones (`[subscriptions] period_seconds`).
    ///   - wait: how long to wait for the payer's daemon to acknowledge the offer; the record returned says whether
    ///     it did (`outMessageID` nil).
    public func offerSeries(
        to payer: PeerID, amount: Money, period: SubscriptionPeriod, start: Timestamp? = nil, count: Int? = nil,
        memo: String, category: String?, timeZone: String, periodSeconds: Int64? = nil, wait: Duration = .zero,
        now: Timestamp = .now
    ) async throws(EngineError) -> SeriesRecord {
        if let count, !(1...Limits.maxSeriesCount).contains(count) {
            throw .invalid("a series has 1 to \(Limits.maxSeriesCount) periods")
        }
        let offer: SeriesOffer
        do {
            offer = try SeriesOffer(
                payee: me, payer: payer, amount: amount, period: period, start: start ?? now, count: count,
                timeZone: timeZone, periodSeconds: periodSeconds, memo: memo, category: category)
        } catch {
            throw .invalid(error.description)
        }
        let seriesID = UUID.timeOrdered()
        let messageID = UUID.timeOrdered()
        let (outcome, answer) = try await perform(
            concerning: payer, awaitingAnswerTo: messageID, for: wait, if: { $0.series != nil }
        ) { [self] ledger in
            var outcome = StepOutcome()
            let plan = try planSend(to: payer, ledger: ledger, now: now)
            guard let session = plan.session else {
                outcome.refusal = .peerUnreachable(payer)
                return outcome
            }
            if let missing = missingCapability(
                PaymentMessage.subscriptionsCapability, with: session.peerID, for: "subscriptions")
            {
                outcome.refusal = .notPermitted("\(missing): nothing was offered")
                return outcome
            }
            var record = SeriesRecord(id: seriesID, offer: offer, role: .payee, state: .offered, now: now)
            let frame = try encoded(
                .series(.init(action: .offer, messageID: messageID, seriesID: seriesID, offer: offer)))
            record.outMessageID = messageID
            record.outFrame = Data(frame)
            var change = LedgerChange()
            change.series = record
            try ledger.apply(change)
            outcome.add(plan.transmission(then: [], answer: nil))
            outcome.transmissions.append(Transmission(session: session, bodies: [frame]))
            outcome.events = [.seriesUpdated(record)]
            outcome.series = record
            logger.info(
                "subscription offered",
                metadata: [
                    "series": "\(seriesID.wireString)", "payer": "\(payer.shortDescription)",
                    "amount": "\(amount)", "every": "\(period.rawValue)",
                ])
            return outcome
        }
        guard let record = outcome.series else { throw .storage("the offer step returned no series") }
        return Self.delivered(record, messageID: messageID, answer: answer)
    }

    /// `record` as its frame `messageID` left it, marked delivered when the peer's daemon acknowledged that frame
    /// while the command waited (the ledger's copy was updated by the ack's own step).
    static func delivered(_ record: SeriesRecord, messageID: UUID, answer: AckWaiters.Outcome?) -> SeriesRecord {
        guard case .answered = answer, record.outMessageID == messageID else { return record }
        var delivered = record
        delivered.outMessageID = nil
        delivered.outFrame = nil
        return delivered
    }

    /// Applies the local user's command to a series, commits it and sends the frame (or keeps it for the peer's
    /// next session).
    ///
    /// With `wait`, waits that long for the peer's daemon to acknowledge the frame; the record returned says whether
    /// it did (`outMessageID` nil).
    public func command(
        _ command: SeriesCommand, seriesID: UUID, wait: Duration = .zero, now: Timestamp = .now
    ) async throws(EngineError) -> SeriesRecord {
        let messageID = UUID.timeOrdered()
        let (outcome, answer) = try await perform(
            concerning: nil, awaitingAnswerTo: messageID, for: wait,
            if: { $0.series?.outMessageID == messageID && !$0.transmissions.isEmpty }
        ) { [self] ledger in
            try seriesCommandStep(command, seriesID: seriesID, messageID: messageID, ledger: ledger, now: now)
        }
        guard let record = outcome.series else { throw .storage("the series step returned no series") }
        return Self.delivered(record, messageID: messageID, answer: answer)
    }

    private func seriesCommandStep(
        _ command: SeriesCommand, seriesID: UUID, messageID: UUID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard var record = try ledger.series(id: seriesID) else {
            outcome.refusal = .notFound(kind: "series", text: seriesID.wireString)
            return outcome
        }
        let amount = try record.amount
        let event: SeriesEvent
        let action: PaymentMessage.Series.Action
        var reason: String?
        var approval: (periods: Int?, totalMinor: Int64?)?
        switch command {
        case .approve(let cap, let periods, let total, let named):
            guard record.role == .payer else {
                outcome.refusal = .notPermitted("only the payer approves a series")
                return outcome
            }
            if !record.state.isFinal, named != record.peerID, try !ledger.isPaired(record.peerID) {
                // An offer from a peer that is not paired is never approved as a contact's by mistake: the user names
                // the peer by its ID (S-IMPOSTOR).
                outcome.refusal = .unpairedOffer(record.peerID)
                return outcome
            }
            if let periods, !(1...Limits.maxSeriesCount).contains(periods) {
                outcome.refusal = .invalid("an approval covers 1 to \(Limits.maxSeriesCount) periods")
                return outcome
            }
            if let total, total.currency != amount.currency || total.minorUnits <= 0 {
                outcome.refusal = .seriesAmount(field: "total", currency: amount.currency)
                return outcome
            }
            approval =
                periods == nil && total == nil
                ? (min(record.count ?? Self.defaultApprovedPeriods, Self.defaultApprovedPeriods), nil)
                : (periods, total?.minorUnits)
            if record.state == .approved, let approval {
                // A renewal: a new cap and total, counted from now; the payee learns nothing it needs.
                if let cap, cap.currency != amount.currency || cap.minorUnits <= 0 {
                    outcome.refusal = .seriesAmount(field: "cap", currency: amount.currency)
                    return outcome
                }
                record.capMinor = (cap ?? amount).minorUnits
                record.approvedPeriods = approval.periods
                record.approvedTotalMinor = approval.totalMinor
                record.autoAccepted = 0
                record.autoAcceptedMinor = 0
                record.updatedAt = now
                var change = LedgerChange()
                change.series = record
                try ledger.apply(change)
                outcome.events = [.seriesUpdated(record)]
                outcome.series = record
                logger.info("subscription approval renewed", metadata: ["series": "\(record.id.wireString)"])
                return outcome
            }
            event = .approve(cap: cap ?? amount)
            action = .approve
        case .decline(let text):
            guard record.role == .payer else {
                outcome.refusal = .notPermitted("only the payer declines a series; the payee ends it (unsubscribe)")
                return outcome
            }
            event = .decline
            action = .decline
            reason = text
        case .end(let text):
            event = .end
            action = .end
            reason = text
        }
        if let reason,
            reason.unicodeScalars.count > Limits.maxReasonLength || SafeText.forbiddenScalar(in: reason) != nil
        {
            outcome.refusal = .textRefused(field: "reason", max: Limits.maxReasonLength)
            return outcome
        }
        if action != .end,
            let missing = missingCapability(
                PaymentMessage.subscriptionsCapability, with: record.peerID, for: "subscriptions")
        {
            // The answer could never be delivered (PROTOCOL.md §7.11): refused here rather than kept and reported
            // done. Ending stays possible: it stops this side's automatic acceptance whether or not the peer hears.
            outcome.refusal = .notPermitted(
                "\(missing): the \(action.rawValue) could never be delivered; nothing changed")
            return outcome
        }
        let next: SeriesState
        do {
            next = try SeriesMachine.apply(event, to: record.state, amount: amount)
        } catch {
            outcome.refusal = .notPermitted(error.description)
            return outcome
        }
        outcome.series = record
        guard next != record.state else { return outcome }
        record.state = next
        record.updatedAt = now
        if case .approve(let cap) = event { record.capMinor = cap.minorUnits }
        if let approval {
            record.approvedPeriods = approval.periods
            record.approvedTotalMinor = approval.totalMinor
            record.autoAccepted = 0
            record.autoAcceptedMinor = 0
        }
        if next.isFinal {
            record.reason = reason
            record.endedBy = record.role
        }
        let frame = try encoded(
            .series(
                .init(
                    action: action, messageID: messageID, seriesID: record.id,
                    cap: action == .approve ? try record.cap : nil, reason: reason)))
        // One frame per series waits for the peer: a later one (end after approve) replaces an earlier one, since it
        // carries the state the peer must reach.
        record.outMessageID = messageID
        record.outFrame = Data(frame)
        let plan = try planSend(to: record.peerID, ledger: ledger, now: now)
        var change = LedgerChange()
        change.series = record
        try ledger.apply(change)
        if let session = plan.session, link.shares(PaymentMessage.subscriptionsCapability, on: session) {
            outcome.add(plan.transmission(then: [], answer: nil))
            // The flush already holds this series' new frame when it was the first send on the session.
            if !plan.seriesFlush.contains(frame) {
                outcome.transmissions.append(Transmission(session: session, bodies: [frame]))
            }
        } else {
            outcome.add(plan.transmission(then: [], answer: nil))
        }
        outcome.events = [.seriesUpdated(record)]
        outcome.series = record
        logger.info(
            "subscription \(action.rawValue)",
            metadata: ["series": "\(record.id.wireString)", "state": "\(record.state.rawValue)"])
        return outcome
    }

    // MARK: Frames

    /// The step of a `series` frame from `peer`.
    func receiveSeries(
        _ frame: PaymentMessage.Series, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        switch frame.action {
        case .offer: return try receiveOffer(frame, from: peer, ledger: ledger, now: now)
        case .approve, .decline, .end: return try receiveSeriesDecision(frame, from: peer, ledger: ledger, now: now)
        case .ack: return try receiveSeriesAck(frame, from: peer, ledger: ledger, now: now)
        }
    }

    private func seriesAck(_ frame: PaymentMessage.Series, state: SeriesState) -> PaymentMessage {
        .series(.init(action: .ack, messageID: frame.messageID, seriesID: frame.seriesID, state: state))
    }

    private func receiveOffer(
        _ frame: PaymentMessage.Series, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        guard let offer = frame.offer, offer.payee == peer, offer.payer == me else {
            return try answering(
                .error(.init(code: .notAuthorized, message: "series not between you and me", ref: frame.messageID)),
                to: peer)
        }
        if let existing = try ledger.series(id: frame.seriesID) {
            // The same offer again (a resend): answered with the current state. An ID in use by any other series
            // gets one refusal, whoever it belongs to (forged series IDs, SECURITY.md).
            guard existing.peerID == peer, existing.role == .payer else {
                return try answering(
                    .error(.init(code: .notAuthorized, message: "series ID not available", ref: frame.messageID)),
                    to: peer)
            }
            return try answering(seriesAck(frame, state: existing.state), to: peer)
        }
        guard try ledger.makeRoomForOffer(from: peer, perPeer: Self.maxOffersPerPeer, total: Self.maxOffersTotal)
        else {
            Limit.offers.hit()
            logger.notice(
                "subscription offer refused: too many offers waiting",
                metadata: ["peer": "\(peer.shortDescription)", "series": "\(frame.seriesID.wireString)"])
            return try answering(
                .error(
                    .init(
                        code: .limitExceeded, message: "too many subscription offers waiting; resend later",
                        ref: frame.messageID)),
                to: peer)
        }
        var record = SeriesRecord(id: frame.seriesID, offer: offer, role: .payer, state: .offered, now: now)
        if acceptFrom == .paired, try !ledger.isPaired(peer) {
            // accept_from = paired: stored already declined, so that the user is not asked.
            record.state = .declined
            record.reason = Self.notPairedReason
            record.endedBy = .payer
        } else if offer.periodSeconds != nil, !acceptTestPeriods {
            // Fixed-length periods are a payee's test setting: taken only when this daemon's own configuration
            // says so. Otherwise a "monthly" offer of 1 s periods was billed every second (S-STRETCH).
            record.state = .declined
            record.reason = Self.testPeriodsReason
            record.endedBy = .payer
        }
        var change = LedgerChange()
        change.series = record
        try ledger.apply(change)
        var outcome = try answering(seriesAck(frame, state: record.state), to: peer)
        outcome.events = [.seriesUpdated(record)]
        logger.info(
            "subscription offered to us",
            metadata: [
                "series": "\(record.id.wireString)", "payee": "\(peer.shortDescription)",
                "state": "\(record.state.rawValue)",
            ])
        return outcome
    }

    private func receiveSeriesDecision(
        _ frame: PaymentMessage.Series, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        guard var record = try ledger.series(id: frame.seriesID), record.peerID == peer else {
            // An end for a series we do not have is already true here.
            if frame.action == .end { return try answering(seriesAck(frame, state: .ended), to: peer) }
            return try answering(
                .error(.init(code: .unknownPayment, message: "unknown series", ref: frame.messageID)), to: peer)
        }
        let event: SeriesEvent
        switch frame.action {
        case .approve:
            guard record.role == .payee, let cap = frame.cap else {
                return try answering(
                    .error(.init(code: .notAuthorized, message: "only the payer approves", ref: frame.messageID)),
                    to: peer)
            }
            event = .approve(cap: cap)
        case .decline:
            guard record.role == .payee else {
                return try answering(
                    .error(.init(code: .notAuthorized, message: "only the payer declines", ref: frame.messageID)),
                    to: peer)
            }
            event = .decline
        default:
            event = .end
        }
        var outcome = StepOutcome()
        let amount = try record.amount
        // A refused event (an approve of an ended series, say) leaves the state as it is; the ack tells the peer.
        if let next = try? SeriesMachine.apply(event, to: record.state, amount: amount),
            next != record.state
        {
            record.state = next
            record.updatedAt = now
            if case .approve(let cap) = event { record.capMinor = cap.minorUnits }
            if next.isFinal {
                record.reason = frame.reason
                record.endedBy = record.role == .payee ? .payer : .payee
                // Nothing of ours about this series is worth resending any more.
                record.outMessageID = nil
                record.outFrame = nil
            }
            var change = LedgerChange()
            change.series = record
            try ledger.apply(change)
            outcome.events = [.seriesUpdated(record)]
            logger.info(
                "subscription \(frame.action.rawValue) by the peer",
                metadata: ["series": "\(record.id.wireString)", "state": "\(record.state.rawValue)"])
        }
        let answer = try encoded(seriesAck(frame, state: record.state))
        let plan = try planSend(to: peer, ledger: ledger, now: now)
        outcome.add(plan.transmission(then: [], answer: answer))
        if record.state == .approved, record.role == .payee {
            // The latest period due goes out at once rather than at the next tick.
            try scheduleSeries(ledger: ledger, now: now, into: &outcome, only: record.id)
        }
        return outcome
    }

    private func receiveSeriesAck(
        _ frame: PaymentMessage.Series, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard var record = try ledger.series(id: frame.seriesID), record.peerID == peer,
            record.outMessageID == frame.messageID
        else {
            logger.debug("series ack for no pending frame", metadata: ["message": "\(frame.messageID.wireString)"])
            return outcome
        }
        record.outMessageID = nil
        record.outFrame = nil
        record.updatedAt = now
        // A command waiting for this acknowledgement (`command(_:seriesID:wait:)`) learns it was delivered.
        outcome.answered = [(frame.messageID, .answered(nil))]
        // The peer's state wins when it is final and ours is not (it ended the series before our frame arrived).
        if let state = frame.state, state.isFinal, !record.state.isFinal {
            record.state = state
            record.endedBy = record.role == .payee ? .payer : .payee
            outcome.events = [.seriesUpdated(record)]
        }
        var change = LedgerChange()
        change.series = record
        try ledger.apply(change)
        return outcome
    }

    // MARK: Periods

    /// Requests, for every approved series of ours (or only `seriesID`), the latest period due and not yet
    /// requested (PROTOCOL.md §8.6: once; earlier missed periods are skipped). Each request is committed with the
    /// series' progress in one change, under an ID derived from the series and period, so a crash before or after
    /// the commit can never give the payer two requests for one period.
    func scheduleSeries(
        ledger: Ledger, now: Timestamp, into outcome: inout StepOutcome, only seriesID: UUID? = nil
    ) throws {
        for var series in try ledger.seriesToSchedule() where seriesID == nil || series.id == seriesID {
            let calendar = series.calendar
            guard
                // An open-ended series still stops at the protocol's largest period index.
                let index = calendar.periodToRequest(
                    at: now, lastRequested: series.lastIndex, count: series.count ?? Limits.maxSeriesCount)
            else { continue }
            let nextDue = calendar.due(index + 1)
            let lifetime = min(max(nextDue.secondsSince1970 - now.secondsSince1970, 3_600), Limits.maxRequestLifetime)
            let payment: PaymentRequest
            do {
                payment = try PaymentRequest(
                    id: SeriesMachine.instanceID(series: series.id, index: index), payee: me, payer: series.payerID,
                    amount: try series.amount, memo: series.memo, category: series.category, createdAt: now,
                    expiresAt: now.adding(seconds: lifetime), series: SeriesLink(seriesID: series.id, index: index))
            } catch {
                logger.error(
                    "cannot build a subscription's request", metadata: ["series": "\(series.id)", "error": "\(error)"])
                continue
            }
            series.lastIndex = index
            series.updatedAt = now
            var change = LedgerChange()
            change.series = series
            if try ledger.payment(id: payment.id) == nil {
                let messageID = SeriesMachine.instanceMessageID(series: series.id, index: index)
                let (lifecycle, actions) = PaymentLifecycle.newRequest(payment, messageID: messageID)
                let record = PaymentRecord(request: payment, lifecycle: lifecycle, now: now)
                let plan = try planSend(to: series.payerID, ledger: ledger, now: now)
                change.payment = record
                change.events = [
                    .init(
                        paymentID: payment.id, at: now, from: nil, to: .pending, cause: .created, messageID: messageID,
                        detail: "period \(index + 1) of subscription \(series.id.wireString)")
                ]
                change.outbox = try outboxRecords(
                    for: actions, payment: record, now: now, sending: plan.session != nil)
                let stored = try ledger.apply(change)
                outcome.add(plan.transmission(then: stored, answer: nil))
                outcome.events.append(.paymentUpdated(record))
                logger.info(
                    "subscription period requested",
                    metadata: [
                        "series": "\(series.id.wireString)", "period": "\(index)",
                        "payment": "\(payment.id.wireString)",
                    ])
            } else {
                try ledger.apply(change)
            }
        }
    }

    /// On the payer's side, for a new request naming a series: accepts it without the user when the series is
    /// ours with this payee, approved, the amount within the cap, and the period the latest one due and later than
    /// the last accepted so (the series, with that period as its `lastIndex`, is returned to be written with the
    /// payment); otherwise it stays pending. A request naming a series we do not have with this peer loses the link
    /// (it is an ordinary request).
    func standingApproval(
        for record: inout PaymentRecord, lifecycle: inout PaymentLifecycle, from peer: PeerID, ledger: Ledger,
        now: Timestamp
    ) throws -> (
        events: [PaymentEventRecord], actions: [PaymentLifecycle.Action], detail: String?, series: SeriesRecord?
    ) {
        guard let seriesID = record.seriesID, let index = record.seriesIndex else { return ([], [], nil, nil) }
        // A period's payment ID is derived from the series and the period (PROTOCOL.md §8.6), so that one period
        // can never be two payments: a request of ours with another ID, or naming a series we do not keep with
        // this payee, is an ordinary request. So is one naming a series never approved (still offered, or declined
        // or ended before any approval): linked, it made its series a row that could never be pruned, and 256 such
        // (16 keys, 16 offers each) refused every later offer from anyone, for good.
        let series = try ledger.series(id: seriesID)
        let why: String? =
            if let series, series.role == .payer, series.peerID == peer,
                record.id == SeriesMachine.instanceID(series: seriesID, index: index)
            {
                series.capMinor == nil ? "request names a subscription never approved" : nil
            } else {
                "request names a series we do not keep with this peer, or has another ID than its period's"
            }
        guard let series, why == nil else {
            logger.notice(
                "\(why ?? "request names no series of ours"); handled as an ordinary request",
                metadata: ["payment": "\(record.id.wireString)", "series": "\(seriesID.wireString)"])
            record.seriesID = nil
            record.seriesIndex = nil
            return ([], [], nil, nil)
        }
        let amount = try record.amount
        var decision = SeriesMachine.decide(
            amount: amount, index: index, state: series.state, cap: try series.cap, count: series.count)
        if decision == .acceptAutomatically,
            let why = SeriesMachine.timing(
                index: index, now: now, calendar: series.calendar, count: series.count, lastIndex: series.lastIndex,
                lastAt: series.autoAcceptedAt)
        {
            // The payee asks for the latest period due, once (§8.6); the payer holds it to that, and to one period
            // per period of wall time. Without this, a series offered with a start years back had every period since
            // accepted at once, and one of 1 s periods started 300 s back had 601 accepted in 7.5 s.
            decision = .askUser(why)
        } else if decision == .acceptAutomatically, series.approvalUsed(adding: amount) {
            // The approval's total is used up: the user approves again, or accepts each request.
            decision = .askUser(.approvalUsed)
        }
        guard decision == .acceptAutomatically else {
            if case .askUser(let why) = decision {
                logger.info(
                    "request of a subscription waits for the user",
                    metadata: ["payment": "\(record.id.wireString)", "why": "\(why.rawValue)"])
            }
            return ([], [], nil, nil)
        }
        var accepted = series
        accepted.lastIndex = index
        accepted.autoAccepted += 1
        let (sum, overflow) = accepted.autoAcceptedMinor.addingReportingOverflow(amount.minorUnits)
        accepted.autoAcceptedMinor = overflow ? .max : sum
        accepted.autoAcceptedAt = now
        accepted.updatedAt = now
        let acceptID = UUID.timeOrdered()
        let actions = lifecycle.handle(.localAccept(messageID: acceptID), now: now)
        let detail =
            "accepted automatically: subscription \(seriesID.wireString) approved up to \(try series.cap?.description ?? "?")"
        let events = Self.transitionEvents(
            actions, paymentID: record.id, now: now, cause: .local, messageID: acceptID
        ).map { event in
            var event = event
            event.detail = detail
            return event
        }
        record.update(from: lifecycle, now: now)
        return (events, actions, detail, accepted)
    }
}
