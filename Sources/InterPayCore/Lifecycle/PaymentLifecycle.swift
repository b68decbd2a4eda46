public import FoundationEssentials

/// The lifecycle of one payment request on one side, as a pure state machine.
///
/// Feed it an `Event` and the current time; it updates its state and returns the `Action`s the caller must carry
/// out (persist the transition, send a frame, acknowledge a frame, refuse a local command). It does no I/O and
/// never reads a clock.
///
/// The payee is authoritative for the final state. A payer's own accept or reject is *unconfirmed* until the
/// payee's `ack` arrives, and the payer adopts whatever state the payee reports, so an accept that crosses a cancel
/// ends as `cancelled` on both sides and the accept's sender learns the reason `ACLR`.
///
/// Settlement follows the same rule (PROTOCOL.md §8.5). Once the payee confirmed the acceptance, the payer may mark
/// the payment `paid` (unconfirmed until the payee's `ack`); the payee confirms the money arrived, or settles directly
/// from `accepted` (cash handed over), and the payment is `settled` on both sides once the payee's `settle` frame
/// arrives. Nothing ever leaves `settled`.
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
        /// The local user (payer) says the money was handed over; `messageID` is for the `paid` frame.
        case localPaid(messageID: UUID, method: PaymentMethod?, reference: String?)
        /// The local user (payee) confirms the money arrived; `messageID` is for the `settle` frame, which carries
        /// `receipt` (the signed receipt's canonical text, or nil when none could be made).
        case localSettle(messageID: UUID, receipt: String?)
        /// The peer's `paid` frame arrived.
        case peerPaid(messageID: UUID)
        /// The peer's `settle` frame arrived.
        case peerSettle(messageID: UUID)
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
        /// This side's role cannot do that step of settlement (only the payer marks paid, only the payee settles).
        case wrongSettlementRole(PaymentRole)
        /// Settlement needs a payment that the payee accepted, and this one is not (yet): its state and whether
        /// the state is the payee's word.
        case notAccepted(PaymentState, confirmed: Bool)
        /// The payment is already in this settlement state (`paid` or `settled`).
        case alreadySettling(PaymentState)

        public var description: String {
            switch self {
            case .conflict(let reason): "the payment was \(reason) (\(reason.rawValue))"
            case .wrongRole(.payee): "only the payer can accept or reject a request; you asked for this payment"
            case .wrongRole(.payer): "only the payee who sent the request can cancel it"
            case .wrongSettlementRole(.payee):
                "only the payer marks a payment paid; you asked for this payment ('interpay received' confirms it)"
            case .wrongSettlementRole(.payer): "only the payee confirms that the money was received"
            case .notAccepted(.accepted, confirmed: false):
                "the payee has not confirmed the acceptance yet; try again once it has ('interpay show' tells)"
            case .notAccepted(let state, _): "the payment is \(state.rawValue), not accepted"
            case .alreadySettling(let state): "the payment is already \(state.rawValue)"
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
            if (isConfirmed && state.isFinal && state != .cancelled) || state == .paid || state == .settled {
                // The payee already told us a different final state; a later cancel cannot undo it.
                actions.append(
                    .acknowledge(
                        messageID: messageID, state: state.decisionState, reasonCode: state.conflictReason))
            } else {
                move(to: .cancelled, confirmed: true, actions: &actions)
                actions.append(.acknowledge(messageID: messageID, state: .cancelled, reasonCode: nil))
            }
        case (.payer, .peerAccept(let messageID)), (.payer, .peerReject(let messageID, _)):
            actions.append(.violation(messageID: messageID, "only the payer accepts or rejects a request"))
        case (.payee, .peerCancel(let messageID)):
            actions.append(.violation(messageID: messageID, "only the payee cancels a request"))

        case (.payer, .localPaid(let messageID, let method, let reference)):
            expireIfDue(now: now, actions: &actions)
            switch state {
            case .accepted where isConfirmed:
                move(to: .paid, confirmed: false, actions: &actions)
                actions.append(
                    .send(
                        .paid(.init(messageID: messageID, paymentID: paymentID, method: method, reference: reference))))
            case .paid, .settled:
                actions.append(.refuse(.alreadySettling(state)))
            case .pending, .accepted:
                actions.append(.refuse(.notAccepted(state, confirmed: isConfirmed)))
            case .rejected, .cancelled, .expired:
                actions.append(
                    .refuse(state.conflictReason.map { .conflict($0) } ?? .notAccepted(state, confirmed: isConfirmed)))
            }
        case (.payee, .localSettle(let messageID, let receipt)):
            expireIfDue(now: now, actions: &actions)
            switch state {
            case .accepted, .paid:
                move(to: .settled, confirmed: true, actions: &actions)
                actions.append(.send(.settle(.init(messageID: messageID, paymentID: paymentID, receipt: receipt))))
            case .settled:
                actions.append(.refuse(.alreadySettling(state)))
            case .pending:
                actions.append(.refuse(.notAccepted(state, confirmed: true)))
            case .rejected, .cancelled, .expired:
                actions.append(
                    .refuse(state.conflictReason.map { .conflict($0) } ?? .notAccepted(state, confirmed: true)))
            }
        case (.payee, .localPaid), (.payer, .localSettle):
            actions.append(.refuse(.wrongSettlementRole(role)))

        case (.payee, .peerPaid(let messageID)):
            expireIfDue(now: now, actions: &actions)
            switch state {
            case .accepted:
                move(to: .paid, confirmed: true, actions: &actions)
                actions.append(.acknowledge(messageID: messageID, state: .paid, reasonCode: nil))
            case .paid, .settled:
                actions.append(.acknowledge(messageID: messageID, state: state, reasonCode: nil))
            case .rejected, .cancelled, .expired:
                actions.append(.acknowledge(messageID: messageID, state: state, reasonCode: state.conflictReason))
            case .pending:
                actions.append(.violation(messageID: messageID, "the payment was not accepted"))
            }
        case (.payer, .peerSettle(let messageID)):
            if state.isAccepted {
                // The payee's word: it settles an accepted payment, whatever we marked or still await.
                move(to: .settled, confirmed: true, actions: &actions)
                actions.append(.acknowledge(messageID: messageID, state: .settled, reasonCode: nil))
            } else if isConfirmed, let reason = state.conflictReason {
                // The payee told us the payment ended otherwise; that word stands.
                actions.append(.acknowledge(messageID: messageID, state: state, reasonCode: reason))
            } else {
                // We never accepted it (pending, or our own reject or expiry): the payee cannot have settled it.
                actions.append(.violation(messageID: messageID, "the payment was not accepted"))
            }
        case (.payer, .peerPaid(let messageID)):
            actions.append(.violation(messageID: messageID, "only the payer marks a payment paid"))
        case (.payee, .peerSettle(let messageID)):
            actions.append(.violation(messageID: messageID, "only the payee settles a payment"))

        case (.payer, .peerAck(let peerState, _)):
            // Only the payee's answer to our own accept, reject or paid counts: it confirms our step or reports
            // that the payment was cancelled, expired or settled first. An ack can never make the payer accept or
            // reject.
            guard !isConfirmed else { break }
            if state == .paid {
                if peerState == .paid || peerState == .settled {
                    move(to: peerState, confirmed: true, actions: &actions)
                }
            } else if peerState == state || peerState == .cancelled || peerState == .expired {
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
        // A paid or settled payment answers decisions as `accepted` (a peer without receipts knows no other).
        let answered = state.decisionState
        switch answered {
        case .pending:
            move(to: decision, confirmed: true, actions: &actions)
            actions.append(.acknowledge(messageID: messageID, state: decision, reasonCode: nil))
        case decision:
            // The same decision again under a new message ID: nothing to change, same answer.
            actions.append(.acknowledge(messageID: messageID, state: answered, reasonCode: nil))
        default:
            actions.append(.acknowledge(messageID: messageID, state: answered, reasonCode: answered.conflictReason))
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
