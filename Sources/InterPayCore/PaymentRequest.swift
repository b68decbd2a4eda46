public import FoundationEssentials

/// A request for money from the payee to the payer: "please pay me 12.50 MXN".
///
/// Both daemons keep the same request; `PaymentLifecycle` tracks what happens to it.
public struct PaymentRequest: Sendable, Hashable, Codable, Identifiable {
    /// Chosen by the payee; identifies the payment on both sides.
    public let id: UUID
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

    /// Builds a request, checking every rule a peer would check.
    public init(
        id: UUID, payee: PeerID, payer: PeerID, amount: Money, memo: String, category: String?,
        createdAt: Timestamp, expiresAt: Timestamp, series: SeriesLink? = nil
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
    }

    /// Which role `peer` plays in this payment, or nil when it is neither payee nor payer.
    public func role(of peer: PeerID) -> PaymentRole? {
        peer == payee ? .payee : peer == payer ? .payer : nil
    }

    fileprivate enum CodingKeys: String, CodingKey {
        case id, payee, payer, amount, memo, category, createdAt, expiresAt, series
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                id: try container.decode(UUID.self, forKey: .id),
                payee: try container.decode(PeerID.self, forKey: .payee),
                payer: try container.decode(PeerID.self, forKey: .payer),
                amount: try container.decode(Money.self, forKey: .amount),
                memo: try container.decodeText(forKey: .memo, length: 0...Limits.maxMemoLength),
                category: try container.decodeTextIfPresent(forKey: .category, length: 1...Limits.maxCategoryLength),
                createdAt: try container.decode(Timestamp.self, forKey: .createdAt),
                expiresAt: try container.decode(Timestamp.self, forKey: .expiresAt),
                series: try container.decodeIfPresent(SeriesLink.self, forKey: .series))
        } catch let error as PaymentRequestError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath + [error.codingKey], debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.wireString, forKey: .id)
        try container.encode(payee, forKey: .payee)
        try container.encode(payer, forKey: .payer)
        try container.encode(amount, forKey: .amount)
        try container.encode(memo, forKey: .memo)
        try container.encodeIfPresent(category, forKey: .category)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encodeIfPresent(series, forKey: .series)
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
    public var wireString: String { uuidString.lowercased() }
}
