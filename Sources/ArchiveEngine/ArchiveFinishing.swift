import ArchiverCore
import Glibc
import SystemPackage

/// What may happen to a new archive between being written and taking its name: the test (`--verify`)
/// that reads it all back.
public enum ArchiveFinishing {
    /// Tests `archive` (under its hidden name) as `--test` would.
    /// - Parameters:
    ///   - name: the name it is about to take, for the message.
    ///   - password: the one it was encrypted with.
    /// - Throws: `ArchiverError` (`.corrupt`) naming the first entry that did not read back; the caller's
    ///   clean-up then removes the archive.
    public static func verify(_ archive: FilePath, name: String, password: Secret?, control: JobControl) throws(ArchiverError) {
        #if ARCHIVER_TEST_HOOKS
        // Proves that an archive that does not verify is removed: one byte in its middle is flipped.
        if getenv("ARCHIVER_TEST_CORRUPT_OUTPUT") != nil { corruptForTests(archive) }
        #endif
        let passwords = password.map { known in PasswordAsker(attempts: 1) { _, _ throws(ArchiverError) in known } }
        let result: TestResult
        do throws(ArchiverError) {
            result = try ArchiveTester.run(archive: archive, passwords: passwords, control: control)
        } catch where error.code != .cancelled && error.code != .budget {
            throw notVerified(name, reason: error.message)
        }
        if let first = result.damaged.first {
            // TRANSLATORS: %1$@ is an entry of the archive, %2$@ what is wrong with it (“a checksum does not match”).
            throw notVerified(name, reason: tr("“%1$@”: %2$@", first.path, first.reason))
        }
    }

    private static func notVerified(_ name: String, reason: Text) -> ArchiverError {
        ArchiverError(
            // TRANSLATORS: %1$@ is the archive just written, %2$@ what did not read back.
            .corrupt, tr("“%1$@” did not verify (%2$@), so it was removed.", name, reason),
            hint: tr("The disk or memory may be failing; try again, or write it somewhere else."), path: name)
    }

    #if ARCHIVER_TEST_HOOKS
    private static func corruptForTests(_ archive: FilePath) {
        let descriptor = archive.withPlatformString { open($0, O_RDWR | O_CLOEXEC) }
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let middle = lseek(descriptor, 0, SEEK_END) / 2
        var byte: UInt8 = 0
        guard pread(descriptor, &byte, 1, middle) == 1 else { return }
        byte ^= 0xFF
        _ = pwrite(descriptor, &byte, 1, middle)
    }
    #endif
}
