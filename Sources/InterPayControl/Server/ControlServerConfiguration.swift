/// How the control server listens and whom it lets in.
public struct ControlServerConfiguration: Sendable {
    /// The default bound on one request line: 64 KiB.
    public static let defaultMaxLineLength = 65_536

    /// The socket path (see `ControlSocketPath.resolve`).
    public var path: String
    /// A group whose members may use the socket too: the socket gets this group and mode `0660`, and a peer whose
    /// primary gid is this one is allowed. nil: only the daemon's user and root.
    public var groupID: UInt32?
    /// The longest request line accepted, in bytes without the newline; a longer one gets an error and the
    /// connection is closed.
    public var maxLineLength: Int
    /// Overrides the modes that follow from `groupID` (`ownerOnly` or `ownerAndGroup`); meant for tests.
    public var permissions: ControlSocketPermissions?
    /// Told each time a request line is refused for its length (the daemon counts it in its metrics).
    public var onLineTooLong: @Sendable () -> Void = {}

    /// A configuration for `path`.
    public init(
        path: String, groupID: UInt32? = nil, maxLineLength: Int = Self.defaultMaxLineLength,
        permissions: ControlSocketPermissions? = nil
    ) {
        self.path = path
        self.groupID = groupID
        self.maxLineLength = maxLineLength
        self.permissions = permissions
    }

    /// The modes actually applied.
    public var effectivePermissions: ControlSocketPermissions {
        permissions ?? (groupID == nil ? .ownerOnly : .ownerAndGroup)
    }
}
