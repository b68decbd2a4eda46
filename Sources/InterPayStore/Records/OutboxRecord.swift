public import Foundation
public import GRDB
public import InterPayCore

/// A frame waiting in the `outbox` for the peer's ack: resent, in `seq` order, on every new session.
///
/// `frame` is the JSON body exactly as `FrameCodec().encodeBody` produced it, so a resend is byte-for-byte the
/// original (§9.2: retransmissions reuse the original `messageID` and content).
public struct OutboxRecord: Sendable, Hashable, Codable {
    /// The frame's `messageID`; its ack names it in `ackedID`.
    public var messageID: UUID
    /// The payment the frame concerns.
    public var paymentID: UUID
    /// Who the frame is for.
    public var peerID: PeerID
    /// The encoded JSON body of the frame (no length prefix).
    public var frame: Data
    /// Resend order, assigned by `AppDatabase.apply(_:)` when the record is stored (0 before): larger is newer.
    public internal(set) var seq: Int64
    /// When the frame was queued.
    public var createdAt: Timestamp
    /// After this time the frame is no longer resent (a `request` or `cancel` past the payment's expiry);
    /// nil: resend until acknowledged (`accept`, `reject`).
    public var retryUntil: Timestamp?
    /// How many times the frame was handed to a session.
    public var attempts: Int
    /// When it was last handed to a session.
    public var lastSentAt: Timestamp?

    /// Queues an already encoded frame body.
    public init(
        messageID: UUID, paymentID: UUID, peerID: PeerID, frame: Data, createdAt: Timestamp, retryUntil: Timestamp?
    ) {
        self.messageID = messageID
        self.paymentID = paymentID
        self.peerID = peerID
        self.frame = frame
        self.seq = 0
        self.createdAt = createdAt
        self.retryUntil = retryUntil
        self.attempts = 0
        self.lastSentAt = nil
    }

    /// Queues a state-changing frame (`request`, `cancel`, `accept`, `reject`), encoding it with `FrameCodec`.
    ///
    /// Throws `StoreError.invalidValue` for a frame without a message ID or payment ID (those are never
    /// acknowledged, so they never wait in the outbox), and when the frame cannot be encoded.
    public init(
        message: PaymentMessage, to peerID: PeerID, createdAt: Timestamp, retryUntil: Timestamp?,
        codec: FrameCodec = FrameCodec()
    ) throws(StoreError) {
        guard let messageID = message.messageID, let paymentID = message.paymentID else {
            throw .invalidValue(
                operation: "queue a \(message.type.rawValue) frame",
                reason: "only request, cancel, accept and reject frames are acknowledged and kept in the outbox")
        }
        let frame = try codec.storedBody(message, operation: "queue a \(message.type.rawValue) frame")
        self.init(
            messageID: messageID, paymentID: paymentID, peerID: peerID, frame: frame, createdAt: createdAt,
            retryUntil: retryUntil)
    }

    /// The stored frame decoded again.
    public var message: PaymentMessage {
        get throws(StoreError) {
            try FrameCodec().storedMessage(frame, table: Self.databaseTableName, key: messageID)
        }
    }
}

extension OutboxRecord: FetchableRecord, PersistableRecord, WireUUIDRecord {
    public static let databaseTableName = "outbox"

    /// The table's columns, for queries.
    public enum Columns: String, ColumnExpression, Sendable {
        case messageID, paymentID, peerID, frame, seq, createdAt, retryUntil, attempts, lastSentAt
    }
}
