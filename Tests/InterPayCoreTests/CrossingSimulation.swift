import Foundation
import InterPayCore

/// Runs a payer and a payee lifecycle against each other through two in-flight frame queues and explores every
/// interleaving of: each side's local move, each delivery, and (once) the clock passing `expiresAt`.
enum CrossingSimulation {
    struct Outcome {
        var payer: PaymentLifecycle
        var payee: PaymentLifecycle
        var trace: [String]
    }

    private struct World {
        var payer: PaymentLifecycle
        var payee: PaymentLifecycle
        var toPayee: [PaymentMessage] = []
        var toPayer: [PaymentMessage] = []
        var payerMoved = false
        var payerPaid = false
        var payeeMoved = false
        var expired = false
        var trace: [String] = []
        var now: Timestamp { expired ? Timestamp(secondsSince1970: 1_000) : Timestamp(secondsSince1970: 100) }
    }

    static func explore(
        payerMove: PaymentLifecycleTests.PayerMove, payeeMove: PaymentLifecycleTests.PayeeMove
    )
        throws -> [Outcome]
    {
        let payment = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 1_000))
        let (payee, _) = PaymentLifecycle.newRequest(payment, messageID: UUID())
        let (payer, _) = PaymentLifecycle.receivedRequest(
            payment, messageID: UUID(), now: Timestamp(secondsSince1970: 1))
        var outcomes: [Outcome] = []
        var stack = [World(payer: payer, payee: payee)]
        while var world = stack.popLast() {
            var next: [World] = []
            if !world.payerMoved && payerMove != .none {
                var w = world
                w.payerMoved = true
                let event: PaymentLifecycle.Event =
                    payerMove == .reject
                    ? .localReject(messageID: UUID(), reason: nil) : .localAccept(messageID: UUID())
                w.toPayee += sends(w.payer.handle(event, now: w.now))
                w.trace.append("payer \(payerMove)")
                next.append(w)
            }
            // The payer marks it paid once the payee confirmed the acceptance (the command is refused before).
            if payerMove == .acceptAndPay, !world.payerPaid, world.payer.state == .accepted, world.payer.isConfirmed {
                var w = world
                w.payerPaid = true
                w.toPayee += sends(
                    w.payer.handle(.localPaid(messageID: UUID(), method: .cash, reference: nil), now: w.now))
                w.trace.append("payer paid")
                next.append(w)
            }
            if !world.payeeMoved && payeeMove == .cancel {
                var w = world
                w.payeeMoved = true
                w.toPayer += sends(w.payee.handle(.localCancel(messageID: UUID()), now: w.now))
                w.trace.append("payee cancel")
                next.append(w)
            }
            // The payee settles once the payment is accepted or paid on its side.
            if !world.payeeMoved && payeeMove == .settle && [.accepted, .paid].contains(world.payee.state) {
                var w = world
                w.payeeMoved = true
                w.toPayer += sends(w.payee.handle(.localSettle(messageID: UUID(), receipt: nil), now: w.now))
                w.trace.append("payee settle")
                next.append(w)
            }
            if !world.expired {
                var w = world
                w.expired = true
                _ = w.payer.handle(.tick, now: w.now)
                _ = w.payee.handle(.tick, now: w.now)
                w.trace.append("clock passes expiry")
                next.append(w)
            }
            if !world.toPayee.isEmpty {
                var w = world
                let frame = w.toPayee.removeFirst()
                w.toPayer += deliver(frame, to: &w.payee, now: w.now)
                w.trace.append("payee receives \(frame.type)")
                next.append(w)
            }
            if !world.toPayer.isEmpty {
                var w = world
                let frame = w.toPayer.removeFirst()
                w.toPayee += deliver(frame, to: &w.payer, now: w.now)
                w.trace.append("payer receives \(frame.type)")
                next.append(w)
            }
            if next.isEmpty {
                world.trace.append("end: payer \(world.payer.state) payee \(world.payee.state)")
                outcomes.append(Outcome(payer: world.payer, payee: world.payee, trace: world.trace))
            }
            stack += next
        }
        return outcomes
    }

    private static func sends(_ actions: [PaymentLifecycle.Action]) -> [PaymentMessage] {
        actions.compactMap { if case .send(let message) = $0 { message } else { nil } }
    }

    /// Feeds a frame to a lifecycle and returns the acks it answers with.
    private static func deliver(
        _ frame: PaymentMessage, to lifecycle: inout PaymentLifecycle, now: Timestamp
    )
        -> [PaymentMessage]
    {
        let event: PaymentLifecycle.Event
        switch frame {
        case .accept(let decision): event = .peerAccept(messageID: decision.messageID)
        case .reject(let rejection): event = .peerReject(messageID: rejection.messageID, reason: rejection.reason)
        case .cancel(let decision): event = .peerCancel(messageID: decision.messageID)
        case .paid(let paid): event = .peerPaid(messageID: paid.messageID)
        case .settle(let settle): event = .peerSettle(messageID: settle.messageID)
        case .ack(let ack): event = .peerAck(state: ack.state, reasonCode: ack.reasonCode)
        default: return []
        }
        return lifecycle.handle(event, now: now).compactMap { action in
            guard case .acknowledge(let messageID, let state, let reason) = action else { return nil }
            return .ack(.init(ackedID: messageID, paymentID: lifecycle.paymentID, state: state, reasonCode: reason))
        }
    }
}
