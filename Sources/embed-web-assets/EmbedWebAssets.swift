// Compiles the web app's pages into the daemon: writes one Swift file holding the text of every asset given (HTML,
// CSS, JavaScript modules; no build step, no npm). Run by the EmbedWebAssets build-tool plugin on every build of
// InterPayWeb; an installed daemon then needs no data files beside it.
//
// Usage: embed-web-assets OUTPUT ASSET...

import Foundation

/// The tool's entry point (a type rather than top-level code, so that it builds with `-parse-as-library` too, as the
/// fuzzing build passes to every module).
@main
enum EmbedWebAssets {
    /// The content type of each kind of asset that may be embedded.
    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    /// Stops with a message on standard error.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("embed-web-assets: \(message)\n".utf8))
        exit(1)
    }

    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let output = arguments.first, arguments.count >= 2 else {
            fail("usage: embed-web-assets OUTPUT ASSET...")
        }
        var lines = [
            "// Written by embed-web-assets from Sources/InterPayWeb/Assets/ at build time.", "",
            "extension WebAssets {", "    /// Every asset by file name: its content type and text.",
            "    static let files: [String: (contentType: String, body: String)] = [",
        ]
        let paths = arguments.dropFirst().sorted {
            ($0 as NSString).lastPathComponent < ($1 as NSString).lastPathComponent
        }
        for path in paths {
            let url = URL(fileURLWithPath: path)
            guard let type = contentTypes[url.pathExtension] else {
                fail("cannot embed \(url.lastPathComponent): unknown type")
            }
            let text: String
            do {
                text = try String(contentsOf: url, encoding: .utf8)
            } catch {
                fail("cannot read \(path): \(error)")
            }
            // The text goes into a raw multi-line literal delimited by ##; it must not contain that delimiter.
            guard !text.contains("\"\"\"##") else {
                fail("cannot embed \(url.lastPathComponent): it contains \"\"\"##")
            }
            lines.append("        \"\(url.lastPathComponent)\": (")
            lines.append("            \"\(type)\",")
            lines.append("            ##\"\"\"")
            var body = text
            while body.hasSuffix("\n") { body.removeLast() }
            for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
                lines.append(line.isEmpty ? "" : "            " + line)
            }
            lines.append("            \"\"\"##")
            lines.append("        ),")
        }
        lines += ["    ]", "}", ""]
        do {
            try lines.joined(separator: "\n").write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            fail("cannot write \(output): \(error)")
        }
    }
}
