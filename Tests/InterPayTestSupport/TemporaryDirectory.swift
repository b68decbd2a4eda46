public import Foundation

/// A fresh directory under the system's temporary directory, for state files; removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a directory with a unique name, removed when the test ends (`TestTeardown`) if not before.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "interpay-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let url = self.url
        // Gone already when the test removed it: nothing to report.
        TestTeardown.atEnd { try? FileManager.default.removeItem(at: url) }
    }

    /// The path of a file inside the directory.
    public func path(_ name: String) -> String { url.appending(path: name).path }

    /// Removes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
