import Foundation

/// Who may run which ledger step when: first come, first served, per payment.
///
/// A step on one payment (load it, run its lifecycle, commit, send) must not interleave with another step on the
/// same payment, or the later write could undo the earlier (a local cancel and an incoming accept, two local
/// decisions). Steps on different payments may run at once, which lets their commits share one disk flush. A step
/// on everything (session up, expiry, an `error` frame) runs alone. Steps start in the order they were enqueued
/// wherever they conflict: a step waits for every earlier step on its payment and every earlier step on
/// everything; a step on everything waits for every earlier step.
///
/// A pure value: the engine owns it and resumes the steps it admits.
struct StepQueue: Sendable {
    /// What a step touches.
    enum Scope: Hashable, Sendable {
        /// One payment.
        case payment(UUID)
        /// Everything: it runs alone.
        case everything
    }

    /// A step's place in the queue.
    typealias Ticket = Int

    private var nextTicket: Ticket = 0
    private var waiting: [(ticket: Ticket, scope: Scope)] = []
    private var running: [Ticket: Scope] = [:]
    private var runningPayments: Set<UUID> = []

    /// Steps running now.
    var runningCount: Int { running.count }
    /// Steps waiting for their turn.
    var waitingCount: Int { waiting.count }

    /// Enqueues a step; returns its ticket and the tickets that may start now (possibly including it).
    mutating func enqueue(_ scope: Scope) -> (ticket: Ticket, admitted: [Ticket]) {
        nextTicket += 1
        waiting.append((nextTicket, scope))
        return (nextTicket, admit())
    }

    /// Ends a running step; returns the tickets that may start now, in queue order.
    mutating func finish(_ ticket: Ticket) -> [Ticket] {
        guard let scope = running.removeValue(forKey: ticket) else { return [] }
        if case .payment(let id) = scope { runningPayments.remove(id) }
        return admit()
    }

    /// Starts every waiting step that conflicts with nothing running and nothing waiting ahead of it.
    private mutating func admit() -> [Ticket] {
        var admitted: [Ticket] = []
        var stillWaiting: [(ticket: Ticket, scope: Scope)] = []
        var blockedPayments: Set<UUID> = []
        for (index, entry) in waiting.enumerated() {
            switch entry.scope {
            case .everything:
                // It starts only first in line with nothing running; either way every later step waits for it.
                if stillWaiting.isEmpty && running.isEmpty {
                    running[entry.ticket] = .everything
                    admitted.append(entry.ticket)
                } else {
                    stillWaiting.append(entry)
                }
                waiting = stillWaiting + waiting[(index + 1)...]
                return admitted
            case .payment(let id):
                if running.values.contains(.everything) || runningPayments.contains(id)
                    || blockedPayments.contains(id)
                {
                    stillWaiting.append(entry)
                    blockedPayments.insert(id)
                } else {
                    running[entry.ticket] = entry.scope
                    runningPayments.insert(id)
                    admitted.append(entry.ticket)
                }
            }
        }
        waiting = stillWaiting
        return admitted
    }
}
