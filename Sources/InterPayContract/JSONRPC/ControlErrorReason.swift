public import InterPayCore

/// Why a control call failed, as a program reads it: the `reason` member of a JSON-RPC error's `data`, with the
/// values its sentence names beside it (`{"reason":"amountSign","text":"-1"}`).
///
/// The error's `message` says the same in English for the CLI; the web app words each reason in each of its
/// languages from the reason and its values, so that no daemon sentence reaches a Spanish page in English.
/// docs/control-api.md lists the reasons and their values.
public enum ControlErrorReason: String, Sendable, Hashable, CaseIterable {
    // Amounts and currencies (values: `text`; `currency` and `allowed` for too many decimals; `code` for currencies).
    case amountEmpty, amountInvalid, amountNotANumber, amountSign, amountExponent, amountGrouping, amountAmbiguous
    case amountNotPositive, amountTooManyDecimals, amountOverflow, currencyInvalid, currencyUnknown
    /// A required param is missing (`param`).
    case missingParameter
    /// A text field is too long or holds a control character (`field`: memo, reason, reference or name; `max`).
    case textRefused
    /// An expiry outside 1 second to 30 days.
    case expiryRange
    /// A number of periods outside 1 to `max`.
    case periodsRange
    /// An approval naming another peer than the one that offered the series (`peer`: the offerer's short ID).
    case seriesPeerMismatch
    /// A pairing code that is not 6 digits.
    case pairingCodeFormat
    /// The payment, peer or series named does not exist (`what`: payment, peer or series; `text`).
    case notFound
    /// The text names several payments or peers (`text`).
    case ambiguous
    /// The payment was already decided (`reasonCode`: `ALAC`, `ACLR`, `ARFR` or `AEXR`).
    case conflict
    /// The payment is already paid or settled.
    case alreadySettled
    /// The idempotency key was used for a different request.
    case keyReused
    /// No session with the peer (`peer`, as every surface shows it).
    case peerUnreachable
    /// A subscription offer from a peer that is not paired, approved without naming it (`peer`: its short ID).
    case seriesUnpaired
    /// A cap or total in another currency than the series', or not above zero (`field`: cap or total; `currency`).
    case seriesAmount
    /// This side may not do that (the payer's action asked of the payee, or a peer without the capability).
    case notPermitted
    /// Another invalid request.
    case invalid
    /// Exchange rates cannot be had right now.
    case ratesUnavailable
    /// The rates do not cover the currency (`code`).
    case ratesUnsupportedCurrency
    /// The web app is off or not listening.
    case webUnavailable
    /// The daemon failed (its ledger, or a fault).
    case internalError
}

extension RPCError {
    /// An error of `code` whose `data` names `reason` and its `values`.
    public init(
        code: Code, message: String, reason: ControlErrorReason, values: [String: String] = [:],
        extra: [String: JSONValue] = [:]
    ) {
        var data = extra
        for (key, value) in values { data[key] = .string(value) }
        data["reason"] = .string(reason.rawValue)
        self.init(code: code, message: message, data: .object(data))
    }

    /// The reason in `data`, nil when the error has none (or one this build does not know).
    public var reason: ControlErrorReason? {
        guard case .object(let members)? = data, case .string(let text)? = members["reason"] else { return nil }
        return ControlErrorReason(rawValue: text)
    }

    /// Invalid params for an amount or currency that was refused, its reason and the values its sentence names; with
    /// `field`, the message names the option it was given for (`--max: …`) and the values the field.
    public static func amount(_ error: MoneyError, field: String? = nil) -> RPCError {
        let (reason, values): (ControlErrorReason, [String: String]) =
            switch error {
            case .invalidCurrencyCode(let code): (.currencyInvalid, ["code": code])
            case .unknownCurrency(let code): (.currencyUnknown, ["code": code])
            case .empty: (.amountEmpty, [:])
            case .invalidAmount(let text): (.amountInvalid, ["text": text])
            case .notANumber(let text): (.amountNotANumber, ["text": text])
            case .sign(let text): (.amountSign, ["text": text])
            case .exponent(let text): (.amountExponent, ["text": text])
            case .groupingSeparators(let text): (.amountGrouping, ["text": text])
            case .ambiguousSeparator(let text): (.amountAmbiguous, ["text": text])
            case .notPositive(let text): (.amountNotPositive, ["text": text])
            case .tooManyDecimals(let text, let currency, let allowed):
                (.amountTooManyDecimals, ["text": text, "currency": currency, "allowed": String(allowed)])
            case .overflow(let text): (.amountOverflow, ["text": text])
            }
        guard let field else {
            return RPCError(code: .invalidParams, message: error.description, reason: reason, values: values)
        }
        return RPCError(
            code: .invalidParams, message: "\(field): \(error.description)", reason: reason,
            values: values.merging(["field": field]) { $1 })
    }

    /// Invalid params for a missing required param.
    public static func missing(_ param: String) -> RPCError {
        RPCError(
            code: .invalidParams, message: "missing parameter '\(param)'", reason: .missingParameter,
            values: ["param": param])
    }
}
