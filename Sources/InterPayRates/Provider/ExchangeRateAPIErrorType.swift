/// The `error-type` of an ExchangeRate-API error document (`{"result":"error","error-type":"…"}`).
public enum ExchangeRateAPIErrorType: Sendable, Hashable, CustomStringConvertible {
    /// `unsupported-code`: the API does not know the requested base currency.
    case unsupportedCode
    /// `malformed-request`: the request URL does not have the API's shape.
    case malformedRequest
    /// `invalid-key`: the API key is not valid.
    case invalidKey
    /// `inactive-account`: the account's email address was never confirmed.
    case inactiveAccount
    /// `quota-reached`: the account used all the requests its plan allows.
    case quotaReached
    /// An error type this version does not know, as the API named it.
    case unknown(String)

    /// Reads the API's `error-type` text.
    public init(rawValue: String) {
        switch rawValue {
        case "unsupported-code": self = .unsupportedCode
        case "malformed-request": self = .malformedRequest
        case "invalid-key": self = .invalidKey
        case "inactive-account": self = .inactiveAccount
        case "quota-reached": self = .quotaReached
        default: self = .unknown(rawValue)
        }
    }

    /// The API's `error-type` text.
    public var rawValue: String {
        switch self {
        case .unsupportedCode: "unsupported-code"
        case .malformedRequest: "malformed-request"
        case .invalidKey: "invalid-key"
        case .inactiveAccount: "inactive-account"
        case .quotaReached: "quota-reached"
        case .unknown(let text): text
        }
    }

    /// What the error means for the person running InterPay, and what to do about it.
    public var description: String {
        switch self {
        case .unsupportedCode:
            "the exchange-rate service does not support this currency as a base"
        case .malformedRequest:
            "the exchange-rate service did not understand the request; check rates_url (it must contain {base})"
        case .invalidKey:
            "the exchange-rate API key is not valid; set \(RatesAPIKey.environmentVariable) or rates_api_key"
        case .inactiveAccount:
            "the exchange-rate account is not active yet; confirm its email address with the provider"
        case .quotaReached:
            "the exchange-rate account has used all the requests its plan allows; wait for the quota to reset or "
                + "upgrade the plan"
        case .unknown(let text):
            "the exchange-rate service reported an error: \(text)"
        }
    }
}
