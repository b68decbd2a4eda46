import ArgumentParser

/// The error for a date or time option that did not read: a date that does not exist in the calendar is named as
/// such (`2026-02-30`, month 13, hour 24), not as a wrong format; anything else gets the forms the option takes.
enum DateArgument {
    /// The error for `text` given to `option`, which takes `forms` (such as `YYYY-MM-DD`).
    static func error(_ text: String, option: String, forms: [String]) -> ValidationError {
        let shape = String(text.map { $0.isASCII && $0.isNumber ? "9" : $0 })
        let shapes = forms.map { String($0.map { "YMDHS".contains($0) ? "9" : $0 }) }
        if shapes.contains(shape) {
            return ValidationError(
                "\(option) \(text.printable) is not a date or time of the calendar: check the day of the month "
                    + "(February has 28 or 29), the month (01 to 12), the hour (00 to 23) and the minutes")
        }
        return ValidationError("\(option) must be \(forms.joined(separator: " or ")), got \(text.printable)")
    }
}
