package import Glibc

/// A control socket's path as a `sockaddr_un`, and the text of a failed system call: what the client and the control
/// socket's server (`InterPayControl`, which also prepares and removes the socket file) both need.
package enum UnixSocketAddress {
    /// The longest path a `sockaddr_un` holds (without the terminating NUL).
    package static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The directory part of `path` ("." when there is none).
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// Copies `path` into `sun_path`; false when it does not fit.
    package static func fill(_ address: inout sockaddr_un, path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.count <= maxPathLength else { return false }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            raw.copyBytes(from: bytes)
        }
        return true
    }

    /// The text of the current `errno`.
    package static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
