public import GRDB
import InterPayCore

// The records every protocol step writes, encoded column by column. `Codable` gives the same columns (the schema's
// CHECK constraints and the store's tests hold both to them), but going through `Encoder` cost more CPU than the
// rest of an insert: these four are written on every step.

extension PaymentRecord {
    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) {
        container["id"] = id.wireString
        container["role"] = role.rawValue
        container["peerID"] = peerID.description
        container["payeeID"] = payeeID.description
        container["payerID"] = payerID.description
        container["amountMinor"] = amountMinor
        container["currency"] = currency
        container["memo"] = memo
        container["category"] = category
        container["state"] = state.rawValue
        container["confirmed"] = confirmed
        container["reason"] = reason
        container["reasonCode"] = reasonCode?.rawValue
        container["createdAt"] = createdAt.secondsSince1970
        container["expiresAt"] = expiresAt.secondsSince1970
        container["updatedAt"] = updatedAt.secondsSince1970
        container["quoteCurrency"] = quoteCurrency
        container["quoteMinor"] = quoteMinor
        container["quoteRate"] = quoteRate
        container["quoteRatesAt"] = quoteRatesAt?.secondsSince1970
        container["acceptedAt"] = acceptedAt?.secondsSince1970
        container["paidAt"] = paidAt?.secondsSince1970
        container["settledAt"] = settledAt?.secondsSince1970
        container["paidMethod"] = paidMethod?.rawValue
        container["paidReference"] = paidReference
        container["receipt"] = receipt
        container["seriesID"] = seriesID?.wireString
        container["seriesIndex"] = seriesIndex
    }
}

extension PaymentEventRecord {
    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["paymentID"] = paymentID.wireString
        container["at"] = at.secondsSince1970
        container["fromState"] = fromState?.rawValue
        container["toState"] = toState.rawValue
        container["cause"] = cause.rawValue
        container["messageID"] = messageID?.wireString
        container["detail"] = detail
    }
}

extension OutboxRecord {
    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) {
        container["messageID"] = messageID.wireString
        container["paymentID"] = paymentID.wireString
        container["peerID"] = peerID.description
        container["frame"] = frame
        container["seq"] = seq
        container["createdAt"] = createdAt.secondsSince1970
        container["retryUntil"] = retryUntil?.secondsSince1970
        container["attempts"] = attempts
        container["lastSentAt"] = lastSentAt?.secondsSince1970
    }
}

extension SeenMessageRecord {
    /// The row's columns, as `Codable` would write them.
    public func encode(to container: inout PersistenceContainer) {
        container["messageID"] = messageID.wireString
        container["peerID"] = peerID.description
        container["paymentID"] = paymentID?.wireString
        container["receivedAt"] = receivedAt.secondsSince1970
        container["response"] = response
    }
}
