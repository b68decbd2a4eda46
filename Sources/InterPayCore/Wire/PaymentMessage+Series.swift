public import FoundationEssentials

extension PaymentMessage {
    /// The hello capability of daemons that speak subscription series (`series` frames, requests linked to a series;
    /// PROTOCOL.md §8.6). No `series` frame, and no request linked to a series, goes to a peer that lacks it.
    public static let subscriptionsCapability = "subscriptions"

    /// The `series` frame: one step of a subscription series (PROTOCOL.md §7.11).
    ///
    /// `offer` goes payee → payer; `approve` and `decline` payer → payee; `end` either way; `ack` answers each of the
    /// others with the sender's resulting state of the series, and is how the sender knows it may stop resending.
    public struct Series: Sendable, Hashable, Codable {
        /// What the frame does.
        public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
            case offer, approve, decline, end, ack
        }

        /// What the frame does.
        public let action: Action
        /// Identifies this frame for acks and duplicate detection; for `ack`, the frame acknowledged.
        @WireUUID public private(set) var messageID: UUID
        /// The series concerned, chosen by the payee.
        @WireUUID public private(set) var seriesID: UUID
        /// `offer` only: the terms.
        public let offer: SeriesOffer?
        /// `approve` only: the largest amount one period may ask and still be accepted without the user.
        public let cap: Money?
        /// `decline` and `end`: optional free text, at most `Limits.maxReasonLength` code points.
        public let reason: String?
        /// `ack` only: the sender's state of the series after the frame acknowledged.
        public let state: SeriesState?

        /// A frame with the members its action needs (the initialisers below are the usual way).
        public init(
            action: Action, messageID: UUID, seriesID: UUID, offer: SeriesOffer? = nil, cap: Money? = nil,
            reason: String? = nil, state: SeriesState? = nil
        ) {
            self.action = action
            self.messageID = messageID
            self.seriesID = seriesID
            self.offer = offer
            self.cap = cap
            self.reason = reason
            self.state = state
        }

        private enum CodingKeys: String, CodingKey {
            case action, messageID, seriesID, offer, cap, reason, state
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let action = try container.decode(Action.self, forKey: .action)
            self.action = action
            self.messageID = try container.decodeWireUUID(forKey: .messageID)
            self.seriesID = try container.decodeWireUUID(forKey: .seriesID)
            func require(_ key: CodingKeys, when present: Bool) throws {
                guard container.contains(key) != present else { return }
                if present {
                    throw DecodingError.keyNotFound(
                        key,
                        .init(
                            codingPath: container.codingPath,
                            debugDescription: "required by action \(action.rawValue)"))
                }
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "not allowed with action \(action.rawValue)")
            }
            try require(.offer, when: action == .offer)
            try require(.cap, when: action == .approve)
            try require(.state, when: action == .ack)
            if !(action == .decline || action == .end) { try require(.reason, when: false) }
            self.offer = try container.decodeIfPresent(SeriesOffer.self, forKey: .offer)
            let cap = try container.decodeIfPresent(Money.self, forKey: .cap)
            if let cap, cap.minorUnits <= 0 {
                throw DecodingError.dataCorruptedError(
                    forKey: .cap, in: container, debugDescription: "the cap must be more than zero")
            }
            self.cap = cap
            self.reason = try container.decodeTextIfPresent(forKey: .reason, length: 0...Limits.maxReasonLength)
            self.state = try container.decodeIfPresent(SeriesState.self, forKey: .state)
        }
    }
}

/// The terms of a subscription series, as the payee offers them.
public struct SeriesOffer: Sendable, Hashable, Codable {
    /// Who asks for the money each period.
    public let payee: PeerID
    /// Who is asked to pay.
    public let payer: PeerID
    /// How much each period asks. Always positive.
    public let amount: Money
    /// How often.
    public let period: SubscriptionPeriod
    /// When the first period falls due.
    public let start: Timestamp
    /// How many periods, or nil for a series that runs until ended. 1 to `Limits.maxSeriesCount`.
    public let count: Int?
    /// The payee's time zone (an IANA identifier such as `Europe/Berlin`), in which due dates are kept.
    public let timeZone: String
    /// When the payee's daemon uses fixed-length periods (`[subscriptions] period_seconds`), their length.
    public let periodSeconds: Int64?
    /// What each request is for (its memo), at most `Limits.maxMemoLength` code points.
    public let memo: String
    /// An optional category for each request.
    public let category: String?

    /// The terms, checked as a peer checks them.
    public init(
        payee: PeerID, payer: PeerID, amount: Money, period: SubscriptionPeriod, start: Timestamp, count: Int?,
        timeZone: String, periodSeconds: Int64?, memo: String, category: String?
    ) throws(PaymentRequestError) {
        try PaymentRequest.checkTerms(payee: payee, payer: payer, amount: amount, memo: memo, category: category)
        self.payee = payee
        self.payer = payer
        self.amount = amount
        self.period = period
        self.start = start
        self.count = count
        self.timeZone = timeZone
        self.periodSeconds = periodSeconds
        self.memo = memo
        self.category = category
    }

    private enum CodingKeys: String, CodingKey {
        case payee, payer, amount, period, start, count, timeZone, periodSeconds, memo, category
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let count = try container.decodeIfPresent(Int.self, forKey: .count)
        if let count, !(1...Limits.maxSeriesCount).contains(count) {
            throw DecodingError.dataCorruptedError(
                forKey: .count, in: container, debugDescription: "must be 1...\(Limits.maxSeriesCount)")
        }
        let periodSeconds = try container.decodeIfPresent(Int64.self, forKey: .periodSeconds)
        if let periodSeconds, !(1...Limits.maxRequestLifetime).contains(periodSeconds) {
            throw DecodingError.dataCorruptedError(
                forKey: .periodSeconds, in: container, debugDescription: "must be 1...\(Limits.maxRequestLifetime)")
        }
        let timeZone = try container.decodeText(forKey: .timeZone, length: 1...Limits.maxTimeZoneLength)
        do {
            try self.init(
                payee: try container.decode(PeerID.self, forKey: .payee),
                payer: try container.decode(PeerID.self, forKey: .payer),
                amount: try container.decode(Money.self, forKey: .amount),
                period: try container.decode(SubscriptionPeriod.self, forKey: .period),
                start: try container.decode(Timestamp.self, forKey: .start), count: count, timeZone: timeZone,
                periodSeconds: periodSeconds,
                memo: try container.decodeText(forKey: .memo, length: 0...Limits.maxMemoLength),
                category: try container.decodeTextIfPresent(forKey: .category, length: 1...Limits.maxCategoryLength))
        } catch let error as PaymentRequestError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }
}

/// Which series and period a request belongs to (the request frame's optional `series` member).
public struct SeriesLink: Sendable, Hashable, Codable {
    /// The series.
    @WireUUID public private(set) var seriesID: UUID
    /// The period, 0 for the first.
    public let index: Int

    /// Links a request to period `index` of `seriesID`.
    public init(seriesID: UUID, index: Int) {
        self.seriesID = seriesID
        self.index = index
    }

    private enum CodingKeys: String, CodingKey {
        case seriesID, index
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.seriesID = try container.decodeWireUUID(forKey: .seriesID)
        let index = try container.decode(Int.self, forKey: .index)
        guard (0..<Limits.maxSeriesCount).contains(index) else {
            throw DecodingError.dataCorruptedError(
                forKey: .index, in: container, debugDescription: "must be 0...\(Limits.maxSeriesCount - 1)")
        }
        self.index = index
    }
}
