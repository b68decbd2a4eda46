public import FoundationEssentials

extension PaymentMessage {
    /// The `pair` frame: one step of pairing two peers with a short verification code (PROTOCOL.md §7.9).
    ///
    /// Each side whose user started pairing sends a `commit` to a random nonce (bound to its own peer ID) under an
    /// attempt ID of its own; once a side holds the other's commit it sends its `reveal`, and it checks the other's
    /// reveal against the other's commit. Both sides then derive the same 6-digit code from both peer IDs and both
    /// nonces (`PairingCode`); the users compare it. `abort` ends an attempt (either side's ID). Pairing frames are
    /// not acknowledged or resent: an attempt that loses its session ends, and the user starts again.
    public struct Pairing: Sendable, Hashable, Codable {
        /// The hello capability of daemons that speak this exchange; pairing with a peer without it is refused.
        public static let capability = "pairing-v2"

        /// The sender's attempt (`commit`, `reveal`), or the attempt being ended (`abort`: either side's).
        public let pairingID: UUID
        /// Which step this frame is.
        public let step: Step
        /// The 32-byte value of `commit` and `reveal`, as 64 lowercase hex digits; absent in `abort`.
        public let value: [UInt8]?
        /// Why the pairing was aborted (`abort` only), at most `Limits.maxReasonLength` code points.
        public let reason: String?

        /// The steps of a pairing; `abort` may come at any time.
        public enum Step: String, Sendable, Hashable, Codable, CaseIterable {
            /// The commitment to the sender's nonce.
            case commit
            /// The sender's nonce, sent only once the sender holds the peer's commitment.
            case reveal
            /// Ends an attempt.
            case abort
        }

        /// Builds a `commit` or `reveal` step carrying a 32-byte value.
        public init(pairingID: UUID, step: Step, value: [UInt8]) {
            precondition(step != .abort && value.count == 32, "a pairing value is 32 bytes, and abort has none")
            self.pairingID = pairingID
            self.step = step
            self.value = value
            self.reason = nil
        }

        /// Builds an `abort` step.
        public init(abort pairingID: UUID, reason: String) {
            self.pairingID = pairingID
            self.step = .abort
            self.value = nil
            self.reason = String(reason.unicodeScalars.prefix(Limits.maxReasonLength))
        }

        private enum CodingKeys: String, CodingKey {
            case pairingID, step, value, reason
        }

        /// Decodes a frame; a value that is not 64 lowercase hex digits, or an unknown step, is refused.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.pairingID = try container.decodeWireUUID(forKey: .pairingID)
            self.step = try container.decode(Step.self, forKey: .step)
            // Members a step does not define are ignored, like every unknown member (PROTOCOL.md §14).
            if step == .abort {
                self.value = nil
                self.reason = try container.decodeText(forKey: .reason, length: 0...Limits.maxReasonLength)
            } else {
                let hex = try container.decode(String.self, forKey: .value)
                guard let bytes = Self.bytes(fromHex: hex), bytes.count == 32 else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .value, in: container, debugDescription: "value must be 64 lowercase hex digits")
                }
                self.value = bytes
                self.reason = nil
            }
        }

        /// Encodes the frame's members (the caller adds `type`).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(pairingID.wireString, forKey: .pairingID)
            try container.encode(step, forKey: .step)
            try container.encodeIfPresent(value.map(Self.hex), forKey: .value)
            try container.encodeIfPresent(reason, forKey: .reason)
        }

        /// Lowercase hex digits of `bytes`.
        static func hex(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789abcdef".utf8)
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }

        /// The bytes of an even-length string of lowercase hex digits, or nil.
        static func bytes(fromHex text: String) -> [UInt8]? {
            let utf8 = Array(text.utf8)
            guard utf8.count.isMultiple(of: 2) else { return nil }
            func nibble(_ c: UInt8) -> UInt8? {
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
                default: nil
                }
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count / 2)
            var index = 0
            while index < utf8.count {
                guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            }
            return bytes
        }
    }
}
