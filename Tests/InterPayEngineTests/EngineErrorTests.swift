import InterPayCore
import InterPayTestSupport
import Testing

@testable import InterPayEngine

/// How a lost decision is worded (the CLI prints it, exit 5).
@Suite("Engine errors", .tearsDown)
struct EngineErrorTests {
    @Test("a decision that lost names the state the payment is in, with the protocol's code")
    func conflictNamesTheState() {
        #expect(
            EngineError.conflict(.alreadyAccepted, state: .settled).description
                == "the payment was already settled (ALAC)")
        #expect(
            EngineError.conflict(.alreadyAccepted, state: .paid).description == "the payment was already paid (ALAC)")
        #expect(
            EngineError.conflict(.alreadyAccepted, state: .accepted).description
                == "the payment was already accepted (ALAC)")
        #expect(EngineError.conflict(.alreadyRejected).description == "the payment was already rejected (ARFR)")
    }
}
