public import Foundation
public import InterPayCore
public import InterPayStore

extension PaymentEngine {
    /// The payee gives back `amount` (decimal text in the payment's currency, read with `decimalSeparator`; nil: all
    /// that is left) of its accepted,
    /// paid or settled payment `paymentID`, saying why in `memo` (PROTOCOL.md §8.7, F1–F4).
    ///
    /// One step: the refund is committed `settled` (a payment from this side to the payer, linked by `refundOf`),
    /// with a refund receipt signed by this node's key, and its `refund` frame goes to the payer, resent until
    /// acknowledged. Refused, changing nothing, when the payment is not this side's to refund, was never accepted,
    /// has less left than `amount` or 16 refunds already, or when the payer's current session lacks `refunds`.
    /// Returns the refund.
    public func refund(
        paymentID: UUID, amount: String?, decimalSeparator: DecimalSeparator = .point, memo: String,
        now: Timestamp = .now
    ) async throws(EngineError) -> PaymentRecord {
        guard memo.unicodeScalars.count <= Limits.maxMemoLength, SafeText.forbiddenScalar(in: memo) == nil else {
            throw .textRefused(field: "memo", max: Limits.maxMemoLength)
        }
        let refundID = UUID.timeOrdered()
        let messageID = UUID.timeOrdered()
        let outcome = try await perform(concerning: nil) { [self] ledger in
            try refundStep(
                paymentID: paymentID, amount: amount, separator: decimalSeparator, memo: memo, refundID: refundID,
                messageID: messageID, ledger: ledger, now: now)
        }
        guard let record = outcome.record else { throw .storage("the refund step returned no payment") }
        return record
    }

    /// What payment `original` carries of refunds, as the rules see it.
    func refundState(of original: PaymentRecord, ledger: Ledger) throws -> RefundRules.Original {
        let totals = try ledger.refundTotals(of: original.id)
        return RefundRules.Original(
            role: original.role, state: original.state, amount: try original.amount, refundedMinor: totals.minor,
            refunds: totals.count)
    }

    private func refundStep(
        paymentID: UUID, amount text: String?, separator: DecimalSeparator, memo: String, refundID: UUID,
        messageID: UUID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard let original = try ledger.payment(id: paymentID) else {
            outcome.refusal = .notFound(kind: "payment", text: paymentID.wireString)
            return outcome
        }
        guard original.refundOf == nil else {
            outcome.refusal = .notPermitted("a refund is not refunded: it gives money back already")
            return outcome
        }
        if let missing = missingCapability(PaymentMessage.refundsCapability, with: original.peerID, for: "refunds") {
            outcome.refusal = .notPermitted("\(missing); nothing was refunded")
            return outcome
        }
        let state = try refundState(of: original, ledger: ledger)
        let amount: Money
        if let text {
            do {
                amount = try Money(parsing: text, currency: state.amount.currency, decimalSeparator: separator)
            } catch {
                outcome.refusal = .invalid(error.description)
                return outcome
            }
        } else {
            amount = state.left
        }
        if let refusal = RefundRules.give(amount, of: state) {
            outcome.refusal = .notPermitted(refusal.description + "; nothing was refunded")
            return outcome
        }
        let terms = try PaymentRequest(
            id: refundID, payee: original.payerID, payer: me, amount: amount, memo: memo,
            category: original.category, createdAt: now, expiresAt: now.adding(seconds: Self.refundLifetime))
        var refund = PaymentRecord(request: terms, role: .payer, state: .settled, confirmed: true, now: now)
        refund.refundOf = original.id
        refund.acceptedAt = now
        refund.settledAt = now
        if let receiptIssuer {
            let receipt = Receipt(
                paymentID: refundID, payeeID: me, payeeName: receiptIssuer.name, payerID: original.payerID,
                // The name the payer announces, which its daemon checks against its own (PROTOCOL.md §17.4).
                payerName: try link.session(with: original.payerID)?.name
                    ?? ledger.announcedName(original.payerID) ?? original.payerID.shortDescription,
                amount: amount, memo: memo, category: nil, acceptedAt: original.acceptedAt ?? original.createdAt,
                settledAt: now, method: nil, reference: nil, quote: nil, payeeKey: receiptIssuer.signer.publicKeyDER,
                refundOf: original.id)
            refund.receipt = try SignedReceipt.sign(receipt, with: receiptIssuer.signer).text
        }
        let frame = PaymentMessage.refund(
            .init(
                messageID: messageID, paymentID: refundID, refundOf: original.id, amount: amount, memo: memo,
                createdAt: now, receipt: refund.receipt))
        let plan = try planSend(to: original.peerID, ledger: ledger, now: now)
        var queued = try OutboxRecord(
            message: frame, to: original.peerID, createdAt: now, retryUntil: nil, codec: codec)
        if plan.session != nil {
            queued.attempts = 1
            queued.lastSentAt = now
        }
        var change = LedgerChange(
            payment: refund,
            events: [
                PaymentEventRecord(
                    paymentID: refundID, at: now, from: nil, to: .settled, cause: .created, messageID: messageID,
                    detail: Self.refundDetailPrefix + original.id.wireString)
            ])
        change.paymentIsNew = true
        change.outbox = [queued]
        let stored = try ledger.apply(change)
        outcome.add(plan.transmission(then: stored, answer: nil))
        outcome.record = refund
        outcome.events = [.paymentUpdated(refund), .paymentUpdated(original)]
        logger.info(
            "refund given",
            metadata: [
                "payment": "\(original.id.wireString)", "refund": "\(refundID.wireString)", "amount": "\(amount)",
            ])
        return outcome
    }

    /// The prefix of the detail of a refund's first event, followed by the refunded payment's ID.
    public static let refundDetailPrefix = "refund of "

    /// A refund's `expiresAt` after its `createdAt`: a payment row needs one, and a refund, settled from the start,
    /// never expires; the default lifetime of a request (PROTOCOL.md §10) keeps it within every bound.
    static let refundLifetime: Int64 = 900

    /// The payer's step for the payee's `refund` frame (PROTOCOL.md §8.7, F5–F9): stored `settled` and
    /// acknowledged, with its receipt if it verifies and states this refund; or refused with an `error`, storing
    /// nothing.
    func receiveRefund(
        _ frame: PaymentMessage.Refund, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        if let again = try duplicateAnswer(frame.messageID, from: peer, ledger: ledger) { return again }
        func refuse(_ code: PaymentMessage.ErrorFrame.Code, _ text: String) throws -> StepOutcome {
            try answering(.error(.init(code: code, message: text, ref: frame.messageID)), to: peer)
        }
        if frame.createdAt > now.adding(seconds: Limits.maxClockSkew) {
            return try refuse(
                .malformedFrame,
                "invalid field 'createdAt': more than \(Limits.maxClockSkew) s ahead of the receiver's clock")
        }
        if let existing = try ledger.payment(id: frame.paymentID) {
            // This refund again under a new message ID (F6): its state, nothing else. Any other payment's ID gets the
            // one refusal that tells nothing of whose it is (PROTOCOL.md §7.3).
            guard existing.refundOf == frame.refundOf, existing.peerID == peer, existing.role == .payee else {
                return try refuse(.notAuthorized, "payment ID not available")
            }
            return try answering(
                .ack(.init(ackedID: frame.messageID, paymentID: existing.id, state: existing.state, reasonCode: nil)),
                to: peer)
        }
        guard let original = try ledger.payment(id: frame.refundOf), original.peerID == peer,
            original.refundOf == nil
        else {
            return try refuse(.unknownPayment, "unknown payment")
        }
        if let refusal = RefundRules.take(frame.amount, of: try refundState(of: original, ledger: ledger)) {
            logger.notice(
                "refund refused: \(refusal)",
                metadata: ["payment": "\(original.id.wireString)", "peer": "\(peer.shortDescription)"])
            return try refuse(.notAuthorized, refusal.description)
        }
        if try isFuturePeriodOfOurs(frame.paymentID, payer: peer, ledger: ledger) {
            return try refuse(.notAuthorized, "payment ID not available")
        }
        let terms: PaymentRequest
        do {
            terms = try PaymentRequest(
                id: frame.paymentID, payee: me, payer: peer, amount: frame.amount, memo: frame.memo,
                category: original.category, createdAt: frame.createdAt,
                expiresAt: frame.createdAt.adding(seconds: Self.refundLifetime))
        } catch {
            return try refuse(.malformedFrame, error.description)
        }
        var refund = PaymentRecord(request: terms, role: .payee, state: .settled, confirmed: true, now: now)
        refund.refundOf = original.id
        refund.acceptedAt = now
        refund.settledAt = now
        var events = [
            PaymentEventRecord(
                paymentID: refund.id, at: now, from: nil, to: .settled, cause: .received, messageID: frame.messageID,
                detail: Self.refundDetailPrefix + original.id.wireString)
        ]
        if let text = frame.receipt {
            let expected = ReceiptExpectation(
                paymentID: refund.id, payeeID: peer, payerID: me, payerName: link.name, amount: frame.amount,
                memo: frame.memo, category: nil, method: nil, reference: nil,
                acceptedAt: original.acceptedAt ?? original.createdAt, now: now, refundOf: original.id)
            let refusal: String?
            do {
                let signed = try SignedReceipt(verifying: text)
                refusal = signed.receipt.mismatch(with: expected)
                if refusal == nil { refund.receipt = signed.text }
            } catch {
                refusal = "\(error)"
            }
            if let refusal {
                logger.notice(
                    "refund receipt refused: \(refusal)",
                    metadata: ["refund": "\(refund.id.wireString)", "peer": "\(peer.shortDescription)"])
                events.append(
                    PaymentEventRecord(
                        paymentID: refund.id, at: now, from: .settled, to: .settled, cause: .peer,
                        messageID: frame.messageID, detail: Self.receiptRefusedPrefix + refusal))
            }
        }
        let answer = PaymentMessage.ack(
            .init(ackedID: frame.messageID, paymentID: refund.id, state: .settled, reasonCode: nil))
        let seenRow = try seen(frame.messageID, from: peer, payment: refund.id, answer: answer, now: now)
        var change = LedgerChange(payment: refund, events: events, seenMessage: seenRow)
        change.paymentIsNew = true
        let plan = try planSend(to: peer, ledger: ledger, now: now)
        let stored = try ledger.apply(change)
        var outcome = StepOutcome()
        outcome.add(plan.transmission(then: stored, answer: Array(seenRow.response)))
        outcome.events = [.paymentUpdated(refund), .paymentUpdated(original)]
        logger.info(
            "refund received",
            metadata: [
                "payment": "\(original.id.wireString)", "refund": "\(refund.id.wireString)",
                "amount": "\(frame.amount)",
            ])
        return outcome
    }
}
