import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay rates`
struct Rates: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates",
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

    func run() throws {
        global.output(try global.call(ControlAPI.rates, RatesParams(base: base))) { result in
            let rates = result.rates
            var table = Table("FIELD", "VALUE")
            table.add("base", result.base.printable)
            table.add("source", result.source.printable)
            table.add("updated", Formatting.localTime(result.updatedAt))
            table.add("next update", Formatting.localTime(result.nextUpdateAt))
            table.add("age", Formatting.age(result.ageSeconds))
            let reason = result.staleReason?.printable ?? "the source could not be reached"
            // Fresh says that nothing newer can be had from the source before its next update, not that the rates
            // are recent: rates published more than two days ago say so.
            let old =
                result.ageSeconds > 2 * 86_400
                ? " (the newest the source has, but published \(Formatting.age(result.ageSeconds)) ago)" : ""
            table.add("status", result.stale ? "stale: \(reason)" : "fresh" + old)
            table.add("currencies", "\(rates.count)")
            table.print()
            if all {
                print("")
                var list = Table("CURRENCY", "RATE")
                for (code, rate) in rates.sorted(by: { $0.key < $1.key }) { list.add(code.printable, rate.printable) }
                list.print()
            }
        }
    }
}
