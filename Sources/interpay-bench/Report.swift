import Foundation

/// Every figure of a run with the machine it ran on.
struct Report: Sendable, Codable {
    var machine: Machine
    var figures: [Figure]

    /// The figures as an aligned table: value (p50, p99 or max), min–max, baseline, ratio, target, verdict.
    func printTable() {
        print("Machine: \(machine.summary)")
        var rows = [["figure", "value", "min … max", "baseline", "ratio", "target", ""]]
        for figure in figures {
            let value =
                "\(Self.format(figure.value)) \(figure.unit) (\(figure.statistic), n=\(figure.samples.values.count))"
            let range = "\(Self.format(figure.samples.min)) … \(Self.format(figure.samples.max))"
            var baseline = "—"
            if let reference = figure.baseline {
                let statistic = figure.statistic == "p99" ? reference.samples.p99 : reference.samples.p50
                baseline = "\(Self.format(statistic)) \(figure.unit) \(reference.name)"
            }
            let ratio = figure.ratio.map { String(format: "%.2f×", $0) } ?? "—"
            let verdict = figure.met.map { $0 ? "met" : "MISSED" } ?? ""
            rows.append([figure.name, value, range, baseline, ratio, figure.target, verdict])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            print(
                zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                    .trimmingCharacters(in: .whitespaces))
        }
    }

    static func format(_ value: Double) -> String {
        value >= 100
            ? String(format: "%.0f", value)
            : value >= 10 ? String(format: "%.1f", value) : String(format: "%.2f", value)
    }
}
