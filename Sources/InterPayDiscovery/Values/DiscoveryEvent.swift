public import InterPayCore

/// What `ServiceDiscovery.events()` reports.
public enum DiscoveryEvent: Sendable, Hashable {
    /// Our instance is registered under this name: the name Avahi actually registered, which may differ from
    /// the advertised one after a name conflict (e.g. `Alice #2`). Reported again after every re-registration.
    case registered(name: String)
    /// Another daemon's instance was found and resolved.
    case appeared(DiscoveredPeer)
    /// A known instance (same service name) now resolves differently: new address, port, host or TXT.
    case changed(DiscoveredPeer)
    /// A reported instance is gone. `peerID` is the ID it was reported with.
    case disappeared(serviceName: String, peerID: PeerID?)
    /// avahi-daemon or the D-Bus system bus is not reachable, or died: nothing is browsed or advertised until it
    /// is back. Discovery keeps retrying; known peers are kept (no `disappeared` is reported for them).
    case unavailable(reason: String)
    /// Browsing (and, with an advertisement, registration) is running: after the start, or again after
    /// `unavailable`. Afterwards only changes to the known peers are reported.
    case available
}
