import Foundation
import InterPayCore
import Testing

@Suite("Payment lifecycle state machine")
struct PaymentLifecycleTests {
    @Test("every (role, state, event, time) pair matches the reviewed transition table")
    func exhaustiveTable() throws {
        let url = RepositoryFiles.root.appending(path: "Tests/InterPayCoreTests/Fixtures/lifecycle-transitions.txt")
        let expected = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        let actual = LifecycleHarness.allRows.map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        // 18 starting points × 18 events, plus the "late" variants for pending and unconfirmed states.
        #expect(actual.count == 432)
        #expect(expected.count == actual.count)
        for (want, got) in zip(expected, actual) {
            #expect(want == got)
        }
    }

    @Test("a received request is pending, or expired when it arrives too late; both are acknowledged")
    func receivedRequest() throws {
        let payment = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 1_000))
        let message = UUID()
        let (fresh, freshActions) = PaymentLifecycle.receivedRequest(
            payment, messageID: message, now: Timestamp(secondsSince1970: 999))
        #expect(fresh.state == .pending)
        #expect(freshActions == [.acknowledge(messageID: message, state: .pending, reasonCode: nil)])
        let (late, lateActions) = PaymentLifecycle.receivedRequest(
            payment, messageID: message, now: Timestamp(secondsSince1970: 1_000))
        #expect(late.state == .expired)
        #expect(
            lateActions == [
                .transition(from: .pending, to: .expired),
                .acknowledge(messageID: message, state: .expired, reasonCode: .alreadyExpired),
            ])
    }

    @Test("a new request is pending on the payee's side and sends the request frame")
    func newRequest() throws {
        let payment = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 1_000))
        let message = UUID()
        let (lifecycle, actions) = PaymentLifecycle.newRequest(payment, messageID: message)
        #expect(lifecycle.state == .pending && lifecycle.role == .payee && lifecycle.isConfirmed)
        #expect(actions == [.send(.request(.init(messageID: message, payment: payment)))])
    }

    /// The payer's and the payee's actions, which may cross on the wire in any order.
    enum PayerMove: CaseIterable { case accept, reject, acceptAndPay, none }
    enum PayeeMove: CaseIterable { case cancel, settle, none }

    @Test(
        "crossing actions end in one final state on both sides, in every delivery order",
        arguments: PayerMove.allCases, PayeeMove.allCases)
    func crossing(payerMove: PayerMove, payeeMove: PayeeMove) throws {
        let orders = try CrossingSimulation.explore(payerMove: payerMove, payeeMove: payeeMove)
        #expect(orders.count > 1 || (payerMove == .none && payeeMove != .cancel))
        for outcome in orders {
            #expect(outcome.payee.state == outcome.payer.state, "\(outcome.trace)")
            // The payer's own decision is always answered; only a state both sides reached alone stays unconfirmed.
            #expect(
                outcome.payer.isConfirmed || [.pending, .expired].contains(outcome.payer.state), "\(outcome.trace)")
            let accepts = payerMove == .accept || payerMove == .acceptAndPay
            let decision: PaymentState? = accepts ? .accepted : payerMove == .reject ? .rejected : nil
            var possible: Set<PaymentState?> = [payeeMove == .cancel ? .cancelled : nil, decision, .expired]
            if payerMove == .acceptAndPay { possible.insert(.paid) }
            if payeeMove == .settle && accepts { possible.insert(.settled) }
            #expect(possible.contains(outcome.payee.state), "\(outcome.trace)")
            // Once accepted, settlement always runs to its end: the payee's settle wins over the payer's paid.
            if outcome.payee.state.isAccepted {
                let expected: PaymentState =
                    payeeMove == .settle ? .settled : payerMove == .acceptAndPay ? .paid : .accepted
                #expect(outcome.payee.state == expected, "\(outcome.trace)")
            }
        }
    }

    @Test("without any action both sides expire on their own clocks")
    func bothExpire() throws {
        let payment = try Fixtures.payment(expiresAt: Timestamp(secondsSince1970: 1_000))
        var (payee, _) = PaymentLifecycle.newRequest(payment, messageID: UUID())
        var (payer, _) = PaymentLifecycle.receivedRequest(
            payment, messageID: UUID(), now: Timestamp(secondsSince1970: 10))
        let late = Timestamp(secondsSince1970: 1_000)
        #expect(payee.handle(.tick, now: late) == [.transition(from: .pending, to: .expired)])
        #expect(payer.handle(.tick, now: late) == [.transition(from: .pending, to: .expired)])
        #expect(payee.state == .expired && payer.state == .expired)
    }

    @Test("lifecycles survive a round trip through storage")
    func codable() throws {
        var lifecycle = PaymentLifecycle(paymentID: UUID(), role: .payer, expiresAt: Timestamp(secondsSince1970: 9))
        _ = lifecycle.handle(.localAccept(messageID: UUID()), now: Timestamp(secondsSince1970: 1))
        let data = try JSONEncoder().encode(lifecycle)
        #expect(try JSONDecoder().decode(PaymentLifecycle.self, from: data) == lifecycle)
        #expect(!lifecycle.isConfirmed)
    }
}
