public import Foundation
public import InterPayCore
public import InterPayStore

extension PaymentEngine {
    /// Asks each of `payers` for its share of a bill (PROTOCOL.md §8.8): the shares (`BillSplit.even` or `.named`,
    /// in the order of `payers`) become one request each, made and committed with the bill in one step, and sent.
    /// A share's request carries the bill's ID and its number of payers to a payer whose session announces `bills`;
    /// to any other it is a plain request. Refused, changing nothing, when a payer is named twice, is this side, or
    /// has no session (as `request` is). Returns the bill and its shares.
    public func split(
        payers: [PeerID], shares: [Money], total: Money, memo: String, category: String?, expiresIn seconds: Int64,
        now: Timestamp = .now
    ) async throws(EngineError) -> (bill: BillRecord, shares: [PaymentRecord]) {
        guard payers.count == shares.count, Set(payers).count == payers.count else {
            throw .invalid("each payer of a bill is named once, with one share")
        }
        guard !payers.contains(me) else { throw .invalid("you cannot be a payer of your own bill") }
        do {
            _ = try BillSplit.named(shares, total: total)
        } catch {
            throw .invalid(error.description)
        }
        let bill = BillRecord(
            id: UUID.timeOrdered(), total: total, memo: memo, category: category, payers: payers.count, createdAt: now)
        var requests: [(PaymentRequest, UUID)] = []
        for (payer, share) in zip(payers, shares) {
            do {
                let request = try PaymentRequest(
                    id: UUID.timeOrdered(), payee: me, payer: payer, amount: share, memo: memo, category: category,
                    createdAt: now, expiresAt: now.adding(seconds: seconds),
                    bill: BillLink(billID: bill.id, payers: payers.count))
                requests.append((request, UUID.timeOrdered()))
            } catch {
                throw .invalid(error.description)
            }
        }
        let made = requests
        let outcome = try await perform(concerning: nil) { [self] ledger in
            try splitStep(bill, requests: made, ledger: ledger, now: now)
        }
        return (bill, outcome.bill ?? [])
    }

    private func splitStep(
        _ bill: BillRecord, requests: [(PaymentRequest, UUID)], ledger: Ledger, now: Timestamp
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        // Every payer is reachable, or nothing is made: a bill is asked of all its payers at once.
        var plans: [PaymentEngine.SendPlan] = []
        for (request, _) in requests {
            let plan = try planSend(to: request.payer, ledger: ledger, now: now)
            guard plan.session != nil else {
                outcome.refusal = .peerUnreachable(request.payer)
                return outcome
            }
            plans.append(plan)
        }
        try ledger.insertBill(bill)
        var records: [PaymentRecord] = []
        for (index, ((request, messageID), plan)) in zip(requests, plans).enumerated() {
            // The bill member only where the session speaks it (§8.8): elsewhere the share is a plain request.
            let linked = link.shares(BillLink.capability, on: plan.session)
            let sent =
                linked
                ? request
                : try PaymentRequest(
                    id: request.id, payee: request.payee, payer: request.payer, amount: request.amount,
                    memo: request.memo, category: request.category, createdAt: request.createdAt,
                    expiresAt: request.expiresAt)
            let (lifecycle, actions) = PaymentLifecycle.newRequest(sent, messageID: messageID)
            var record = PaymentRecord(request: sent, lifecycle: lifecycle, now: now)
            record.billID = bill.id
            record.billIndex = index
            record.billPayers = bill.payers
            var change = LedgerChange(
                payment: record,
                events: [
                    .init(
                        paymentID: record.id, at: now, from: nil, to: .pending, cause: .created, messageID: messageID,
                        detail: Self.billDetailPrefix + bill.id.wireString)
                ])
            change.paymentIsNew = true
            change.outbox = try outboxRecords(for: actions, payment: record, now: now, sending: true)
            let stored = try ledger.apply(change)
            outcome.add(plan.transmission(then: stored, answer: nil))
            records.append(record)
        }
        outcome.bill = records
        outcome.events = records.map { .paymentUpdated($0) }
        logger.info(
            "bill sent",
            metadata: [
                "bill": "\(bill.id.wireString)", "payers": "\(bill.payers)",
                "total": "\(bill.totalMinor) minor units of \(bill.currency)",
            ])
        return outcome
    }

    /// The prefix of the detail of a share's first event, followed by its bill's ID.
    public static let billDetailPrefix = "share of bill "

    /// Cancels a bill of this side's (PROTOCOL.md §8.8): each share still pending is cancelled (E3), in one step;
    /// what was accepted stays. Returns the bill's shares as they are after it.
    public func cancelBill(_ id: UUID, now: Timestamp = .now) async throws(EngineError) -> [PaymentRecord] {
        let outcome = try await perform(concerning: nil) { [self] ledger in
            try cancelBillStep(id, ledger: ledger, now: now)
        }
        return outcome.bill ?? []
    }

    private func cancelBillStep(_ id: UUID, ledger: Ledger, now: Timestamp) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard try ledger.bill(id: id) != nil else {
            outcome.refusal = .notFound(kind: "bill", text: id.wireString)
            return outcome
        }
        var shares = try ledger.shares(ofBill: id)
        try ledger.markBillCancelled(id, at: now)
        for index in BillState.sharesToCancel(shares.map(\.state)) {
            var record = shares[index]
            var lifecycle = record.lifecycle
            let messageID = UUID.timeOrdered()
            let actions = lifecycle.handle(.localCancel(messageID: messageID), now: now)
            var change = LedgerChange(
                events: Self.transitionEvents(
                    actions, paymentID: record.id, now: now, cause: .local, messageID: messageID))
            guard !change.events.isEmpty else { continue }  // expired meanwhile: nothing to cancel
            record.update(from: lifecycle, now: now)
            change.payment = record
            let plan = try planSend(to: record.peerID, ledger: ledger, now: now)
            change.outbox = try outboxRecords(for: actions, payment: record, now: now, sending: plan.session != nil)
            let stored = try ledger.apply(change)
            outcome.add(plan.transmission(then: stored, answer: nil))
            outcome.events.append(.paymentUpdated(record))
            shares[index] = record
        }
        outcome.bill = shares
        return outcome
    }
}
