import Foundation
import InterPayContract
import InterPayCore

/// A desktop notification for something that needs the user (issue V): a request to pay, a subscription offered, a
/// pairing attempt. Built from the daemon's typed events, with the peer as every surface names it (`PeerLabel`) and
/// the amount with the currency's digits; a request carries Accept and Reject actions.
struct DesktopNotification: Sendable, Equatable {
    /// An action button: the key the notification server reports back, and its label.
    struct Action: Sendable, Equatable {
        var key: String
        var label: String
    }

    /// The title.
    var summary: String
    /// The text under it (plain text: servers that read markup get none from a peer, `GVariantText` escapes it).
    var body: String
    /// Buttons, where the server supports them.
    var actions: [Action] = []
    /// The payment the actions answer.
    var payment: String?

    /// The notification for a server that reads markup in bodies (`body-markup`): `&`, `<` and `>` written as
    /// entities, so that a peer's memo or name (`<a href=…>`, `<img src=…>`) shows as the text it is, never as a
    /// link or an image.
    func escapingMarkup() -> DesktopNotification {
        var escaped = self
        escaped.body = body.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return escaped
    }

    /// The key of the Accept action.
    static let acceptKey = "accept"
    /// The key of the Reject action.
    static let rejectKey = "reject"

    /// The notification `event` calls for, or nil when it needs nobody: a request received (not one that arrived
    /// expired), an offer of a subscription to us, a peer asking to pair or showing the code.
    static func forEvent(_ event: ControlEvent) -> DesktopNotification? {
        switch event.kind {
        case .requestReceived(let payment):
            guard payment.state == .pending else { return nil }
            let memo = payment.memo.isEmpty ? "" : ": \(SafeText.escaped(payment.memo))"
            return DesktopNotification(
                summary: "Payment request",
                body: "\(payment.peer.label) asks you to pay \(payment.amount) \(payment.currency)\(memo)",
                actions: [Action(key: acceptKey, label: "Accept"), Action(key: rejectKey, label: "Reject")],
                payment: payment.id)
        case .seriesUpdated(let series):
            guard series.direction == .incoming, series.shownState == .offered else { return nil }
            let count = series.count.map { ", \($0) times" } ?? ""
            return DesktopNotification(
                summary: "Subscription offered",
                body: "\(series.peer.label) offers a subscription of \(series.amount) \(series.currency) every "
                    + "\(series.periodSeconds.map { "\($0) s" } ?? series.every)\(count): 'interpay approve "
                    + "\(series.shortID)' or the web app's Subscriptions page")
        case .pairingRequested(let peer, _):
            return DesktopNotification(
                summary: "Pairing request",
                body: "\(peer.label) wants to pair: 'interpay pair \(peer.shortID)' if you expect it")
        case .pairingCode(let peer, let code, _):
            return DesktopNotification(
                summary: "Pairing code",
                body: "Pairing with \(peer.label): your code is \(code); check that the other screen shows it")
        case .paymentUpdated, .billUpdated, .peerUp, .peerDown, .pairingStarted, .paired, .pairingFailed,
            .pairingLocked:
            return nil
        }
    }
}
