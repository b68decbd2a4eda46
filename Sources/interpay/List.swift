import ArgumentParser
import InterPayContract
import InterPayControlClient

/// `interpay list`
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List payments, newest first.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var filter: StateFilter

    @Option(help: "Only incoming (in: you are asked to pay) or outgoing (out: you asked) requests.")
    var direction: PaymentDirection?

    @Option(help: "Only payments with this peer (display name or ID prefix).")
    var peer: String?

    @Option(help: "How many to show at most, newest first.")
    var limit: Int = 200

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let params = ListParams(state: filter.state, direction: direction, peer: peer, limit: Int64(limit))
        let reply = try global.call(ControlAPI.list, params)
        let offers = global.json ? [] : waitingOffers()
        let bills = global.json ? [] : openBills()
        global.output(reply) { result in
            for bill in bills { print(Formatting.bill(bill)) }
            if !bills.isEmpty { print("") }
            Formatting.paymentTable(result.payments)
            if !offers.isEmpty {
                print("")
                print(
                    "Subscription offers waiting for your answer ('interpay approve SERIES' or 'interpay decline SERIES'):"
                )
                SeriesCommand.table(offers)
            }
        }
    }

    /// Our split bills with something still pending or refused, one line each above the payments (their shares
    /// are among them).
    private func openBills() -> [BillInfo] {
        do {
            return try global.call(ControlAPI.bills).value.bills.filter { $0.state == .open || $0.state == .partial }
        } catch {
            // Only a header: the payments are listed either way.
            return []
        }
    }

    /// The subscriptions offered to us that wait for an answer, shown under the payments.
    private func waitingOffers() -> [SeriesInfo] {
        do {
            return try global.call(ControlAPI.subscriptions).value.series.filter {
                $0.direction == .incoming && $0.state == .offered
            }
        } catch {
            // Only a footer: the payments were listed, and a daemon without subscriptions has none to show.
            return []
        }
    }
}
