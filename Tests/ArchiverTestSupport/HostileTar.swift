import Foundation

/// Tar archives no well-behaved tool writes, made with Python's tarfile: either a script whose lines call
/// `add(name, data, type=…, linkname=…)`, or a list of typed entries written exactly as given.
public enum HostileTar {
    /// `body` (lines calling `add`) inside the script that opens and closes the archive named by the
    /// script's first argument.
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

    public enum Entry {
        case file(String, String, mode: Int32 = 0o644)
        case directory(String)
        case symlink(String, target: String)
        case hardlink(String, target: String)
        case device(String)
        case fifo(String)

        /// The `add` line that writes this entry (texts spelled in hex, so that no name needs escaping).
        var line: String {
            func quoted(_ text: String) -> String {
                "bytes.fromhex('\(text.utf8.map { String(format: "%02x", $0) }.joined())').decode()"
            }
            let time = "mtime=1700000000"
            switch self {
            case .file(let name, let contents, let mode):
                return "add(\(quoted(name)), \(quoted(contents)).encode(), mode=0o\(String(mode, radix: 8)), \(time))"
            case .directory(let name):
                return "add(\(quoted(name)), type=tarfile.DIRTYPE, mode=0o755, \(time))"
            case .symlink(let name, let target):
                return "add(\(quoted(name)), type=tarfile.SYMTYPE, linkname=\(quoted(target)), mode=0o777, \(time))"
            case .hardlink(let name, let target):
                return "add(\(quoted(name)), type=tarfile.LNKTYPE, linkname=\(quoted(target)), \(time))"
            case .device(let name):
                return "add(\(quoted(name)), type=tarfile.CHRTYPE, devmajor=1, devminor=3, mode=0o666, \(time))"
            case .fifo(let name):
                return "add(\(quoted(name)), type=tarfile.FIFOTYPE, \(time))"
            }
        }
    }

    /// Writes a tar at `path` holding exactly `entries`, in order, however hostile.
    public static func write(_ entries: [Entry], to path: String) throws {
        let made = try Tool.run(["/usr/bin/python3", "-c", script(entries.map(\.line).joined(separator: "\n")), path])
        guard made.status == 0 else { throw HostileTarFailure(description: "python3 could not write \(path): \(made.output)") }
    }
}

public struct HostileTarFailure: Error, CustomStringConvertible {
    public let description: String
}
