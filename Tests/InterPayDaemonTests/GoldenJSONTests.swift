import Foundation
import InterPayControl
import InterPayCore
import InterPayStore
import Testing

@testable import InterPayDaemon

/// The JSON the CLI prints with `--json` and the web app reads under `/api/`: field names pinned as the README
/// documents them. A change here is a change of the contract.
@Suite("Golden JSON of the control methods")
struct GoldenJSONTests {
    @Test("status")
    func status() throws {
        let status = DaemonStatus(
            name: "alice", id: "ABCD", shortID: "AB", port: 7420, version: "0.1.0", uptimeSeconds: 5,
            discovery: "registered", sessions: 1, webPort: 7780, currency: "EUR")
        #expect(
            status.jsonValue.jsonText
                == #"{"currency":"EUR","discovery":"registered","id":"ABCD","name":"alice","port":7420,"sessions":1,"#
                + #""shortID":"AB","#
                + #""uptimeSeconds":5,"version":"0.1.0","webPort":7780}"#)
        var off = status
        off.webPort = nil
        off.currency = nil
        #expect(off.jsonValue["webPort"] == .null && off.jsonValue["currency"] == .null)
        let decoded = try off.jsonValue.decode(DaemonStatus.self)
        #expect(decoded == off)
    }

    @Test("a payment")
    func payment() throws {
        let alice = try PeerID(bytes: [UInt8](repeating: 0x11, count: 32))
        let bob = try PeerID(bytes: [UInt8](repeating: 0x22, count: 32))
        let created = Timestamp(secondsSince1970: 1_700_000_000)
        let request = try PaymentRequest(
            id: try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001")), payee: alice, payer: bob,
            amount: Money(minorUnits: 1_250, currency: CurrencyCode("MXN")), memo: "tacos", category: "food",
            createdAt: created, expiresAt: created.adding(seconds: 900))
        let record = PaymentRecord(request: request, role: .payee, state: .pending, confirmed: true, now: created)
        let json = ControlMethods.json(
            record, peerName: PeerName(announcedName: "bob", pinned: nil), converted: nil)
        guard case .object(let object) = json else {
            Issue.record("a payment is not an object")
            return
        }
        #expect(
            Set(object.keys) == [
                "id", "direction", "peer", "amount", "currency", "minorUnits", "memo", "category", "state",
                "confirmed", "reason", "reasonCode", "createdAt", "expiresAt", "updatedAt", "acceptedAt", "paidAt",
                "settledAt", "method", "reference", "receipt", "converted", "quote", "series",
            ])
        #expect(
            Set(try #require(object["peer"]?.objectValue).keys) == ["id", "shortID", "name", "announcedName", "trust"])
        #expect(object["direction"] == "out")
        #expect(object["amount"] == "12.50")
        #expect(object["minorUnits"] == 1_250)
        #expect(object["state"] == "pending")
        #expect(object["peer"]?["trust"] == "unverified")
        #expect(object["createdAt"] == 1_700_000_000)
        #expect(object["acceptedAt"] == .null)
    }
}
