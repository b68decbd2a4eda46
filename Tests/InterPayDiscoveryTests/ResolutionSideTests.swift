import Foundation
import InterPayTestSupport
import Testing

@testable import InterPayDiscovery

/// Which side of a pair resolves the other first (`ResolutionSide`): both sides must agree from the two names alone,
/// and the pairs must split about evenly.
@Suite("Resolution side", .tearsDown)
struct ResolutionSideTests {
    @Test("FNV-1a 64 gives the published test values")
    func fnvVectors() {
        #expect(ResolutionSide.fnv1a([]) == 0xCBF2_9CE4_8422_2325)
        #expect(ResolutionSide.fnv1a(Array("a".utf8)) == 0xAF63_DC4C_8601_EC8C)
        #expect(ResolutionSide.fnv1a(Array("foobar".utf8)) == 0x8594_4171_F739_67E8)
    }

    @Test(
        "a table of pairs: the side the rule names, from either end",
        arguments: [
            ("alice", "bob", true),  // hash of "alice\nbob" is even: the lower name resolves
            ("h25-001", "h25-002", true),
            ("Bob's till", "Café Ünïcode", false),  // odd: the higher name resolves
            ("x", "y", true),
        ])
    func table(low: String, high: String, lowResolves: Bool) {
        #expect(ResolutionSide.resolvesFirst(own: low, other: high) == lowResolves)
        #expect(ResolutionSide.resolvesFirst(own: high, other: low) == !lowResolves)
    }

    struct PairVector: Decodable, CustomTestStringConvertible {
        let name: String
        let a: String
        let b: String
        let fnv1a: String
        let resolvesFirst: String
        var testDescription: String { name }
    }

    @Test("the protocol's vectors (protocol/vectors/discovery.json): the hash and the side")
    func protocolVectors() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "protocol/vectors/discovery.json")
        let vectors = try JSONDecoder().decode([PairVector].self, from: Data(contentsOf: url))
        #expect(vectors.count >= 8)
        for vector in vectors {
            let (a, b) = (Array(vector.a.utf8), Array(vector.b.utf8))
            let (low, high) = a.lexicographicallyPrecedes(b) ? (a, b) : (b, a)
            let hash = ResolutionSide.fnv1a(low + [0x0A] + high)
            #expect(hash == UInt64(vector.fnv1a, radix: 16), "\(vector.name)")
            #expect(
                ResolutionSide.resolvesFirst(own: vector.a, other: vector.b) == (vector.resolvesFirst == "a"),
                "\(vector.name)")
            #expect(
                ResolutionSide.resolvesFirst(own: vector.b, other: vector.a) == (vector.resolvesFirst == "b"),
                "\(vector.name)")
        }
    }

    @Test("exactly one side of every pair resolves first, and each name gets about half of its pairs")
    func oneSideAndBalanced() {
        let names =
            (1...25).map { "h25-\(String(repeating: "0", count: $0 < 10 ? 2 : 1))\($0)" } + [
                "Till 1", "Till 2", "Café", "café", "Ünïcode till", "alice", "bob",
            ]
        for own in names {
            #expect(ResolutionSide.resolvesFirst(own: own, other: own), "our own instance is resolved (and ignored)")
            var mine = 0
            for other in names where other != own {
                let here = ResolutionSide.resolvesFirst(own: own, other: other)
                let there = ResolutionSide.resolvesFirst(own: other, other: own)
                #expect(here != there, "\(own) and \(other): exactly one side")
                if here { mine += 1 }
            }
            #expect((6...26).contains(mine), "\(own) resolves \(mine) of \(names.count - 1) first")
        }
    }
}
