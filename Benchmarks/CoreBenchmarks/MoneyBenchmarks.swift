import Benchmark
import InterPayCore

/// Parsing amounts typed by a person and formatting them back, for currencies with 2, 0 and 3 minor digits.
enum MoneyBenchmarks {
    static func register() {
        let amounts = [("MXN", "12.50"), ("JPY", "1500"), ("KWD", "1.250")]
        for (code, text) in amounts {
            Benchmark("Money.parse \(code)") { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(try Money(parsing: text, currencyCode: code))
                }
            }
            Benchmark("Money.format \(code)") { benchmark in
                let money = try Money(parsing: text, currencyCode: code)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(money.formattedAmount)
                }
            }
        }
    }
}
