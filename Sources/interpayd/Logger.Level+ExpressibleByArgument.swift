public import ArgumentParser
public import Logging

/// `--log-level trace|debug|info|notice|warning|error|critical`.
extension Logger.Level: @retroactive ExpressibleByArgument {}
