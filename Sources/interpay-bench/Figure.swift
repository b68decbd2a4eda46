/// One line of the report: a figure measured, its baseline measured in the same run, and its target.
struct Figure: Sendable, Codable {
    /// What was measured.
    var name: String
    /// The unit of the samples: `ms`, `req/s`, `MiB`, `s`.
    var unit: String
    /// Which statistic the target and ratio are about: `p50`, `p99` or `max`.
    var statistic: String
    var samples: Samples
    var baseline: Baseline?
    /// The goal, in words (`≤ 1.5× baseline`, `≥ 5000 req/s`).
    var target: String
    /// Whether the target was met.
    var met: Bool?

    /// The reference the figure is compared with.
    struct Baseline: Sendable, Codable {
        var name: String
        var samples: Samples
    }

    /// The figure's statistic.
    var value: Double {
        switch statistic {
        case "p99": samples.p99
        case "max": samples.max
        default: samples.p50
        }
    }

    /// The figure divided by the baseline's same statistic.
    var ratio: Double? {
        guard let baseline else { return nil }
        let reference =
            switch statistic {
            case "p99": baseline.samples.p99
            case "max": baseline.samples.max
            default: baseline.samples.p50
            }
        return reference > 0 ? value / reference : nil
    }

    private enum CodingKeys: String, CodingKey {
        case name, unit, statistic, samples, baseline, target, met
    }
}
