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
                throw .textRefused(field: "reference", max: Limits.maxReferenceLength)
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
    /// is stored with it, and the `settle` frame carrying the receipt goes to the payer. Refused, changing nothing,
    /// when the payer's current session (or this side) lacks the `receipts` capability: the payer could never be
    /// told (PROTOCOL.md §8.5). Without a session the frame waits in the outbox.
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
        try localStep(paymentID: paymentID, messageID: messageID, ledger: ledger, now: now) { [self] record in
            if let refusal = settlementRefusal(
                record, as: .payer,
                "the payee cannot record the payment; nothing was marked paid and no receipt will come")
            {
                return .failure(refusal)
            }
            return .success(.localPaid(messageID: messageID, method: method, reference: reference))
        } adjust: { record, entered in
            if entered.contains(where: { $0.toState == .paid }) {
                record.paidMethod = method
                record.paidReference = reference
            }
        }
    }

    private func settleStep(
        paymentID: UUID, messageID: UUID, ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var receipt: SignedReceipt?
        let outcome = try localStep(paymentID: paymentID, messageID: messageID, ledger: ledger, now: now) {
            [self] record in
            // The states `paid` and `settled` exist only between peers that both announce `receipts` (PROTOCOL.md
            // §14): settled here alone, the payer could never be told, nor get its receipt.
            if let refusal = settlementRefusal(
                record, as: .payee,
                "the payer cannot be told or given a receipt; nothing was settled (the payment stays "
                    + "\(record.state.rawValue))")
            {
                return .failure(refusal)
            }
            // The receipt is made before the lifecycle runs (the frame carries it); it is dropped if the step refuses.
            if record.role == .payee, record.state == .accepted || record.state == .paid, let receiptIssuer {
                receipt = try makeReceipt(for: record, issuer: receiptIssuer, ledger: ledger, now: now)
            }
            return .success(.localSettle(messageID: messageID, receipt: receipt?.text))
        } adjust: { record, _ in
            if record.receipt == nil { record.receipt = receipt?.text }
        }
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
            // The name the payer announces (PROTOCOL.md §17.1), which its daemon checks against its own; not the
            // name it is shown under here (pinned at pairing, or renamed), which the payer cannot know.
            payerName: try link.session(with: record.payerID)?.name ?? ledger.announcedName(record.payerID)
                ?? record.payerID.shortDescription,
            amount: try record.amount, memo: record.memo, category: record.category,
            acceptedAt: record.acceptedAt ?? record.updatedAt, settledAt: now, method: record.paidMethod,
            reference: record.paidReference, quote: quote, payeeKey: issuer.signer.publicKeyDER)
        return try SignedReceipt.sign(terms, with: issuer.signer)
    }

    /// Why the frames of `capability` cannot be spoken with `peer` now, naming `what` they are for, or nil: this
    /// side does not announce it, or the peer's current session did not. Without a session nothing is known yet, and
    /// the frame waits in the outbox (a session without the capability then drops it, `planSend`).
    func missingCapability(_ capability: String, with peer: PeerID, for what: String) -> String? {
        if !link.capabilities.contains(capability) {
            return "this daemon does not support \(what) (it does not announce the '\(capability)' capability)"
        }
        if let session = link.session(with: peer), !session.capabilities.contains(capability) {
            return "\(session.name) (\(peer.shortDescription)) does not support \(what) (no '\(capability)' "
                + "capability)"
        }
        return nil
    }

    /// Refuses a settlement command by the side playing `role` when the peer's current session (or this side) lacks
    /// the `receipts` capability; `consequence` tells the user what did not happen.
    private func settlementRefusal(_ record: PaymentRecord, as role: PaymentRole, _ consequence: String) -> EngineError?
    {
        guard record.role == role,
            let missing = missingCapability(PaymentMessage.receiptsCapability, with: record.peerID, for: "settlement")
        else { return nil }
        return .notPermitted("\(missing): \(consequence)")
    }

    /// The engine error for a refusal among `actions`, if any; `state` is the payment's state after them.
    static func refusal(in actions: [PaymentLifecycle.Action], state: PaymentState) -> EngineError? {
        for case .refuse(let refusal) in actions {
            switch refusal {
            case .conflict(let reason): return .conflict(reason, state: state)
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

    /// The prefix of the event detail that records why a payee's receipt was refused (`show` and `receipt` say so).
    public static let receiptRefusedPrefix = "receipt refused: "

    /// The payer's step for the payee's `settle` frame: the receipt is kept if it verifies and states this payment as
    /// this side holds it (`Receipt.mismatch(with:)`: the peers, the terms, this side's name, the method and reference
    /// of its own `paid`, times within the payment's life on this clock); a settlement without a valid receipt is
    /// still the payee's word, and a refused receipt is recorded with the reason in the settlement's event.
    func receiveSettle(
        _ frame: PaymentMessage.Settle, from peer: PeerID, ledger: Ledger, now: Timestamp
    ) throws
        -> StepOutcome
    {
        try receivePeerStep(
            .peerSettle(messageID: frame.messageID), messageID: frame.messageID, paymentID: frame.paymentID,
            from: peer, ledger: ledger, now: now
        ) { [self] record, events in
            guard record.state == .settled, record.receipt == nil, let text = frame.receipt else { return }
            let refusal: String
            do {
                let signed = try SignedReceipt(verifying: text)
                let expected = ReceiptExpectation(
                    paymentID: record.id, payeeID: peer, payerID: me, payerName: link.name, amount: try record.amount,
                    memo: record.memo, category: record.category, method: record.paidMethod,
                    reference: record.paidReference, acceptedAt: record.acceptedAt ?? record.createdAt, now: now)
                guard let mismatch = signed.receipt.mismatch(with: expected) else {
                    record.receipt = signed.text
                    return
                }
                refusal = mismatch
            } catch {
                refusal = "\(error)"
            }
            logger.notice(
                "receipt refused: \(refusal)",
                metadata: ["payment": "\(record.id.wireString)", "peer": "\(peer.shortDescription)"])
            // Recorded only with a frame that changed the payment (its settlement): a settle of a payment settled
            // already changes nothing, and is not stored however often it comes (PROTOCOL.md §9.2).
            guard !events.isEmpty else { return }
            events.append(
                PaymentEventRecord(
                    paymentID: record.id, at: now, from: .settled, to: .settled, cause: .peer,
                    messageID: frame.messageID, detail: Self.receiptRefusedPrefix + refusal))
        }
    }
}
