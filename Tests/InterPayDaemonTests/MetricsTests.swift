import Foundation
import InterPayMetrics
import InterPayTestSupport
import InterPayWeb
import Testing

@testable import InterPayDaemon

@Suite("Metrics: the catalogue, its documentation and the token file", .tearsDown)
struct MetricsTests {
    @Test("the README names every metric of the catalogue, and every limit label")
    func readmeListsEveryMetric() throws {
        let readme = try String(contentsOf: repositoryRoot.appending(path: "README.md"), encoding: .utf8)
        for metric in InterPayMetric.allCases {
            #expect(readme.contains("`\(metric.name)`"), "README does not list \(metric.name)")
        }
        for limit in Limit.allCases {
            #expect(readme.contains("`\(limit.rawValue)`"), "README does not name the limit \(limit.rawValue)")
        }
    }

    @Test("the Grafana dashboard in docs/ queries only metrics of the catalogue, and every panel one at least")
    func dashboardNamesCatalogueMetrics() throws {
        let text = try String(
            contentsOf: repositoryRoot.appending(path: "docs/grafana-dashboard.json"), encoding: .utf8)
        let names = Set(InterPayMetric.allCases.map(\.name))
        var used: Set<String> = []
        for match in text.matches(of: /interpay_[a-z_]+/) {
            let name = String(match.output)
            // Histograms are queried by their series: NAME_bucket, NAME_sum, NAME_count.
            let base = ["_bucket", "_sum", "_count"].reduce(name) { name, suffix in
                name.hasSuffix(suffix) && !names.contains(name) ? String(name.dropLast(suffix.count)) : name
            }
            #expect(names.contains(base), "the dashboard queries \(name), which the catalogue does not have")
            used.insert(base)
        }
        #expect(used.count >= names.count - 2, "the dashboard leaves out \(names.subtracting(used).sorted())")
    }

    @Test("names are Prometheus names: counters end in _total, nothing else does")
    func prometheusNames() {
        let counters: Set<InterPayMetric> = [
            .ledgerCommits, .ledgerCommitFailures, .engineSteps, .payments, .handshakes, .handshakeRefusals, .dials,
            .pairing, .limitHits, .logLinesSuppressed, .undecodableFrames, .ratesFetchFailures, .webRequests,
        ]
        for metric in InterPayMetric.allCases {
            #expect(metric.name.allSatisfy { $0.isLowercase || $0 == "_" }, "\(metric.name)")
            #expect(metric.name.hasSuffix("_total") == counters.contains(metric), "\(metric.name)")
            #expect(!metric.help.isEmpty)
        }
    }

    @Test("the metrics token file is made 0600; one an operator opened to Prometheus' group stays 0640, never wider")
    func tokenFileModes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appending(path: "metrics-token").path
        let token = try WebToken.loadOrCreate(atPath: path, groupMayRead: true)
        #expect(WebToken.isWellFormed(token))
        #expect(try mode(of: path) == 0o600)
        #expect(chmod(path, 0o644) == 0)
        #expect(try WebToken.loadOrCreate(atPath: path, groupMayRead: true) == token, "the token is kept")
        #expect(try mode(of: path) == 0o640, "others lose read access; the group keeps it")
        #expect(try WebToken.loadOrCreate(atPath: path, groupMayRead: false) == token)
        #expect(try mode(of: path) == 0o600, "the web token's rule: the owner's alone")
    }

    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }
}
