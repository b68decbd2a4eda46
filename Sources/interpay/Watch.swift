import ArgumentParser
import FoundationEssentials
import Glibc
import InterPayContract
import InterPayControlClient
import InterPayCore

/// `interpay watch`
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract:
            "Follow incoming requests, state changes and peers coming and going, one line each, until interrupted.")

    @OptionGroup var global: GlobalOptions

    /// How long `watch` tries to connect again after the daemon went away (a restart takes a few seconds).
    static let reconnectFor = Duration.seconds(60)

    func run() throws {
        let socketPath = try global.socketPath()
        let client = ControlClient(path: socketPath)
        // Set while connecting again after the daemon went away: until then, an unreachable daemon ends the watch.
        var reconnectingUntil: ContinuousClock.Instant?
        while true {
            do throws(ControlClientError) {
                // Runs until the subscription fails (Ctrl-C ends the process).
                try client.subscribeBlocking(onSubscribed: {
                    guard reconnectingUntil != nil else { return }
                    writeStandardError("interpay: connected again\n")
                    reconnectingUntil = nil
                }) { event in
                    if global.json {
                        print(event.jsonText)
                    } else {
                        print(Self.describe(event))
                    }
                    fflush(nil)  // one line at a time, also into a pipe
                }
            } catch .subscriptionEnded(_, let reason) {
                // A restart (an upgrade, `systemctl restart`) is no reason to stop watching.
                writeStandardError(
                    "interpay: \(reason.printable): connecting again for up to \(Self.reconnectFor.components.seconds) s"
                        + " (events in between are not shown; 'interpay list' has every payment)\n")
                reconnectingUntil = .now + Self.reconnectFor
            } catch {
                guard case .daemonUnreachable = error, let until = reconnectingUntil, .now < until else {
                    throw CLIError(error, socketPath: socketPath)
                }
            }
            pause(for: .milliseconds(500))
        }
    }

    /// One human line for an event; one this version cannot read (a newer daemon's) is printed as JSON.
    static func describe(_ event: JSONValue) -> String {
        guard let typed = try? event.decode(ControlEvent.self) else {
            return "\(Formatting.localTime(event.field("at")?.integer))  \(event.jsonText)"
        }
        return describe(typed)
    }

    /// One human line for an event.
    static func describe(_ event: ControlEvent) -> String {
        let time = Formatting.localTime(event.at)
        switch event.kind {
        case .requestReceived(let payment):
            return "\(time)  request  \(payment.shortID.printable)  \(Formatting.counterparty(payment)) "
                + "asks you to pay \(Formatting.amount(payment))  \"\(payment.memo.printable)\""
        case .paymentUpdated(let payment):
            return "\(time)  \(Formatting.state(payment))  \(payment.shortID.printable)  "
                + "\(Formatting.counterparty(payment))  \(Formatting.amount(payment))"
        case .pairingRequested(let peer, _):
            // Only the short ID goes into a command to paste: a peer's name is its own text.
            return "\(time)  pairing  \(peer.label) wants to pair: run 'interpay pair \(peer.shortIDShown)'"
        case .pairingStarted(let peer, _):
            return "\(time)  pairing  attempt started with \(peer.label)"
        case .pairingCode(let peer, let code, let expiresAt):
            return "\(time)  pairing  \(peer.label)  verification code \(Pair.grouped(code))  (check that "
                + "the peer shows the same code, then run 'interpay pair \(peer.shortIDShown) --code "
                + "\(Pair.digits(code))'; valid until \(Formatting.localTime(expiresAt)))"
        case .paired(let peer):
            return "\(time)  paired   \(peer.label)"
        case .pairingFailed(let peer, let reason, _, let attemptsLeft):
            return "\(time)  pairing failed  \(peer.label)  \(reason.printable); "
                + "\(attemptsLeft) attempts left before the lock"
        case .pairingLocked(let peer, let lockedUntil):
            return "\(time)  pairing locked  \(peer.label)  until \(Formatting.localTime(lockedUntil))"
        case .seriesUpdated(let series):
            let who = series.peer.label
            let id = series.shortID.printable
            let what =
                series.state == .offered && series.direction == .incoming
                ? "series offered  \(id)  \(who) offers a subscription"
                : "series \(series.state.rawValue)  \(id)  \(series.direction == .incoming ? "from" : "to") \(who)"
            return "\(time)  \(what): \(series.amount.printable) \(series.currency.printable) "
                + "\(SeriesCommand.every(series))  \"\(series.memo.printable)\""
        case .billUpdated(let bill):
            return "\(time)  \(Formatting.bill(bill))"
        case .peerUp(let peer):
            return "\(time)  peer up    \(peer.label)"
        case .peerDown(let peer):
            return "\(time)  peer down  \(peer.label)"
        }
    }
}
