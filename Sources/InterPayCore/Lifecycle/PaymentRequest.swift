public import FoundationEssentials

/// A request for money from the payee to the payer: "please pay me 12.50 MXN".
///
/// Both daemons keep the same request; `PaymentLifecycle` tracks what happens to it.
public struct PaymentRequest: Sendable, Hashable, Codable, Identifiable {
    /// Chosen by the payee; identifies the payment on both sides.
    @WireUUID public private(set) var id: UUID
    /// Who asked for the money (and created the request).
    public let payee: PeerID
    /// Who is asked to pay.
    public let payer: PeerID
    /// How much, in which currency. Always positive.
    public let amount: Money
    /// What it is for, at most `Limits.maxMemoLength` code points; may be empty.
    public let memo: String
    /// An optional label for statistics ("food", "rent"), 1 to `Limits.maxCategoryLength` code points.
    public let category: String?
    /// When the payee created it.
    public let createdAt: Timestamp
    /// When it expires if nobody decided; later than `createdAt`.
    public let expiresAt: Timestamp
    /// The subscription series and period this request belongs to (PROTOCOL.md §8.6), nil for a one-off request.
    public let series: SeriesLink?
    /// The split bill this request is a share of (PROTOCOL.md §8.8), nil for any other request.
    public let bill: BillLink?

    /// Builds a request, checking every rule a peer would check.
    public init(
        id: UUID, payee: PeerID, payer: PeerID, amount: Money, memo: String, category: String?,
        createdAt: Timestamp, expiresAt: Timestamp, series: SeriesLink? = nil, bill: BillLink? = nil
    ) throws(PaymentRequestError) {
        try PaymentRequest.checkTerms(payee: payee, payer: payer, amount: amount, memo: memo, category: category)
        guard expiresAt > createdAt else { throw .expiresBeforeCreated }
        self.id = id
        self.payee = payee
        self.payer = payer
        self.amount = amount
        self.memo = memo
        self.category = category
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.series = series
        self.bill = bill
    }

    /// The rules a request and a subscription's terms share: two different peers, a positive amount, a memo and a
    /// category a person can read.
    static func checkTerms(
        payee: PeerID, payer: PeerID, amount: Money, memo: String, category: String?
    ) throws(PaymentRequestError) {
        guard payee != payer else { throw .samePeer }
        guard amount.minorUnits > 0 else { throw .amountNotPositive }
        guard memo.unicodeScalars.count <= Limits.maxMemoLength else { throw .memoTooLong(memo.unicodeScalars.count) }
        if let scalar = SafeText.forbiddenScalar(in: memo) { throw .controlCharacter(field: "memo", scalar) }
        if let category {
            guard (1...Limits.maxCategoryLength).contains(category.unicodeScalars.count) else {
                throw .invalidCategory(category)
            }
            if let scalar = SafeText.forbiddenScalar(in: category) {
                throw .controlCharacter(field: "category", scalar)
            }
        }
    }

    /// Which role `peer` plays in this payment, or nil when it is neither payee nor payer.
    public func role(of peer: PeerID) -> PaymentRole? {
        peer == payee ? .payee : peer == payer ? .payer : nil
    }

    fileprivate enum CodingKeys: String, CodingKey {
        case id, payee, payer, amount, memo, category, createdAt, expiresAt, series, bill
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                id: try container.decodeWireUUID(forKey: .id),
                payee: try container.decode(PeerID.self, forKey: .payee),
                payer: try container.decode(PeerID.self, forKey: .payer),
                amount: try container.decode(Money.self, forKey: .amount),
                memo: try container.decodeText(forKey: .memo, length: 0...Limits.maxMemoLength),
                category: try container.decodeTextIfPresent(forKey: .category, length: 1...Limits.maxCategoryLength),
                createdAt: try container.decode(Timestamp.self, forKey: .createdAt),
                expiresAt: try container.decode(Timestamp.self, forKey: .expiresAt),
                series: try container.decodeIfPresent(SeriesLink.self, forKey: .series),
                bill: try container.decodeIfPresent(BillLink.self, forKey: .bill))
        } catch let error as PaymentRequestError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath + [error.codingKey], debugDescription: error.description))
        }
    }
}

extension PaymentRequestError {
    /// The wire field a violated rule belongs to.
    fileprivate var codingKey: any CodingKey {
        switch self {
        case .samePeer: PaymentRequest.CodingKeys.payer
        case .amountNotPositive: PaymentRequest.CodingKeys.amount
        case .memoTooLong: PaymentRequest.CodingKeys.memo
        case .invalidCategory: PaymentRequest.CodingKeys.category
        case .controlCharacter(let field, _):
            field == "memo" ? PaymentRequest.CodingKeys.memo : PaymentRequest.CodingKeys.category
        case .expiresBeforeCreated: PaymentRequest.CodingKeys.expiresAt
        }
    }
}

extension UUID {
    /// The lower-case text form used on the wire (RFC 9562).
    ///
    /// Written out here rather than as `uuidString.lowercased()`: every ledger query and frame on the payment path
    /// formats a few, and the two passes and their allocations showed in profiles.
    public var wireString: String {
        withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var position = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = Self.hexDigits[Int(byte >> 4)]
                    buffer[position + 1] = Self.hexDigits[Int(byte & 0xF)]
                    position += 2
                }
                return position
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A fresh random (version 4) UUID, its bits from the system's generator (`getrandom`). `UUID()` opens and
    /// reads `/dev/urandom` for every one on Linux, which a payment step making two of them felt.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
            bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
            bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        }
        return UUID(uuid: value)
    }

    /// A fresh time-ordered (version 7, RFC 9562 §5.7) UUID: the Unix time in milliseconds in its first 48 bits,
    /// then 74 random bits from the system's generator.
    ///
    /// The IDs this side makes for payments and frames: each is a key of a ledger index (payments, outbox, seen
    /// frames, events), and a random key lands on a random page of its index, so every insert of a batch dirtied a
    /// page of its own that the commit then wrote to the WAL. Keys that grow with time are added at the end of each
    /// index, together. The creation time they reveal is in the frame already (`createdAt`, the time it is sent);
    /// 74 random bits keep them unguessable. Receivers check no version bits (PROTOCOL.md §7.1).
    public static func timeOrdered(
        milliseconds: UInt64 = UInt64(max(0, Date().timeIntervalSince1970) * 1_000)
    )
        -> UUID
    {
        var generator = SystemRandomNumberGenerator()
        let high = milliseconds << 16 | (generator.next() as UInt64) & 0xFFFF
        let low = generator.next() as UInt64
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            bytes.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
            bytes[6] = bytes[6] & 0x0F | 0x70  // version 7
            bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        }
        return UUID(uuid: value)
    }

    /// Parses the text form (`8-4-4-4-12` hex digits, either case); nil if `text` is not one.
    public init?(wireString text: String) {
        var text = text
        let parsed = text.withUTF8 { utf8 -> uuid_t? in
            guard utf8.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let complete = withUnsafeMutableBytes(of: &value) { bytes -> Bool in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard utf8[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = Self.hexValue(utf8[position]), let low = Self.hexValue(utf8[position + 1]) else {
                        return false
                    }
                    bytes[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return complete ? value : nil
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension KeyedDecodingContainer {
    /// A UUID in its text form (either case), as `decode(UUID.self, forKey:)` reads it, without its detours.
    public func decodeWireUUID(forKey key: Key) throws -> UUID {
        let text = try decode(String.self, forKey: key)
        guard let uuid = UUID(wireString: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "Attempted to decode UUID from invalid UUID string.")
        }
        return uuid
    }

    /// A UUID in its text form if the member is present and not null.
    public func decodeWireUUIDIfPresent(forKey key: Key) throws -> UUID? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeWireUUID(forKey: key)
    }
}
