import ArchiverCore
import Testing

@Suite struct DurationTests {
    @Test func secondsKeepTheFraction() {
        #expect(Duration.milliseconds(1_500).inSeconds == 1.5)
        #expect(Duration.seconds(3).inSeconds == 3)
        #expect(Duration.zero.inSeconds == 0)
    }

    @Test func nanosecondsDropWhatIsFinerThanOne() {
        #expect(Duration.milliseconds(1_500).inNanoseconds == 1_500_000_000)
        #expect((Duration.nanoseconds(7) + .init(secondsComponent: 0, attosecondsComponent: 999_999_999)).inNanoseconds == 7)
        #expect(Duration.seconds(-2).inNanoseconds == -2_000_000_000)
    }
}
