public import ArgumentParser
import InterPayContract
import InterPayCore

// The contract's choices are options' values as they are: `--help` lists their words and a wrong one is refused
// naming them, from the one enum the daemon reads too.

extension PaymentState: ExpressibleByArgument {}

extension PaymentDirection: ExpressibleByArgument {}

extension PaymentMethod: ExpressibleByArgument {}

extension StatsPeriod: ExpressibleByArgument {}

extension StatsGroupBy: ExpressibleByArgument {}
