public import FoundationEssentials

extension PaymentMessage {
    /// The `error` frame: a frame or the session was refused.
    public struct ErrorFrame: Sendable, Hashable, Codable {
        /// Machine-readable code, e.g. `unsupported-version`.
        public let code: Code
        /// Text for logs, at most `Limits.maxReasonLength` code points.
        public let message: String
        /// The `messageID` of the frame concerned, when there is one.
        public let ref: UUID?

        /// Builds the frame body. The message may quote what a peer sent (an unknown `type`, say): its control
        /// characters are escaped (`SafeText`) and it is cut at `Limits.maxReasonLength` code points, so that the
        /// frame is always valid text (PROTOCOL.md §5.3).
        public init(code: Code, message: String, ref: UUID? = nil) {
            self.code = code
            self.message = String(
                String.UnicodeScalarView(SafeText.escaped(message).unicodeScalars.prefix(Limits.maxReasonLength)))
            self.ref = ref
        }

        /// An error code. Version 1 defines a closed set (`known`); a new code comes with a new protocol version.
        public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
            /// The code's wire text.
            public let rawValue: String
            /// Wraps a wire text.
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            /// No protocol version in common.
            public static let unsupportedVersion = Code(rawValue: "unsupported-version")
            /// The frame could not be decoded.
            public static let malformedFrame = Code(rawValue: "malformed-frame")
            /// The frame's type is not known to the receiver.
            public static let unknownType = Code(rawValue: "unknown-type")
            /// The frame names a payment the receiver does not have.
            public static let unknownPayment = Code(rawValue: "unknown-payment")
            /// The sender may not do this (e.g. a payer sending `cancel`).
            public static let notAuthorized = Code(rawValue: "not-authorized")
            /// A limit was exceeded (size, rate, pending requests).
            public static let limitExceeded = Code(rawValue: "limit-exceeded")
            /// The receiver failed internally; the frame may be resent later.
            public static let `internal` = Code(rawValue: "internal")

            /// Every code of protocol version 1.
            public static let known: Set<Code> = [
                .unsupportedVersion, .malformedFrame, .unknownType, .unknownPayment, .notAuthorized, .limitExceeded,
                .internal,
            ]
        }

        private enum CodingKeys: String, CodingKey {
            case code, message, ref
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.code = try container.decode(Code.self, forKey: .code)
            guard Code.known.contains(code) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .code, in: container, debugDescription: "unknown error code '\(code)'")
            }
            self.message = try container.decodeText(forKey: .message, length: 0...Limits.maxReasonLength)
            self.ref = try container.decodeWireUUIDIfPresent(forKey: .ref)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(message, forKey: .message)
            try container.encodeIfPresent(ref?.wireString, forKey: .ref)
        }
    }
}
