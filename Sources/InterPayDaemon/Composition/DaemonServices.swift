import InterPayEngine
import InterPayStore
import InterPayTransport

/// What the daemon's peer side (the `Peer…Service`s) and its control methods (`ControlMethods`) both work with: made once
/// by `Daemon` and handed to each.
struct DaemonServices: Sendable {
    let configuration: DaemonConfiguration
    /// The sessions, ledger and engine (payments and pairing), built as the benchmarks and the tests build them.
    let node: Node
    let shared: SharedState
    let broadcaster: EventBroadcaster
    let conversions: Conversions
}

/// A part of the daemon that holds the shared `DaemonServices` and names each of them as its own.
protocol UsesDaemonServices {
    /// The services.
    var services: DaemonServices { get }
}

extension UsesDaemonServices {
    /// The effective configuration.
    var configuration: DaemonConfiguration { services.configuration }
    /// The peer sessions.
    var sessions: SessionManager { services.node.sessions }
    /// The ledger.
    var database: AppDatabase { services.node.database }
    /// The payment engine.
    var engine: PaymentEngine { services.node.engine }
    /// The state `status` reports (ports, discovery).
    var shared: SharedState { services.shared }
    /// The event stream of `subscribe`.
    var broadcaster: EventBroadcaster { services.broadcaster }
    /// Exchange rates and the preferred currency.
    var conversions: Conversions { services.conversions }
}
