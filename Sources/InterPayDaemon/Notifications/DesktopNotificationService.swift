import InterPayContract
import Logging
import ServiceLifecycle
import Synchronization

/// Tells the user, without a terminal or an open page, that something needs them (issue V): every event that calls
/// for it (`DesktopNotification.forEvent`) becomes a desktop notification, and the Accept or Reject the user
/// chooses on a request's notification answers it as `interpay accept` or `reject` would. Runs only when the daemon
/// has a session bus and `notifications.desktop` is on; graceful shutdown ends it and its `gdbus monitor`.
struct DesktopNotificationService: Service {
    let notifications: GDBusNotifications
    let broadcaster: EventBroadcaster
    /// Answers a payment: accept when true, else reject.
    let answer: @Sendable (_ payment: String, _ accept: Bool) async throws -> Void
    let logger: Logger

    /// How many shown notifications' payments are remembered for their actions (the oldest are forgotten).
    static let rememberedNotifications = 64

    func run() async {
        let events = broadcaster.subscribe()
        let (actions, stopMonitor) = notifications.actions()
        let shown = ShownNotifications(capacity: Self.rememberedNotifications)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    // Asked once, at the first notification: the server stays for the session's life.
                    var readsMarkup: Bool?
                    for await json in events {
                        guard let event = try? json.decode(ControlEvent.self),  // a kind this build lacks: none
                            var notification = DesktopNotification.forEvent(event)
                        else { continue }
                        if readsMarkup == nil { readsMarkup = await notifications.readsMarkup() }
                        if readsMarkup == true { notification = notification.escapingMarkup() }
                        guard let id = await notifications.notify(notification) else {
                            logger.debug("no desktop notification shown (no notification server on the bus)")
                            continue
                        }
                        if let payment = notification.payment { shown.remember(id, payment: payment) }
                    }
                }
                group.addTask {
                    for await (id, key) in actions {
                        guard key == DesktopNotification.acceptKey || key == DesktopNotification.rejectKey,
                            let payment = shown.take(id)
                        else { continue }
                        do {
                            try await answer(payment, key == DesktopNotification.acceptKey)
                            logger.info(
                                "payment answered from a desktop notification",
                                metadata: ["payment": "\(payment)", "action": "\(key)"])
                        } catch {
                            logger.notice(
                                "a desktop notification's answer was refused",
                                metadata: ["payment": "\(payment)", "action": "\(key)", "error": "\(error)"])
                        }
                    }
                }
            }
        }
        stopMonitor()
    }
}

/// The payments of the notifications shown last, by notification ID: an action answers the payment its own
/// notification showed, once; bounded, the oldest forgotten first.
final class ShownNotifications: Sendable {
    private let state: Mutex<(order: [UInt32], payments: [UInt32: String])> = Mutex(([], [:]))
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func remember(_ id: UInt32, payment: String) {
        state.withLock { state in
            if state.payments.updateValue(payment, forKey: id) == nil { state.order.append(id) }
            while state.order.count > capacity { state.payments[state.order.removeFirst()] = nil }
        }
    }

    /// The payment of notification `id`, forgotten as it is taken.
    func take(_ id: UInt32) -> String? {
        state.withLock { state in
            guard let payment = state.payments.removeValue(forKey: id) else { return nil }
            state.order.removeAll { $0 == id }
            return payment
        }
    }
}
