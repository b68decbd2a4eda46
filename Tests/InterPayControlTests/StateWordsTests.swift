import InterPayContract
import InterPayCore
import Testing

/// The words every surface says a payment's and a series' state with (`StateWords`).
@Suite("State words")
struct StateWordsTests {
    static let peer = PaymentPeer(id: "p", shortID: "HSBEJBT", name: "bob", announcedName: nil, trust: .paired)

    static func payment(_ state: PaymentState, confirmed: Bool, reasonCode: String? = nil) -> PaymentInfo {
        PaymentInfo(
            id: "id", shortID: "abcd1234", direction: .incoming, peer: peer, amount: "12.50", currency: "MXN",
            minorUnits: 1250, memo: "", category: nil, state: state, confirmed: confirmed, reason: nil,
            reasonCode: reasonCode, converted: nil, quote: nil, createdAt: 0, expiresAt: 900, updatedAt: 0,
            acceptedAt: nil, paidAt: nil, settledAt: nil, method: nil, reference: nil, receipt: false, series: nil)
    }

    @Test(
        "a payer's decision awaits the payee until confirmed; an expired request is simply expired",
        arguments: [
            (PaymentState.pending, false, "pending"),
            (.accepted, false, "accepted (awaiting payee)"),
            (.rejected, false, "rejected (awaiting payee)"),
            (.paid, false, "paid (awaiting payee)"),
            (.expired, false, "expired"),
            (.cancelled, false, "cancelled"),
            (.settled, false, "settled"),
            (.accepted, true, "accepted"),
            (.expired, true, "expired"),
        ])
    func paymentStates(state: PaymentState, confirmed: Bool, words: String) {
        let payment = Self.payment(state, confirmed: confirmed)
        #expect(StateWords.text(payment) == words)
        #expect(StateWords.awaitsPayee(payment) == words.hasSuffix("(awaiting payee)"))
        #expect(payment.awaitingPayee == words.hasSuffix("(awaiting payee)"))
        // The field the web app reads follows the state: once expired, nothing awaits the payee.
        var later = payment
        later.state = .expired
        #expect(!later.awaitingPayee)
    }

    @Test("an action that lost to the peer's shows its reason code, escaped")
    func reasonCode() {
        #expect(
            StateWords.text(Self.payment(.cancelled, confirmed: true, reasonCode: "too-late")) == "cancelled [too-late]"
        )
        #expect(
            StateWords.text(Self.payment(.cancelled, confirmed: true, reasonCode: "x\u{1B}"))
                == "cancelled [x\\u{001B}]")
    }

    static func series(_ state: SeriesState, count: Int64?, nextDue: Int64?) -> SeriesInfo {
        SeriesInfo(
            id: "s", shortID: "s1234567", direction: .outgoing, peer: peer, amount: "30.00", currency: "EUR",
            every: "month", count: count, start: 0, timeZone: "UTC", periodSeconds: nil, memo: "", category: nil,
            state: state, cap: nil, nextDue: nextDue, instances: 3, accepted: 3, paid: 1, reason: nil, endedBy: nil,
            delivered: true, createdAt: 0, updatedAt: 0)
    }

    @Test(
        "a series whose periods are all past is ended, whatever its stored state",
        arguments: [
            (SeriesState.approved, Int64?.some(3), Int64?.none, "ended"),
            (.offered, 3, nil, "ended"),
            (.approved, 3, 1_000, "approved"),
            (.approved, nil, nil, "approved"),
            (.declined, 3, nil, "declined"),
            (.ended, nil, nil, "ended"),
        ])
    func seriesStates(state: SeriesState, count: Int64?, nextDue: Int64?, words: String) {
        #expect(StateWords.text(Self.series(state, count: count, nextDue: nextDue)) == words)
    }

    @Test("what we asked for is a sale, what we are asked to pay a purchase")
    func sides() {
        #expect(StateWords.side(.outgoing) == "sale")
        #expect(StateWords.side(.incoming) == "purchase")
    }
}
