/// Measurements of one figure, in its unit, with the order statistics the report shows.
struct Samples: Sendable, Codable {
    /// Every measurement, in the order taken.
    var values: [Double]

    init(_ values: [Double]) {
        self.values = values
    }

    /// The `q` quantile (nearest rank), e.g. 0.5 for the median; 0 without samples.
    func quantile(_ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    var p50: Double { quantile(0.5) }
    var p99: Double { quantile(0.99) }
    var min: Double { values.min() ?? 0 }
    var max: Double { values.max() ?? 0 }

    private enum CodingKeys: String, CodingKey {
        case values, count, p50, p99, min, max
    }

    init(from decoder: any Decoder) throws {
        values = try decoder.container(keyedBy: CodingKeys.self).decode([Double].self, forKey: .values)
    }

    /// The samples with their statistics, so that the JSON report needs no computing.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(values, forKey: .values)
        try container.encode(values.count, forKey: .count)
        try container.encode(p50, forKey: .p50)
        try container.encode(p99, forKey: .p99)
        try container.encode(min, forKey: .min)
        try container.encode(max, forKey: .max)
    }
}

extension Duration {
    /// This duration in milliseconds, as a floating-point number for reports.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }
}
