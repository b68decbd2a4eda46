import InterPayContract
import InterPayControl
import InterPayControlClient
import Testing

@Suite("JSON-RPC types and socket path")
struct RPCTypesTests {
    @Test("a request round-trips through its JSON form")
    func requestRoundTrip() throws {
        let request = RPCRequest(id: "abc", method: "send", params: ["peer": "bob", "amount": "12.50"])
        let text = request.jsonValue.jsonText
        #expect(text == #"{"id":"abc","jsonrpc":"2.0","method":"send","params":{"amount":"12.50","peer":"bob"}}"#)
        #expect(try RPCRequest(validating: JSONValue(parsing: text)) == request)
        let notification = try RPCRequest(validating: ["jsonrpc": "2.0", "method": "ping"])
        #expect(notification.isNotification)
        #expect(notification.params == nil)
    }

    @Test(
        "invalid requests are rejected with -32600",
        arguments: [
            #"[]"#, #"[{"jsonrpc":"2.0","id":1,"method":"a"}]"#, #""text""#, #"42"#, #"{}"#,
            #"{"jsonrpc":"1.0","id":1,"method":"a"}"#, #"{"id":1,"method":"a"}"#, #"{"jsonrpc":"2.0","id":1}"#,
            #"{"jsonrpc":"2.0","id":1,"method":7}"#, #"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"a"}"#, #"{"jsonrpc":"2.0","id":{},"method":"a"}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"a","params":"x"}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"a","params":null}"#,
        ])
    func invalidRequest(_ text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect {
            try RPCRequest(validating: value)
        } throws: { error in
            (error as? RPCError)?.code == .invalidRequest
        }
    }

    @Test("responses: result, error with data, null id; malformed ones are refused")
    func responses() throws {
        let success = RPCResponse(id: 7, result: ["ok": true])
        #expect(success.jsonValue.jsonText == #"{"id":7,"jsonrpc":"2.0","result":{"ok":true}}"#)
        #expect(RPCResponse(success.jsonValue) == success)
        let failure = RPCResponse(id: nil, error: .notFound("no payment p9", data: ["id": "p9"]))
        #expect(
            failure.jsonValue.jsonText
                == #"{"error":{"code":-32001,"data":{"id":"p9"},"message":"no payment p9"},"id":null,"jsonrpc":"2.0"}"#)
        #expect(RPCResponse(failure.jsonValue) == failure)
        #expect(RPCResponse(["jsonrpc": "2.0", "id": 1]) == nil)
        #expect(RPCResponse(["jsonrpc": "2.0", "id": 1, "result": 1, "error": ["code": 1, "message": "x"]]) == nil)
        #expect(RPCResponse(["jsonrpc": "2.0", "id": 1, "error": ["code": "x", "message": "x"]]) == nil)
        #expect(RPCResponse(["id": 1, "result": 1]) == nil)
    }

    @Test("a refused amount names its reason and the values its sentence needs, in the error's data")
    func amountReason() throws {
        let error = RPCError.amount(.tooManyDecimals("1.5", currency: "JPY", allowed: 0), field: "--max")
        #expect(error.code == .invalidParams)
        #expect(error.reason == .amountTooManyDecimals)
        #expect(error.message == "--max: JPY has no decimal places, got '1.5'")
        #expect(
            error.jsonValue.jsonText
                == #"{"code":-32602,"data":{"allowed":"0","currency":"JPY","field":"--max","reason":"amountTooManyDecimals","text":"1.5"},"message":"--max: JPY has no decimal places, got '1.5'"}"#
        )
        #expect(RPCError.amount(.sign("-1")).reason == .amountSign)
        #expect(RPCError.missing("peer").reason == .missingParameter)
        #expect(RPCError.invalidParams("no reason").reason == nil)
    }

    @Test("error codes have their JSON-RPC and application values")
    func codes() {
        #expect(RPCError.Code.parseError.rawValue == -32700)
        #expect(RPCError.Code.invalidRequest.rawValue == -32600)
        #expect(RPCError.Code.methodNotFound.rawValue == -32601)
        #expect(RPCError.Code.invalidParams.rawValue == -32602)
        #expect(RPCError.Code.internalError.rawValue == -32603)
        #expect(RPCError.Code.notFound.rawValue == -32001)
        #expect(RPCError.Code.conflict.rawValue == -32002)
        #expect(RPCError.Code.peerUnreachable.rawValue == -32003)
        #expect(RPCError.Code.forbidden.rawValue == -32004)
        #expect(RPCError.Code.unavailable.rawValue == -32005)
        #expect(RPCError.forbidden("no").code == -32004)
        #expect(RPCError.Code(rawValue: -32005).name == "unavailable")
    }

    @Test("socket path: --socket, then INTERPAY_SOCKET, then XDG_RUNTIME_DIR, then /run")
    func socketPath() {
        let all = ["INTERPAY_SOCKET": "/env/s.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(ControlSocketPath.resolve(explicit: "/x/y.sock", environment: all) == "/x/y.sock")
        #expect(ControlSocketPath.resolve(explicit: nil, environment: all) == "/env/s.sock")
        #expect(ControlSocketPath.resolve(explicit: "", environment: all) == "/env/s.sock")
        #expect(
            ControlSocketPath.resolve(explicit: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
                == "/run/user/1000/interpay/interpayd.sock")
        #expect(
            ControlSocketPath.resolve(explicit: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000/"])
                == "/run/user/1000/interpay/interpayd.sock")
        #expect(
            ControlSocketPath.resolve(explicit: nil, environment: ["INTERPAY_SOCKET": "", "XDG_RUNTIME_DIR": "rel"])
                == "/run/interpay/interpayd.sock")
        #expect(ControlSocketPath.resolve(explicit: nil, environment: [:]) == "/run/interpay/interpayd.sock")
    }
}
