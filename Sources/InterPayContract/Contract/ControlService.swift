/// The control contract: one typed method per operation of the control socket and of the web app's `/api/`.
///
/// The daemon conforms to it, so a method of `ControlAPI` without its implementation does not compile; the server
/// reaches it through `ControlDispatcher`, whose table is `ControlAPI.routes`, the one list of the methods.
/// Adding a method: a `ControlMethod` in `ControlAPI`, a requirement here, its route in `ControlAPI.routes`, the
/// daemon's implementation and the CLI's command (ARCHITECTURE.md, "A new control method").
public protocol ControlService: Sendable {
    /// `status`: the daemon's name, IDs, ports, uptime and ledger.
    func status() async throws -> DaemonStatus
    /// `peers`: known peers, their sessions and trust.
    func peers() async throws -> PeerList
    /// `pair {peer, code?}`: start or confirm a pairing.
    func pair(_ params: PairParams) async throws -> PairingInfo
    /// `untrust {peer}`: forget a pairing and a static pin.
    func untrust(_ params: PeerParams) async throws -> UntrustInfo
    /// `rename {peer, name}`: the name a paired peer is shown under.
    func rename(_ params: RenameParams) async throws -> PeerIdentity
    /// `send`: ask a peer to pay.
    func send(_ params: SendParams) async throws -> PaymentInfo
    /// `accept {payment}`: agree to pay a request.
    func accept(_ params: PaymentParams) async throws -> PaymentInfo
    /// `reject {payment, reason?}`: decline to pay a request.
    func reject(_ params: PaymentParams) async throws -> PaymentInfo
    /// `cancel {payment}`: withdraw a pending request.
    func cancel(_ params: PaymentParams) async throws -> PaymentInfo
    /// `paid {payment, method?, reference?}`: the payer handed the money over.
    func paid(_ params: PaymentParams) async throws -> PaymentInfo
    /// `received {payment}`: the payee confirms the money arrived.
    func received(_ params: PaymentParams) async throws -> PaymentInfo
    /// `refund {payment, amount?, memo?}`: the payee gives back all or part of an accepted payment.
    func refund(_ params: RefundParams) async throws -> PaymentInfo
    /// `split`: ask several payers for their shares of one bill.
    func split(_ params: SplitParams) async throws -> BillInfo
    /// `bills`: this daemon's split bills, newest first.
    func bills() async throws -> BillList
    /// `cancel-bill {bill}`: cancel a bill's pending shares.
    func cancelBill(_ params: BillParams) async throws -> BillInfo
    /// `receipt {payment}`: a settled payment's signed receipt.
    func receipt(_ params: PaymentParams) async throws -> ReceiptInfo
    /// `export`: payments for the books, oldest first.
    func export(_ params: ExportParams) async throws -> PaymentList
    /// `backup`: the ledger, the identity and the configuration in one file.
    func backup(_ params: BackupParams) async throws -> BackupInfo
    /// `list`: payments, newest first.
    func list(_ params: ListParams) async throws -> PaymentList
    /// `show {payment}`: one payment with its events.
    func show(_ params: PaymentParams) async throws -> PaymentDetailInfo
    /// `history {limit?}`: decided payments, newest first.
    func history(_ params: ListParams) async throws -> PaymentList
    /// `stats`: totals, counts and averages.
    func stats(_ params: StatsParams) async throws -> StatsInfo
    /// `convert`: an amount in another currency.
    func convert(_ params: ConvertParams) async throws -> ConvertedAmount
    /// `rates`: the exchange rates' source and age.
    func rates(_ params: RatesParams) async throws -> RatesInfo
    /// `currency`: show or change the preferred currency.
    func currency(_ params: CurrencyParams) async throws -> PreferredCurrencyInfo
    /// `web`: the web app's login URL.
    func web() async throws -> WebLogin
    /// `offer`: offer a subscription.
    func offer(_ params: OfferParams) async throws -> SeriesInfo
    /// `approve {series, max?}`: approve a subscription offered to us.
    func approve(_ params: SeriesParams) async throws -> SeriesInfo
    /// `decline {series, reason?}`: decline a subscription offered to us.
    func decline(_ params: SeriesParams) async throws -> SeriesInfo
    /// `unsubscribe {series, reason?}`: end a subscription.
    func unsubscribe(_ params: SeriesParams) async throws -> SeriesInfo
    /// `subscriptions`: every series, both sides.
    func subscriptions() async throws -> SeriesList

    /// A new stream of the daemon's events for one subscriber (`subscribe`), starting now.
    func events() -> AsyncStream<JSONValue>

    /// The JSON-RPC error for what a method threw that is not an `RPCError` (an `RPCError` goes to the client as
    /// is). By default an internal error naming it.
    func rpcError(for error: any Error) async -> RPCError
}

extension ControlService {
    /// An internal error naming `error`.
    public func rpcError(for error: any Error) async -> RPCError {
        .internalError(String(describing: error))
    }
}

/// A control method bound to the `ControlService` requirement that answers it: one row of `ControlAPI.routes`.
public struct ControlRoute: Sendable {
    /// The method: name, params, result, web access.
    public let method: any AnyControlMethod
    /// Decodes the params, calls the service, encodes the result.
    let call: @Sendable (any ControlService, JSONValue?) async throws -> EncodedJSON
}

extension ControlMethod {
    /// This method answered by `body`: the params are decoded once from the parsed request and the result encoded
    /// once.
    func route(_ body: @escaping @Sendable (any ControlService, Params) async throws -> Result) -> ControlRoute {
        ControlRoute(method: self) { service, params in
            try encodeResult(try await body(service, try decodeParams(params)))
        }
    }
}

extension ControlAPI {
    /// Every method with the requirement that answers it, in the order docs/control-api.md lists them: the one list
    /// (`methods` and the server's table are read from it).
    public static let routes: [ControlRoute] = [
        status.route { service, _ in try await service.status() },
        peers.route { service, _ in try await service.peers() },
        pair.route { try await $0.pair($1) },
        untrust.route { try await $0.untrust($1) },
        rename.route { try await $0.rename($1) },
        send.route { try await $0.send($1) },
        accept.route { try await $0.accept($1) },
        reject.route { try await $0.reject($1) },
        cancel.route { try await $0.cancel($1) },
        paid.route { try await $0.paid($1) },
        received.route { try await $0.received($1) },
        refund.route { try await $0.refund($1) },
        split.route { try await $0.split($1) },
        bills.route { service, _ in try await service.bills() },
        cancelBill.route { try await $0.cancelBill($1) },
        receipt.route { try await $0.receipt($1) },
        export.route { try await $0.export($1) },
        backup.route { try await $0.backup($1) },
        list.route { try await $0.list($1) },
        show.route { try await $0.show($1) },
        history.route { try await $0.history($1) },
        stats.route { try await $0.stats($1) },
        convert.route { try await $0.convert($1) },
        rates.route { try await $0.rates($1) },
        currency.route { try await $0.currency($1) },
        web.route { service, _ in try await service.web() },
        offer.route { try await $0.offer($1) },
        approve.route { try await $0.approve($1) },
        decline.route { try await $0.decline($1) },
        unsubscribe.route { try await $0.unsubscribe($1) },
        subscriptions.route { service, _ in try await service.subscriptions() },
    ]
}

/// Serves a `ControlService` to the control server and the web app: finds a request's route by its method name.
public struct ControlDispatcher: ControlHandler {
    /// The routes by method name.
    private static let table: [String: ControlRoute] = Dictionary(
        ControlAPI.routes.map { ($0.method.name, $0) }, uniquingKeysWith: { first, _ in first })

    private let service: any ControlService

    /// Dispatches to `service`.
    public init(_ service: any ControlService) {
        self.service = service
    }

    /// Answers one request through its route; an unknown method is `methodNotFound`.
    public func handle(method: String, params: JSONValue?) async throws(RPCError) -> EncodedJSON {
        guard let route = Self.table[method] else { throw .methodNotFound(method) }
        do {
            return try await route.call(service, params)
        } catch let error as RPCError {
            throw error
        } catch {
            throw await service.rpcError(for: error)
        }
    }

    /// The service's events.
    public func events() -> AsyncStream<JSONValue> { service.events() }
}
