public import FoundationEssentials

/// A UUID member of a frame, in the text form the wire uses: written lower-case (`UUID.wireString`), read in either
/// case (`KeyedDecodingContainer.decodeWireUUID(forKey:)`).
///
/// `UUID`'s own `Codable` writes upper case; a frame's ID members carry this wrapper instead of spelling out an
/// `encode(to:)` each, so that the frame types can leave their coding to the compiler.
@propertyWrapper
public struct WireUUID: Sendable, Hashable, Codable {
    /// The UUID.
    public var wrappedValue: UUID

    /// Wraps `wrappedValue`.
    public init(wrappedValue: UUID) {
        self.wrappedValue = wrappedValue
    }

    /// Reads the text form, either case.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = UUID(wireString: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Attempted to decode UUID from invalid UUID string.")
        }
        wrappedValue = uuid
    }

    /// Writes the lower-case text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue.wireString)
    }
}
