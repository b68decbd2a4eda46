import Foundation

/// The figures of `scripts/bench-lan --json` (discovery, CLI wall time, memory, scale), read into this report.
enum LANReport {
    private struct File: Decodable {
        var figures: [Entry]
    }

    private struct Entry: Decodable {
        var name: String
        var unit: String
        var samples: [Double]
        var baseline: Reference?
        /// `{"p50_max": X}` (in `unit`) or `{"ratio_max": X}` (p50 over the baseline's p50), or none.
        var target: [String: Double]?
        /// Whether bench-lan found the target met.
        var met: Bool?
        /// Why the figure could not be measured.
        var error: String?

        /// The target as this report writes it.
        var targetText: String {
            if let limit = target?["p50_max"] { return "≤ \(Report.format(limit)) \(unit)" }
            if let limit = target?["ratio_max"] { return "≤ \(Report.format(limit))× baseline" }
            return "—"
        }
    }

    private struct Reference: Decodable {
        var name: String
        var samples: [Double]
    }

    static func figures(fromFileAt path: String) throws -> [Figure] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw BenchError.failed("cannot read \(path): \(error.localizedDescription)")
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw BenchError.failed("\(path) is not a bench-lan report: \(error)")
        }
        return file.figures.map { entry in
            var figure = Figure(
                name: entry.error.map { "\(entry.name) (not measured: \($0))" } ?? entry.name, unit: entry.unit,
                statistic: "p50", samples: Samples(entry.samples),
                baseline: entry.baseline.map { .init(name: $0.name, samples: Samples($0.samples)) },
                target: entry.targetText)
            figure.met = entry.error == nil ? entry.met : false
            return figure
        }
    }
}
