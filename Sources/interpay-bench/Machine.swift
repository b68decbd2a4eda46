import Foundation

/// The machine a report was measured on.
struct Machine: Sendable, Codable {
    var cores: Int
    var memoryGiB: Double
    var cpu: String
    var kernel: String
    var build: String

    static func current() -> Machine {
        let info = ProcessInfo.processInfo
        let cpu =
            (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        #if DEBUG
            let build = "debug (numbers are not representative; use `make bench`)"
        #else
            let build = "release"
        #endif
        return Machine(
            cores: info.activeProcessorCount, memoryGiB: Double(info.physicalMemory) / 1_073_741_824, cpu: cpu,
            kernel: info.operatingSystemVersionString, build: build)
    }

    var summary: String {
        "\(cores) cores (\(cpu)), \(String(format: "%.1f", memoryGiB)) GiB memory, \(kernel), \(build) build"
    }
}
