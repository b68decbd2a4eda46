/// A non-negative integer of any size, for exact rate arithmetic: 32-bit limbs, least significant first.
///
/// Only what currency conversion needs: multiplication, powers of ten, comparison, subtraction and division with
/// remainder. The numbers involved stay small (a few hundred bits), so division is plain binary long division.
/// Invariant: `limbs` has no trailing zero limbs, so zero is `[]` and synthesized equality compares values.
package struct WideUInt: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The limbs, least significant first, without trailing zeros.
    package private(set) var limbs: [UInt32]

    /// Zero.
    package static let zero = WideUInt(0)

    /// The value of `value`.
    package init(_ value: UInt64) {
        limbs = [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)]
        normalize()
    }

    private init(limbs: [UInt32]) {
        self.limbs = limbs
        normalize()
    }

    /// Whether the value is zero.
    package var isZero: Bool { limbs.isEmpty }

    /// Whether the value is odd.
    package var isOdd: Bool { (limbs.first ?? 0) & 1 == 1 }

    /// The value as an `UInt64`, or nil when it does not fit.
    package var uint64Value: UInt64? {
        switch limbs.count {
        case 0: 0
        case 1: UInt64(limbs[0])
        case 2: UInt64(limbs[1]) << 32 | UInt64(limbs[0])
        default: nil
        }
    }

    /// The number of significant bits (0 for zero).
    package var bitWidth: Int {
        guard let top = limbs.last else { return 0 }
        return (limbs.count - 1) * 32 + (32 - top.leadingZeroBitCount)
    }

    /// The decimal digits, without leading zeros (`"0"` for zero).
    package var description: String {
        if isZero { return "0" }
        var chunks: [UInt32] = []
        var rest = self
        while !rest.isZero {
            let (quotient, remainder) = rest.quotientAndRemainder(dividingBySmall: 1_000_000_000)
            chunks.append(remainder)
            rest = quotient
        }
        var text = String(chunks.removeLast())
        for chunk in chunks.reversed() {
            let digits = String(chunk)
            text += String(repeating: "0", count: 9 - digits.count) + digits
        }
        return text
    }

    /// The number of decimal digits (1 for zero).
    package var decimalDigitCount: Int { description.count }

    /// Ten to the power `exponent` (which must not be negative).
    package static func powerOfTen(_ exponent: Int) -> WideUInt {
        WideUInt(1).multipliedByPowerOfTen(exponent)
    }

    /// This value times ten to the power `exponent` (which must not be negative).
    package func multipliedByPowerOfTen(_ exponent: Int) -> WideUInt {
        precondition(exponent >= 0, "negative power of ten")
        var result = self
        var remaining = exponent
        while remaining >= 9 {
            result = result.multiplied(bySmall: 1_000_000_000)
            remaining -= 9
        }
        var factor: UInt32 = 1
        for _ in 0..<remaining { factor *= 10 }
        return result.multiplied(bySmall: factor)
    }

    /// This value times a 32-bit factor.
    package func multiplied(bySmall factor: UInt32) -> WideUInt {
        var result: [UInt32] = []
        result.reserveCapacity(limbs.count + 1)
        var carry: UInt64 = 0
        for limb in limbs {
            let product = UInt64(limb) * UInt64(factor) + carry
            result.append(UInt32(truncatingIfNeeded: product))
            carry = product >> 32
        }
        result.append(UInt32(truncatingIfNeeded: carry))
        return WideUInt(limbs: result)
    }

    /// The product of two values (schoolbook multiplication).
    package static func * (lhs: WideUInt, rhs: WideUInt) -> WideUInt {
        if lhs.isZero || rhs.isZero { return .zero }
        var result = [UInt32](repeating: 0, count: lhs.limbs.count + rhs.limbs.count)
        for (i, left) in lhs.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, right) in rhs.limbs.enumerated() {
                // At most (2³² − 1)² + 2 · (2³² − 1) = 2⁶⁴ − 1: never overflows.
                let sum = UInt64(left) * UInt64(right) + UInt64(result[i + j]) + carry
                result[i + j] = UInt32(truncatingIfNeeded: sum)
                carry = sum >> 32
            }
            result[i + rhs.limbs.count] = UInt32(truncatingIfNeeded: carry)
        }
        return WideUInt(limbs: result)
    }

    /// The sum of two values.
    package static func + (lhs: WideUInt, rhs: WideUInt) -> WideUInt {
        var result: [UInt32] = []
        let count = max(lhs.limbs.count, rhs.limbs.count)
        result.reserveCapacity(count + 1)
        var carry: UInt64 = 0
        for index in 0..<count {
            let left = index < lhs.limbs.count ? UInt64(lhs.limbs[index]) : 0
            let right = index < rhs.limbs.count ? UInt64(rhs.limbs[index]) : 0
            let sum = left + right + carry
            result.append(UInt32(truncatingIfNeeded: sum))
            carry = sum >> 32
        }
        result.append(UInt32(truncatingIfNeeded: carry))
        return WideUInt(limbs: result)
    }

    /// The difference `lhs − rhs`; `rhs` must not be larger than `lhs`.
    package static func - (lhs: WideUInt, rhs: WideUInt) -> WideUInt {
        precondition(lhs >= rhs, "WideUInt subtraction would be negative")
        var result = lhs.limbs
        var borrow: Int64 = 0
        for index in 0..<result.count {
            let right = index < rhs.limbs.count ? Int64(rhs.limbs[index]) : 0
            var difference = Int64(result[index]) - right - borrow
            if difference < 0 {
                difference += 1 << 32
                borrow = 1
            } else {
                borrow = 0
            }
            result[index] = UInt32(truncatingIfNeeded: difference)
        }
        return WideUInt(limbs: result)
    }

    /// Quotient and remainder of a division by a non-zero 32-bit divisor.
    package func quotientAndRemainder(dividingBySmall divisor: UInt32) -> (quotient: WideUInt, remainder: UInt32) {
        precondition(divisor != 0, "division by zero")
        var quotient = [UInt32](repeating: 0, count: limbs.count)
        var remainder: UInt64 = 0
        for index in limbs.indices.reversed() {
            let current = remainder << 32 | UInt64(limbs[index])
            quotient[index] = UInt32(truncatingIfNeeded: current / UInt64(divisor))
            remainder = current % UInt64(divisor)
        }
        return (WideUInt(limbs: quotient), UInt32(truncatingIfNeeded: remainder))
    }

    /// Quotient and remainder of a division by a non-zero divisor (binary long division).
    package func quotientAndRemainder(dividingBy divisor: WideUInt) -> (quotient: WideUInt, remainder: WideUInt) {
        precondition(!divisor.isZero, "division by zero")
        if self < divisor { return (.zero, self) }
        if divisor.limbs.count == 1 {
            let (quotient, remainder) = quotientAndRemainder(dividingBySmall: divisor.limbs[0])
            return (quotient, WideUInt(UInt64(remainder)))
        }
        var quotient = [UInt32](repeating: 0, count: limbs.count)
        var remainder = WideUInt.zero
        for bit in (0..<bitWidth).reversed() {
            remainder = remainder.shiftedLeftByOne(insertingBit: (limbs[bit / 32] >> UInt32(bit % 32)) & 1)
            if remainder >= divisor {
                remainder = remainder - divisor
                quotient[bit / 32] |= 1 << UInt32(bit % 32)
            }
        }
        return (WideUInt(limbs: quotient), remainder)
    }

    /// `self · 2 + bit`.
    private func shiftedLeftByOne(insertingBit bit: UInt32) -> WideUInt {
        var result: [UInt32] = []
        result.reserveCapacity(limbs.count + 1)
        var carry = bit
        for limb in limbs {
            result.append(limb << 1 | carry)
            carry = limb >> 31
        }
        result.append(carry)
        return WideUInt(limbs: result)
    }

    package static func < (lhs: WideUInt, rhs: WideUInt) -> Bool {
        if lhs.limbs.count != rhs.limbs.count { return lhs.limbs.count < rhs.limbs.count }
        for index in lhs.limbs.indices.reversed() where lhs.limbs[index] != rhs.limbs[index] {
            return lhs.limbs[index] < rhs.limbs[index]
        }
        return false
    }

    /// Drops trailing zero limbs (most significant zeros).
    private mutating func normalize() {
        while limbs.last == 0 { limbs.removeLast() }
    }
}
