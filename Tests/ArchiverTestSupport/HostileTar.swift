/// Python that writes tar archives no well-behaved tool writes: `add(name, data, type=…, linkname=…)`
/// appends one entry to the archive named by the script's first argument.
public enum HostileTar {
    /// `body` (lines calling `add`) inside the script that opens and closes the archive.
    public static func script(_ body: String) -> String {
        """
        import tarfile, io, sys
        t = tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT)
        def add(name, data=None, **kw):
            i = tarfile.TarInfo(name); i.mtime = 1600000000; i.mode = 0o644
            for k, v in kw.items(): setattr(i, k, v)
            if data is not None:
                i.size = len(data); t.addfile(i, io.BytesIO(data))
            else:
                t.addfile(i)
        \(body)
        t.close()
        """
    }
}
