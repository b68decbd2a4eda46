import Foundation
import InterPayCore
import InterPayTestSupport
import Logging
import Synchronization
import Testing

@testable import InterPayEngine
@testable import InterPayStore

/// One node: an engine with a ledger file, on a `MemoryLink`, its events fed to it in order.
final class MemoryNode: Sendable {
    let id: PeerID
    let link: MemoryLink
    let engine: PaymentEngine
    let database: AppDatabase
    private let directory: TemporaryDirectory
    private let pump: Task<Void, Never>

    init(
        _ name: String, inboundCapacity: Int = 1_024, signer: ReceiptSigner? = nil,
        capabilities: [String] = [PaymentMessage.receiptsCapability], acceptFrom: AcceptPolicy = .any,
        acceptTestPeriods: Bool = true, acceptanceQuote: PaymentEngine.AcceptanceQuote? = nil
    ) throws {
        directory = try TemporaryDirectory()
        id = signer?.peerID ?? PeerID(subjectPublicKeyInfoDER: Array("key of \(name)".utf8))
        link = MemoryLink(me: id, name: name, capabilities: capabilities)
        database = try AppDatabase(path: directory.url.appending(path: "ledger.sqlite").path)
        var logger = Logger(label: "test.\(name)")
        logger.logLevel = .critical
        let engine = PaymentEngine(
            me: id, database: database, link: link, acceptanceQuote: acceptanceQuote, acceptFrom: acceptFrom,
            requestLimits: .init(maxPending: .max, maxPerMinute: .max),
            inboundCapacity: inboundCapacity, receiptIssuer: signer.map { ReceiptIssuer(signer: $0, name: name) },
            acceptTestPeriods: acceptTestPeriods, logger: logger)
        self.engine = engine
        let link = self.link
        pump = Task {
            for await event in link.events { await engine.handle(event) }
        }
        TestTeardown.atEnd { [self] in await stop() }
    }

    func stop() async {
        link.finish()
        await pump.value
        directory.remove()
    }
}

/// 12.50 MXN.
func pesos() throws -> Money { Money(minorUnits: 12_50, currency: try CurrencyCode("MXN")) }

@Suite("The engine over an in-memory link", .tearsDown, .serialized)
struct EngineLinkTests {
    @Test("a request is committed, sent, stored by the payer and acknowledged; `wait` returns once the ack is in")
    func requestRoundTrip() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        await eventually("both sides hold the session") {
            alice.link.session(with: bob.id) != nil && bob.link.session(with: alice.id) != nil
        }
        let (view, delivered) = try await alice.engine.requestReportingDelivery(
            from: bob.id, amount: try pesos(), memo: "tacos", category: nil, expiresIn: 600, wait: .seconds(10))
        // Reported delivered: the ack is in, and it removed the request from the outbox before `wait` returned. On
        // a machine loaded beyond the 10 s the wait is reported as such, and the ack still comes.
        let outboxEmpty = { (try? await alice.database.outbox(peerID: bob.id).isEmpty) == true }
        if delivered == true {
            #expect(await outboxEmpty(), "the ack removed the request from the outbox")
        } else {
            #expect(delivered == false)
            #expect(await eventually("the ack removes the request from the outbox") { await outboxEmpty() })
        }
        let onBob = try #require(try await bob.database.payment(id: view.record.id))
        #expect(onBob.state == .pending && onBob.role == .payer)
        await alice.stop()
        await bob.stop()
    }

    @Test("the payer's accept returns the payee's authoritative answer, confirmed, without polling")
    func acceptWaitsForTheAnswer() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        let record = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        let accepted = try await bob.engine.decide(.accept, paymentID: record.id, wait: .seconds(10))
        #expect(accepted.state == .accepted && accepted.confirmed)
        #expect(try await alice.database.payment(id: record.id)?.state == .accepted)
        await alice.stop()
        await bob.stop()
    }

    @Test("a decision made without a session is sent when one comes up, before anything else, and confirmed")
    func resentOnTheNextSession() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        let record = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("the session is gone") { bob.link.session(with: alice.id) == nil }
        let tentative = try await bob.engine.decide(.reject(reason: "no"), paymentID: record.id, wait: .zero)
        #expect(tentative.state == .rejected && !tentative.confirmed)
        #expect(try await bob.database.outbox(peerID: alice.id).count == 1, "the reject waits in the outbox")
        MemoryLink.connect(alice.link, bob.link)
        await eventually("the payee answered the resent reject") {
            (try? await bob.database.payment(id: record.id)?.confirmed) == true
        }
        #expect(try await alice.database.payment(id: record.id)?.reason == "no")
        await alice.stop()
        await bob.stop()
    }

    @Test(
        "a decision nobody answers: `wait` ends at its timeout, a cancelled caller at once, each with the committed record",
        .timeLimit(.minutes(1)))
    func unansweredDecision() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        let first = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        let second = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        MemoryLink.disconnect(alice.link, bob.link)
        await eventually("the session is gone") { bob.link.session(with: alice.id) == nil }

        let start = ContinuousClock.now
        let timedOut = try await bob.engine.decide(.accept, paymentID: first.id, wait: .milliseconds(300))
        #expect(ContinuousClock.now - start >= .milliseconds(300), "the wait lasts its timeout")
        #expect(timedOut.state == .accepted && !timedOut.confirmed)

        let waiting = Task {
            try await bob.engine.decide(.reject(reason: "no"), paymentID: second.id, wait: .seconds(600))
        }
        await eventually("the decision is committed") {
            (try? await bob.database.payment(id: second.id)?.state) == .rejected
        }
        waiting.cancel()
        let cancelled = try await waiting.value
        #expect(cancelled.state == .rejected && !cancelled.confirmed, "the committed record, tentative")
        #expect(try await bob.database.outbox(peerID: alice.id).count == 2, "both decisions wait in the outbox")
        await alice.stop()
        await bob.stop()
    }

    @Test("a request to a peer without a session fails at once and stores nothing")
    func unreachable() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        await #expect(throws: EngineError.self) {
            try await alice.engine.request(from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600)
        }
        #expect(try await alice.database.payments().isEmpty)
        await alice.stop()
        await bob.stop()
    }

    @Test("500 concurrent requests: every one committed on both sides, acknowledged, in far fewer transactions")
    func groupCommit() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        let ids = try await withThrowingTaskGroup(of: UUID.self) { group in
            for index in 0..<500 {
                group.addTask {
                    try await alice.engine.request(
                        from: bob.id, amount: try pesos(), memo: "\(index)", category: nil, expiresIn: 600,
                        wait: .seconds(30)
                    ).id
                }
            }
            return try await group.reduce(into: Set<UUID>()) { $0.insert($1) }
        }
        #expect(ids.count == 500)
        #expect(try await bob.database.payments().count == 500)
        await eventually("every ack is in", timeout: .seconds(60)) {
            (try? await alice.database.outbox(peerID: bob.id).isEmpty) == true
        }
        let transactions = alice.engine.transactionCount + bob.engine.transactionCount
        #expect(transactions < 1_500, "1,500 steps (request, its copy, its ack) took \(transactions) transactions")
        await alice.stop()
        await bob.stop()
    }

    @Test("a frame seen before gets the stored answer again, byte for byte, and changes nothing")
    func duplicate() async throws {
        let (alice, bob) = (try MemoryNode("alice"), try MemoryNode("bob"))
        MemoryLink.connect(alice.link, bob.link)
        let record = try await alice.engine.request(
            from: bob.id, amount: try pesos(), memo: "", category: nil, expiresIn: 600, wait: .seconds(10))
        let frame = try #require(try await alice.database.payment(id: record.id))
        let before = try await bob.database.events(paymentID: frame.id)
        // The same request frame again (its original message ID), as a resend after a lost ack would be.
        let created = try #require(try await alice.database.events(paymentID: record.id).first?.messageID)
        let request = PaymentMessage.request(
            .init(messageID: created, payment: try frame.request))
        await bob.engine.receive(request, from: alice.id)
        _ = await bob.engine.ping()  // the frame's step has committed
        #expect(try await bob.database.events(paymentID: frame.id) == before)
        await alice.stop()
        await bob.stop()
    }

    @Test(
        "a frame whose step fails is answered with an internal error naming it, commits nothing, and counts when resent",
        .timeLimit(.minutes(1)))
    func failedStepIsAnswered() async throws {
        let bob = try MemoryNode("bob")
        // The other end without an engine: the test reads what bob answers.
        let peer = MemoryLink(me: PeerID(subjectPublicKeyInfoDER: Array("key of a raw peer".utf8)), name: "raw")
        MemoryLink.connect(peer, bob.link)
        var answers = peer.events.makeAsyncIterator()
        func nextAnswer() async -> PaymentMessage? {
            while let event = await answers.next() {
                if case .frame(let message, _) = event { return message }
            }
            return nil
        }
        let session = try #require(peer.session(with: bob.id))
        let codec = FrameCodec()
        let request = try PaymentRequest(
            id: UUID(), payee: peer.me, payer: bob.id, amount: try pesos(), memo: "", category: nil,
            createdAt: .now, expiresAt: Timestamp.now.adding(seconds: 600))
        let requestID = UUID()
        peer.send([try codec.encodeBody(.request(.init(messageID: requestID, payment: request)))], on: session)
        guard case .ack(let stored)? = await nextAnswer() else { Issue.record("no ack of the request"); return }
        #expect(stored.ackedID == requestID)

        // A damaged row makes the cancel's step throw: nothing of it is committed, and the peer is told so.
        func setUpdatedAt(_ value: String) throws {
            let result = bob.database.transact([
                { ledger in
                    try ledger.db.execute(sql: "PRAGMA ignore_check_constraints = ON")
                    try ledger.db.execute(
                        sql: "UPDATE payment SET updatedAt = \(value) WHERE id = ?", arguments: [request.id.wireString])
                    try ledger.db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
                }
            ])
            try result[0].get()
        }
        try setUpdatedAt("'soon'")
        let cancelID = UUID()
        let cancel = try codec.encodeBody(.cancel(.init(messageID: cancelID, paymentID: request.id)))
        peer.send([cancel], on: session)
        guard case .error(let refusal)? = await nextAnswer() else { Issue.record("no error answer"); return }
        #expect(refusal.code == .internal && refusal.ref == cancelID)
        try setUpdatedAt("createdAt")
        #expect(try await bob.database.payment(id: request.id)?.state == .pending, "the failed step committed nothing")

        // The peer resends the frame (it never got an ack): the step runs again and counts.
        peer.send([cancel], on: session)
        guard case .ack(let cancelled)? = await nextAnswer() else { Issue.record("no ack of the resend"); return }
        #expect(cancelled.ackedID == cancelID && cancelled.state == .cancelled)
        #expect(try await bob.database.payment(id: request.id)?.state == .cancelled)
        peer.finish()
        await bob.stop()
    }
}

@Suite("The ledger step queue", .tearsDown)
struct StepPipelineTests {
    /// A commit that blocks its thread until released (as a disk flush would), counting batches.
    final class Gate: Sendable {
        let state = Mutex<(open: Bool, batches: [[Int]])>((false, []))
        let opened = DispatchSemaphore(value: 0)

        func pass(_ batch: [Int]) {
            let open = state.withLock { state in
                state.batches.append(batch)
                return state.open
            }
            guard !open else { return }
            opened.wait()
            opened.signal()  // once open, it stays open for every later commit
        }

        func open() {
            state.withLock { $0.open = true }
            opened.signal()
        }
    }

    @Test("inbound steps beyond the capacity wait; none is lost; steps queued during a commit share the next one")
    func backpressure() async throws {
        let gate = Gate()
        let done = Mutex<[Int]>([])
        let pipeline = StepPipeline<Int, Int, Int>(
            inboundCapacity: 4,
            commit: { steps in
                gate.pass(steps)
                return steps
            }, afterCommit: { results in done.withLock { $0 += results.map(\.1) } })
        let submitted = Mutex(0)
        let feeder = Task {
            for step in 0..<20 {
                await pipeline.submitInbound(step, lane: nil)
                submitted.withLock { $0 += 1 }
            }
        }
        // The first batch's commit is held: the reader gets at most the capacity ahead of it.
        await eventually("a batch is in its commit") { gate.state.withLock { !$0.batches.isEmpty } }
        await eventually("the queue is full") { pipeline.queuedCount == 4 }
        let inFlight = gate.state.withLock { $0.batches.first?.count ?? 0 }
        #expect(inFlight >= 1 && inFlight <= 4)
        await eventually("the batch in its commit and four queued") { submitted.withLock { $0 } == inFlight + 4 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(submitted.withLock { $0 } == inFlight + 4, "the next one waits for room")
        gate.open()
        await feeder.value
        await eventually("every step committed") { done.withLock { $0.count } == 20 }
        #expect(done.withLock { $0 } == Array(0..<20), "in submission order")
        let batches = gate.state.withLock { $0.batches }
        #expect(batches.count < 20, "steps queued during a commit share the next one: \(batches)")
    }

    @Test("one peer's flood holds at most its lane's share of the queue, and the next batch takes from every lane")
    func lanes() async throws {
        let gate = Gate()
        let done = Mutex<[Int]>([])
        let pipeline = StepPipeline<Int, Int, String>(
            inboundCapacity: 1_024, laneCapacity: 64, maxBatch: 8,
            commit: { steps in
                gate.pass(steps)
                return steps
            }, afterCommit: { results in done.withLock { $0 += results.map(\.1) } })
        let flooded = Mutex(0)
        let flood = Task {
            for step in 0..<200 {
                await pipeline.submitInbound(step, lane: "flooder")
                flooded.withLock { $0 += 1 }
            }
        }
        // The first batch is in its commit, held; the flooder's lane then fills and its reader waits.
        await eventually("a batch is in its commit") { gate.state.withLock { !$0.batches.isEmpty } }
        await eventually("the flooder's lane is full") { pipeline.queuedCount == 64 }
        try await Task.sleep(for: .milliseconds(200))
        let inFlight = gate.state.withLock { $0.batches.first?.count ?? 0 }
        #expect(flooded.withLock { $0 } == inFlight + 64, "a batch in its commit, 64 queued, the next waits")
        // Another peer's frames are queued at once: the flood left the rest of the queue to others.
        for step in 1_000..<1_004 { await pipeline.submitInbound(step, lane: "other") }
        #expect(pipeline.queuedCount == 68)
        gate.open()
        await flood.value
        await eventually("every step committed") { done.withLock { $0.count } == 204 }
        let batches = gate.state.withLock { $0.batches }
        #expect(
            batches.dropFirst().first == Array(inFlight..<inFlight + 4) + [1_000, 1_001, 1_002, 1_003],
            "the next batch shares itself between the lanes: \(batches.prefix(3))")
        let order = done.withLock { $0 }
        #expect(order.filter { $0 < 1_000 } == Array(0..<200), "a lane's steps in their order")
    }
}
