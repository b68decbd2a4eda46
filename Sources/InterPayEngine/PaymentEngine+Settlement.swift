public import Foundation
public import InterPayCore
public import InterPayStore

/// What a payee needs to sign receipts: its identity key and the name it signs under.
public struct ReceiptIssuer: Sendable {
    /// The identity key (its peer ID must be the engine's own).
    public let signer: ReceiptSigner
    /// This node's display name, written into receipts as the payee's name.
    public let name: String

    /// Pairs a key and a name.
    public init(signer: ReceiptSigner, name: String) {
        self.signer = signer
        self.name = name
    }
}

extension PaymentEngine {
    /// The payer marks an accepted payment paid (money handed over by `method`, with an optional `reference`),
    /// commits it, sends the `paid` frame, and waits up to `wait` for the payee's answer (as `decide` does).
    ///
    /// Refused when the payee has not confirmed the acceptance, and when the peer's current session lacks the
    /// `receipts` capability (it could not understand the frame). Without a session the frame waits in the outbox.
    public func markPaid(
        paymentID: UUID, method: PaymentMethod?, reference: String?, wait: Duration = .seconds(5),
        now: Timestamp = .now
    ) async throws(EngineError) -> PaymentRecord {
        if let reference {
            guard (1...Limits.maxReferenceLength).contains(reference.unicodeScalars.count),
                SafeText.forbiddenScalar(in: reference) == nil
            else {
                throw .invalid(
                    "the reference must be 1 to \(Limits.maxReferenceLength) characters without control characters")
            }
        }
        let messageID = UUID.timeOrdered()
        return try await performAwaitingAnswer(messageID: messageID, paymentID: paymentID, wait: wait) {
            [self] ledger in
            try paidStep(
                paymentID: paymentID, messageID: messageID, method: method, reference: reference, ledger: ledger,
                now: now)
        }
    }

    /// The payee confirms the money arrived: the payment becomes `settled`, a receipt signed with this node's key
    /// is stored with it, and the `settle` frame carrying the receipt goes to the payer (unless the payer's current
    /// session lacks the `receipts` capability: then the settlement is recorded here only).
    public func settle(paymentID: UUID, now: Timestamp = .now) async throws(EngineError) -> PaymentRecord {
        let messageID = UUID.timeOrdered()
        let outcome = try await perform(concerning: nil) { [self] ledger in
            try settleStep(paymentID: paymentID, messageID: messageID, ledger: ledger, now: now)
        }
        guard let record = outcome.record else { throw .storage("the settle step returned no payment") }
        return record
    }

    private func paidStep(
        paymentID: UUID, messageID: UUID, method: PaymentMethod?, reference: String?, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard var record = try ledger.payment(id: paymentID) else {
            outcome.refusal = .notFound("payment \(paymentID.wireString)")
            return outcome
        }
        if record.role == .payer, let session = link.session(with: record.peerID), !session.supportsReceipts {
            outcome.refusal = .notPermitted(
                "\(session.name) does not support settlement (no '\(PaymentMessage.receiptsCapability)' capability): "
                    + "it cannot record the payment; no receipt is available")
            outcome.record = record
            return outcome
        }
        var lifecycle = record.lifecycle
        let actions = lifecycle.handle(
            .localPaid(messageID: messageID, method: method, reference: reference), now: now)
        var change = LedgerChange()
        change.events = Self.transitionEvents(
            actions, paymentID: paymentID, now: now, cause: .local, messageID: messageID)
        if change.events.contains(where: { $0.toState == .paid }) {
            record.paidMethod = method
            record.paidReference = reference
        }
        if !change.events.isEmpty {
            record.update(from: lifecycle, now: now)
            change.payment = record
            outcome.events.append(.paymentUpdated(record))
        }
        try commitSends(actions, record: record, change: &change, outcome: &outcome, ledger: ledger, now: now)
        outcome.record = record
        outcome.refusal = Self.refusal(in: actions)
        return outcome
    }

    private func settleStep(
        paymentID: UUID, messageID: UUID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard var record = try ledger.payment(id: paymentID) else {
            outcome.refusal = .notFound("payment \(paymentID.wireString)")
            return outcome
        }
        // The receipt is made before the lifecycle runs (the frame carries it); it is dropped if the step refuses.
        var receipt: SignedReceipt?
        if record.role == .payee, record.state == .accepted || record.state == .paid, let receiptIssuer {
            receipt = try makeReceipt(for: record, issuer: receiptIssuer, ledger: ledger, now: now)
        }
        var lifecycle = record.lifecycle
        var actions = lifecycle.handle(.localSettle(messageID: messageID, receipt: receipt?.text), now: now)
        var change = LedgerChange()
        change.events = Self.transitionEvents(
            actions, paymentID: paymentID, now: now, cause: .local, messageID: messageID)
        if !change.events.isEmpty {
            record.update(from: lifecycle, now: now)
            if record.receipt == nil { record.receipt = receipt?.text }
            change.payment = record
            outcome.events.append(.paymentUpdated(record))
        }
        if let session = link.session(with: record.peerID), !session.supportsReceipts {
            // A peer without the capability cannot read `settle`: the settlement is recorded on this side only.
            actions.removeAll { if case .send = $0 { true } else { false } }
            logger.notice(
                "settled without telling the payer: its daemon does not support receipts",
                metadata: ["payment": "\(paymentID.wireString)", "payer": "\(session.name)"])
        }
        try commitSends(actions, record: record, change: &change, outcome: &outcome, ledger: ledger, now: now)
        outcome.record = record
        outcome.refusal = Self.refusal(in: actions)
        if outcome.refusal == nil {
            logger.info("payment settled", metadata: ["payment": "\(paymentID.wireString)"])
        }
        return outcome
    }

    /// The receipt for settling `record` now, signed with the issuer's key.
    private func makeReceipt(
        for record: PaymentRecord, issuer: ReceiptIssuer, ledger: Ledger, now: Timestamp
    ) throws -> SignedReceipt {
        var quote: Receipt.Quote?
        if let code = record.quoteCurrency, let minor = record.quoteMinor, let rate = record.quoteRate,
            let at = record.quoteRatesAt
        {
            quote = Receipt.Quote(
                amount: Money(minorUnits: minor, currency: try CurrencyCode(code)), rate: rate, ratesAt: at)
        }
        let terms = Receipt(
            paymentID: record.id, payeeID: me, payeeName: issuer.name, payerID: record.payerID,
            payerName: try ledger.peerName(record.payerID) ?? record.payerID.shortDescription,
            amount: try record.amount, memo: record.memo, category: record.category,
            acceptedAt: record.acceptedAt ?? record.updatedAt, settledAt: now, method: record.paidMethod,
            reference: record.paidReference, quote: quote, payeeKey: issuer.signer.publicKeyDER)
        return try SignedReceipt.sign(terms, with: issuer.signer)
    }

    /// Plans the sends among `actions`, adds their outbox rows to `change`, commits it, and queues the frames.
    private func commitSends(
        _ actions: [PaymentLifecycle.Action], record: PaymentRecord, change: inout LedgerChange,
        outcome: inout StepOutcome, ledger: Ledger, now: Timestamp
    ) throws {
        let sends = actions.contains { if case .send = $0 { true } else { false } }
        let plan = sends ? try planSend(to: record.peerID, ledger: ledger, now: now) : SendPlan(session: nil)
        change.outbox = try outboxRecords(for: actions, payment: record, now: now, sending: plan.session != nil)
        let stored = change.isEmpty ? [] : try ledger.apply(change)
        outcome.add(plan.transmission(then: stored, answer: nil))
    }

    /// The engine error for a refusal among `actions`, if any.
    static func refusal(in actions: [PaymentLifecycle.Action]) -> EngineError? {
        for case .refuse(let refusal) in actions {
            switch refusal {
            case .conflict(let reason): return .conflict(reason)
            case .alreadySettling: return .alreadySettling(refusal.description)
            case .wrongRole, .wrongSettlementRole, .notAccepted: return .notPermitted(refusal.description)
            }
        }
        return nil
    }

    // MARK: Frames

    /// The payee's step for the payer's `paid` frame.
    func receivePaid(
        _ frame: PaymentMessage.Paid, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws
        -> StepOutcome
    {
        try receivePeerStep(
            .peerPaid(messageID: frame.messageID), messageID: frame.messageID, paymentID: frame.paymentID, from: peer,
            ledger: ledger, now: now
        ) { record, events in
            if events.contains(where: { $0.toState == .paid }) {
                record.paidMethod = frame.method
                record.paidReference = frame.reference
            }
        }
    }

    /// The payer's step for the payee's `settle` frame: the receipt is kept if it verifies and is about this
    /// payment between these two peers, with its amount, memo and category; a settlement without a valid receipt is
    /// still the payee's word.
    func receiveSettle(
        _ frame: PaymentMessage.Settle, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws
        -> StepOutcome
    {
        try receivePeerStep(
            .peerSettle(messageID: frame.messageID), messageID: frame.messageID, paymentID: frame.paymentID,
            from: peer, ledger: ledger, now: now
        ) { [self] record, _ in
            guard record.state == .settled, record.receipt == nil, let text = frame.receipt else { return }
            do {
                let signed = try SignedReceipt(verifying: text)
                let terms = signed.receipt
                guard terms.paymentID == record.id, terms.payeeID == peer, terms.payerID == me,
                    terms.amount.minorUnits == record.amountMinor, terms.amount.currency.code == record.currency,
                    terms.memo == record.memo, terms.category == record.category
                else {
                    logger.notice(
                        "receipt refused: it is not about this payment",
                        metadata: ["payment": "\(record.id.wireString)", "peer": "\(peer.shortDescription)"])
                    return
                }
                record.receipt = signed.text
            } catch {
                logger.notice(
                    "receipt refused: \(error)",
                    metadata: ["payment": "\(record.id.wireString)", "peer": "\(peer.shortDescription)"])
            }
        }
    }
}
