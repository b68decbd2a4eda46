public import Foundation
public import InterPayCore
public import InterPayStore

extension PaymentEngine {
    /// What the local user can decide.
    public enum Decision: Sendable {
        /// The payer pays.
        case accept
        /// The payer declines, with an optional reason shown to the payee.
        case reject(reason: String?)
        /// The payee withdraws the request.
        case cancel
    }

    /// Creates a payment request asking `payer` to pay `amount`, commits it, and sends it; with `wait` above zero,
    /// waits that long at most for the payer's ack and returns the payment as the ack left it.
    ///
    /// With an `idempotencyKey`, a second `request` with the same key within 24 hours returns the payment the first
    /// one created (whatever became of it), and the same key with other parameters is a conflict: a client that
    /// lost its connection after the daemon committed can retry without paying twice. The key is committed in the
    /// payment's own transaction.
    public func request(
        from payer: PeerID, amount: Money, memo: String, category: String?, expiresIn seconds: Int64,
        idempotencyKey: String? = nil, wait: Duration = .zero, now: Timestamp = .now
    ) async throws(EngineError) -> PaymentRecord {
        try await requestReportingDelivery(
            from: payer, amount: amount, memo: memo, category: category, expiresIn: seconds,
            idempotencyKey: idempotencyKey, wait: wait, now: now
        ).view.record
    }

    /// `request`, with its peer's names (read in the request's own transaction, so that an answer needs no read of
    /// its own), and whether the payer's daemon acknowledged the request within `wait`: nil when nothing was awaited
    /// (no wait, or an idempotent retry that returned the payment made before), false when it had not (the request
    /// stays queued and is resent until it is acknowledged).
    public func requestReportingDelivery(
        from payer: PeerID, amount: Money, memo: String, category: String?, expiresIn seconds: Int64,
        idempotencyKey: String? = nil, wait: Duration = .zero, now: Timestamp = .now
    ) async throws(EngineError) -> (view: PaymentView, delivered: Bool?) {
        let fingerprint = Self.fingerprint(
            payer: payer, amount: amount, memo: memo, category: category, expiresIn: seconds)
        let payment: PaymentRequest
        do {
            payment = try PaymentRequest(
                id: UUID.timeOrdered(), payee: me, payer: payer, amount: amount, memo: memo, category: category,
                createdAt: now,
                expiresAt: now.adding(seconds: seconds))
        } catch {
            throw .invalid(error.description)
        }
        let messageID = UUID.timeOrdered()
        // An idempotent retry returns the original payment, whose frame is not this one: nothing to wait for.
        let (outcome, answer) = try await perform(
            concerning: payer, awaitingAnswerTo: messageID, for: wait, if: { $0.record?.id == payment.id }
        ) { [self] ledger in
            try requestStep(
                payment, messageID: messageID, idempotencyKey: idempotencyKey, fingerprint: fingerprint,
                ledger: ledger, now: now)
        }
        guard var view = outcome.view else { throw .storage("the request step returned no payment") }
        switch answer {
        case .answered(let answered?):
            view.record = answered
            return (view, true)
        case .answered(nil), .dropped: return (view, true)
        case .timedOut: return (view, false)
        case nil: return (view, nil)
        }
    }

    private func requestStep(
        _ payment: PaymentRequest, messageID: UUID, idempotencyKey: String?, fingerprint: String, ledger: Ledger,
        now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        if let idempotencyKey, let stored = try ledger.sendKey(idempotencyKey, now: now) {
            guard stored.fingerprint == fingerprint else {
                outcome.refusal = .keyReused(idempotencyKey)
                return outcome
            }
            if let original = try ledger.payment(id: stored.paymentID) {
                outcome.record = original
                outcome.view = try ledger.paymentView(of: original)
                return outcome
            }
        }
        let plan = try planSend(to: payment.payer, ledger: ledger, now: now)
        guard plan.session != nil else {
            outcome.refusal = .peerUnreachable(payment.payer)
            return outcome
        }
        let (lifecycle, actions) = PaymentLifecycle.newRequest(payment, messageID: messageID)
        let record = PaymentRecord(request: payment, lifecycle: lifecycle, now: now)
        var change = LedgerChange(
            payment: record,
            events: [
                .init(paymentID: payment.id, at: now, from: nil, to: .pending, cause: .created, messageID: messageID)
            ])
        change.paymentIsNew = true  // its ID is made here, now
        change.outbox = try outboxRecords(for: actions, payment: record, now: now, sending: true)
        change.sendKey = idempotencyKey.map {
            SendKeyRecord(key: $0, paymentID: payment.id, fingerprint: fingerprint, createdAt: now)
        }
        let stored = try ledger.apply(change)
        outcome.add(plan.transmission(then: stored, answer: nil))
        outcome.record = record
        outcome.view = try ledger.paymentView(of: record)
        logger.info(
            "request sent",
            metadata: [
                "payment": "\(payment.id.wireString)", "payer": "\(payment.payer.shortDescription)",
                "amount": "\(payment.amount)",
            ])
        return outcome
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

    /// Applies the local user's decision, commits it, sends the frame, and (for a payer) waits up to `wait` for the
    /// payee's authoritative answer: woken by the step that commits the answer, not by polling.
    public func decide(
        _ decision: Decision, paymentID: UUID, wait: Duration = .seconds(5), now: Timestamp = .now
    ) async throws(EngineError) -> PaymentRecord {
        let quote: Quote? =
            if case .accept = decision, let acceptanceQuote, let amount = await amountToQuote(paymentID) {
                // The quote comes from cached rates, read before the step (a step waits on nothing but the ledger).
                await acceptanceQuote(amount)
            } else {
                nil
            }
        let messageID = UUID.timeOrdered()
        return try await performAwaitingAnswer(messageID: messageID, paymentID: paymentID, wait: wait) {
            [self] ledger in
            try decisionStep(
                decision, paymentID: paymentID, messageID: messageID, quote: quote, ledger: ledger, now: now)
        }
    }

    private func decisionStep(
        _ decision: Decision, paymentID: UUID, messageID: UUID, quote: Quote?, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        try localStep(paymentID: paymentID, messageID: messageID, ledger: ledger, now: now) { _ in
            switch decision {
            case .accept: .success(.localAccept(messageID: messageID))
            case .reject(let reason): .success(.localReject(messageID: messageID, reason: reason))
            case .cancel: .success(.localCancel(messageID: messageID))
            }
        } adjust: { record, entered in
            if case .reject(let reason) = decision, entered.contains(where: { $0.toState == .rejected }) {
                record.reason = reason
            }
            if record.state == .accepted { record.storeAcceptanceQuote(quote) }
        }
    }

    /// The amount of `paymentID` to quote an acceptance of; nil when there is no such payment, or it cannot be read
    /// (logged; the step reads it again and reports what fails there).
    private func amountToQuote(_ paymentID: UUID) async -> Money? {
        do {
            return try await database.payment(id: paymentID)?.amount
        } catch {
            logger.warning(
                "cannot read a payment to quote its acceptance",
                metadata: ["payment": "\(paymentID)", "error": "\(error)"])
            return nil
        }
    }
}
