/// Why a `PaymentMessage` could not be encoded.
public enum FrameEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The JSON body would exceed the codec's frame limit.
    case tooLarge(Int, limit: Int)
    /// Foundation's encoder failed (not expected for valid messages).
    case encodingFailed(String)

    public var description: String {
        switch self {
        case .tooLarge(let size, let limit): "frame of \(size) bytes exceeds the limit of \(limit) bytes"
        case .encodingFailed(let detail): "could not encode frame: \(detail)"
        }
    }
}
