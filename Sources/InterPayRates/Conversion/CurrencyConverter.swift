public import InterPayCore

/// Converts money with exact decimal arithmetic.
///
/// An amount in FROM becomes `amount × rate[TO] / rate[FROM]` in TO: through the base currency when it is
/// neither, directly when it is one of them (its rate is exactly 1). The product and the quotient are computed
/// exactly with wide integers, and the result is rounded once, half to even, to TO's minor digits (JPY 0, EUR 2,
/// KWD 3). Nothing goes through floating point, and nothing can overflow except the final amount, which must fit
/// `Money`'s 64-bit minor units (`RatesError.conversionOverflow`).
public enum CurrencyConverter {
    /// The significant digits kept when a cross rate has no finite decimal form (see `Quote.rate`).
    public static let displayedRateDigits = 19

    /// Converts `amount` into `target` with `rates`.
    ///
    /// Throws `unsupportedCurrency` naming the currency the rates do not list, or `conversionOverflow`.
    public static func convert(
        _ amount: Money, to target: CurrencyCode, using rates: CurrentRates
    ) throws(RatesError)
        -> Quote
    {
        let snapshot = rates.snapshot
        guard let fromRate = snapshot.rate(for: amount.currency) else {
            throw .unsupportedCurrency(code: amount.currency.code, base: snapshot.base.code)
        }
        guard let toRate = snapshot.rate(for: target) else {
            throw .unsupportedCurrency(code: target.code, base: snapshot.base.code)
        }
        let minorUnits: Int64
        let rate: (text: String, isExact: Bool)
        if amount.currency == target {
            // Not even a rounding: the same money.
            minorUnits = amount.minorUnits
            rate = ("1", true)
        } else {
            minorUnits = try convertedMinorUnits(amount, to: target, fromRate: fromRate, toRate: toRate)
            rate = quotientText(toRate, dividedBy: fromRate)
        }
        return Quote(
            amount: amount, converted: Money(minorUnits: minorUnits, currency: target), base: snapshot.base,
            fromRate: fromRate, toRate: toRate, rate: rate.text, rateIsExact: rate.isExact,
            ratesUpdatedAt: snapshot.lastUpdate, isStale: rates.isStale, ratesAge: rates.age)
    }

    /// `amount × toRate / fromRate` in minor units of `target`, rounded half-even.
    ///
    /// With amount `m` minor units of FROM (`dF` minor digits), rates `sF·10^eF` and `sT·10^eT`, the result in
    /// minor units of TO (`dT` digits) is `m · sT / sF · 10^k` with `k = dT − dF + eT − eF`; the power of ten goes
    /// to the numerator or the denominator so that a single integer division remains.
    static func convertedMinorUnits(
        _ amount: Money, to target: CurrencyCode, fromRate: ExactDecimal, toRate: ExactDecimal
    ) throws(RatesError) -> Int64 {
        let scale = target.minorDigits - amount.currency.minorDigits + toRate.exponent - fromRate.exponent
        var numerator = WideUInt(amount.minorUnits.magnitude) * toRate.wideSignificand
        var denominator = fromRate.wideSignificand
        if scale >= 0 {
            numerator = numerator.multipliedByPowerOfTen(scale)
        } else {
            denominator = denominator.multipliedByPowerOfTen(-scale)
        }
        let magnitude = roundedHalfEven(numerator, dividedBy: denominator)
        // The magnitude of a negative amount may reach 2⁶³ (Int64.min); a positive one at most Int64.max.
        let limit = amount.minorUnits < 0 ? Int64.min.magnitude : UInt64(Int64.max)
        guard let value = magnitude.uint64Value, value <= limit else {
            throw .conversionOverflow(amount: amount.description, to: target.code)
        }
        return amount.minorUnits < 0 ? Int64(truncatingIfNeeded: 0 &- value) : Int64(value)
    }

    /// `numerator / denominator` rounded to the nearest integer, ties to the even one.
    static func roundedHalfEven(_ numerator: WideUInt, dividedBy denominator: WideUInt) -> WideUInt {
        let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        let twice = remainder + remainder
        if twice > denominator || (twice == denominator && quotient.isOdd) {
            return quotient + WideUInt(1)
        }
        return quotient
    }

    /// `numerator / denominator` as plain decimal text: exact when it has at most `displayedRateDigits`
    /// significant digits, otherwise rounded half-even to that many.
    static func quotientText(
        _ numerator: ExactDecimal, dividedBy denominator: ExactDecimal
    ) -> (
        text: String, isExact: Bool
    ) {
        // 10⁴⁰ · sT / sF ≥ 10⁴⁰ / 10¹⁹: always more digits than displayed, so rounding happens at most once.
        let extraDigits = 40
        let (quotient, remainder) = numerator.wideSignificand.multipliedByPowerOfTen(extraDigits)
            .quotientAndRemainder(dividingBy: denominator.wideSignificand)
        var exponent = numerator.exponent - denominator.exponent - extraDigits
        var digits = quotient
        var isExact = remainder.isZero
        let excess = quotient.decimalDigitCount - displayedRateDigits
        if excess > 0 {
            let divisor = WideUInt.powerOfTen(excess)
            let (kept, dropped) = quotient.quotientAndRemainder(dividingBy: divisor)
            let twice = dropped + dropped
            // A non-zero remainder of the first division puts a "tie" above one half.
            let roundsUp = twice > divisor || (twice == divisor && (!remainder.isZero || kept.isOdd))
            digits = roundsUp ? kept + WideUInt(1) : kept
            isExact = isExact && dropped.isZero
            exponent += excess
        }
        var text = digits.description
        while text.count > 1, text.last == "0" {
            text.removeLast()
            exponent += 1
        }
        return (ExactDecimal.plainText(digits: text, exponent: exponent), isExact)
    }
}
