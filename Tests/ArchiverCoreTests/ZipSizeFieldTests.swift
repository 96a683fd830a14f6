import ArchiverCore
import Testing

@Suite struct ZipSizeFieldTests {
    /// Only data longer than recorded by whole 4 GiB steps is a wrapped 32-bit size; a field that could not
    /// have wrapped (Zip64's 64 bits) or any other difference is not.
    @Test func onlyWhole4GiBStepsAreAWrappedSize() {
        let gib4: Int64 = 1 << 32
        #expect(ZipSizeField.wrapped(recorded: 16_777_259, read: 16_777_259 + gib4))
        #expect(ZipSizeField.wrapped(recorded: 0, read: 3 * gib4))
        #expect(ZipSizeField.wrapped(recorded: gib4 - 1, read: 2 * gib4 - 1))
        #expect(!ZipSizeField.wrapped(recorded: 1000, read: 1000))
        #expect(!ZipSizeField.wrapped(recorded: 1000, read: 2000))
        #expect(!ZipSizeField.wrapped(recorded: 1000, read: 1000 + gib4 + 1))
        #expect(!ZipSizeField.wrapped(recorded: 1000 + gib4, read: 1000 + 2 * gib4))
        #expect(!ZipSizeField.wrapped(recorded: 1000 + gib4, read: 1000))
        #expect(!ZipSizeField.mayHaveWrapped(recorded: gib4))
        #expect(ZipSizeField.mayHaveWrapped(recorded: gib4 - 1))
        #expect(!ZipSizeField.mayHaveWrapped(recorded: -1))
    }
}
