import Benchmark
import InterPayCore

/// `FrameCodec` encoding and decoding of complete frames (length prefix and canonical JSON).
enum FrameCodecBenchmarks {
    static func register() {
        let frames: [(name: String, make: () throws -> PaymentMessage)] = [
            ("request", Samples.requestFrame),
            ("ack", Samples.ackFrame),
            ("ping", { Samples.pingFrame }),
        ]
        for (name, make) in frames {
            Benchmark("FrameCodec.encode \(name)") { benchmark in
                let codec = FrameCodec()
                let frame = try make()
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(try codec.encode(frame))
                }
            }
            Benchmark("FrameCodec.decode \(name)") { benchmark in
                let codec = FrameCodec()
                let bytes = try codec.encode(try make())
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(try codec.decode(bytes))
                }
            }
        }
    }
}
