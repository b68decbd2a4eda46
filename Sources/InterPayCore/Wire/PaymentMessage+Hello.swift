extension PaymentMessage {
    /// The `hello` frame: what a daemon speaks and what it is called.
    public struct Hello: Sendable, Hashable, Codable {
        /// Lowest protocol version the sender speaks (≥ 1).
        public let minVersion: Int
        /// Highest protocol version the sender speaks (≥ `minVersion`).
        public let maxVersion: Int
        /// The sender's display name, 1 to `Limits.maxNameLength` code points.
        public let name: String
        /// Optional features the sender supports; unknown ones are ignored.
        public let capabilities: [String]
        /// Software name and version, e.g. `interpayd/0.1.0`.
        public let agent: String

        /// Builds a hello; the version range must not be empty.
        public init(minVersion: Int, maxVersion: Int, name: String, capabilities: [String], agent: String) {
            precondition(1 <= minVersion && minVersion <= maxVersion, "empty version range")
            self.minVersion = minVersion
            self.maxVersion = maxVersion
            self.name = name
            self.capabilities = capabilities
            self.agent = agent
        }

        /// The highest version both `self` and `other` speak, or nil when their ranges do not overlap.
        public func negotiatedVersion(with other: Hello) -> Int? {
            let version = min(maxVersion, other.maxVersion)
            return version >= max(minVersion, other.minVersion) ? version : nil
        }

        private enum CodingKeys: String, CodingKey {
            case minVersion, maxVersion, name, capabilities, agent
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let minVersion = try container.decode(Int.self, forKey: .minVersion)
            let maxVersion = try container.decode(Int.self, forKey: .maxVersion)
            guard Limits.versionRange.contains(minVersion) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .minVersion, in: container, debugDescription: "must be 1...65535")
            }
            guard maxVersion >= minVersion, Limits.versionRange.contains(maxVersion) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .maxVersion, in: container, debugDescription: "must be ≥ minVersion")
            }
            self.minVersion = minVersion
            self.maxVersion = maxVersion
            let name = try container.decodeText(forKey: .name, length: 1...Limits.maxNameLength)
            if let problem = DisplayName.problem(with: name) {
                throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: problem)
            }
            self.name = name
            // Bounded, as every text of a frame: the session keeps the list while it is up.
            let capabilities = try container.decode([String].self, forKey: .capabilities)
            guard capabilities.count <= Limits.maxCapabilities else {
                throw DecodingError.dataCorruptedError(
                    forKey: .capabilities, in: container,
                    debugDescription: "at most \(Limits.maxCapabilities) entries")
            }
            for capability in capabilities {
                if let problem = Limits.textProblem(in: capability, length: 1...Limits.maxCapabilityLength) {
                    throw DecodingError.dataCorruptedError(
                        forKey: .capabilities, in: container, debugDescription: problem)
                }
            }
            self.capabilities = capabilities
            self.agent = try container.decodeText(forKey: .agent, length: 0...Limits.maxAgentLength)
        }
    }
}
