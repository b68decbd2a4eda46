#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The lifecycle of one payment request on one side, as a pure state machine.
///
/// Feed it an `Event` and the current time; it updates its state and returns the `Action`s the caller must carry
/// out (persist the transition, send a frame, acknowledge a frame, refuse a local command). It does no I/O and
/// never reads a clock.
///
/// The payee is authoritative for the final state. A payer's own accept or reject is *unconfirmed* until the
/// payee's `ack` arrives, and the payer adopts whatever state the payee reports, so an accept that crosses a cancel
/// ends as `cancelled` on both sides and the accept's sender learns the reason `ACLR`.
public struct PaymentLifecycle: Sendable, Hashable, Codable {
    /// The payment this lifecycle is for.
    public let paymentID: UUID
    /// This side's role.
    public let role: PaymentRole
    /// When the payment expires if still pending.
    public let expiresAt: Timestamp
    /// The current state on this side.
    public private(set) var state: PaymentState
    /// Whether the state is the payee's word. Always true on the payee's side; on the payer's side false after a
    /// local accept, reject or expiry until the payee's answer (an `ack` or a `cancel`) arrives.
    public private(set) var isConfirmed: Bool

    /// Restores a lifecycle from storage, or starts one.
    public init(
        paymentID: UUID, role: PaymentRole, expiresAt: Timestamp, state: PaymentState = .pending,
        isConfirmed: Bool = true
    ) {
        self.paymentID = paymentID
        self.role = role
        self.expiresAt = expiresAt
        self.state = state
        self.isConfirmed = role == .payee ? true : isConfirmed
    }

    /// Starts the payee's side of a new request: `pending`, with the `request` frame to send.
    public static func newRequest(_ payment: PaymentRequest, messageID: UUID) -> (PaymentLifecycle, [Action]) {
        let lifecycle = PaymentLifecycle(paymentID: payment.id, role: .payee, expiresAt: payment.expiresAt)
        return (lifecycle, [.send(.request(.init(messageID: messageID, payment: payment)))])
    }

    /// Starts the payer's side from a received `request`: `pending`, or `expired` when it arrived too late.
    /// Either way the request is acknowledged with the resulting state.
    public static func receivedRequest(
        _ payment: PaymentRequest, messageID: UUID, now: Timestamp
    )
        -> (PaymentLifecycle, [Action])
    {
        var lifecycle = PaymentLifecycle(paymentID: payment.id, role: .payer, expiresAt: payment.expiresAt)
        var actions: [Action] = []
        if now >= payment.expiresAt {
            lifecycle.move(to: .expired, confirmed: false, actions: &actions)
        }
        actions.append(
            .acknowledge(messageID: messageID, state: lifecycle.state, reasonCode: lifecycle.state.conflictReason))
        return (lifecycle, actions)
    }

    /// What can happen to a payment.
    public enum Event: Sendable, Hashable {
        /// The local user (payer) accepts; `messageID` is for the `accept` frame.
        case localAccept(messageID: UUID)
        /// The local user (payer) rejects, optionally with a reason.
        case localReject(messageID: UUID, reason: String?)
        /// The local user (payee) cancels.
        case localCancel(messageID: UUID)
        /// The peer's `accept` frame arrived.
        case peerAccept(messageID: UUID)
        /// The peer's `reject` frame arrived.
        case peerReject(messageID: UUID, reason: String?)
        /// The peer's `cancel` frame arrived.
        case peerCancel(messageID: UUID)
        /// The peer's `ack` of one of our frames arrived, with the peer's state.
        case peerAck(state: PaymentState, reasonCode: ReasonCode?)
        /// Time passed: check expiry.
        case tick
    }

    /// What the caller must do after an event, in order.
    public enum Action: Sendable, Hashable {
        /// Persist the new state (and record the event that caused it) before doing anything else.
        case transition(from: PaymentState, to: PaymentState)
        /// Persist that the payer's unconfirmed state is now the payee's word (the state itself did not change).
        case confirmed(PaymentState)
        /// Send this frame to the peer, after the transition is committed, and resend until acknowledged.
        case send(PaymentMessage)
        /// Acknowledge the peer's frame with our resulting state (after committing).
        case acknowledge(messageID: UUID, state: PaymentState, reasonCode: ReasonCode?)
        /// The local command was refused; nothing changed (or only an expiry was recorded).
        case refuse(Refusal)
        /// The peer sent a frame its role may not send; answer with an `error` frame, change nothing.
        case violation(messageID: UUID, String)
    }

    /// Why a local command was refused.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The payment is already final (or, for the payer, already decided and awaiting the payee).
        case conflict(ReasonCode)
        /// This side's role cannot do that (a payer cannot cancel, a payee cannot accept or reject).
        case wrongRole(PaymentRole)

        public var description: String {
            switch self {
            case .conflict(let reason): "the payment was \(reason) (\(reason.rawValue))"
            case .wrongRole(.payee): "only the payer can accept or reject a request; you asked for this payment"
            case .wrongRole(.payer): "only the payee who sent the request can cancel it"
            }
        }
    }

    /// Applies an event at time `now` and returns what to do.
    public mutating func handle(_ event: Event, now: Timestamp) -> [Action] {
        var actions: [Action] = []
        switch (role, event) {
        case (.payer, .localAccept(let messageID)):
            payerDecides(
                .accepted, frame: .accept(.init(messageID: messageID, paymentID: paymentID)), now: now,
                actions: &actions)
        case (.payer, .localReject(let messageID, let reason)):
            payerDecides(
                .rejected, frame: .reject(.init(messageID: messageID, paymentID: paymentID, reason: reason)),
                now: now, actions: &actions)
        case (.payee, .localCancel(let messageID)):
            expireIfDue(now: now, actions: &actions)
            if let reason = state.conflictReason {
                actions.append(.refuse(.conflict(reason)))
            } else {
                move(to: .cancelled, confirmed: true, actions: &actions)
                actions.append(.send(.cancel(.init(messageID: messageID, paymentID: paymentID))))
            }
        case (.payee, .localAccept), (.payee, .localReject):
            actions.append(.refuse(.wrongRole(.payee)))
        case (.payer, .localCancel):
            actions.append(.refuse(.wrongRole(.payer)))

        case (.payee, .peerAccept(let messageID)):
            payeeReceivesDecision(.accepted, messageID: messageID, now: now, actions: &actions)
        case (.payee, .peerReject(let messageID, _)):
            payeeReceivesDecision(.rejected, messageID: messageID, now: now, actions: &actions)
        case (.payer, .peerCancel(let messageID)):
            if isConfirmed && state.isFinal && state != .cancelled {
                // The payee already told us a different final state; a later cancel cannot undo it.
                actions.append(.acknowledge(messageID: messageID, state: state, reasonCode: state.conflictReason))
            } else {
                move(to: .cancelled, confirmed: true, actions: &actions)
                actions.append(.acknowledge(messageID: messageID, state: .cancelled, reasonCode: nil))
            }
        case (.payer, .peerAccept(let messageID)), (.payer, .peerReject(let messageID, _)):
            actions.append(.violation(messageID: messageID, "only the payer accepts or rejects a request"))
        case (.payee, .peerCancel(let messageID)):
            actions.append(.violation(messageID: messageID, "only the payee cancels a request"))

        case (.payer, .peerAck(let peerState, _)):
            // Only the payee's answer to our own accept or reject counts: it confirms our decision or reports
            // that the payment was cancelled or expired first. An ack can never make the payer accept or reject.
            if !isConfirmed, peerState == state || peerState == .cancelled || peerState == .expired {
                move(to: peerState, confirmed: true, actions: &actions)
            }
        case (.payee, .peerAck):
            break  // Acks of our request or cancel: the payee's state is already authoritative.

        case (_, .tick):
            expireIfDue(now: now, actions: &actions)
        }
        return actions
    }

    // MARK: Helpers

    private mutating func payerDecides(
        _ decision: PaymentState, frame: PaymentMessage, now: Timestamp,
        actions: inout [Action]
    ) {
        expireIfDue(now: now, actions: &actions)
        if let reason = state.conflictReason {
            actions.append(.refuse(.conflict(reason)))
        } else {
            move(to: decision, confirmed: false, actions: &actions)
            actions.append(.send(frame))
        }
    }

    private mutating func payeeReceivesDecision(
        _ decision: PaymentState, messageID: UUID, now: Timestamp,
        actions: inout [Action]
    ) {
        expireIfDue(now: now, actions: &actions)
        switch state {
        case .pending:
            move(to: decision, confirmed: true, actions: &actions)
            actions.append(.acknowledge(messageID: messageID, state: decision, reasonCode: nil))
        case decision:
            // The same decision again under a new message ID: nothing to change, same answer.
            actions.append(.acknowledge(messageID: messageID, state: state, reasonCode: nil))
        default:
            actions.append(.acknowledge(messageID: messageID, state: state, reasonCode: state.conflictReason))
        }
    }

    /// Moves `pending` to `expired` once `now` reaches `expiresAt`.
    private mutating func expireIfDue(now: Timestamp, actions: inout [Action]) {
        if state == .pending, now >= expiresAt {
            move(to: .expired, confirmed: role == .payee, actions: &actions)
        }
    }

    private mutating func move(to newState: PaymentState, confirmed: Bool, actions: inout [Action]) {
        let (oldState, wasConfirmed) = (state, isConfirmed)
        state = newState
        isConfirmed = role == .payee ? true : confirmed
        if oldState != newState {
            actions.append(.transition(from: oldState, to: newState))
        } else if isConfirmed, !wasConfirmed {
            actions.append(.confirmed(newState))
        }
    }
}
