import CDNSSD
import Dispatch
import Synchronization

/// One `DNSServiceRef` (register, browse, resolve or query) driven on a serial dispatch queue.
///
/// Avahi's libdns_sd gives every ref its own thread and socket. A read source on the ref's socket calls
/// `DNSServiceProcessResult` only when the socket is readable (it would block otherwise), always on the session
/// queue, so the C callbacks (and `handler`) run there too. The callbacks find the operation through an unretained
/// context pointer; the source's handlers keep the operation alive until the cancel handler has deallocated the
/// ref, after which no callback can come.
///
/// `@unchecked Sendable`: every mutable property is used only on `queue` (the session's queue).
final class DNSServiceOperation: @unchecked Sendable {
    /// What a callback reported, decoded into Swift values.
    enum Reply {
        /// The register callback without error: the name actually registered.
        case registered(name: String)
        /// The browse callback: an instance added or removed on one interface.
        case browsed(added: Bool, interfaceIndex: UInt32, name: String, type: String, domain: String)
        /// The resolve callback: SRV target, port (host byte order) and TXT rdata.
        case resolved(interfaceIndex: UInt32, hostTarget: String, port: Int, txt: [UInt8])
        /// The query callback: a record added or removed.
        case record(added: Bool, interfaceIndex: UInt32, type: UInt16, rdata: [UInt8])
        /// A callback reported an error, or `DNSServiceProcessResult` failed.
        case failed(DNSServiceErrorType)
    }

    /// The number of refs allocated and not yet deallocated, in this process (for tests and leak checks).
    static var liveCount: Int { live.withLock { $0 } }
    private static let live = Mutex(0)

    /// What the operation is, for log lines.
    let label: String
    /// Called on `queue` for every reply while the operation is active.
    var handler: ((DNSServiceOperation, Reply) -> Void)?

    private let queue: DispatchQueue
    private var ref: DNSServiceRef?
    private var source: (any DispatchSourceRead)?
    private var isActive = false

    init(label: String, queue: DispatchQueue) {
        self.label = label
        self.queue = queue
    }

    /// Creates the ref with `call` (which gets the ref to fill in and the callback context) and starts
    /// processing its results. Returns the call's error code; on error nothing is kept.
    func start(
        _ call: (UnsafeMutablePointer<DNSServiceRef?>, UnsafeMutableRawPointer) -> DNSServiceErrorType
    ) -> DNSServiceErrorType {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(ref == nil && !isActive, "a DNS-SD operation is started once")
        AvahiMemory.zeroAllocations()
        var newRef: DNSServiceRef?
        let error = call(&newRef, Unmanaged.passUnretained(self).toOpaque())
        guard error == DNSServiceErrorCode.noError, let newRef else {
            if let newRef { DNSServiceRefDeallocate(newRef) }
            return error == DNSServiceErrorCode.noError ? DNSServiceErrorCode.unknown : error
        }
        Self.live.withLock { $0 += 1 }
        ref = newRef
        isActive = true
        let source = DispatchSource.makeReadSource(fileDescriptor: DNSServiceRefSockFD(newRef), queue: queue)
        source.setEventHandler { [self] in processResult() }
        source.setCancelHandler { [self] in deallocate() }
        self.source = source
        source.resume()
        return DNSServiceErrorCode.noError
    }

    /// Stops the operation: no more replies; the ref is deallocated in the source's cancel handler.
    func cancel() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard isActive else { return }
        isActive = false
        handler = nil
        source?.cancel()
        source = nil
    }

    private func processResult() {
        guard isActive, let ref else { return }
        let error = DNSServiceProcessResult(ref)
        if error != DNSServiceErrorCode.noError { deliver(.failed(error)) }
    }

    private func deallocate() {
        guard let ref else { return }
        self.ref = nil
        DNSServiceRefDeallocate(ref)
        Self.live.withLock { $0 -= 1 }
    }

    /// Hands a reply to `handler` unless the operation was cancelled meanwhile (one `DNSServiceProcessResult` can
    /// run several callbacks).
    fileprivate func deliver(_ reply: Reply) {
        guard isActive, let handler else { return }
        handler(self, reply)
    }

    fileprivate static func from(_ context: UnsafeMutableRawPointer?) -> DNSServiceOperation? {
        guard let context else { return nil }
        return Unmanaged<DNSServiceOperation>.fromOpaque(context).takeUnretainedValue()
    }

    // MARK: C callbacks (no captures; the operation comes from the context pointer)

    static let registerReply: DNSServiceRegisterReply = { _, _, error, name, _, _, context in
        guard let operation = from(context) else { return }
        if error != DNSServiceErrorCode.noError {
            operation.deliver(.failed(error))
        } else {
            operation.deliver(.registered(name: name.map { String(cString: $0) } ?? ""))
        }
    }

    static let browseReply: DNSServiceBrowseReply = { _, flags, interfaceIndex, error, name, type, domain, context in
        guard let operation = from(context) else { return }
        guard error == DNSServiceErrorCode.noError, let name, let type, let domain else {
            operation.deliver(.failed(error == DNSServiceErrorCode.noError ? DNSServiceErrorCode.unknown : error))
            return
        }
        operation.deliver(
            .browsed(
                added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0, interfaceIndex: interfaceIndex,
                name: String(cString: name), type: String(cString: type), domain: String(cString: domain)))
    }

    static let resolveReply: DNSServiceResolveReply = {
        _, _, interfaceIndex, error, _, hostTarget, port, txtLength, txt, context in
        guard let operation = from(context) else { return }
        guard error == DNSServiceErrorCode.noError, let hostTarget else {
            operation.deliver(.failed(error == DNSServiceErrorCode.noError ? DNSServiceErrorCode.unknown : error))
            return
        }
        let txtBytes = txt.map { Array(UnsafeBufferPointer(start: $0, count: Int(txtLength))) } ?? []
        operation.deliver(
            .resolved(
                interfaceIndex: interfaceIndex, hostTarget: String(cString: hostTarget),
                port: Int(UInt16(bigEndian: port)), txt: txtBytes))
    }

    static let queryReply: DNSServiceQueryRecordReply = {
        _, flags, interfaceIndex, error, _, type, _, length, rdata, _, context in
        guard let operation = from(context) else { return }
        guard error == DNSServiceErrorCode.noError else {
            operation.deliver(.failed(error))
            return
        }
        let bytes = rdata.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
        operation.deliver(
            .record(
                added: flags & DNSServiceFlags(kDNSServiceFlagsAdd) != 0, interfaceIndex: interfaceIndex, type: type,
                rdata: bytes))
    }
}
