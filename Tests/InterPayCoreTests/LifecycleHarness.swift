import Foundation
import InterPayCore

/// Compact text forms of lifecycle events and actions, so that transition tables read like a specification.
enum LifecycleHarness {
    static let paymentID = Fixtures.fixedUUID(1)
    static let messageID = Fixtures.fixedUUID(0xaa)
    static let expiresAt = Timestamp(secondsSince1970: 1_000)
    static let early = Timestamp(secondsSince1970: 500)
    static let late = Timestamp(secondsSince1970: 1_000)

    /// Every event, by short name.
    static let events: [(String, PaymentLifecycle.Event)] = [
        ("LA", .localAccept(messageID: messageID)),
        ("LR", .localReject(messageID: messageID, reason: "no")),
        ("LC", .localCancel(messageID: messageID)),
        ("PA", .peerAccept(messageID: messageID)),
        ("PR", .peerReject(messageID: messageID, reason: nil)),
        ("PC", .peerCancel(messageID: messageID)),
        ("AckP", .peerAck(state: .pending, reasonCode: nil)),
        ("AckA", .peerAck(state: .accepted, reasonCode: nil)),
        ("AckR", .peerAck(state: .rejected, reasonCode: nil)),
        ("AckC", .peerAck(state: .cancelled, reasonCode: .alreadyCancelled)),
        ("AckX", .peerAck(state: .expired, reasonCode: .alreadyExpired)),
        ("LP", .localPaid(messageID: messageID, method: .cash, reference: nil)),
        ("LS", .localSettle(messageID: messageID, receipt: nil)),
        ("PP", .peerPaid(messageID: messageID)),
        ("PS", .peerSettle(messageID: messageID)),
        ("AckPd", .peerAck(state: .paid, reasonCode: nil)),
        ("AckS", .peerAck(state: .settled, reasonCode: nil)),
        ("T", .tick),
    ]

    /// Every (role, state, confirmed) a lifecycle can be in.
    static var startingPoints: [(PaymentRole, PaymentState, Bool)] {
        var points: [(PaymentRole, PaymentState, Bool)] = PaymentState.allCases.map { (.payee, $0, true) }
        points += PaymentState.allCases.map { (.payer, $0, true) }
        points += [PaymentState.accepted, .rejected, .expired, .paid].map { (.payer, $0, false) }
        return points
    }

    static func render(_ state: PaymentState, confirmed: Bool) -> String { state.rawValue + (confirmed ? "" : "?") }

    static func render(_ action: PaymentLifecycle.Action) -> String {
        switch action {
        case .transition(let from, let to): "\(from.rawValue)>\(to.rawValue)"
        case .confirmed(let state): "confirm:\(state.rawValue)"
        case .send(let message): "send:\(message.type.rawValue)"
        case .acknowledge(_, let state, let reason): "ack:\(state.rawValue)" + (reason.map { "/\($0.rawValue)" } ?? "")
        case .refuse(.conflict(let reason)): "refuse:\(reason.rawValue)"
        case .refuse(.wrongRole), .refuse(.wrongSettlementRole): "refuse:role"
        case .refuse(.notAccepted): "refuse:not-accepted"
        case .refuse(.alreadySettling(let state)): "refuse:already-\(state.rawValue)"
        case .violation: "violation"
        }
    }

    /// One row: `role state event time => state actions`.
    static func row(role: PaymentRole, state: PaymentState, confirmed: Bool, event: String, late: Bool) -> String {
        var lifecycle = PaymentLifecycle(
            paymentID: paymentID, role: role, expiresAt: expiresAt, state: state, isConfirmed: confirmed)
        guard let input = events.first(where: { $0.0 == event })?.1 else { return "unknown event \(event)" }
        let actions = lifecycle.handle(input, now: late ? Self.late : early)
        let rendered = actions.map(render).joined(separator: " ")
        return "\(role.rawValue) \(render(state, confirmed: confirmed)) \(event) \(late ? "late" : "early") => "
            + "\(render(lifecycle.state, confirmed: lifecycle.isConfirmed)) \(rendered.isEmpty ? "-" : rendered)"
    }

    /// Every row of the table, in a fixed order.
    static var allRows: [String] {
        var rows: [String] = []
        for (role, state, confirmed) in startingPoints {
            for (event, _) in events {
                for late in [false, true] where !late || state == .pending || !confirmed {
                    rows.append(row(role: role, state: state, confirmed: confirmed, event: event, late: late))
                }
            }
        }
        return rows
    }
}
