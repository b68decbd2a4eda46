import InterPayCore

/// Bounds the `commit` frames pairing looks at: a token bucket per peer, and one for all unsolicited commits together.
///
/// A commit over its budget is dropped before it reaches the peer's `PairingMachine`: it is neither answered nor
/// noticed nor logged, so that a peer (or many keys at once) sending commits in a loop costs a bounded amount of
/// work and log. A solicited commit (from a peer the local user has started pairing with) is held only to its
/// peer's budget and uses none of the shared one, so that strangers' commits cannot crowd out the one the user
/// waits for. Honest pairing sends at most two commits per attempt, and one more when a session comes up again: a
/// peer's burst holds that for every attempt its user may make before the lock, so that the third attempt in a row
/// is not the one dropped. Pure: the caller gives the time. At most
/// `maxPeers` per-peer buckets are kept; past that the fullest are forgotten, which only gives those peers their
/// burst again.
struct PairingRateLimiter: Sendable {
    /// Commits one peer may send at once, then one every `peerInterval`: three for each attempt before the lock.
    var peerBurst = Double(3 * PairingMachine.maxFailures)
    /// Seconds for one peer's budget to regain a commit.
    var peerInterval: Double = 5
    /// Commits all peers together may send at once, then `totalPerSecond`.
    var totalBurst: Double = 30
    /// Commits per second all peers together regain.
    var totalPerSecond: Double = 2
    /// Peers tracked at once.
    var maxPeers = 1_024

    private var peers: [PeerID: TokenBucket] = [:]
    private var total: TokenBucket?

    /// Whether a commit from `peer` at `now` may be looked at; if so, it uses one token of the peer's budget and,
    /// unless `solicited` (the local user's attempt with the peer is in progress), one of the shared budget.
    mutating func admit(_ peer: PeerID, solicited: Bool = false, now: ContinuousClock.Instant) -> Bool {
        var all = total ?? TokenBucket(capacity: totalBurst, perSecond: totalPerSecond, now: now)
        var one = peers[peer] ?? TokenBucket(capacity: peerBurst, perSecond: 1 / peerInterval, now: now)
        all.refill(now: now)
        one.refill(now: now)
        let admitted = (solicited || all.tokens >= 1) && one.tokens >= 1
        if admitted {
            if !solicited { _ = all.take(now: now) }
            _ = one.take(now: now)
        }
        total = all
        if peers[peer] == nil, peers.count >= maxPeers {
            let quiet = peers.sorted { $0.value.tokens > $1.value.tokens }.prefix(maxPeers / 4).map(\.key)
            for key in quiet { peers[key] = nil }
        }
        peers[peer] = one
        return admitted
    }
}
