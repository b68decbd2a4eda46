import Foundation
import InterPayControl
import InterPayControlClient
import InterPayTestSupport
import TOMLKit
import Testing

/// The CLI's reader of `[control] socket` (`ConfiguredSocket`) against TOMLKit, the daemon's reader, on the same
/// files: wherever TOMLKit reads the file, both must find the same socket (or none); a file TOMLKit refuses may not
/// yield a socket the daemon would never use.
@Suite(.tearsDown) struct ConfiguredSocketTests {
    /// What the daemon's reader finds.
    static func daemonReading(_ text: String) -> ConfiguredSocket.Setting? {
        guard let table = try? TOMLTable(string: text) else { return nil }  // refused: compared below as such
        guard let socket = table["control"]?.table?["socket"] else { return .unset }
        return socket.string.map(ConfiguredSocket.Setting.path) ?? .unreadable(line: 0, reason: "not a string")
    }

    static let documents: [String] = [
        "",
        "# nothing but a comment\n",
        "[control]\nsocket = \"/run/x.sock\"\n",
        "[control]\r\nsocket = \"/run/crlf.sock\"\r\n",
        "name = \"alice\"\n[control]\ngroup = \"interpay\"\n",
        "control.socket = \"/tmp/dotted.sock\"\n",
        "\"control\" . 'socket' = '/tmp/quoted keys.sock'\n",
        "[ control ]\n\"socket\" = '''/tmp/literal\\no-escape.sock'''\n",
        "[control]\nsocket = \"/tmp/\\u00e9t\\u00E9 \\\"q\\\" \\\\ \\t.sock\" # comment\n",
        "[control]\nsocket = \"\"\"\n/tmp/multi\\\n    line.sock\"\"\"\n",
        // Text that looks like the table or the key but sits inside strings and arrays.
        "note = \"\"\"\n[control]\nsocket = \"/fake\"\n\"\"\"\n",
        "note = '''\n[control]\nsocket = '/fake'\n'''\n[control]\nsocket = \"/real\"\n",
        "[discovery]\npeers = [\n  \"[2001:db8::5]:7420\", # [control]\n  \"198.18.0.7:7420\",\n]\n[control]\nsocket = \"/after-array\"\n",
        "[discovery]\npeers = [\n\"x\",\n]\n",
        // Other tables with a key named socket.
        "[web]\nsocket = \"/web\"\n",
        "[control.extra]\nsocket = \"/nested\"\n",
        "[[control]]\nsocket = \"/array-of-tables\"\n",
        "[[control2]]\nsocket = \"/array-of-tables\"\n[control]\nsocket = \"/table\"\n",
        "inline = { socket = \"/inline\", deep = { a = [1, 2] } }\n[control]\nsocket = \"/x\"\n",
        "when = 1979-05-27T07:32:00Z\nn = 1_000\nf = -3.5e2\nb = true\n[control]\nsocket = \"/typed\"\n",
        // Files the daemon refuses: the CLI must not find a socket in them either.
        "[control]\nsocket = \"/unclosed\n",
        "[control\nsocket = \"/x\"\n",
        "[control]\nsocket = \"/x\" trailing\n",
        "[control]\nsocket = 17\n",
        "[control]\nsocket\n",
        "control = { socket = \"/inline-control\" }\n",
    ]

    @Test(arguments: documents)
    func agreesWithTheDaemonsReader(text: String) {
        let cli = ConfiguredSocket.read(toml: text)
        switch Self.daemonReading(text) {
        case .path(let socket)?:
            if text.hasPrefix("control = {") {
                // An inline [control] table: the CLI says it cannot follow it instead of guessing.
                #expect(cli == .unreadable(line: 1, reason: cli.reason))
            } else {
                #expect(cli == .path(socket))
            }
        case .unset?:
            #expect(cli == .unset)
        case .unreadable?, nil:
            #expect(cli.socket == nil, "the CLI found a socket in a file the daemon does not read: \(text)")
        }
    }

    @Test func aBrokenFileNamesItsLine() {
        let setting = ConfiguredSocket.read(toml: "name = \"a\"\n\n[control]\nsocket = \"/x\" trailing\n")
        guard case .unreadable(let line, let reason) = setting else {
            Issue.record("expected unreadable, got \(setting)")
            return
        }
        #expect(line == 4)
        #expect(reason == "unexpected text after a value")
    }

    @Test func theExampleFileNamesNoSocket() throws {
        let text = try String(contentsOf: repositoryRoot.appending(path: "config/interpayd.toml"), encoding: .utf8)
        #expect(ConfiguredSocket.read(toml: text) == .unset)
        #expect(Self.daemonReading(text) == .unset)
        let uncommented = text.replacingOccurrences(
            of: "# socket = \"/run/interpay/interpayd.sock\"", with: "socket = \"/run/interpay/interpayd.sock\"")
        #expect(ConfiguredSocket.read(toml: uncommented) == .path("/run/interpay/interpayd.sock"))
    }
}

extension ConfiguredSocket.Setting {
    fileprivate var socket: String? {
        if case .path(let socket) = self { socket } else { nil }
    }

    fileprivate var reason: String {
        if case .unreadable(_, let reason) = self { reason } else { "" }
    }
}
