import Foundation
import InterPayCore
import InterPayStore

extension PaymentEngine {
    /// What a local command's step does to an existing payment, the part `decide`, `markPaid` and `settle` share:
    /// the payment read (a missing one is refused), `event` (the command's own check, giving the lifecycle event or a
    /// refusal that changes nothing), the lifecycle's answer to that event with its transitions recorded as caused
    /// locally, `adjust` on the record when a transition happened (the command's own fields, after the lifecycle's),
    /// and the change committed with its frames, which go to the peer's session once committed.
    func localStep(
        paymentID: UUID, messageID: UUID, ledger: Ledger, now: Timestamp,
        event: (PaymentRecord) throws -> Result<PaymentLifecycle.Event, EngineError>,
        adjust: (inout PaymentRecord, _ entered: [PaymentEventRecord]) -> Void = { _, _ in }
    ) throws -> StepOutcome {
        var outcome = StepOutcome()
        guard var record = try ledger.payment(id: paymentID) else {
            outcome.refusal = .notFound(kind: "payment", text: paymentID.wireString)
            return outcome
        }
        let handled: PaymentLifecycle.Event
        switch try event(record) {
        case .success(let prepared):
            handled = prepared
        case .failure(let refusal):
            outcome.refusal = refusal
            outcome.record = record
            return outcome
        }
        var lifecycle = record.lifecycle
        let actions = lifecycle.handle(handled, now: now)
        var change = LedgerChange()
        change.events = Self.transitionEvents(
            actions, paymentID: paymentID, now: now, cause: .local, messageID: messageID)
        if !change.events.isEmpty {
            record.update(from: lifecycle, now: now)
            adjust(&record, change.events)
            change.payment = record
            outcome.events.append(.paymentUpdated(record))
        }
        let sends = actions.contains { if case .send = $0 { true } else { false } }
        let plan = sends ? try planSend(to: record.peerID, ledger: ledger, now: now) : SendPlan(session: nil)
        change.outbox = try outboxRecords(for: actions, payment: record, now: now, sending: plan.session != nil)
        let stored = change.isEmpty ? [] : try ledger.apply(change)
        outcome.add(plan.transmission(then: stored, answer: nil))
        outcome.record = record
        outcome.refusal = Self.refusal(in: actions, state: record.state)
        return outcome
    }
}
