import Foundation
import PackagePlugin

/// Compiles the files of a target's `Assets/` directory into the target, as `WebAssets.files` (the web app's pages,
/// served by the daemon without data files beside it). The generated source lives in the build directory only.
@main
struct EmbedWebAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let assets = target.directoryURL.appending(path: "Assets")
        let files = try FileManager.default.contentsOfDirectory(
            at: assets, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles]
        ).sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "WebAssets+Embedded.swift")
        return [
            .buildCommand(
                displayName: "Embedding the web app's assets into \(target.name)",
                executable: try context.tool(named: "embed-web-assets").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files, outputFiles: [output])
        ]
    }
}
