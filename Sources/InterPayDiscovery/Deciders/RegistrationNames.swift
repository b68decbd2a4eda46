/// The name this daemon's advertisement is registered under, and the renames a taken name brings: the pure decider
/// under `DiscoverySession`'s registration, which makes the DNS-SD calls it asks for.
///
/// Registering starts from a name (`begin(_:)`). A register call that returns "name conflict" (another client of the
/// same avahi-daemon holds the name, which Avahi reports at once without renaming by itself) is tried again under the
/// next alternative name (`ServiceInstanceName.alternative(to:)`), at most `maximumRenames` names in all; a name the
/// call accepts is the requested one. Avahi's callback then says the name it registered, reported once
/// (`registered(as:)`: an older Avahi calls back again with the same name when the daemon goes away), or that the
/// name became taken on the network (`conflicted()`), after which registering begins again from the next name.
/// An outage forgets both names (`reset()`).
struct RegistrationNames: Sendable, Hashable {
    /// How a register call returned.
    enum CallResult: Sendable, Hashable, CaseIterable {
        /// The call was accepted: the registration is in progress under the name asked for.
        case accepted
        /// The name is taken by another client of the same avahi-daemon.
        case nameTaken
        /// Any other error: the caller treats it as an outage.
        case failed
    }

    /// What to do after a register call returned.
    enum Next: Sendable, Hashable {
        /// Nothing: the registration runs under the name asked for.
        case registering
        /// Ask again under `name`, since `taken` is taken.
        case retry(name: String, taken: String)
        /// Stop: the call failed, or `maximumRenames` names were all taken. The caller's outage handling takes over.
        case giveUp
    }

    /// The most names one registration tries.
    let maximumRenames: Int
    /// The name the current registration asked for and got accepted, until an outage or a conflict.
    private(set) var requested: String?
    /// The name Avahi said it registered (and that was reported), until an outage or a conflict.
    private(set) var registered: String?
    /// The name being asked for now, and how many names this registration asked for so far.
    private(set) var candidate: String?
    private(set) var tries = 0

    init(maximumRenames: Int) {
        self.maximumRenames = max(1, maximumRenames)
    }

    /// The name this side is known by on the LAN now, for the pair rule (`ResolutionSide`): the registered one, else
    /// the one asked for; nil while not registering.
    var ownName: String? { registered ?? requested }

    /// Starts a registration under `name`: the name to ask for.
    mutating func begin(_ name: String) -> String {
        candidate = name
        tries = 1
        return name
    }

    /// The register call for `candidate` returned `result`.
    mutating func callReturned(_ result: CallResult) -> Next {
        guard let asked = candidate else { return .giveUp }
        switch result {
        case .accepted:
            requested = asked
            candidate = nil
            return .registering
        case .failed:
            candidate = nil
            return .giveUp
        case .nameTaken:
            guard tries < maximumRenames else {
                candidate = nil
                return .giveUp
            }
            let next = ServiceInstanceName.alternative(to: asked)
            candidate = next
            tries += 1
            return .retry(name: next, taken: asked)
        }
    }

    /// Avahi said the registration holds `name`: true when it is to be reported (not the name reported already).
    mutating func registered(as name: String) -> Bool {
        guard name != registered else { return false }
        registered = name
        return true
    }

    /// Avahi said the registered name became taken: the registration ends, and the name to begin again with (the
    /// next alternative to the one asked for, or to `fallback` when none was).
    mutating func conflicted(fallback: String) -> String {
        let next = ServiceInstanceName.alternative(to: requested ?? fallback)
        registered = nil
        requested = nil
        candidate = nil
        return next
    }

    /// Everything was torn down (an outage): no name is held.
    mutating func reset() {
        requested = nil
        registered = nil
        candidate = nil
        tries = 0
    }
}
