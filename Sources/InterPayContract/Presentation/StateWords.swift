public import InterPayCore

/// How a payment's and a series' state and direction are said to people: the one rule of the CLI's tables and
/// outcomes and of `watch` (the web app shows the same states through its translations of the same words; exports
/// keep the stored state and `confirmed` for the books).
///
/// - A payer's decision the payee has not confirmed yet is `accepted (awaiting payee)` or `rejected (awaiting
///   payee)`: it may still end `cancelled` or `expired`. An expired request is simply `expired`: once its expiry
///   passed no decision can take effect, whatever the payee's daemon last said.
/// - A series whose periods are all past is `ended`, even where its stored state is still `approved` or `offered`.
/// - A payment we asked for is a `sale`, one we are asked to pay a `purchase`.
public enum StateWords {
    /// The words for a payment's state, with the reason code when an action lost to the peer's.
    public static func text(_ payment: PaymentInfo) -> String {
        var text = payment.state.rawValue
        if awaitsPayee(payment) { text += " (awaiting payee)" }
        if let code = payment.reasonCode { text += " [\(SafeText.escaped(code))]" }
        return text
    }

    /// Whether the payee has yet to confirm our decision: only a payer's accepted, rejected or paid mark waits.
    public static func awaitsPayee(_ payment: PaymentInfo) -> Bool {
        awaitsPayee(state: payment.state, confirmed: payment.confirmed)
    }

    /// Whether a payment in `state`, `confirmed` or not, waits for the payee (`PaymentInfo.awaitingPayee`).
    public static func awaitsPayee(state: PaymentState, confirmed: Bool) -> Bool {
        guard !confirmed else { return false }
        switch state {
        case .accepted, .rejected, .paid: return true
        case .pending, .cancelled, .expired, .settled: return false
        }
    }

    /// The words for a series' state: `ended` once no period is due any more (a declined series stays declined).
    public static func text(_ series: SeriesInfo) -> String {
        shownState(series.state, count: series.count, nextDue: series.nextDue).rawValue
    }

    /// The state a series is shown in (`SeriesInfo.shownState`): `ended` where the stored state is not final but
    /// every period of a series with a count is past (no `nextDue`).
    public static func shownState(_ state: SeriesState, count: Int64?, nextDue: Int64?) -> SeriesState {
        !state.isFinal && count != nil && nextDue == nil ? .ended : state
    }

    /// `sale` for what we asked to be paid, `purchase` for what we are asked to pay.
    public static func side(_ direction: PaymentDirection) -> String {
        direction == .outgoing ? "sale" : "purchase"
    }
}
