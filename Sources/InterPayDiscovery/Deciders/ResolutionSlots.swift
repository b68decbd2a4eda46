/// Which instances are resolved now and which wait their turn: the pure decider under `DiscoverySession`, which
/// starts, cancels and times the resolutions it decides on.
///
/// The rules:
/// - At most `cap` resolutions run at once. `cap` starts at `maximum`; when a resolve cannot even start while others
///   run (the system bus refuses one more connection), it drops to the number running and the instance goes to the
///   head of the queue; each resolution that completes raises it by one, up to `maximum`.
/// - An instance that can wait (the daemon already has a session with a peer of that name, or a confirmation) queues
///   behind the others even when a slot is free, as long as others wait.
/// - A slot that frees goes to the first waiting instance that cannot wait, else to the first one.
/// - An instance waits at most once in the queue.
struct ResolutionSlots: Equatable {
    /// The most resolutions at once.
    let maximum: Int
    /// The resolutions allowed at once now.
    private(set) var cap: Int
    /// The instances waiting for a slot, in the order they asked.
    private(set) var queue: [String] = []

    init(maximum: Int) {
        self.maximum = max(1, maximum)
        self.cap = self.maximum
    }

    /// Whether `name`, asking to be resolved while `running` resolutions run, starts now (true) or was queued.
    mutating func request(_ name: String, canWait: Bool, running: Int) -> Bool {
        if canWait, !queue.isEmpty {
            enqueue(name)
            return false
        }
        return admit(name, running: running)
    }

    /// Whether `name` may start now with `running` resolutions running; queued (at the back) when not.
    mutating func admit(_ name: String, running: Int) -> Bool {
        guard running < cap else {
            enqueue(name)
            return false
        }
        return true
    }

    /// A resolve of `name` could not start while `running` others run: fewer at once, and `name` first in line.
    mutating func couldNotStart(_ name: String, running: Int) {
        cap = max(1, min(cap, running))
        queue.removeAll { $0 == name }
        queue.insert(name, at: 0)
    }

    /// A resolution completed: one more may run at once again (up to `maximum`).
    mutating func completed() {
        cap = min(cap + 1, maximum)
    }

    /// The next instance to start while `running` resolutions run, taken from the queue; nil when none may start.
    mutating func next(running: Int, canWait: (String) -> Bool) -> String? {
        guard !queue.isEmpty, running < cap else { return nil }
        let index = queue.firstIndex { !canWait($0) } ?? queue.startIndex
        return queue.remove(at: index)
    }

    /// `name` no longer waits (gone, or torn down).
    mutating func remove(_ name: String) {
        queue.removeAll { $0 == name }
    }

    /// Nothing waits any more (an outage).
    mutating func removeAll() {
        queue.removeAll()
    }

    private mutating func enqueue(_ name: String) {
        if !queue.contains(name) { queue.append(name) }
    }
}
