import InterPayContract
import InterPayControl
import InterPayCore
import InterPayRates
import InterPayStore
import Logging
import Synchronization

/// Amounts in the user's preferred currency: shown next to payments in other currencies, and quoted when a payment
/// is accepted. Conversions never fail a command: without rates, nothing extra is shown.
struct Conversions: Sendable {
    /// The base currency of the rates when the user chose no preferred currency.
    static let defaultBase = "USD"

    let rates: RatesService
    /// The preferred currency, which the user may change at run time (`interpay currency`).
    let preference: PreferredCurrency
    let logger: Logger

    /// The preferred currency now; nil when there is none.
    var preferred: CurrencyCode? { preference.value }

    /// The base of the rates fetched now: the preferred currency, as the user may have changed it at run time
    /// (`interpay currency`), else the one the daemon started with (the configuration's, else USD). A rates file or
    /// provider is asked for this base.
    var base: CurrencyCode { preferred ?? rates.base }

    /// `money` in the preferred currency; nil without a preferred currency, for that currency itself, or when no
    /// rates can be had (logged at debug level).
    func quote(_ money: Money, now: Timestamp = .now) async -> Quote? {
        await converted(money) { try await rates.convert(money, to: $0, base: base, now: now) }
    }

    /// A converter to the preferred currency for many amounts at once (a list of payments): the rates are looked up
    /// once, as `quote(_:now:)` would. It returns nil for amounts in the preferred currency, and for every amount
    /// when there is no preferred currency or no rates.
    func quoter(now: Timestamp = .now) async -> @Sendable (Money) -> Quote? {
        guard let preferred else { return { _ in nil } }
        let rates: CurrentRates
        do {
            rates = try await self.rates.rates(base: base, now: now)
        } catch {
            noConversion(to: preferred, error)
            return { _ in nil }
        }
        return { money in
            guard money.currency != preferred else { return nil }
            return try? CurrencyConverter.convert(money, to: preferred, using: rates)  // nil: no rate for it
        }
    }

    /// `money` in the preferred currency from the cached rates only (never waiting on the network): the quote
    /// stored when a payment is accepted. Nil when there is nothing to convert or nothing cached.
    func cachedQuote(_ money: Money, now: Timestamp = .now) async -> Quote? {
        await converted(money) { try await rates.convertCached(money, to: $0, base: base, now: now) }
    }

    /// `convert` of `money` to the preferred currency; nil without a preferred currency, for that currency itself,
    /// or when `convert` fails (logged at debug level).
    private func converted(
        _ money: Money, _ convert: (CurrencyCode) async throws -> Quote?
    ) async -> Quote? {
        guard let preferred, preferred != money.currency else { return nil }
        do {
            return try await convert(preferred)
        } catch {
            noConversion(to: preferred, error)
            return nil
        }
    }

    /// Logs (at debug level) why there is no conversion to `currency`.
    private func noConversion(to currency: CurrencyCode, _ error: any Error) {
        logger.debug("no conversion", metadata: ["to": "\(currency)", "error": "\(error)"])
    }

    /// A quote as the control methods answer it (the `converted` member of a payment, and `interpay convert`).
    static func info(_ quote: Quote) -> ConvertedAmount {
        ConvertedAmount(
            conversion: Conversion(
                amount: quote.converted.formattedAmount, currency: quote.to.code,
                minorUnits: quote.converted.minorUnits, rate: quote.rate,
                ratesUpdatedAt: quote.ratesUpdatedAt.secondsSince1970),
            stale: quote.isStale, ratesAgeSeconds: quote.ratesAge)
    }

    /// The quote stored with an accepted payment; nil when none was stored.
    static func storedQuote(_ record: PaymentRecord) -> Conversion? {
        // A stored quote's currency was checked when stored; one that no longer reads counts as no quote.
        guard let code = record.quoteCurrency, let minor = record.quoteMinor, let rate = record.quoteRate,
            let at = record.quoteRatesAt, let currency = try? CurrencyCode(code)
        else { return nil }
        return Conversion(
            amount: Money(minorUnits: minor, currency: currency).formattedAmount, currency: code, minorUnits: minor,
            rate: rate, ratesUpdatedAt: at.secondsSince1970)
    }
}

/// The preferred currency: the configuration's (`rates.currency`), or the one the user chose at run time, which the
/// ledger keeps across restarts and which wins over the configuration's.
final class PreferredCurrency: Sendable {
    /// Where the current value comes from: `configuration`, `user` or `none`.
    enum Source: String, Sendable {
        case configuration, user, none
    }

    private let state: Mutex<(value: CurrencyCode?, source: Source)>
    /// The configuration's currency, which `clear()` goes back to.
    let configured: CurrencyCode?

    /// The configuration's currency, overridden by the user's stored choice when there is one.
    init(configured: CurrencyCode?, stored: CurrencyCode?) {
        self.configured = configured
        if let stored {
            state = Mutex((stored, .user))
        } else {
            state = Mutex((configured, configured == nil ? .none : .configuration))
        }
    }

    /// The preferred currency now.
    var value: CurrencyCode? { state.withLock { $0.value } }
    /// Where it comes from.
    var source: Source { state.withLock { $0.source } }

    /// The user's choice.
    func set(_ currency: CurrencyCode) {
        state.withLock { $0 = (currency, .user) }
    }

    /// Back to the configuration's currency.
    func clear() {
        state.withLock { $0 = (configured, configured == nil ? .none : .configuration) }
    }
}
