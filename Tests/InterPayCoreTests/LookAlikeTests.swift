import InterPayCore
import Testing

/// Names that look like an ID, and the short form of record IDs (SECURITY.md, T-LOOKALIKE and T-SHORTID).
@Suite("Look-alike names and record short IDs")
struct LookAlikeTests {
    /// The short ID of the peer an impostor imitates.
    static let target = "HSBEJBT"

    @Test(
        "a name that looks like a short ID is refused: look-alike digits, invisible and edge spaces, other scripts",
        arguments: [
            "HS8EJ8T",  // 8 for B
            "HSBEJBT\u{200B}",  // a zero-width space after it
            "\u{2060}HSBEJBT",  // a word joiner before it
            "HSBEJBT ",  // a trailing space
            " HSBEJBT",  // a leading space
            "HSB\u{0415}JBT",  // Cyrillic capital E
            "\u{0397}SBEJBT",  // Greek capital Eta
            "ＨＳＢＥＪＢＴ",  // full-width
            "\u{1D407}\u{1D412}\u{1D401}\u{1D404}\u{1D409}\u{1D401}\u{1D413}",  // mathematical bold
            "HSBEJB\u{FF34}",  // one full-width T
            "HSBEJBT\u{00AD}",  // a soft hyphen
            "hsbejbt\u{2010}abcdefg",  // a grouped prefix with a Unicode hyphen
        ])
    func lookAlikes(name: String) {
        #expect(DisplayName.problem(with: name) != nil, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("ordinary names stay acceptable", arguments: ["alice", "Bob", "Café Olé", "Ölé ☕", "shop 1", "Ivan", "Иван"])
    func ordinaryNames(name: String) {
        #expect(DisplayName.problem(with: name) == nil)
    }

    @Test("the skeleton reads each look-alike as the ID character it is taken for")
    func skeleton() {
        #expect(IDSkeleton.of("HS8EJ8T") == Self.target)
        #expect(IDSkeleton.of("ＨＳＢＥＪＢＴ") == Self.target)
        #expect(IDSkeleton.of("HSB\u{0415}JBT\u{200B}") == Self.target)
        #expect(IDSkeleton.of("alice") == "alice")
    }

    @Test("ID prefixes are read leniently: 0, 1 and 8 are O, I and B")
    func lenientPrefix() {
        #expect(PeerID.compactPrefix("hs8ej8t-0a1") == "HSBEJBTOAI")
    }

    @Test("five IDs of the same second get five distinct short IDs, and each is found back by what is shown")
    func sameSecond() {
        // Version 7 UUIDs of one millisecond share their first 12 hex digits; the time prefix tells nothing apart.
        let ids = [
            "019a7c3e-5b21-7a01-8c4d-1f2e3a4b5c6d", "019a7c3e-5b21-7b02-9d5e-2a3b4c5d6e7f",
            "019a7c3e-5b21-7c03-ae6f-3b4c5d6e7f80", "019a7c3e-5b21-7d04-bf70-4c5d6e7f8091",
            "019a7c3e-5b21-7e05-8081-5d6e7f8091a2",
        ]
        let shown = RecordShortID.unique(ids)
        #expect(Set(shown).count == 5)
        #expect(shown.allSatisfy { $0.count == RecordShortID.length })
        for (id, short) in zip(ids, shown) {
            let typed = RecordShortID.typed(short.uppercased())
            #expect(typed != nil)
            #expect(ids.filter { RecordShortID.matches(typed ?? "", id: $0) } == [id])
        }
    }

    @Test("tails alike among the records shown are lengthened until each is unique")
    func lengthened() {
        let ids = [
            "019a7c3e-5b21-7a01-8c4d-1f2e3a4b5c6d", "019a7c3e-5b21-7a01-8c4d-1f2e9a4b5c6d",
            "019a7c3e-5b21-7a01-8c4d-00003a4b5c6d",
        ]
        let shown = RecordShortID.unique(ids)
        #expect(shown == ["e3a4b5c6d", "9a4b5c6d", "03a4b5c6d"])
        for (id, short) in zip(ids, shown) {
            #expect(ids.filter { RecordShortID.matches(short, id: $0) } == [id])
        }
    }

    @Test("typed text: at least 4 characters of a UUID, spaces and case ignored")
    func typed() {
        #expect(RecordShortID.typed(" 3A4B5C6D ") == "3a4b5c6d")
        #expect(RecordShortID.typed("abc") == nil)
        #expect(RecordShortID.typed("zzzz") == nil)
    }
}
