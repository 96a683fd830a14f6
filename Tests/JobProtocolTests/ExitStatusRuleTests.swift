import ArchiverCore
import JobProtocol
import Testing

@Suite struct ExitStatusRuleTests {
    @Test func aStopWinsOverAnEarlierFailure() {
        // Two archives: the first damaged, the second cancelled. Every tool says 8 (it once said 5 or 8).
        let tally = JobTally(succeeded: 0, failures: [.corrupt, .cancelled])
        #expect(tally.exitStatus == 8)
        #expect(JobTally(succeeded: 1, failures: [.budget]).exitStatus == 9)
    }

    @Test func nothingMadeIsTheFirstFailuresCode() {
        #expect(JobTally(succeeded: 0, failures: [.password, .corrupt]).exitStatus == 6)
    }

    @Test func somethingMadeWithFailuresOrWarningsIsOne() {
        #expect(JobTally(succeeded: 2, failures: [.corrupt]).exitStatus == 1)
        #expect(JobTally(succeeded: 1, warned: true).exitStatus == 1)
        #expect(JobTally(succeeded: 1).exitStatus == 0)
        #expect(JobTally().exitStatus == 0)
    }
}
