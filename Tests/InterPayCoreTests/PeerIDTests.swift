import Crypto
import Foundation
import InterPayCore
import Testing

@Suite("Peer IDs")
struct PeerIDTests {
    static let alice = PeerID(subjectPublicKeyInfoDER: Array("alice-spki".utf8))

    @Test("derives from the SHA-256 of the SubjectPublicKeyInfo")
    func derivation() throws {
        let key = P256.Signing.PrivateKey()
        let der = key.publicKey.derRepresentation
        let id = PeerID(subjectPublicKeyInfoDER: der)
        #expect(id.bytes == Array(SHA256.hash(data: der)))
        #expect(id != PeerID(subjectPublicKeyInfoDER: P256.Signing.PrivateKey().publicKey.derRepresentation))
    }

    @Test("text form: 8 groups of 7 base32 characters, round trip")
    func roundTrip() throws {
        for seed in 0..<64 {
            let id = PeerID(subjectPublicKeyInfoDER: [UInt8(seed)])
            let text = id.description
            #expect(text.count == 63)
            let groups = text.split(separator: "-")
            #expect(groups.count == 8 && groups.allSatisfy { $0.count == 7 })
            #expect(text.allSatisfy { $0 == "-" || ("A"..."Z").contains($0) || ("2"..."7").contains($0) })
            #expect(try PeerID(parsing: text) == id)
            #expect(try PeerID(parsing: text.lowercased()) == id)
            #expect(try PeerID(parsing: text.replacingOccurrences(of: "-", with: "")) == id)
            #expect(id.shortDescription == String(groups[0]))
        }
    }

    @Test("known value: 32 bytes 0x00...0x1f")
    func knownValue() throws {
        let id = try PeerID(bytes: Array(0...31))
        // base32 of the bytes, 4 chunks of 13, each followed by its Luhn mod 32 check character (PROTOCOL.md).
        #expect(id.description == PeerIDTests.expectedSequentialText)
    }
    /// Computed independently (Python's base64 module and a Luhn mod 32 written from the specification).
    static let expectedSequentialText = "AAAQEAY-EAUDAO5-CAJBIFQ-YDIOB4X-IBCEQTC-QKRMFYM-YDENBWH-A5DYPQS"

    @Test("every single-character typo is caught")
    func singleSubstitutions() throws {
        let text = Self.alice.description
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var checked = 0
        for (index, original) in text.enumerated() where original != "-" {
            for replacement in alphabet where replacement != original {
                var characters = Array(text)
                characters[index] = replacement
                #expect(throws: PeerIDError.self) { try PeerID(parsing: String(characters)) }
                checked += 1
            }
        }
        #expect(checked == 56 * 31)
    }

    @Test("most swaps of two neighbouring characters are caught")
    func transpositions() throws {
        var caught = 0
        var total = 0
        for seed in 0..<32 {
            let characters = Array(PeerID(subjectPublicKeyInfoDER: [UInt8(seed), 1]).description)
            for index in 0..<(characters.count - 1)
            where characters[index] != "-" && characters[index + 1] != "-"
                && characters[index] != characters[index + 1]
            {
                var swapped = characters
                swapped.swapAt(index, index + 1)
                total += 1
                if (try? PeerID(parsing: String(swapped))) == nil { caught += 1 }
            }
        }
        // Luhn mod N misses only a swap of the two values that sum to N-1 in doubled positions; nearly all are caught.
        #expect(Double(caught) / Double(total) > 0.95)
    }

    @Test("reads look-alikes 0, 1 and 8 as O, I and B")
    func lookAlikes() throws {
        let id = try PeerID(bytes: Array(repeating: 0x44, count: 32))
        let text = id.description
        let mangled = text.replacingOccurrences(of: "O", with: "0").replacingOccurrences(of: "I", with: "1")
            .replacingOccurrences(of: "B", with: "8")
        #expect(try PeerID(parsing: mangled) == id)
    }

    @Test("refuses wrong lengths and foreign characters")
    func refusesGarbage() {
        #expect(throws: PeerIDError.self) { try PeerID(parsing: "") }
        #expect(throws: PeerIDError.self) { try PeerID(parsing: "AAAA") }
        #expect(throws: PeerIDError.self) { try PeerID(parsing: Self.alice.description + "A") }
        #expect(throws: PeerIDError.self) {
            try PeerID(parsing: Self.alice.description.replacingOccurrences(of: "-", with: "_"))
        }
        #expect(throws: PeerIDError.wrongByteCount(31)) { try PeerID(bytes: Array(repeating: 0, count: 31)) }
    }

    @Test("orders by bytes")
    func ordering() throws {
        let low = try PeerID(bytes: Array(repeating: 0, count: 32))
        let high = try PeerID(bytes: Array(repeating: 0, count: 31) + [1])
        #expect(low < high)
        #expect(!(high < low))
    }
}
