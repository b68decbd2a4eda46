import ArgumentParser
import InterPayControl

/// `interpay rates`
struct Rates: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's exchange rates: their source, age, and whether they are fresh or stale.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Base currency (default: the daemon's preferred currency, else USD).")
    var base: String?

    @Flag(help: "List every rate, not only the summary.")
    var all = false

    func validate() throws {
        if let base, base.count != 3 || !base.allSatisfy(\.isLetter) {
            throw ValidationError("--base must be a currency code (three letters, e.g. EUR)")
        }
    }

    func run() async throws {
        var params: [String: JSONValue] = [:]
        if let base { params["base"] = .string(base) }
        let result = try await global.call("rates", params)
        global.output(result) {
            let rates = result.field("rates")?.objectValue ?? [:]
            var table = Table("FIELD", "VALUE")
            table.add("base", result.string("base"))
            table.add("source", result.string("source"))
            table.add("updated", Formatting.localTime(result.field("updatedAt")?.integer))
            table.add("next update", Formatting.localTime(result.field("nextUpdateAt")?.integer))
            table.add("age", "\(result.string("ageSeconds")) s")
            let stale = result.field("stale") == .bool(true)
            table.add(
                "status", stale ? "stale: \(result.string("staleReason", "the source could not be reached"))" : "fresh")
            table.add("currencies", "\(rates.count)")
            table.print()
            if all {
                print("")
                var list = Table("CURRENCY", "RATE")
                for (code, rate) in rates.sorted(by: { $0.key < $1.key }) { list.add(code, rate.text ?? "?") }
                list.print()
            }
        }
    }
}
