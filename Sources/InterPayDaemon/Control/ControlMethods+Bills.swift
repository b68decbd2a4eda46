import Foundation
import InterPayContract
import InterPayCore
import InterPayEngine
import InterPayStore

/// Split bills (PROTOCOL.md §8.8): `split`, `bills`, `cancel-bill`.
extension ControlMethods {
    /// `split`: the payers resolved (each with a session), the total split evenly (`BillSplit.even`) or the named
    /// shares checked (`BillSplit.named`), then one step that makes the bill and sends every share.
    func split(_ params: SplitParams) async throws -> BillInfo {
        guard BillLink.payersRange.contains(params.payers.count) else {
            throw RPCError.invalidParams(BillSplit.Problem.payerCount(params.payers.count).description)
        }
        var payers: [PeerID] = []
        for text in params.payers { payers.append(try await resolvePeer(try required(text, "payers"))) }
        let shares: [Money]
        let total: Money
        do {
            if let named = params.shares {
                guard named.count == payers.count else {
                    throw RPCError.invalidParams(
                        "give one share per payer (\(payers.count) payers, \(named.count) shares)")
                }
                var amounts: [Money] = []
                for text in named { amounts.append(try money(text, params.currency, params.decimalSeparator)) }
                let sum = amounts.reduce(Int64(0)) { $0.addingReportingOverflow($1.minorUnits).partialValue }
                let currency = amounts[0].currency
                total =
                    try params.amount.map { try money($0, params.currency, params.decimalSeparator) }
                    ?? Money(minorUnits: sum, currency: currency)
                shares = try BillSplit.named(amounts, total: total)
            } else {
                total = try money(params.amount ?? "", params.currency, params.decimalSeparator)
                shares = try BillSplit.even(total, payers: payers.count)
            }
        } catch let problem as BillSplit.Problem {
            throw RPCError.invalidParams(problem.description)
        }
        let expires = params.expiresInSeconds ?? 900
        guard (1...(30 * 86_400)).contains(expires) else {
            throw RPCError(
                code: .invalidParams, message: "expiresInSeconds must be from 1 to 2592000", reason: .expiryRange)
        }
        let made = try await engine.split(
            payers: payers, shares: shares, total: total, memo: params.memo ?? "", category: params.category,
            expiresIn: expires)
        return try await bill(made.bill.id)
    }

    /// `bills`: this daemon's bills, newest first, each with its shares.
    func bills() async throws -> BillList {
        let views = try await database.billViews()
        let convert = await conversions.quoter()
        return BillList(bills: views.map { Self.info($0, peerName: peerName, convert: convert) }.withUniqueShortIDs())
    }

    /// `cancel-bill {bill}`: the bill's pending shares cancelled; what was accepted stays.
    func cancelBill(_ params: BillParams) async throws -> BillInfo {
        let text = try required(params.bill, "bill")
        let matches = try await database.bills(idPrefix: text)
        guard let only = matches.first else { throw EngineError.notFound(kind: "bill", text: SafeText.escaped(text)) }
        guard matches.count == 1 else {
            throw EngineError.ambiguous(
                SafeText.escaped(text), candidates: RecordShortID.unique(matches.map(\.id.wireString)))
        }
        _ = try await engine.cancelBill(only.id)
        return try await bill(only.id)
    }

    /// One bill as the control methods answer it.
    func bill(_ id: UUID) async throws -> BillInfo {
        guard let view = try await database.billViews(limit: 1, id: id).first else {
            throw EngineError.notFound(kind: "bill", text: id.wireString)
        }
        let convert = await conversions.quoter()
        return Self.info(view, peerName: peerName, convert: convert)
    }

    /// A bill: its state from its shares' (`BillState`), what was collected (the shares accepted, paid or settled)
    /// and what is left, and its shares as every payment is shown.
    static func info(
        _ view: BillView, peerName: (PaymentView) -> PeerName, convert: (Money) -> Quote?
    ) -> BillInfo {
        let bill = view.bill
        let currency = try? CurrencyCode(bill.currency)  // a stored currency was checked when stored
        func amount(_ minor: Int64) -> String {
            currency.map { Money(minorUnits: minor, currency: $0).formattedAmount } ?? String(minor)
        }
        let states = view.shares.map(\.record.state)
        let collected = view.shares.filter(\.record.state.isAccepted).reduce(Int64(0)) { $0 + $1.record.amountMinor }
        return BillInfo(
            id: bill.id.wireString, shortID: RecordShortID.tail(of: bill.id.wireString), state: view.state,
            total: amount(bill.totalMinor), currency: bill.currency, minorUnits: bill.totalMinor, memo: bill.memo,
            category: bill.category, payers: Int64(bill.payers), collected: amount(collected),
            left: amount(bill.totalMinor - collected), accepted: Int64(states.filter(\.isAccepted).count),
            pending: Int64(states.filter { $0 == .pending }.count),
            declined: Int64(states.filter { !$0.isAccepted && $0 != .pending }.count),
            createdAt: bill.createdAt.secondsSince1970, cancelledAt: bill.cancelledAt?.secondsSince1970,
            shares: view.shares.map { share in
                info(share, peerName: peerName(share), converted: (try? share.record.amount).flatMap(convert))
            }.withUniqueShortIDs())
    }
}
