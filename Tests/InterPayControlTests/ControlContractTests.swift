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
        #expect(try ControlAPI.currency.encodeResult(none).jsonText == #"{"currency":null,"source":"none"}"#)
        #expect(try JSONValue.object(["source": "none"]).decode(PreferredCurrencyInfo.self) == none)
        #expect(try JSONValue.object(["currency": .null, "source": "none"]).decode(PreferredCurrencyInfo.self) == none)
    }
}
