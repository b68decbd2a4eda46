import ArgumentParser
import FoundationEssentials
import Glibc
import InterPayControl

/// `interpay watch`
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract:
            "Follow incoming requests, state changes and peers coming and going, one line each, until interrupted.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let socketPath = try global.socketPath()
        let client = ControlClient(path: socketPath)
        do {
            for try await event in client.subscribe() {
                if global.json {
                    print(event.jsonText)
                } else {
                    print(Self.describe(event))
                }
                fflush(nil)  // one line at a time, also into a pipe
            }
        } catch let error as ControlClientError {
            throw CLIError(error, socketPath: socketPath)
        }
    }

    /// One human line for an event.
    static func describe(_ event: JSONValue) -> String {
        let time = Formatting.localTime(event.field("at")?.integer)
        // A payment or series the event carries, in the control methods' form; nil when it has none (or one this
        // version cannot read, which is then printed as JSON).
        let payment = try? event.field("payment")?.decode(PaymentInfo.self)
        let series = try? event.field("series")?.decode(SeriesInfo.self)
        switch event.string("event") {
        case "request-received":
            guard let payment else { break }
            return "\(time)  request  \(Formatting.shortID(payment.id))  \(Formatting.counterparty(payment)) "
                + "asks you to pay \(Formatting.amount(payment))  \"\(payment.memo.printable)\""
        case "payment-updated":
            guard let payment else { break }
            return "\(time)  \(Formatting.state(payment))  \(Formatting.shortID(payment.id))  "
                + "\(Formatting.counterparty(payment))  \(Formatting.amount(payment))"
        case "pairing-requested":
            let peer = event.field("peer")
            let short = peer?.string("shortID") ?? "?"
            return "\(time)  pairing  peer \(short) (\(peer?.string("name", "?") ?? "?")) wants to pair: run "
                + "interpay pair \(short)"
        case "pairing-started":
            let peer = event.field("peer")
            return "\(time)  pairing  attempt started with \(peer?.string("name", "?") ?? "?") "
                + "(\(peer?.string("shortID") ?? "?"))"
        case "pairing-code":
            let peer = event.field("peer")
            return "\(time)  pairing  \(peer?.string("name", "?") ?? "?")  verification code "
                + "\(Pair.grouped(event.string("code")))  (check that the peer shows the same code, then run "
                + "'interpay pair \(peer?.string("name", "PEER") ?? "PEER") --code \(event.string("code"))'; "
                + "valid until \(Formatting.localTime(event.field("expiresAt")?.integer)))"
        case "paired":
            let peer = event.field("peer")
            return "\(time)  paired   \(peer?.string("name", "?") ?? "?")  \(peer?.string("shortID") ?? "")"
        case "pairing-failed":
            let peer = event.field("peer")
            return "\(time)  pairing failed  \(peer?.string("name", "?") ?? "?") (\(peer?.string("shortID") ?? "?"))  "
                + "\(event.string("reason")); \(event.field("attemptsLeft")?.integer ?? 0) attempts left before the lock"
        case "pairing-locked":
            let peer = event.field("peer")
            return "\(time)  pairing locked  \(peer?.string("name", "?") ?? "?")  until "
                + Formatting.localTime(event.field("lockedUntil")?.integer)
        case "series-updated":
            guard let series else { break }
            let who = SeriesCommand.peer(series)
            let id = Formatting.shortID(series.id)
            let what =
                series.state == "offered" && series.direction == "in"
                ? "series offered  \(id)  \(who) offers a subscription"
                : "series \(series.state.printable)  \(id)  \(series.direction == "in" ? "from" : "to") \(who)"
            return "\(time)  \(what): \(series.amount.printable) \(series.currency.printable) "
                + "\(SeriesCommand.every(series))  \"\(series.memo.printable)\""
        case "peer-up", "peer-down":
            let peer = event.field("peer")
            return "\(time)  \(event.string("event") == "peer-up" ? "peer up  " : "peer down")  "
                + "\(peer?.string("name", "?") ?? "?")  \(peer?.string("shortID") ?? "")"
        default:
            break
        }
        return "\(time)  \(event.jsonText)"
    }
}
