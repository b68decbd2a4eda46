import InterPayContract

/// What one control request line asks for, read without the daemon: nothing (a blank line), a request to serve, or
/// an error response to send at once because the line is not JSON or not a JSON-RPC 2.0 request.
enum ControlRequestLine: Sendable, Hashable {
    /// Only spaces, tabs and carriage returns: ignored.
    case blank
    /// A valid request (or notification) for the server or its handler.
    case request(RPCRequest)
    /// The line is unusable; answer with this response (`id` as far as it could be read, else null).
    case invalid(RPCResponse)

    /// Reads one line (without its newline).
    init(parsing raw: some Collection<UInt8>) {
        if raw.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            self = .blank
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: raw)
        } catch {
            self = .invalid(RPCResponse(id: nil, error: .parseError("parse error: \(error)")))
            return
        }
        do {
            self = .request(try RPCRequest(validating: value))
        } catch {
            self = .invalid(RPCResponse(id: value["id"].flatMap { RPCID($0) }, error: error))
        }
    }
}
