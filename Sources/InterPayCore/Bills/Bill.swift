public import FoundationEssentials

/// The `bill` member of a request (PROTOCOL.md §8.8): the split bill the request is a share of, and how many payers
/// the bill has, never who they are. Spoken only between peers that both announce `bills`.
public struct BillLink: Sendable, Hashable, Codable {
    /// The hello capability of daemons that split bills and keep a share's link to its bill.
    public static let capability = "bills"
    /// How many payers a bill has at least and at most.
    public static let payersRange = 2...32

    /// The bill, chosen by its payee; it names nothing across payees.
    @WireUUID public private(set) var billID: UUID
    /// How many payers the bill has, `payersRange`.
    public let payers: Int

    /// Links a request to bill `billID` of `payers` payers.
    public init(billID: UUID, payers: Int) {
        self.billID = billID
        self.payers = payers
    }

    private enum CodingKeys: String, CodingKey {
        case billID, payers
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.billID = try container.decodeWireUUID(forKey: .billID)
        let payers = try container.decode(Int.self, forKey: .payers)
        guard Self.payersRange.contains(payers) else {
            throw DecodingError.dataCorruptedError(
                forKey: .payers, in: container,
                debugDescription: "must be \(Self.payersRange.lowerBound)...\(Self.payersRange.upperBound)")
        }
        self.payers = payers
    }
}

/// How a bill's total is split into shares (PROTOCOL.md §8.8), decided without I/O.
public enum BillSplit {
    /// Why a bill cannot be split as asked.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Fewer than 2 or more than 32 payers.
        case payerCount(Int)
        /// The total is below one minor unit per payer: some share would be zero.
        case totalTooSmall(total: Money, payers: Int)
        /// Named shares that do not add up to the total.
        case sharesDoNotAddUp(sum: Money, total: Money)
        /// A named share of zero, or in another currency.
        case invalidShare(Money)

        public var description: String {
            switch self {
            case .payerCount(let count):
                "a bill has \(BillLink.payersRange.lowerBound) to \(BillLink.payersRange.upperBound) payers, not \(count)"
            case .totalTooSmall(let total, let payers): "\(total) cannot be split among \(payers) payers"
            case .sharesDoNotAddUp(let sum, let total): "the shares add up to \(sum), not \(total)"
            case .invalidShare(let share): "a share of \(share) is not one: each is above zero, in the bill's currency"
            }
        }
    }

    /// The even split of `total` among `payers` payers, in the order they were named: each `total / payers` rounded
    /// half to even to a minor unit, and the difference from the total added (or taken) one minor unit at a time
    /// from the first payer on. The shares always add up to `total`.
    public static func even(_ total: Money, payers: Int) throws(Problem) -> [Money] {
        guard BillLink.payersRange.contains(payers) else { throw .payerCount(payers) }
        guard total.minorUnits >= Int64(payers) else { throw .totalTooSmall(total: total, payers: payers) }
        let each = Money.averageMinorUnits(total: total.minorUnits, count: payers)  // half to even
        var shares = Array(repeating: each, count: payers)
        var difference = total.minorUnits - each * Int64(payers)  // |difference| < payers
        var index = 0
        while difference != 0 {
            let step: Int64 = difference > 0 ? 1 : -1
            shares[index] += step
            difference -= step
            index += 1
        }
        return shares.map { Money(minorUnits: $0, currency: total.currency) }
    }

    /// Named shares, checked: 2 to 32 of them, each above zero in `total`'s currency, adding up to `total`.
    public static func named(_ shares: [Money], total: Money) throws(Problem) -> [Money] {
        guard BillLink.payersRange.contains(shares.count) else { throw .payerCount(shares.count) }
        var sum: Int64 = 0
        for share in shares {
            guard share.minorUnits > 0, share.currency == total.currency else { throw .invalidShare(share) }
            let (added, overflow) = sum.addingReportingOverflow(share.minorUnits)
            guard !overflow else { throw .sharesDoNotAddUp(sum: total, total: total) }
            sum = added
        }
        guard sum == total.minorUnits else {
            throw .sharesDoNotAddUp(sum: Money(minorUnits: sum, currency: total.currency), total: total)
        }
        return shares
    }
}

/// A bill's state, derived from its shares' states (PROTOCOL.md §8.8): never sent, never stored.
public enum BillState: String, Sendable, Hashable, Codable, CaseIterable {
    /// At least one share is pending.
    case open
    /// Every share was accepted (and possibly paid or settled since).
    case complete
    /// Nothing is pending; some shares were accepted and some refused, cancelled or expired.
    case partial
    /// Every share was refused, cancelled or expired.
    case failed

    /// The state of a bill whose shares are in `states` (at least one).
    public init(shares states: [PaymentState]) {
        if states.contains(.pending) {
            self = .open
        } else if states.allSatisfy(\.isAccepted) {
            self = .complete
        } else if states.contains(where: \.isAccepted) {
            self = .partial
        } else {
            self = .failed
        }
    }

    /// Which of a bill's shares cancelling the bill cancels: the pending ones, and nothing else.
    public static func sharesToCancel(_ states: [PaymentState]) -> [Int] {
        states.indices.filter { states[$0] == .pending }
    }
}
