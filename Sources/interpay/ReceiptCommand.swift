import ArgumentParser
import FoundationEssentials
import InterPayContract
import InterPayControlClient
import InterPayCore

#if canImport(Glibc)
    import Glibc
#endif

/// `interpay receipt`
struct ReceiptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Write the signed receipt of a settled payment.",
        discussion: """
            The JSON form is the receipt itself, exactly as the payee signed it: hand it over and anyone can check \
            it with 'interpay verify-receipt'. The text form is for people to read. Exit 4 when there is no \
            receipt (not settled yet, or the peer's daemon does not support receipts).
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: PaymentArgument

    @Option(help: "Write to this file instead of standard output (never through a symbolic link).", completion: .file())
    var out: String?

    @Option(help: "json (the signed receipt) or text (for people).")
    var format: String = "json"

    func validate() throws {
        guard ["json", "text"].contains(format) else { throw ValidationError("--format must be json or text") }
    }

    func run() throws {
        let result = try global.call(ControlAPI.receipt, PaymentParams(payment: target.payment))
        // The receipt's own text, unescaped: it is written out byte for byte as the payee signed it.
        let text = result.value.receipt
        let output: String
        if format == "json" {
            output = text + "\n"
        } else {
            do {
                output = ReceiptText.render(try SignedReceipt(verifying: text))
            } catch {
                throw CLIError(message: "the stored receipt does not verify: \(error)", exitCode: 1)
            }
        }
        if let out {
            // Replaced if it exists, but never through a link at that path; new files are the user's alone.
            if let problem = FileOutput.write(Array(output.utf8), to: out, flags: O_TRUNC, mode: 0o600) {
                throw CLIError(message: "cannot write \(out): \(problem)", exitCode: 1)
            }
        } else {
            print(output, terminator: "")
        }
    }
}

/// `interpay verify-receipt`
struct VerifyReceipt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-receipt",
        abstract: "Check a receipt file offline, with no daemon: its form, the payee's key and the signature.",
        discussion: """
            Exit 0 with a one-line summary when the payee ID's key signed exactly this receipt; exit 1 naming what \
            failed. A valid receipt proves what the payee's key signed, not that money moved.
            """)

    @Argument(help: "The receipt file.", completion: .file())
    var file: String

    func run() throws {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw CLIError(message: "cannot read \(file): \(CLIError.fileProblem(error))", exitCode: 1)
        }
        do {
            let receipt = try SignedReceipt(verifying: bytes)
            print("OK: \(receipt.summary)")
        } catch {
            throw CLIError(message: "\(file): receipt does not verify: \(error)", exitCode: 1)
        }
    }
}

/// The printable form of a verified receipt.
enum ReceiptText {
    static func render(_ signed: SignedReceipt) -> String {
        let r = signed.receipt
        var table = [(String, String)]()
        table.append(("Payment", r.paymentID.wireString))
        table.append(("Amount", r.amount.description))
        if let quote = r.quote {
            table.append(
                (
                    "Quote",
                    "\(quote.amount) at rate \(SafeText.escaped(quote.rate)), rates of \(ISO8601Time.format(quote.ratesAt))"
                ))
        }
        table.append(("Memo", r.memo.isEmpty ? "-" : SafeText.escaped(r.memo)))
        table.append(("Category", r.category.map(SafeText.escaped) ?? "-"))
        table.append(
            ("Payer", "\(PeerLabel.identified(name: r.payerName, shortID: r.payerID.shortDescription))  \(r.payerID)"))
        table.append(
            ("Payee", "\(PeerLabel.identified(name: r.payeeName, shortID: r.payeeID.shortDescription))  \(r.payeeID)"))
        table.append(("Accepted", ISO8601Time.format(r.acceptedAt)))
        table.append(("Settled", ISO8601Time.format(r.settledAt)))
        table.append(("Method", r.method?.rawValue ?? "-"))
        table.append(("Reference", r.reference.map(SafeText.escaped) ?? "-"))
        table.append(("Signature", "ECDSA P-256 by the payee's key (SHA-256 of the key = payee ID): verified"))
        let width = table.map(\.0.count).max() ?? 0
        var text = "InterPay receipt\n\n"
        for (field, value) in table {
            text += field + String(repeating: " ", count: width - field.count + 2) + value + "\n"
        }
        text += """

            This receipt shows that the payee's key signed these terms. It does not show that money moved: \
            InterPay records payments made by other means.

            """
        return text
    }
}
