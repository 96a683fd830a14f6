/// A zip's size fields are 32 bits wide: writers without Zip64 kept only the low 32 bits of the size of
/// a file of 4 GiB or more. libarchive checks a member's data against the fields as they are (its
/// compressed length, so that it ends where the next member begins; the size's low 32 bits; the CRC),
/// so data it passes may be longer than the recorded size by a whole number of 4 GiB, and whole.
public enum ZipSizeField {
    private static let wrap: Int64 = 1 << 32

    /// Whether a file recorded as `recorded` bytes may hold more: its field could have wrapped.
    public static func mayHaveWrapped(recorded: Int64) -> Bool { recorded >= 0 && recorded < wrap }

    /// Whether `read` bytes of checked data are what a wrapped field of `recorded` bytes says: longer by a
    /// whole number of 4 GiB. Anything else is not the same file.
    public static func wrapped(recorded: Int64, read: Int64) -> Bool {
        mayHaveWrapped(recorded: recorded) && read > recorded && (read - recorded) % wrap == 0
    }
}
