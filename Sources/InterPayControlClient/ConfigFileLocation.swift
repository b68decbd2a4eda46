/// Where `interpayd` reads its configuration file; the CLI looks there for the control socket.
public enum ConfigFileLocation {
    /// The file name inside a configuration directory.
    public static let fileName = "interpayd.toml"
    /// The system daemon's file.
    public static let systemPath = "/etc/interpay/" + fileName

    /// The path to read and whether it must exist: `--config PATH` (must exist); else systemd's
    /// `$CONFIGURATION_DIRECTORY` (the system unit's `ConfigurationDirectory=interpay`); else
    /// `/etc/interpay/interpayd.toml` when running as root; else `$XDG_CONFIG_HOME/interpay/interpayd.toml`
    /// (`~/.config/interpay/interpayd.toml`). Only an explicit file must exist.
    public static func resolve(
        explicit: String?, isRoot: Bool, environment: [String: String], home: String
    )
        -> (path: String, required: Bool)
    {
        if let explicit, !explicit.isEmpty { return (explicit, true) }
        if let directory = environment["CONFIGURATION_DIRECTORY"]?.split(separator: ":").first {
            return (String(directory) + "/" + fileName, false)
        }
        if isRoot { return (systemPath, false) }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return (config + "/interpay/" + fileName, false)
        }
        return (home + "/.config/interpay/" + fileName, false)
    }
}
