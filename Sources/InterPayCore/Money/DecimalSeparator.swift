/// How the writer's locale separates decimals: `12.50` (en, es-MX) or `12,50` (es-ES). `Money(parsing:)` takes it
/// to read a comma as a decimal separator even where it could group thousands.
public enum DecimalSeparator: String, Sendable, Hashable, Codable, CaseIterable {
    /// `12.50`: the protocol's own form, and the default.
    case point = "."
    /// `12,50`.
    case comma = ","
}
