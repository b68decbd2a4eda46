/// The web app's pages, styles and scripts, compiled into the daemon (`Assets/`, by the EmbedWebAssets build-tool
/// plugin).
public enum WebAssets {
    /// The names of the embedded files.
    public static var names: [String] { files.keys.sorted() }

    /// The text of the embedded file `name`, if there is one.
    public static func text(of name: String) -> String? { files[name]?.body }
}
