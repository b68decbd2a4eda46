import ArgumentParser
import FoundationEssentials
import Glibc
import InterPayControl
import InterPayCore

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
        // The peer of a pairing or session event, as every view names a peer (`PeerLabel`).
        let peerObject = event.field("peer")
        let peerShortID = PeerID.isShortID(peerObject?.string("shortID")) ? peerObject?.string("shortID") ?? "?" : "?"
        let peer = PeerLabel.text(
            name: peerObject?.string("name"), shortID: peerShortID, paired: peerObject?.string("trust") == "paired")
        switch event.string("event") {
        case "request-received":
            guard let payment else { break }
            return "\(time)  request  \(payment.shortID.printable)  \(Formatting.counterparty(payment)) "
                + "asks you to pay \(Formatting.amount(payment))  \"\(payment.memo.printable)\""
        case "payment-updated":
            guard let payment else { break }
            return "\(time)  \(Formatting.state(payment))  \(payment.shortID.printable)  "
                + "\(Formatting.counterparty(payment))  \(Formatting.amount(payment))"
        case "pairing-requested":
            // Only the short ID goes into a command to paste: a peer's name is its own text.
            return "\(time)  pairing  \(peer) wants to pair: run 'interpay pair \(peerShortID)'"
        case "pairing-started":
            return "\(time)  pairing  attempt started with \(peer)"
        case "pairing-code":
            return "\(time)  pairing  \(peer)  verification code \(Pair.grouped(event.string("code")))  (check that "
                + "the peer shows the same code, then run 'interpay pair \(peerShortID) --code "
                + "\(Pair.digits(event.string("code")))'; valid until "
                + "\(Formatting.localTime(event.field("expiresAt")?.integer)))"
        case "paired":
            return "\(time)  paired   \(peer)"
        case "pairing-failed":
            return "\(time)  pairing failed  \(peer)  \(event.string("reason").printable); "
                + "\(event.field("attemptsLeft")?.integer ?? 0) attempts left before the lock"
        case "pairing-locked":
            return "\(time)  pairing locked  \(peer)  until "
                + Formatting.localTime(event.field("lockedUntil")?.integer)
        case "series-updated":
            guard let series else { break }
            let who = series.peer.label
            let id = series.shortID.printable
            let what =
                series.state == .offered && series.direction == .incoming
                ? "series offered  \(id)  \(who) offers a subscription"
                : "series \(series.state.rawValue)  \(id)  \(series.direction == .incoming ? "from" : "to") \(who)"
            return "\(time)  \(what): \(series.amount.printable) \(series.currency.printable) "
                + "\(SeriesCommand.every(series))  \"\(series.memo.printable)\""
        case "peer-up", "peer-down":
            return "\(time)  \(event.string("event") == "peer-up" ? "peer up  " : "peer down")  \(peer)"
        default:
            break
        }
        return "\(time)  \(event.jsonText)"
    }
}
