import Benchmark
import InterPayCore

/// The peer ID's text form (base32 with Luhn check characters, as shown to people and typed by them).
enum PeerIDBenchmarks {
    static func register() {
        Benchmark("PeerID.format") { benchmark in
            let peer = Samples.payee
            for _ in benchmark.scaledIterations {
                blackHole(peer.description)
            }
        }
        Benchmark("PeerID.parse") { benchmark in
            let text = Samples.payee.description
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try PeerID(parsing: text))
            }
        }
        Benchmark("PeerID text round trip") { benchmark in
            let peer = Samples.payee
            for _ in benchmark.scaledIterations {
                blackHole(try PeerID(parsing: peer.description))
            }
        }
    }
}
