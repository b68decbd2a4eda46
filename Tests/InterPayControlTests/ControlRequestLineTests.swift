import Testing

@testable import InterPayContract
@testable import InterPayControl

@Suite("Control request lines")
struct ControlRequestLineTests {
    static func parse(_ text: String) -> ControlRequestLine {
        ControlRequestLine(parsing: Array(text.utf8))
    }

    @Test("blank lines are ignored", arguments: ["", " ", "\t \r", "\r"])
    func blank(_ text: String) {
        #expect(Self.parse(text) == .blank)
    }

    @Test("a valid request is passed on")
    func request() {
        #expect(
            Self.parse(#" {"jsonrpc":"2.0","id":3,"method":"peers","params":{}} "#)
                == .request(RPCRequest(id: 3, method: "peers", params: [:])))
        #expect(
            Self.parse(#"{"jsonrpc":"2.0","method":"status"}"#) == .request(RPCRequest(id: nil, method: "status")))
    }

    @Test("text that is not JSON is answered with a parse error and a null id")
    func parseError() throws {
        guard case .invalid(let response) = Self.parse(#"{"jsonrpc":"2.0","id":1,"method":"status""#) else {
            Issue.record("expected an error response")
            return
        }
        #expect(response.id == nil)
        #expect(response.error?.code == .parseError)
    }

    @Test("an invalid request is answered with its id when that could be read")
    func invalidRequestKeepsID() throws {
        guard case .invalid(let response) = Self.parse(#"{"jsonrpc":"1.0","id":"x","method":"status"}"#) else {
            Issue.record("expected an error response")
            return
        }
        #expect(response.id == "x")
        #expect(response.error?.code == .invalidRequest)
    }

    @Test(
        "a result's line carries its encoded text as is: the bytes of the response's JSON value",
        arguments: [RPCID.int(7), .string("a\"b\u{1}é")])
    func resultLine(id: RPCID) throws {
        let result: JSONValue = [
            "amount": "1.50", "list": [1, 2.5, "x\ny", .null, true], "ünicode": ["b": 1, "a": 2],
        ]
        let line = ControlServer.line(id: id, result: EncodedJSON(result))
        let expected = ControlServer.line(RPCResponse(id: id, result: result).jsonValue)
        #expect(line == expected)
        let answered = try RPCResponse(JSONValue(parsing: line.readableBytesView.dropLast()))
        #expect(answered == RPCResponse(id: id, result: result))
    }
}
