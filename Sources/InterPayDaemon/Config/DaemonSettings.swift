/// One source of settings — command-line flags, the environment, or the config file — with every value optional.
///
/// Values are kept by key name (`limits.max_sessions`, see `ConfigKey.all`). `EffectiveConfiguration.resolve`
/// merges the sources key by key: flags win over the environment, which wins over the file, which wins over the
/// defaults.
public struct DaemonSettings: Sendable, Equatable {
    /// The values set, by key name.
    public private(set) var values: [String: ConfigValue] = [:]

    /// The value of the key named `key`, if this source sets it.
    public subscript(key: String) -> ConfigValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// No setting at all.
    public init() {}
}
