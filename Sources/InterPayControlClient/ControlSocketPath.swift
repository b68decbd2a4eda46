/// Where the control socket lives; the daemon and the CLI resolve it the same way.
public enum ControlSocketPath {
    /// The path used when nothing else says otherwise (a system daemon under systemd).
    public static let systemDefault = "/run/interpay/interpayd.sock"
    /// The environment variable that overrides the default.
    public static let environmentVariable = "INTERPAY_SOCKET"

    /// The socket path: `explicit` (the `--socket` option), else `$INTERPAY_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/interpay/interpayd.sock`, else `/run/interpay/interpayd.sock`.
    ///
    /// Empty values count as unset, and so does an `XDG_RUNTIME_DIR` that is not absolute (the XDG spec says to
    /// ignore it).
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty { return fromEnvironment }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let base = runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime
            return base + "/interpay/interpayd.sock"
        }
        return systemDefault
    }
}
