import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay currency`
struct Currency: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "currency",
        abstract: "Show or change the currency amounts are shown and quoted in.",
        discussion: """
            Without arguments, shows the preferred currency and where it comes from: the configuration \
            (rates.currency, --currency), your choice, or none. With CODE, makes it your choice: payments in other \
            currencies are shown converted into it, and it is quoted when you accept one; the choice is kept across \
            restarts and wins over the configuration. --clear goes back to the configuration's. The web app's \
            Profile page does the same. Exit 2 if CODE is not an ISO 4217 currency.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "An ISO 4217 currency code, e.g. MXN.")
    var code: String?

    @Flag(help: "Forget your choice: the configuration's currency (or none) counts again.")
    var clear = false

    func validate() throws {
        if clear && code != nil { throw ValidationError("give a CODE or --clear, not both") }
    }

    func run() throws {
        let params = CurrencyParams(currency: code, clear: clear ? true : nil)
        global.output(try global.call(ControlAPI.currency, params)) { result in
            let source = result.source
            guard let currency = result.currency?.printable else {
                print("No preferred currency: amounts are shown as they are.")
                return
            }
            print("\(currency) (\(source == "user" ? "your choice" : "from the configuration"))")
        }
    }
}
