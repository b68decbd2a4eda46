import Foundation
import InterPayCore
import Testing

@Suite("Split bills (PROTOCOL.md §8.8): shares and the bill's state")
struct BillTests {
    static func eur(_ minor: Int64) throws -> Money { Money(minorUnits: minor, currency: try CurrencyCode("EUR")) }

    @Test("the spec's examples: 90.00/3, 100.00/3, 0.05/2, 2.00/3")
    func examples() throws {
        #expect(try BillSplit.even(Self.eur(90_00), payers: 3).map(\.minorUnits) == [30_00, 30_00, 30_00])
        #expect(try BillSplit.even(Self.eur(100_00), payers: 3).map(\.minorUnits) == [33_34, 33_33, 33_33])
        #expect(try BillSplit.even(Self.eur(5), payers: 2).map(\.minorUnits) == [3, 2])
        #expect(try BillSplit.even(Self.eur(2_00), payers: 3).map(\.minorUnits) == [66, 67, 67])
    }

    @Test("every even split of 2 to 32 payers adds up to its total, each share within a minor unit of the others")
    func evenSplitsAddUp() throws {
        var generator = SystemRandomNumberGenerator()
        for payers in BillLink.payersRange {
            for total in [Int64(payers), Int64(payers) + 1, 99, 1_000, 12_345, 99_999_99, Int64.max / 64]
                + (0..<20).map({ _ in Int64.random(in: Int64(payers)...10_000_000, using: &generator) })
            where total >= payers {
                let shares = try BillSplit.even(Self.eur(total), payers: payers).map(\.minorUnits)
                #expect(shares.count == payers && shares.reduce(0, +) == total, "\(total) among \(payers)")
                #expect((shares.max() ?? 0) - (shares.min() ?? 0) <= 1 && shares.allSatisfy { $0 > 0 })
            }
        }
    }

    @Test("refused: 1 or 33 payers, a total below a minor unit each, shares that do not add up, a zero share")
    func refusals() throws {
        #expect(throws: BillSplit.Problem.payerCount(1)) { try BillSplit.even(Self.eur(100), payers: 1) }
        #expect(throws: BillSplit.Problem.payerCount(33)) { try BillSplit.even(Self.eur(100), payers: 33) }
        #expect(throws: BillSplit.Problem.self) { try BillSplit.even(Self.eur(2), payers: 3) }
        #expect(throws: BillSplit.Problem.self) {
            try BillSplit.named([Self.eur(40_00), Self.eur(25_00)], total: Self.eur(90_00))
        }
        #expect(throws: BillSplit.Problem.self) {
            try BillSplit.named([Self.eur(90_00), Self.eur(0)], total: Self.eur(90_00))
        }
        let named = try BillSplit.named([Self.eur(40_00), Self.eur(25_00), Self.eur(25_00)], total: Self.eur(90_00))
        #expect(named.map(\.minorUnits) == [40_00, 25_00, 25_00])
    }

    @Test("the bill's state for every combination of three shares' states, and what cancelling it cancels")
    func stateTable() {
        let all = PaymentState.allCases
        for a in all {
            for b in all {
                for c in all {
                    let states = [a, b, c]
                    let expected: BillState =
                        if states.contains(.pending) {
                            .open
                        } else if states.allSatisfy({ [.accepted, .paid, .settled].contains($0) }) {
                            .complete
                        } else if states.contains(where: { [.accepted, .paid, .settled].contains($0) }) {
                            .partial
                        } else { .failed }
                    #expect(BillState(shares: states) == expected, "\(states)")
                    #expect(BillState.sharesToCancel(states) == states.indices.filter { states[$0] == .pending })
                }
            }
        }
    }

    @Test("every combination of three shares matches the table in the fixtures (Fixtures/bill-states.txt, §8.8)")
    func fixtureTable() throws {
        let url = RepositoryFiles.root.appending(path: "Tests/InterPayCoreTests/Fixtures/bill-states.txt")
        let expected = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        var actual: [String] = []
        for a in PaymentState.allCases {
            for b in PaymentState.allCases {
                for c in PaymentState.allCases {
                    let states = [a, b, c]
                    let cancel = BillState.sharesToCancel(states).map(String.init).joined(separator: ",")
                    actual.append(
                        "\(a.rawValue) \(b.rawValue) \(c.rawValue) => \(BillState(shares: states).rawValue) "
                            + (cancel.isEmpty ? "-" : cancel))
                }
            }
        }
        #expect(actual.count == 343 && expected.count == actual.count)
        for (want, got) in zip(expected, actual) { #expect(String(want) == got) }
    }

    @Test("a share's bill member: 2 to 32 payers on the wire")
    func member() throws {
        let good = Data(#"{"billID":"01a22930-33a5-7061-9cf7-d5dc20d1b18f","payers":3}"#.utf8)
        #expect(try JSONDecoder().decode(BillLink.self, from: good).payers == 3)
        for payers in [1, 33, -1] {
            let bad = Data(#"{"billID":"01a22930-33a5-7061-9cf7-d5dc20d1b18f","payers":\#(payers)}"#.utf8)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(BillLink.self, from: bad) }
        }
    }
}
