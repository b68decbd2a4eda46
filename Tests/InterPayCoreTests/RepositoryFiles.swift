import Foundation

/// Locates files of the repository (the protocol's vectors and tables) from the test sources.
enum RepositoryFiles {
    /// The repository's top directory.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
