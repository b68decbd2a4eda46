import Foundation
import InterPayCore

/// The frame bodies the ledger keeps (the outbox's frames, the answers to seen messages): encoded once, stored as
/// they are, decoded again when needed.
extension FrameCodec {
    /// `message` encoded as a body to store; an encoding failure is `StoreError.invalidValue` naming `operation`.
    func storedBody(
        _ message: PaymentMessage, operation: @autoclosure () -> String
    ) throws(StoreError) -> Data {
        do {
            return Data(try encodeBody(message))
        } catch {
            throw .invalidValue(operation: operation(), reason: error.description)
        }
    }

    /// A stored body decoded again; a body that no longer decodes is `StoreError.corruptRecord`, the row `key` of
    /// `table`.
    func storedMessage(_ body: Data, table: String, key: UUID) throws(StoreError) -> PaymentMessage {
        do {
            return try decodeBody(body)
        } catch {
            throw .corruptRecord(table: table, key: key.wireString, reason: error.description)
        }
    }
}
