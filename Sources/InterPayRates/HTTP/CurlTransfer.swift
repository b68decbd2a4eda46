/// What libcurl's callbacks of one transfer share: the body received so far, its limit and the cancellation flag.
///
/// Not `Sendable` and needs no lock: it is created, used by the callbacks (which libcurl runs inside
/// `curl_easy_perform`, on the calling thread) and read afterwards, all on the transfer's own thread.
final class CurlTransfer {
    /// The most body bytes accepted.
    let limit: Int
    /// Set when the waiting task is cancelled.
    let cancellation: TransferCancellation
    /// The body received so far.
    private(set) var body: [UInt8] = []
    /// Whether the body went over `limit` (the transfer was then aborted).
    private(set) var exceededLimit = false

    init(limit: Int, cancellation: TransferCancellation) {
        self.limit = limit
        self.cancellation = cancellation
    }

    /// Appends received bytes; false (abort the transfer) once the body would exceed the limit.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= limit - body.count else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }
}
