/// The modes of the control socket and of the directory created for it.
public struct ControlSocketPermissions: Sendable, Hashable {
    /// The mode of the socket's parent directory when the server creates it (e.g. `0o700`).
    public var directoryMode: UInt32
    /// The mode of the socket file (e.g. `0o600`).
    public var socketMode: UInt32

    /// Explicit modes.
    public init(directoryMode: UInt32, socketMode: UInt32) {
        self.directoryMode = directoryMode
        self.socketMode = socketMode
    }

    /// Only the daemon's user: directory `0700`, socket `0600`.
    public static let ownerOnly = ControlSocketPermissions(directoryMode: 0o700, socketMode: 0o600)
    /// The daemon's user and the configured group: directory `0750`, socket `0660`.
    public static let ownerAndGroup = ControlSocketPermissions(directoryMode: 0o750, socketMode: 0o660)
}
