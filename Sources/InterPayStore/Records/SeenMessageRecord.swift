public import Foundation
public import GRDB
public import InterPayCore

/// A processed incoming frame and the answer we gave (`seenMessage`), so that a duplicate gets the same answer.
///
/// §9.2: a frame whose `messageID` was already processed is answered with the same `ack` again, byte for byte, and
/// changes nothing. `response` is the encoded `ack` or `error` body we sent.
public struct SeenMessageRecord: Sendable, Hashable, Codable {
    /// The incoming frame's `messageID`.
    public var messageID: UUID
    /// Who sent it. `messageID`s are unique per sender: compare this with the session's peer before reusing
    /// `response`.
    public var peerID: PeerID
    /// The payment it concerned, when it named one (an `unknown-payment` error names a payment we do not have).
    public var paymentID: UUID?
    /// When we processed it.
    public var receivedAt: Timestamp
    /// The encoded JSON body of our answer (`ack` or `error`, no length prefix).
    public var response: Data

    /// Records a processed frame and the body of our answer.
    public init(messageID: UUID, peerID: PeerID, paymentID: UUID?, receivedAt: Timestamp, response: Data) {
        self.messageID = messageID
        self.peerID = peerID
        self.paymentID = paymentID
        self.receivedAt = receivedAt
        self.response = response
    }

    /// Records a processed frame and our answer, encoding the answer with `FrameCodec`.
    public init(
        messageID: UUID, peerID: PeerID, paymentID: UUID?, receivedAt: Timestamp, response: PaymentMessage,
        codec: FrameCodec = FrameCodec()
    ) throws(StoreError) {
        let body = try codec.storedBody(response, operation: "record the answer to \(messageID.wireString)")
        self.init(messageID: messageID, peerID: peerID, paymentID: paymentID, receivedAt: receivedAt, response: body)
    }

    /// The stored answer decoded again.
    public var responseMessage: PaymentMessage {
        get throws(StoreError) {
            try FrameCodec().storedMessage(response, table: Self.databaseTableName, key: messageID)
        }
    }
}

extension SeenMessageRecord: FetchableRecord, PersistableRecord, WireUUIDRecord {
    public static let databaseTableName = "seenMessage"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        case messageID, peerID, paymentID, receivedAt, response
    }
}
