/// Why a benchmark could not run.
enum BenchError: Error, CustomStringConvertible {
    /// A step failed; the text says which.
    case failed(String)

    var description: String {
        switch self {
        case .failed(let reason): reason
        }
    }
}
