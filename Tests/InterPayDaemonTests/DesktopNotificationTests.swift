import InterPayContract
import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// What the desktop is told, and the `gdbus` text it is told in.
@Suite("Desktop notifications", .tearsDown)
struct DesktopNotificationTests {
    static let peer = PaymentPeer(id: "p", shortID: "HSBEJBT", name: "bob", announcedName: nil, trust: .unverified)

    static func payment(_ state: PaymentState, memo: String = "tacos") -> PaymentInfo {
        PaymentInfo(
            id: "payment-1", shortID: "abcd1234", direction: .incoming, peer: peer, amount: "12.50", currency: "MXN",
            minorUnits: 1250, memo: memo, category: nil, state: state, confirmed: true, reason: nil, reasonCode: nil,
            converted: nil, quote: nil, createdAt: 0, expiresAt: 900, updatedAt: 0, acceptedAt: nil, paidAt: nil,
            settledAt: nil, method: nil, reference: nil, receipt: false, series: nil)
    }

    @Test("a pending request is told with the peer as every surface names it, and Accept and Reject")
    func request() throws {
        let event = ControlEvent(at: 0, .requestReceived(Self.payment(.pending)))
        let notification = try #require(DesktopNotification.forEvent(event))
        #expect(notification.summary == "Payment request")
        #expect(notification.body == "bob (HSBEJBT) [unverified] asks you to pay 12.50 MXN: tacos")
        #expect(notification.actions.map(\.key) == ["accept", "reject"])
        #expect(notification.payment == "payment-1")
    }

    @Test("a request that arrived expired, and updates, are not told")
    func nothingToTell() {
        #expect(DesktopNotification.forEvent(ControlEvent(at: 0, .requestReceived(Self.payment(.expired)))) == nil)
        #expect(DesktopNotification.forEvent(ControlEvent(at: 0, .paymentUpdated(Self.payment(.pending)))) == nil)
    }

    @Test("a peer's memo reaches the notification escaped")
    func escapedMemo() throws {
        let event = ControlEvent(at: 0, .requestReceived(Self.payment(.pending, memo: "x\u{1B}[2J")))
        #expect(try #require(DesktopNotification.forEvent(event)).body.hasSuffix(": x\\u{001B}[2J"))
    }

    @Test("for a server that reads markup, a peer's tags are entities: shown as text, never a link")
    func markupEscaped() throws {
        let event = ControlEvent(at: 0, .requestReceived(Self.payment(.pending, memo: #"<a href="x">pay</a> & go"#)))
        let notification = try #require(DesktopNotification.forEvent(event)).escapingMarkup()
        #expect(notification.body.hasSuffix(#": &lt;a href="x"&gt;pay&lt;/a&gt; &amp; go"#))
        #expect(notification.summary == "Payment request")
    }

    @Test("gdbus reads strings single-quoted, with quotes and backslashes escaped")
    func gvariantStrings() {
        #expect(GVariantText.string("it's") == #"'it\'s'"#)
        #expect(GVariantText.string(#"a\b"#) == #"'a\\b'"#)
        let arguments = GDBusNotifications.notifyArguments(
            DesktopNotification(summary: "S", body: "B", actions: [.init(key: "accept", label: "Accept")]))
        #expect(
            arguments.suffix(8) == [
                "'InterPay'", "uint32 0", "''", "'S'", "'B'", "@as ['accept', 'Accept']", "@a{sv} {}", "int32 -1",
            ])
    }

    @Test("gdbus' answers: the notification's ID, and the action chosen")
    func gdbusOutput() {
        #expect(GVariantText.notificationID("(uint32 7,)\n") == 7)
        #expect(GVariantText.notificationID("Error: no such name") == nil)
        let line = "/org/freedesktop/Notifications: org.freedesktop.Notifications.ActionInvoked (uint32 7, 'accept')"
        #expect(GVariantText.actionInvoked(line).map { [String($0.0), $0.1] } == ["7", "accept"])
        #expect(
            GVariantText.actionInvoked("/x: org.freedesktop.Notifications.NotificationClosed (uint32 7, uint32 2)")
                == nil)
        #expect(GVariantText.actionInvoked("/x: org.freedesktop.Notifications.ActionInvoked (uint32 7, 'a b')") == nil)
    }

    @Test("an action answers the payment of its own notification once; the oldest are forgotten beyond the bound")
    func shownNotifications() {
        let shown = ShownNotifications(capacity: 2)
        shown.remember(1, payment: "a")
        shown.remember(2, payment: "b")
        shown.remember(3, payment: "c")
        #expect(shown.take(1) == nil)
        #expect(shown.take(2) == "b")
        #expect(shown.take(2) == nil)
        #expect(shown.take(3) == "c")
    }
}
