/// How a payment's or a series' ID is shortened for people, and how what they type back finds it: the one rule every
/// surface (the CLI's tables and messages, `watch`, the web app, exports) goes through.
///
/// Payment and series IDs are UUIDs in lower case with dashes. Ours are version 7, whose first 12 hex digits are the
/// creation time in milliseconds: every record created within about a minute shares its first 8 characters, so a
/// short form taken from the front tells nothing apart. The short form is the **tail**: the last `length` characters,
/// which are random in a version 7 UUID (and hash output in a series period's version 5 one). Among the records shown
/// together, each is lengthened to the left until it is unique there (as git lengthens abbreviated commit IDs).
///
/// Typed text names a record when it is the start of its ID or its end (`matches(_:id:)`), at least
/// `minimumTypedLength` characters: so the full ID, a prefix of it and any tail shown all find it back. Text that
/// names more than one record is ambiguous, and the answer lists each candidate by its tail unique among them.
public enum RecordShortID {
    /// The characters shown when nothing else needs more: 8 hex digits, 32 random bits.
    public static let length = 8
    /// The fewest characters typed text must have to name a record.
    public static let minimumTypedLength = 4

    /// The last `length` characters of `id` (all of it when shorter).
    public static func tail(of id: String, length: Int = RecordShortID.length) -> String {
        String(id.suffix(max(1, length)))
    }

    /// The short form of each of `ids`, in their order: each one's tail, at least `minimum` characters, lengthened
    /// to the left until no other ID of `ids` ends the same way. Equal IDs keep their whole text.
    public static func unique(_ ids: [String], minimum: Int = RecordShortID.length) -> [String] {
        guard ids.count > 1 else { return ids.map { tail(of: $0, length: minimum) } }
        // Group by the minimum tail first: only IDs that share it need more (in practice none or a pair).
        var groups: [Substring: [Int]] = [:]
        for (index, id) in ids.enumerated() { groups[id.suffix(minimum), default: []].append(index) }
        var result = ids.map { tail(of: $0, length: minimum) }
        for members in groups.values where members.count > 1 {
            for index in members {
                let id = ids[index]
                var length = minimum
                while length < id.count,
                    members.contains(where: { $0 != index && ids[$0].hasSuffix(id.suffix(length)) })
                {
                    length += 1
                }
                // A "-" at the left edge says nothing: take the digit before it too.
                if length < id.count, id.suffix(length).first == "-" { length += 1 }
                result[index] = tail(of: id, length: length)
            }
        }
        return result
    }

    /// `text` as people type a record ID: trimmed of spaces and in lower case; nil when it is shorter than
    /// `minimumTypedLength`, longer than a UUID, or holds a character no UUID has (what is wrong is for the caller
    /// to say).
    public static func typed(_ text: String) -> String? {
        let typed = text.trimmed(of: " \t").lowercased()
        guard (minimumTypedLength...36).contains(typed.count),
            typed.unicodeScalars.allSatisfy({ "0123456789abcdef-".unicodeScalars.contains($0) })
        else { return nil }
        return typed
    }

    /// Whether `typed` (see `typed(_:)`) names the record `id`: it starts or ends `id`.
    public static func matches(_ typed: String, id: String) -> Bool {
        id.hasPrefix(typed) || id.hasSuffix(typed)
    }
}

extension String {
    /// The string without the leading and trailing characters of `set` (FoundationEssentials-free).
    fileprivate func trimmed(of set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        var view = Substring(self).unicodeScalars
        while let first = view.first, scalars.contains(first) { view.removeFirst() }
        while let last = view.last, scalars.contains(last) { view.removeLast() }
        return String(view)
    }
}
