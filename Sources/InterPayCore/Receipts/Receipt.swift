import Crypto
public import FoundationEssentials

/// What a payee's signed receipt says about one settled payment (PROTOCOL.md §17).
///
/// The payee signs the receipt's canonical text with its identity key, the P-256 key whose SubjectPublicKeyInfo its
/// peer ID is the SHA-256 of, and puts that key in the receipt. Anyone holding the receipt can then check, with no
/// daemon and no network, that the holder of the payee ID's key signed exactly these terms (`SignedReceipt`). It
/// proves what the payee's key signed; it does not prove that money moved on any rail.
public struct Receipt: Sendable, Hashable {
    /// The value of the `type` member.
    public static let type = "interpay-receipt"
    /// The value of the `version` member.
    public static let version = "1"

    /// The payment settled.
    public var paymentID: UUID
    /// Who asked for the money and signed the receipt.
    public var payeeID: PeerID
    /// The payee's display name, as the payee knows it.
    public var payeeName: String
    /// Who paid.
    public var payerID: PeerID
    /// The payer's display name, as the payee knew it when settling.
    public var payerName: String
    /// The amount of the request.
    public var amount: Money
    /// What it was for (may be empty).
    public var memo: String
    /// The request's category, if any.
    public var category: String?
    /// When the payee recorded the acceptance.
    public var acceptedAt: Timestamp
    /// When the payee confirmed the money arrived.
    public var settledAt: Timestamp
    /// How the payer said it paid, if it said.
    public var method: PaymentMethod?
    /// The payer's reference for the payment, if any.
    public var reference: String?
    /// The quote the payee stored when the payment was accepted, if any.
    public var quote: Quote?
    /// The payee's public key: a DER SubjectPublicKeyInfo of a P-256 key, canonical (named curve, uncompressed
    /// point); its SHA-256 is `payeeID`.
    public var payeeKey: [UInt8]
    /// For a refund's receipt (`kind` `refund`, PROTOCOL.md §17.1), the payment refunded; nil for a payment's. A
    /// refund receipt is signed by the refunded payment's payee, who gives the money back: `payeeID` still names the
    /// signer, `payerID` the payer who gets it, `paymentID` the refund, `acceptedAt` the refunded payment's
    /// acceptance and `settledAt` the refund.
    public var refundOf: UUID?

    /// The value of the `kind` member of a refund's receipt.
    public static let refundKind = "refund"

    /// A conversion of the amount stored with the payment: what it was worth in another currency then.
    public struct Quote: Sendable, Hashable {
        /// The converted amount (may be zero after rounding).
        public var amount: Money
        /// The exact decimal rate used, as text.
        public var rate: String
        /// When the rates used were published.
        public var ratesAt: Timestamp

        /// Builds a quote.
        public init(amount: Money, rate: String, ratesAt: Timestamp) {
            self.amount = amount
            self.rate = rate
            self.ratesAt = ratesAt
        }
    }

    /// Builds a receipt's terms; `SignedReceipt.sign(_:with:)` signs them.
    public init(
        paymentID: UUID, payeeID: PeerID, payeeName: String, payerID: PeerID, payerName: String, amount: Money,
        memo: String, category: String?, acceptedAt: Timestamp, settledAt: Timestamp, method: PaymentMethod?,
        reference: String?, quote: Quote?, payeeKey: [UInt8], refundOf: UUID? = nil
    ) {
        self.paymentID = paymentID
        self.payeeID = payeeID
        self.payeeName = payeeName
        self.payerID = payerID
        self.payerName = payerName
        self.amount = amount
        self.memo = memo
        self.category = category
        self.acceptedAt = acceptedAt
        self.settledAt = settledAt
        self.method = method
        self.reference = reference
        self.quote = quote
        self.payeeKey = payeeKey
        self.refundOf = refundOf
    }

    /// The canonical text that the payee signs: every member but `signature` (`CanonicalJSON`).
    public var signedText: String { CanonicalJSON.object(members(signature: nil)).text }

    /// The receipt's members, with `signature` when given. Optional members are left out when absent; every value
    /// is a string (amounts in minor units, times in ISO 8601 UTC), so that no number formatting can differ.
    func members(signature: [UInt8]?) -> [String: CanonicalJSON] {
        var members: [String: CanonicalJSON] = [
            "type": .string(Self.type),
            "version": .string(Self.version),
            "paymentID": .string(paymentID.wireString),
            "payeeID": .string(payeeID.description),
            "payeeName": .string(payeeName),
            "payerID": .string(payerID.description),
            "payerName": .string(payerName),
            "amount": .string(String(amount.minorUnits)),
            "currency": .string(amount.currency.code),
            "memo": .string(memo),
            "acceptedAt": .string(ISO8601Time.format(acceptedAt)),
            "settledAt": .string(ISO8601Time.format(settledAt)),
            "payeeKey": .string(Hex.encode(payeeKey)),
        ]
        if let category { members["category"] = .string(category) }
        if let method { members["method"] = .string(method.rawValue) }
        if let reference { members["reference"] = .string(reference) }
        if let quote {
            members["quote"] = .object([
                "amount": .string(String(quote.amount.minorUnits)),
                "currency": .string(quote.amount.currency.code),
                "rate": .string(quote.rate),
                "ratesAt": .string(ISO8601Time.format(quote.ratesAt)),
            ])
        }
        if let refundOf {
            members["kind"] = .string(Self.refundKind)
            members["refundOf"] = .string(refundOf.wireString)
        }
        if let signature { members["signature"] = .string(Hex.encode(signature)) }
        return members
    }
}

/// What the payer knows of a payment when the payee's receipt for it arrives: the terms a receipt it keeps must
/// carry (PROTOCOL.md §17.4). A receipt that verifies proves only what the payee's key signed; these checks make
/// sure that what it signed is this payment as the payer saw it, so that a receipt shown "verified" cannot carry
/// times, a method, a reference or a payer name of the payee's choosing.
public struct ReceiptExpectation: Sendable, Hashable {
    /// The payment.
    public var paymentID: UUID
    /// Its payee, the peer the `settle` came from.
    public var payeeID: PeerID
    /// This side: the payer.
    public var payerID: PeerID
    /// The name this side announces in its `hello`.
    public var payerName: String
    /// The request's amount.
    public var amount: Money
    /// The request's memo.
    public var memo: String
    /// The request's category.
    public var category: String?
    /// The method of this side's own `paid`, if it sent one.
    public var method: PaymentMethod?
    /// The reference of this side's own `paid`, if it sent one.
    public var reference: String?
    /// When this side accepted the payment, on its clock: the payee cannot have recorded the acceptance earlier.
    public var acceptedAt: Timestamp
    /// Now, on this side's clock, when the receipt arrives: the payee cannot have settled later.
    public var now: Timestamp
    /// For a refund, the payment refunded: only a refund's receipt of that payment is kept (nil: a payment's).
    public var refundOf: UUID?

    /// Describes a payment as the payer holds it.
    public init(
        paymentID: UUID, payeeID: PeerID, payerID: PeerID, payerName: String, amount: Money, memo: String,
        category: String?, method: PaymentMethod?, reference: String?, acceptedAt: Timestamp, now: Timestamp,
        refundOf: UUID? = nil
    ) {
        self.paymentID = paymentID
        self.payeeID = payeeID
        self.payerID = payerID
        self.payerName = payerName
        self.amount = amount
        self.memo = memo
        self.category = category
        self.method = method
        self.reference = reference
        self.acceptedAt = acceptedAt
        self.now = now
        self.refundOf = refundOf
    }
}

extension Receipt {
    /// Why the payer must not keep this receipt for the payment it expects, or nil when the receipt states that
    /// payment (PROTOCOL.md §17.4): the payment, the two peers and the request's terms; the payer's own name; the
    /// method and reference of the payer's own `paid`, or neither (the payee settled before the `paid` reached it);
    /// `acceptedAt` ≤ `settledAt`, both within the payment's life on the payer's clock, from its acceptance to the
    /// receipt's arrival, give or take `Limits.maxClockSkew`.
    public func mismatch(with expected: ReceiptExpectation) -> String? {
        let skew = Limits.maxClockSkew
        guard paymentID == expected.paymentID, payeeID == expected.payeeID, payerID == expected.payerID else {
            return "it is not about this payment between these two peers"
        }
        guard refundOf == expected.refundOf else {
            return expected.refundOf == nil ? "it is a refund's receipt, not a payment's" : "it is not this refund's"
        }
        guard amount == expected.amount else { return "its amount is not the payment's" }
        guard memo == expected.memo, category == expected.category else {
            return "its memo or category is not the payment's"
        }
        guard payerName == expected.payerName else { return "it names the payer otherwise than this daemon's name" }
        guard (method == nil && reference == nil) || (method == expected.method && reference == expected.reference)
        else {
            return "its method or reference is not what this side's 'paid' said"
        }
        guard acceptedAt <= settledAt else { return "it was accepted after it was settled" }
        guard acceptedAt >= expected.acceptedAt.adding(seconds: -skew) else {
            return "it was accepted before this side accepted (\(ISO8601Time.format(acceptedAt)))"
        }
        guard settledAt <= expected.now.adding(seconds: skew) else {
            return "it was settled after it arrived (\(ISO8601Time.format(settledAt)))"
        }
        return nil
    }
}

/// A receipt with the payee's signature, and its canonical text: the receipt as stored, sent and handed over.
///
/// The text is the canonical JSON (`CanonicalJSON`) of the receipt's members plus `signature`, the lowercase hex of
/// the 64-byte ECDSA P-256 / SHA-256 signature (r ‖ s) over `Receipt.signedText`. A file holding it may end with
/// one line feed. `init(verifying:)` accepts the text only if it is byte for byte the canonical form, the key is a
/// canonical P-256 key whose SHA-256 is the payee ID, and the signature verifies: any byte changed fails.
public struct SignedReceipt: Sendable, Hashable {
    /// The terms signed.
    public let receipt: Receipt
    /// The raw signature, r ‖ s (64 bytes).
    public let signature: [UInt8]
    /// The canonical text, without a trailing line feed.
    public let text: String

    /// Signs `receipt` with the payee's key; the key must be the one named in the receipt.
    public static func sign(_ receipt: Receipt, with signer: ReceiptSigner) throws(ReceiptError) -> SignedReceipt {
        guard signer.publicKeyDER == receipt.payeeKey, signer.peerID == receipt.payeeID else {
            throw .keyMismatch
        }
        let signature: [UInt8]
        do {
            signature = Array(try signer.key.signature(for: Array(receipt.signedText.utf8)).rawRepresentation)
        } catch {
            throw .signingFailed(String(describing: error))
        }
        let text = CanonicalJSON.object(receipt.members(signature: signature)).text
        return SignedReceipt(receipt: receipt, signature: signature, text: text)
    }

    private init(receipt: Receipt, signature: [UInt8], text: String) {
        self.receipt = receipt
        self.signature = signature
        self.text = text
    }

    /// Checks a receipt's text (a file's bytes; one trailing line feed is allowed) and returns it, or throws what
    /// failed: the text, its canonical form, the key, the key's hash against the payee ID, or the signature.
    public init(verifying bytes: some Collection<UInt8>) throws(ReceiptError) {
        var body = Array(bytes)
        if body.last == UInt8(ascii: "\n") { body.removeLast() }
        guard body.count <= Limits.maxReceiptSize else {
            throw .malformed("larger than \(Limits.maxReceiptSize) bytes")
        }
        guard let text = String(validating: body, as: UTF8.self) else { throw .malformed("not UTF-8 text") }
        let document: ReceiptDocument
        do {
            document = try JSONDecoder().decode(ReceiptDocument.self, from: Data(body))
        } catch {
            throw .malformed("not a receipt: \(Self.describe(error))")
        }
        let receipt = try document.receipt()
        guard let signature = Hex.decode(document.signature), signature.count == 64 else {
            throw .malformed("'signature' must be 128 lowercase hex digits")
        }
        guard CanonicalJSON.object(receipt.members(signature: signature)).text == text else {
            throw .notCanonical
        }
        let key: P256.Signing.PublicKey
        do {
            key = try P256.Signing.PublicKey(derRepresentation: receipt.payeeKey)
        } catch {
            throw .invalidKey("'payeeKey' is not a P-256 public key")
        }
        guard Array(key.derRepresentation) == receipt.payeeKey else {
            throw .invalidKey("'payeeKey' is not in the canonical encoding (named curve, uncompressed point)")
        }
        guard PeerID(subjectPublicKeyInfoDER: receipt.payeeKey) == receipt.payeeID else { throw .keyMismatch }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),  // any 64 bytes parse
            key.isValidSignature(ecdsa, for: Array(receipt.signedText.utf8))
        else { throw .badSignature }
        self.init(receipt: receipt, signature: signature, text: text)
    }

    /// Checks a receipt given as text (see `init(verifying:)` for bytes).
    public init(verifying text: String) throws(ReceiptError) {
        try self.init(verifying: Array(text.utf8))
    }

    /// One line saying what the receipt is: payment, amount, payer, payee, settlement time.
    public var summary: String {
        let r = receipt
        if let refundOf = r.refundOf {
            return "refund receipt \(r.paymentID.wireString) for payment \(refundOf.wireString): \(r.amount) given "
                + "back to \(SafeText.escaped(r.payerName)) (\(r.payerID.shortDescription)) by "
                + "\(SafeText.escaped(r.payeeName)) (\(r.payeeID.description)), refunded "
                + "\(ISO8601Time.format(r.settledAt)), signed by the payee's key"
        }
        return "receipt for payment \(r.paymentID.wireString): \(r.amount) from \(SafeText.escaped(r.payerName)) "
            + "(\(r.payerID.shortDescription)) to \(SafeText.escaped(r.payeeName)) (\(r.payeeID.description)), "
            + "settled \(ISO8601Time.format(r.settledAt)), signed by the payee's key"
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "member '\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "member '\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"
        case DecodingError.dataCorrupted: "not valid JSON"
        default: "\(error)"
        }
    }
}

/// Why a receipt could not be made or was refused.
public enum ReceiptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a receipt (not UTF-8, not JSON, a member missing or of the wrong form).
    case malformed(String)
    /// The members are right but the text is not exactly their canonical form: something was changed.
    case notCanonical
    /// `payeeKey` is not a canonical P-256 public key.
    case invalidKey(String)
    /// `payeeKey` does not hash to `payeeID` (or the signing key is not the payee's).
    case keyMismatch
    /// The signature does not verify over the receipt's terms with `payeeKey`.
    case badSignature
    /// The signing itself failed.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed receipt: \(reason)"
        case .notCanonical:
            "the receipt is not in its canonical form: its text was changed after it was signed"
        case .invalidKey(let reason): "invalid payee key: \(reason)"
        case .keyMismatch: "the payee key does not hash to the payee ID in the receipt"
        case .badSignature: "the signature does not verify: the receipt was not signed by the payee's key as it is"
        case .signingFailed(let reason): "the receipt could not be signed: \(reason)"
        }
    }
}

/// The payee's identity key, able to sign receipts. The daemon builds it from its identity key file.
public struct ReceiptSigner: Sendable {
    let key: P256.Signing.PrivateKey

    /// A signer for the P-256 private key given by its 32-byte scalar.
    public init(rawPrivateKey: some ContiguousBytes) throws(ReceiptError) {
        do {
            key = try P256.Signing.PrivateKey(rawRepresentation: rawPrivateKey)
        } catch {
            throw .invalidKey("not a P-256 private key")
        }
    }

    /// A signer with a new random key (for tests and examples).
    public init() {
        key = P256.Signing.PrivateKey()
    }

    /// The public key as a canonical DER SubjectPublicKeyInfo (what `Receipt.payeeKey` holds).
    public var publicKeyDER: [UInt8] { Array(key.publicKey.derRepresentation) }

    /// The peer ID of the key.
    public var peerID: PeerID { PeerID(subjectPublicKeyInfoDER: publicKeyDER) }
}

/// A JSON value in the canonical form receipts use (RFC 8785 restricted to strings and objects): members sorted by
/// their names' UTF-16 code units, no whitespace, strings with only `"`, `\` and the C0 controls escaped (`\b`,
/// `\t`, `\n`, `\f`, `\r`, else `\u00xx` in lowercase hex), everything else as literal UTF-8.
indirect enum CanonicalJSON: Sendable, Hashable {
    case string(String)
    case object([String: CanonicalJSON])

    /// The canonical text.
    var text: String {
        var output = ""
        write(into: &output)
        return output
    }

    private func write(into output: inout String) {
        switch self {
        case .string(let string):
            Self.writeString(string, into: &output)
        case .object(let members):
            output.append("{")
            let names = members.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            for (index, name) in names.enumerated() {
                if index > 0 { output.append(",") }
                Self.writeString(name, into: &output)
                output.append(":")
                members[name]?.write(into: &output)
            }
            output.append("}")
        }
    }

    private static func writeString(_ string: String, into output: inout String) {
        output.append("\"")
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output.append("\\\"")
            case "\\": output.append("\\\\")
            case "\u{08}": output.append("\\b")
            case "\u{09}": output.append("\\t")
            case "\u{0A}": output.append("\\n")
            case "\u{0C}": output.append("\\f")
            case "\u{0D}": output.append("\\r")
            case "\u{00}"..."\u{1F}":
                let digits = Array("0123456789abcdef")
                output.append("\\u00")
                output.append(digits[Int(scalar.value >> 4)])
                output.append(digits[Int(scalar.value & 0x0F)])
            default: output.unicodeScalars.append(scalar)
            }
        }
        output.append("\"")
    }
}

/// The receipt's members as JSON strings, before they are checked.
private struct ReceiptDocument: Decodable {
    struct QuoteDocument: Decodable {
        let amount: String
        let currency: String
        let rate: String
        let ratesAt: String
    }

    let type: String
    let version: String
    let paymentID: String
    let payeeID: String
    let payeeName: String
    let payerID: String
    let payerName: String
    let amount: String
    let currency: String
    let memo: String
    let category: String?
    let acceptedAt: String
    let settledAt: String
    let method: String?
    let reference: String?
    let quote: QuoteDocument?
    let payeeKey: String
    let kind: String?
    let refundOf: String?
    let signature: String

    /// The receipt these members describe, each checked for its form.
    /// Whether `text` is exact decimal text (PROTOCOL.md §17): ASCII digits with at most one decimal point between
    /// digits, e.g. `18.5` or `0.0539`. A rate is shown to people; anything else (a control character) is refused.
    static func isDecimal(_ text: String) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return (1...2).contains(parts.count)
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { (0x30...0x39).contains($0) } }
    }

    func receipt() throws(ReceiptError) -> Receipt {
        guard type == Receipt.type else { throw .malformed("'type' must be '\(Receipt.type)'") }
        guard version == Receipt.version else { throw .malformed("unknown receipt version '\(version)'") }
        guard let id = UUID(uuidString: paymentID), id.wireString == paymentID else {
            throw .malformed("'paymentID' must be a lowercase UUID")
        }
        let payee = try Self.peer(payeeID, "payeeID")
        let payer = try Self.peer(payerID, "payerID")
        let money = try Self.money(amount, currency, "amount", positive: true)
        var converted: Receipt.Quote?
        if let quote {
            guard Self.isDecimal(quote.rate), quote.rate.utf8.count <= 64 else {
                throw .malformed("'quote.rate' must be exact decimal text of 1 to 64 characters")
            }
            converted = Receipt.Quote(
                amount: try Self.money(quote.amount, quote.currency, "quote.amount", positive: false),
                rate: quote.rate, ratesAt: try Self.time(quote.ratesAt, "quote.ratesAt"))
        }
        // Text a person reads, as on the wire (PROTOCOL.md §5.3): a control or bidi character could rewrite the
        // terminal or reorder the line. Canonical JSON escapes only C0, so DEL, C1 and bidi controls would pass.
        for (name, text) in [
            ("payeeName", payeeName), ("payerName", payerName), ("memo", memo), ("category", category ?? ""),
            ("reference", reference ?? ""),
        ] {
            if let scalar = SafeText.forbiddenScalar(in: text) {
                throw .malformed("'\(name)' contains \(SafeText.describe(scalar)), which text must not")
            }
        }
        var paymentMethod: PaymentMethod?
        if let method {
            guard let known = PaymentMethod(rawValue: method) else { throw .malformed("unknown method '\(method)'") }
            paymentMethod = known
        }
        guard let key = Hex.decode(payeeKey) else { throw .malformed("'payeeKey' must be lowercase hex") }
        // A refund's receipt names the payment refunded; a payment's names none (PROTOCOL.md §17.1).
        var refunded: UUID?
        switch (kind, refundOf) {
        case (nil, nil): break
        case (Receipt.refundKind?, let text?):
            guard let uuid = UUID(uuidString: text), uuid.wireString == text else {
                throw .malformed("'refundOf' must be a lowercase UUID")
            }
            refunded = uuid
        case (Receipt.refundKind?, nil): throw .malformed("a refund receipt names the payment refunded ('refundOf')")
        case (nil, _?): throw .malformed("'refundOf' belongs to a refund receipt (kind 'refund')")
        case (let other?, _): throw .malformed("unknown receipt kind '\(other)'")
        }
        return Receipt(
            paymentID: id, payeeID: payee, payeeName: payeeName, payerID: payer, payerName: payerName, amount: money,
            memo: memo, category: category, acceptedAt: try Self.time(acceptedAt, "acceptedAt"),
            settledAt: try Self.time(settledAt, "settledAt"), method: paymentMethod, reference: reference,
            quote: converted, payeeKey: key, refundOf: refunded)
    }

    private static func peer(_ text: String, _ name: String) throws(ReceiptError) -> PeerID {
        // Why the text is no peer ID does not matter here: the error names the field.
        guard let peer = try? PeerID(parsing: text), peer.description == text else {
            throw .malformed("'\(name)' is not a peer ID in its canonical form")
        }
        return peer
    }

    private static func money(
        _ minor: String, _ code: String, _ name: String, positive: Bool
    ) throws(ReceiptError) -> Money {
        // Why the code is unknown does not matter here: the error names the field.
        guard let currency = try? CurrencyCode(code), currency.code == code else {
            throw .malformed("'\(name)' has an unknown currency '\(code)'")
        }
        let digits = Array(minor.utf8)
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.count == 1 || digits[0] != 0x30,
            let value = Int64(minor), !positive || value > 0
        else { throw .malformed("'\(name)' must be a whole number of minor units, as a string") }
        return Money(minorUnits: value, currency: currency)
    }

    private static func time(_ text: String, _ name: String) throws(ReceiptError) -> Timestamp {
        guard let time = ISO8601Time.parse(text) else {
            throw .malformed("'\(name)' must be a time as YYYY-MM-DDTHH:MM:SSZ")
        }
        return time
    }
}

/// Lowercase hexadecimal.
enum Hex {
    static func encode(_ bytes: [UInt8]) -> String { PaymentMessage.Pairing.hex(bytes) }

    static func decode(_ text: String) -> [UInt8]? { PaymentMessage.Pairing.bytes(fromHex: text) }
}

/// Times as ISO 8601 UTC text with whole seconds, `YYYY-MM-DDTHH:MM:SSZ`, computed without calendars or locales.
public enum ISO8601Time {
    /// The text form of `time` (years 0000 to 9999; later times are clamped to the end of 9999).
    public static func format(_ time: Timestamp) -> String {
        let seconds = min(max(time.secondsSince1970, 0), 253_402_300_799)
        let days = seconds / 86_400
        let rest = seconds % 86_400
        let (year, month, day) = CivilDays.date(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        let paddedYear = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return "\(paddedYear)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    /// Parses exactly the form `format(_:)` produces; nil for anything else.
    public static func parse(_ text: String) -> Timestamp? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes[16] == 0x3A, bytes[19] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            year >= 1970, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilDays.days(year: year, month: month, day: day)
        let time = Timestamp(secondsSince1970: days * 86_400 + hour * 3600 + minute * 60 + second)
        // Refuses days that do not exist (February 30th), which would format differently.
        return format(time) == text ? time : nil
    }
}
