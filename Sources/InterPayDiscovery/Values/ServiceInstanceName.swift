/// Rules for DNS-SD instance names.
enum ServiceInstanceName {
    /// The longest instance label, in UTF-8 bytes.
    static let maximumLength = 63

    /// `name` cut to at most `limit` UTF-8 bytes (63 by default) at a code point boundary (protocol §2.1).
    static func truncated(_ name: String, toBytes limit: Int = maximumLength) -> String {
        guard name.utf8.count > limit else { return name }
        var result = String.UnicodeScalarView()
        var length = 0
        for scalar in name.unicodeScalars {
            let size = String(scalar).utf8.count
            guard length + size <= limit else { break }
            result.append(scalar)
            length += size
        }
        return String(result)
    }

    /// The next name to try after a conflict, as Avahi picks it: `Alice` → `Alice #2`, `Alice #2` → `Alice #3`.
    /// The base is shortened when the result would exceed 63 bytes.
    static func alternative(to name: String) -> String {
        var base = name
        var number = 2
        if let hash = name.lastIndex(of: "#"), hash > name.startIndex,
            name[name.index(before: hash)] == " "
        {
            let digits = name[name.index(after: hash)...]
            if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let current = Int(digits), current < Int.max
            {
                base = String(name[..<name.index(before: hash)])
                number = current + 1
            }
        }
        let suffix = " #\(number)"
        return truncated(base, toBytes: maximumLength - suffix.utf8.count) + suffix
    }
}
