import Foundation
import InterPayContract
import InterPayControl
import InterPayCore
import InterPayStore
import InterPayTestSupport
import Testing

@testable import InterPayDaemon

/// The JSON the CLI prints with `--json` and the web app reads under `/api/`: field names pinned as docs/control-api.md
/// documents them, through the same encoding the daemon answers with (`ControlMethod.encodeResult(_:)`). A change here
/// is a change of the contract.
@Suite("Golden JSON of the control methods", .tearsDown)
struct GoldenJSONTests {
    /// The wire text of `result` as `method` answers it.
    private func wire<Params, Result>(_ method: ControlMethod<Params, Result>, _ result: Result) throws -> String {
        try method.encodeResult(result).text
    }

    /// The members of `result` as `method` answers it, and the result read back (it must round-trip).
    private func members<Params, Result: Equatable>(
        _ method: ControlMethod<Params, Result>, _ result: Result
    ) throws -> [String: JSONValue] {
        let json = try method.encodeResult(result).decoded()
        #expect(try json.decode(Result.self) == result)
        return try #require(json.objectValue)
    }

    private static let alice = try? PeerID(bytes: [UInt8](repeating: 0x11, count: 32))
    private static let bob = try? PeerID(bytes: [UInt8](repeating: 0x22, count: 32))
    private static let created = Timestamp(secondsSince1970: 1_700_000_000)

    private func paymentRecord() throws -> PaymentRecord {
        let request = try PaymentRequest(
            id: try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000001")),
            payee: try #require(Self.alice), payer: try #require(Self.bob),
            amount: Money(minorUnits: 1_250, currency: CurrencyCode("MXN")), memo: "tacos", category: "food",
            createdAt: Self.created, expiresAt: Self.created.adding(seconds: 900))
        return PaymentRecord(request: request, role: .payee, state: .pending, confirmed: true, now: Self.created)
    }

    @Test("status")
    func status() throws {
        let status = DaemonStatus(
            name: "alice", id: "ABCD", shortID: "AB", port: 7420, version: "0.1.0", uptimeSeconds: 5,
            discovery: "registered", sessions: 1, webPort: 7780, currency: "EUR")
        #expect(
            try wire(ControlAPI.status, status)
                == #"{"currency":"EUR","discovery":"registered","id":"ABCD","ledger":null,"name":"alice","port":7420,"#
                + #""sessions":1,"shortID":"AB","#
                + #""uptimeSeconds":5,"version":"0.1.0","webPort":7780}"#)
        var off = status
        off.webPort = nil
        off.currency = nil
        let object = try members(ControlAPI.status, off)
        #expect(object["webPort"] == .null && object["currency"] == .null)
        var measured = status
        measured.ledger = .init(
            bytes: 4096, freeBytes: 0, payments: 3, events: 5, queuedFrames: 1, pruned: 2, retentionDays: 90)
        #expect(
            try members(ControlAPI.status, measured)["ledger"]
                == .object([
                    "bytes": 4096, "freeBytes": 0, "payments": 3, "events": 5, "queuedFrames": 1, "pruned": 2,
                    "retentionDays": 90,
                ]))
    }

    @Test("a payment, as send, accept, reject, cancel, paid and received answer it")
    func payment() throws {
        let info = ControlMethods.info(
            try paymentRecord(), peerName: PeerName(announcedName: "bob", pinned: nil), converted: nil)
        #expect(
            try wire(ControlAPI.send, info)
                == #"{"acceptedAt":null,"amount":"12.50","awaitingPayee":false,"bill":null,"category":"food","confirmed":true,"#
                + #""converted":null,"#
                + #""createdAt":1700000000,"currency":"MXN","direction":"out","expiresAt":1700000900,"#
                + #""id":"00000000-0000-4000-8000-000000000001","memo":"tacos","method":null,"minorUnits":1250,"#
                + #""paidAt":null,"peer":{"announcedName":null,"id":"\#(info.peer.id)","name":"bob","#
                + #""shortID":"\#(info.peer.shortID)","trust":"unverified"},"queued":null,"quote":null,"reason":null,"#
                + #""reasonCode":null,"receipt":false,"reference":null,"refundOf":null,"refundable":null,"refunded":null,"series":null,"settledAt":null,"#
                + #""shortID":"00000001","state":"pending","updatedAt":1700000000}"#)
        var full = info
        full.converted = ConvertedAmount(
            conversion: Conversion(amount: "0.62", currency: "EUR", minorUnits: 62, rate: "0.0496", ratesUpdatedAt: 1),
            stale: false, ratesAgeSeconds: 2)
        full.quote = Conversion(amount: "0.61", currency: "EUR", minorUnits: 61, rate: "0.049", ratesUpdatedAt: 3)
        full.series = PaymentSeriesLink(id: "S", period: 0)
        let object = try members(ControlAPI.accept, full)
        #expect(
            Set(try #require(object["converted"]?.objectValue).keys) == [
                "amount", "currency", "minorUnits", "rate", "ratesUpdatedAt", "stale", "ratesAgeSeconds",
            ])
        #expect(
            Set(try #require(object["quote"]?.objectValue).keys) == [
                "amount", "currency", "minorUnits", "rate", "ratesUpdatedAt",
            ])
        #expect(object["series"] == ["id": "S", "period": 0])
    }

    @Test("list, history and export: {payments}; show: a payment with its events")
    func lists() throws {
        let info = ControlMethods.info(try paymentRecord(), peerName: nil, converted: nil)
        let list = try members(ControlAPI.list, PaymentList(payments: [info]))
        #expect(Set(list.keys) == ["payments"])
        #expect(
            list["payments"]?[0]?["peer"] == [
                "id": .string(info.peer.id), "shortID": .string(info.peer.shortID), "name": .null,
                "announcedName": .null, "trust": "unverified",
            ])
        let exported = try members(ControlAPI.export, PaymentList(payments: [info], account: "assets:tills:{name}"))
        #expect(Set(exported.keys) == ["payments", "account"] && exported["account"] == "assets:tills:{name}")
        #expect(
            try wire(
                ControlAPI.backup,
                BackupInfo(path: "/s/backups/b.backup", bytes: 9, encrypted: true, peerID: "ABCD", payments: 2))
                == #"{"bytes":9,"encrypted":true,"path":"/s/backups/b.backup","payments":2,"peerID":"ABCD"}"#)
        let detail = PaymentDetailInfo(
            payment: info,
            events: [PaymentEventInfo(at: 1, from: nil, to: "pending", cause: "local-command", detail: nil)])
        let show = try members(ControlAPI.show, detail)
        #expect(
            Set(show.keys)
                == Set(try #require(JSONValue(encoding: info).objectValue).keys).union(["events", "receiptRefused"]))
        #expect(
            try wire(ControlAPI.show, detail).hasSuffix(
                #""events":[{"at":1,"cause":"local-command","detail":null,"from":null,"to":"pending"}],"#
                    + #""expiresAt":1700000900,"id":"00000000-0000-4000-8000-000000000001","memo":"tacos","#
                    + #""method":null,"minorUnits":1250,"paidAt":null,"peer":{"announcedName":null,"#
                    + #""id":"\#(info.peer.id)","name":null,"shortID":"\#(info.peer.shortID)","trust":"unverified"},"#
                    + #""queued":null,"quote":null,"reason":null,"reasonCode":null,"receipt":false,"receiptRefused":null,"#
                    + #""reference":null,"refundOf":null,"refundable":null,"refunded":null,"series":null,"#
                    + #""settledAt":null,"shortID":"00000001","state":"pending","updatedAt":1700000000}"#))
    }

    @Test("peers and pair")
    func peers() throws {
        let trust = TrustInfo(
            state: .unverified, pairedAt: nil, pairing: .code, code: "123456", until: 9, failures: 0)
        let peers = PeerList(
            peers: [
                PeerInfo(
                    name: "bob", announcedName: nil, id: "ID", shortID: "SH", address: nil, session: .down,
                    lastSeen: 7, trust: trust)
            ],
            static: [StaticPeerInfo(address: "198.18.0.5:7420", peerID: nil, pin: StaticPin.none, refusedID: nil)])
        #expect(
            try wire(ControlAPI.peers, peers)
                == #"{"peers":[{"address":null,"announcedName":null,"id":"ID","lastSeen":7,"missedKeepalives":0,"#
                + #""name":"bob","#
                + #""session":"down","shortID":"SH","trust":{"code":"123456","failures":0,"pairedAt":null,"#
                + #""pairing":"code","state":"unverified","until":9}}],"#
                + #""static":[{"address":"198.18.0.5:7420","peerID":null,"pin":"none","refusedID":null}]}"#)
        let started = PairingInfo(
            peer: PeerIdentity(name: "bob", id: "ID", shortID: "SH"), trust: trust, me: PairingInfo.Me(shortID: "ME"))
        #expect(Set(try members(ControlAPI.pair, started).keys) == ["peer", "trust", "me"])
        #expect(try members(ControlAPI.pair, started)["me"] == ["shortID": "ME"])
        // Confirming a code answers without `me`, as it always did.
        var confirmed = started
        confirmed.me = nil
        #expect(Set(try members(ControlAPI.pair, confirmed).keys) == ["peer", "trust"])
        #expect(
            try wire(ControlAPI.rename, PeerIdentity(name: "Bob", id: "ID", shortID: "SH"))
                == #"{"id":"ID","name":"Bob","shortID":"SH"}"#)
        #expect(
            try wire(ControlAPI.untrust, UntrustInfo(id: "ID", shortID: "SH", untrusted: true, unpinned: []))
                == #"{"id":"ID","shortID":"SH","unpinned":[],"untrusted":true}"#)
    }

    @Test("a series, as subscriptions lists it and offer, approve, decline and unsubscribe answer it")
    func series() throws {
        let offer = try SeriesOffer(
            payee: try #require(Self.alice), payer: try #require(Self.bob),
            amount: Money(minorUnits: 30_00, currency: CurrencyCode("EUR")), period: .month, start: Self.created,
            count: 12, timeZone: "Europe/Berlin", periodSeconds: nil, memo: "gym", category: "sport")
        let record = SeriesRecord(
            id: try #require(UUID(uuidString: "00000000-0000-4000-8000-000000000002")), offer: offer, role: .payee,
            state: .offered, now: Self.created)
        let info = ControlMethods.info(
            SeriesView(series: record, instances: 0, accepted: 0, paid: 0, announcedName: "bob", pinnedName: nil),
            peerName: PeerName(announcedName: "bob", pinned: nil), now: Self.created)
        let list = try members(ControlAPI.subscriptions, SeriesList(series: [info]))
        let series = try #require(list["series"]?[0]?.objectValue)
        #expect(
            Set(series.keys) == [
                "id", "shortID", "direction", "peer", "amount", "currency", "every", "count", "start", "timeZone",
                "periodSeconds", "memo", "category", "state", "shownState", "cap", "nextDue", "instances", "accepted",
                "paid",
                "reason",
                "endedBy", "delivered", "createdAt", "updatedAt", "approvedPeriods", "approvedTotal", "autoAccepted",
                "autoAcceptedTotal",
            ])
        #expect(series["shortID"] == "00000002")
        // A series' peer is shown as a payment's: with its trust, an unpaired "bob" never like a contact.
        #expect(
            series["peer"] == [
                "id": .string(info.peer.id), "shortID": .string(info.peer.shortID), "name": "bob",
                "announcedName": .null, "trust": "unverified",
            ])
        #expect(series["amount"] == "30.00" && series["cap"] == .null && series["count"] == 12)
        #expect(try members(ControlAPI.approve, info) == series)
    }

    /// The wire text of `event`, which must read back as itself.
    private func wire(_ event: ControlEvent) throws -> String {
        let json = try JSONValue(encoding: event)
        #expect(try json.decode(ControlEvent.self) == event)
        return json.jsonText
    }

    @Test("every event of watch and the web app's stream: {event, at, …}")
    func events() throws {
        let payment = ControlMethods.info(
            try paymentRecord(), peerName: PeerName(announcedName: "bob", pinned: nil), converted: nil)
        let paymentText = try JSONValue(encoding: payment).jsonText
        #expect(
            try wire(ControlEvent(at: 7, .requestReceived(payment)))
                == #"{"at":7,"event":"request-received","payment":"# + paymentText + "}")
        #expect(
            try wire(ControlEvent(at: 7, .paymentUpdated(payment)))
                == #"{"at":7,"event":"payment-updated","payment":"# + paymentText + "}")
        let bob = ControlEvent.EventPeer(name: "bob", id: "ID", shortID: "HSBEJBT", trust: .paired)
        let bobText = #"{"id":"ID","name":"bob","shortID":"HSBEJBT","trust":"paired"}"#
        var there = bob
        there.address = "198.18.0.2"
        there.trust = .unverified
        let thereText = #"{"address":"198.18.0.2","id":"ID","name":"bob","shortID":"HSBEJBT","trust":"unverified"}"#
        let expected: [(ControlEvent.Kind, String)] = [
            (.peerUp(there), #"{"at":7,"event":"peer-up","peer":"# + thereText + "}"),
            (.peerDown(there), #"{"at":7,"event":"peer-down","peer":"# + thereText + "}"),
            (
                .pairingRequested(bob, message: "m"),
                #"{"at":7,"event":"pairing-requested","message":"m","peer":"# + bobText + "}"
            ),
            (
                .pairingStarted(bob, attempt: "A"),
                #"{"at":7,"attempt":"A","event":"pairing-started","peer":"# + bobText + "}"
            ),
            (
                .pairingCode(bob, code: "123456", expiresAt: 9),
                #"{"at":7,"code":"123456","event":"pairing-code","expiresAt":9,"peer":"# + bobText + "}"
            ),
            (.paired(bob), #"{"at":7,"event":"paired","peer":"# + bobText + "}"),
            (
                .pairingFailed(bob, reason: "r", failures: 1, attemptsLeft: 2),
                #"{"at":7,"attemptsLeft":2,"event":"pairing-failed","failures":1,"peer":"# + bobText
                    + #","reason":"r"}"#
            ),
            (
                .pairingLocked(bob, lockedUntil: 9),
                #"{"at":7,"event":"pairing-locked","lockedUntil":9,"peer":"# + bobText + "}"
            ),
        ]
        for (kind, text) in expected { #expect(try wire(ControlEvent(at: 7, kind)) == text) }
        // A kind this version does not know is refused (the CLI prints it as JSON), not read as another.
        #expect(throws: DecodingError.self) {
            try JSONValue.object(["event": "teleported", "at": 7]).decode(ControlEvent.self)
        }
    }

    @Test("convert, rates, currency, stats, receipt, web")
    func rates() throws {
        let converted = ConvertedAmount(
            conversion: Conversion(amount: "0.62", currency: "EUR", minorUnits: 62, rate: "0.0496", ratesUpdatedAt: 1),
            stale: true, ratesAgeSeconds: 2, from: MoneyAmount(amount: "12.50", currency: "MXN"))
        #expect(
            try wire(ControlAPI.convert, converted)
                == #"{"amount":"0.62","currency":"EUR","from":{"amount":"12.50","currency":"MXN"},"minorUnits":62,"#
                + #""rate":"0.0496","ratesAgeSeconds":2,"ratesUpdatedAt":1,"stale":true}"#)
        let rates = RatesInfo(
            base: "USD", source: "fixture", updatedAt: 1, nextUpdateAt: 2, fetchedAt: 3, ageSeconds: 4, stale: false,
            staleReason: nil, rates: ["EUR": "0.9"])
        #expect(
            try wire(ControlAPI.rates, rates)
                == #"{"ageSeconds":4,"base":"USD","fetchedAt":3,"nextUpdateAt":2,"rates":{"EUR":"0.9"},"#
                + #""source":"fixture","stale":false,"staleReason":null,"updatedAt":1}"#)
        #expect(
            try wire(ControlAPI.currency, PreferredCurrencyInfo(currency: "MXN", source: "user"))
                == #"{"currency":"MXN","source":"user"}"#)
        let row = StatsInfo.Row(
            group: nil, direction: .outgoing, currency: "MXN", count: 2, total: "25.00", average: "12.50",
            totalMinor: 2500, averageMinor: 1250, settledCount: 1, settledTotal: "12.50", settledMinor: 1250)
        #expect(
            try wire(ControlAPI.stats, StatsInfo(rows: [row]))
                == #"{"rows":[{"average":"12.50","averageMinor":1250,"count":2,"currency":"MXN","direction":"out","#
                + #""group":null,"settledCount":1,"settledMinor":1250,"settledTotal":"12.50","total":"25.00","#
                + #""totalMinor":2500}]}"#)
        #expect(
            try wire(ControlAPI.receipt, ReceiptInfo(payment: "P", receipt: "{}", summary: nil))
                == #"{"details":null,"payment":"P","receipt":"{}","summary":null}"#)
        let details = ReceiptInfo.Details(
            amount: "12.50", currency: "MXN", minorUnits: 1250, payer: PeerIdentity(name: "bob", id: "B", shortID: "b"),
            payee: PeerIdentity(name: "alice", id: "A", shortID: "a"), acceptedAt: 1, settledAt: 2)
        #expect(
            try wire(ControlAPI.receipt, ReceiptInfo(payment: "P", receipt: "{}", summary: "S", details: details))
                == #"{"details":{"acceptedAt":1,"amount":"12.50","currency":"MXN","minorUnits":1250,"#
                + #""payee":{"id":"A","name":"alice","shortID":"a"},"payeeLabel":"alice (a)","#
                + #""payer":{"id":"B","name":"bob","shortID":"b"},"payerLabel":"bob (b)","#
                + #""settledAt":2},"payment":"P","receipt":"{}","summary":"S"}"#)
        #expect(
            try wire(
                ControlAPI.web,
                WebLogin(url: "http://127.0.0.1:7780/login?code=C", address: "127.0.0.1", port: 7780))
                == #"{"address":"127.0.0.1","port":7780,"url":"http://127.0.0.1:7780/login?code=C"}"#)
    }
}
