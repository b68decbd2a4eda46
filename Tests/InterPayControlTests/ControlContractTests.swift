import InterPayContract
import InterPayControl
import Testing

/// The typed contract of the control methods: one list of methods, params read with clear errors.
@Suite("Control method contract")
struct ControlContractTests {
    @Test("every method is listed once, under its own name")
    func methodsAreUnique() {
        let names = ControlAPI.methods.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(!names.contains("subscribe"))  // the event stream, the server's own
    }

    @Test("params: absent reads as {}, missing and mistyped members are named")
    func params() throws {
        #expect(try ControlAPI.list.decodeParams(nil) == ListParams())
        #expect(try ControlAPI.peers.decodeParams(["anything": 1]) == NoParams())
        #expect(
            try ControlAPI.send.decodeParams(["peer": "bob", "amount": "1", "currency": "EUR", "expiresInSeconds": 60])
                == SendParams(peer: "bob", amount: "1", currency: "EUR", expiresInSeconds: 60))
        #expect(throws: RPCError.invalidParams("missing parameter 'peer'")) {
            try ControlAPI.send.decodeParams(["amount": "1", "currency": "EUR"])
        }
        #expect(throws: RPCError.invalidParams("missing parameter 'payment'")) {
            try ControlAPI.accept.decodeParams(["payment": .null])
        }
        #expect(throws: RPCError.invalidParams("parameter 'limit' must be an integer")) {
            try ControlAPI.list.decodeParams(["limit": "ten"])
        }
        #expect(throws: RPCError.invalidParams("parameter 'clear' must be true or false")) {
            try ControlAPI.currency.decodeParams(["clear": "yes"])
        }
        // Choices are enums on both sides: a word that is not one of them is refused naming them.
        #expect(
            try ControlAPI.list.decodeParams(["state": "settled", "direction": "in"])
                == ListParams(state: .settled, direction: .incoming))
        #expect(throws: RPCError.invalidParams("invalid parameter 'direction': must be one of in, out")) {
            try ControlAPI.list.decodeParams(["direction": "sideways"])
        }
        #expect(
            throws: RPCError.invalidParams(
                "invalid parameter 'state': must be one of pending, accepted, rejected, cancelled, expired, paid, settled"
            )
        ) {
            try ControlAPI.export.decodeParams(["state": "lost"])
        }
        #expect(try ControlAPI.list.decodeParams(["state": .null]) == ListParams())
    }

    @Test("params are sent as the CLI always sent them: nil members left out")
    func paramsOnTheWire() throws {
        #expect(
            try JSONValue(encoding: PaymentParams(payment: "abcd", reason: "no")).jsonText
                == #"{"payment":"abcd","reason":"no"}"#)
        #expect(try JSONValue(encoding: NoParams()).jsonText == "{}")
        #expect(try JSONValue(encoding: CurrencyParams()).jsonText == "{}")
    }

    @Test("a @Nullable member is null when nil, and reads back from null or from nothing")
    func nullable() throws {
        let none = PreferredCurrencyInfo(currency: nil, source: "none")
        #expect(try ControlAPI.currency.encodeResult(none).text == #"{"currency":null,"source":"none"}"#)
        #expect(try JSONValue.object(["source": "none"]).decode(PreferredCurrencyInfo.self) == none)
        #expect(try JSONValue.object(["currency": .null, "source": "none"]).decode(PreferredCurrencyInfo.self) == none)
    }
}

/// A `ControlService` whose every method throws `Reached` naming itself, to prove where each route leads.
struct ReachedService: ControlService {
    struct Reached: Error { let method: String }

    func status() async throws -> DaemonStatus { throw Reached(method: "status") }
    func peers() async throws -> PeerList { throw Reached(method: "peers") }
    func pair(_ params: PairParams) async throws -> PairingInfo { throw Reached(method: "pair") }
    func untrust(_ params: PeerParams) async throws -> UntrustInfo { throw Reached(method: "untrust") }
    func rename(_ params: RenameParams) async throws -> PeerIdentity { throw Reached(method: "rename") }
    func send(_ params: SendParams) async throws -> PaymentInfo { throw Reached(method: "send") }
    func accept(_ params: PaymentParams) async throws -> PaymentInfo { throw Reached(method: "accept") }
    func reject(_ params: PaymentParams) async throws -> PaymentInfo { throw Reached(method: "reject") }
    func cancel(_ params: PaymentParams) async throws -> PaymentInfo { throw Reached(method: "cancel") }
    func paid(_ params: PaymentParams) async throws -> PaymentInfo { throw Reached(method: "paid") }
    func received(_ params: PaymentParams) async throws -> PaymentInfo { throw Reached(method: "received") }
    func refund(_ params: RefundParams) async throws -> PaymentInfo { throw Reached(method: "refund") }
    func split(_ params: SplitParams) async throws -> BillInfo { throw Reached(method: "split") }
    func bills() async throws -> BillList { throw Reached(method: "bills") }
    func cancelBill(_ params: BillParams) async throws -> BillInfo { throw Reached(method: "cancel-bill") }
    func receipt(_ params: PaymentParams) async throws -> ReceiptInfo { throw Reached(method: "receipt") }
    func export(_ params: ExportParams) async throws -> PaymentList { throw Reached(method: "export") }
    func backup(_ params: BackupParams) async throws -> BackupInfo { throw Reached(method: "backup") }
    func list(_ params: ListParams) async throws -> PaymentList { throw Reached(method: "list") }
    func show(_ params: PaymentParams) async throws -> PaymentDetailInfo { throw Reached(method: "show") }
    func history(_ params: ListParams) async throws -> PaymentList { throw Reached(method: "history") }
    func stats(_ params: StatsParams) async throws -> StatsInfo { throw Reached(method: "stats") }
    func convert(_ params: ConvertParams) async throws -> ConvertedAmount { throw Reached(method: "convert") }
    func rates(_ params: RatesParams) async throws -> RatesInfo { throw Reached(method: "rates") }
    func currency(_ params: CurrencyParams) async throws -> PreferredCurrencyInfo { throw Reached(method: "currency") }
    func web() async throws -> WebLogin { throw Reached(method: "web") }
    func offer(_ params: OfferParams) async throws -> SeriesInfo { throw Reached(method: "offer") }
    func approve(_ params: SeriesParams) async throws -> SeriesInfo { throw Reached(method: "approve") }
    func decline(_ params: SeriesParams) async throws -> SeriesInfo { throw Reached(method: "decline") }
    func unsubscribe(_ params: SeriesParams) async throws -> SeriesInfo { throw Reached(method: "unsubscribe") }
    func subscriptions() async throws -> SeriesList { throw Reached(method: "subscriptions") }
    func events() -> AsyncStream<JSONValue> { AsyncStream { $0.finish() } }

    func rpcError(for error: any Error) async -> RPCError {
        guard let reached = error as? Reached else { return .internalError("unexpected \(error)") }
        return .internalError("reached \(reached.method)")
    }
}

@Suite("Control dispatch")
struct ControlDispatchTests {
    /// Params every method accepts (`convert` reads `from` and `to` as currencies, `export` as times).
    static func params(for method: String) -> JSONValue {
        if method == "convert" { return ["amount": "1", "from": "EUR", "to": "USD"] }
        return [
            "payment": "abcd", "peer": "bob", "name": "Bob", "amount": "1.00", "currency": "EUR", "every": "month",
            "series": "abcd", "payers": ["bob", "carol"], "bill": "abcd",
        ]
    }

    @Test("each method's route reaches the service's method of the same name, with its params read once")
    func everyRouteReachesItsMethod() async {
        let dispatcher = ControlDispatcher(ReachedService())
        #expect(ControlAPI.routes.count == 31)
        for route in ControlAPI.routes {
            let name = route.method.name
            await #expect(throws: RPCError.internalError("reached \(name)")) {
                try await dispatcher.handle(method: name, params: Self.params(for: name))
            }
        }
    }

    @Test("an unknown method is methodNotFound; params that do not fit are invalidParams before the service")
    func refusals() async {
        let dispatcher = ControlDispatcher(ReachedService())
        await #expect(throws: RPCError.methodNotFound("teleport")) {
            try await dispatcher.handle(method: "teleport", params: nil)
        }
        await #expect(throws: RPCError.invalidParams("missing parameter 'payment'")) {
            try await dispatcher.handle(method: "accept", params: ["reason": "no"])
        }
    }
}
