import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay stats`
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract:
            "Totals, counts and averages of accepted payments per currency, grouped by category, peer or currency; "
            + "how many of them are settled, and for how much.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Period, back from now (a month is 30 days).")
    var period: StatsPeriod = .month

    @Option(help: "Group by category, peer or currency.")
    var by: StatsGroupBy = .currency

    func run() throws {
        global.output(try global.call(ControlAPI.stats, StatsParams(period: period, by: by))) { result in
            // Grouped by currency, the group is the currency column itself.
            let grouped = by != .currency
            let columns = ["SIDE", "CURRENCY", "COUNT", "TOTAL", "AVERAGE", "SETTLED", "SETTLED TOTAL"]
            var table = Table(columns: (grouped ? [by.rawValue.uppercased()] : []) + columns)
            for row in result.rows {
                let cells = [
                    StateWords.side(row.direction), row.currency.printable, String(row.count), row.total.printable,
                    row.average.printable, String(row.settledCount), row.settledTotal.printable,
                ]
                table.add(cells: (grouped ? [row.group?.printable ?? "-"] : []) + cells)
            }
            table.print()
        }
    }
}
