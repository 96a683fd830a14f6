import Foundation
import Testing

/// The Debian package (scripts/deb.sh, `make deb`), made here from the executables the tests run (the debug
/// build: the release build is `make deb`'s own, too slow for the suite), so lintian and the package's layout
/// are checked in CI. ARCHIVER_SLOW_TESTS adds the install on a clean Debian 12 root.
@Suite(.serialized) struct DebPackageTests {
    /// The package, made once for the suite; its path, the staging tree and deb.sh's stderr.
    static let built: Result<(deb: String, stage: String, log: String), Failure> = {
        let environment = ProcessInfo.processInfo.environment.merging(["BUILT_BIN": Paths.builtBin, "DEB_COMPRESSION": "gzip"]) { $1 }
        guard let made = try? run([Bytes("bash"), Bytes(Paths.packageRoot + "/scripts/deb.sh")], environment: environment) else {
            return .failure(Failure("deb.sh did not start"))
        }
        guard made.ok, let deb = made.stdout.split(separator: "\n").last.map(String.init) else {
            return .failure(Failure("deb.sh failed (\(made.status)): \(made.stderr)"))
        }
        return .success((deb, Paths.packageRoot + "/.build/deb/work/debian/archiver", made.stderr))
    }()

    static func field(_ name: String, of deb: String) throws -> String {
        try run([Bytes("dpkg-deb"), Bytes("-f"), Bytes(deb), Bytes(name)], environment: [:]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func packageIsLintianCleanWithComputedDependencies() throws {
        let (deb, _, log) = try Self.built.get()
        #expect(deb.hasSuffix("_amd64.deb") && URL(fileURLWithPath: deb).lastPathComponent.hasPrefix("archiver_"))
        // deb.sh runs lintian and fails on an error; no warning is left either.
        #expect(!log.contains("W: ") && !log.contains("E: "), "\(log)")
        let depends = try Self.field("Depends", of: deb)
        for library in ["libarchive13", "libglib2.0-0", "libgtk-4-1", "libadwaita-1-0", "libfuse3-3", "libc6"] {
            #expect(depends.contains(library), "Depends: \(depends)")
        }
        #expect(!depends.contains("swift"))
        #expect(try Self.field("Recommends", of: deb) == "7zip, fuse3, python3-nautilus")
        #expect(try Self.field("Suggests", of: deb) == "unrar")
        #expect(try Int(Self.field("Installed-Size", of: deb)) ?? .max <= 150 * 1024)
    }

    @Test func executablesShareOneRuntimeUnderUsr() throws {
        let (_, stage, _) = try Self.built.get()
        let fm = FileManager.default
        let runtime = try fm.contentsOfDirectory(atPath: stage + "/usr/lib/archiver")
        #expect(runtime.contains("libswiftCore.so") && runtime.contains("libswift_Concurrency.so"), "\(runtime)")
        for exe in try fm.contentsOfDirectory(atPath: stage + "/usr/bin") {
            let rpath = try run([Bytes("patchelf"), Bytes("--print-rpath"), Bytes(stage + "/usr/bin/" + exe)], environment: [:])
            #expect(rpath.stdout == "/usr/lib/archiver\n", "\(exe): \(rpath.stdout)")
            #expect(fm.fileExists(atPath: stage + "/usr/share/man/man1/\(exe).1.gz"), "\(exe) has no man page")
        }
        // The shared runtime alone runs the tools (their RUNPATH names /usr/lib/archiver, not the toolchain),
        // and they speak German from /usr/share/locale beside /usr/bin (a de_DE locale built for the test).
        let locales = stage + "/../locales"
        try FileManager.default.createDirectory(atPath: locales, withIntermediateDirectories: true)
        _ = try run([Bytes("/usr/bin/localedef"), Bytes("-i"), Bytes("de_DE"), Bytes("-f"), Bytes("UTF-8"), Bytes(locales + "/de_DE.UTF-8")],
                    environment: [:])
        let environment = ["LD_LIBRARY_PATH": stage + "/usr/lib/archiver", "LOCPATH": locales, "LC_ALL": "de_DE.UTF-8",
                           "PATH": "/usr/bin:/bin"]
        let help = try run([Bytes(stage + "/usr/bin/compress-with-archiver"), Bytes("--help")], environment: environment)
        #expect(help.ok && help.stdout.contains("Dateien und Ordner"), "\(help.stdout)\(help.stderr)")
        for path in ["/usr/share/applications/io.github.archiver.Extract.desktop", "/usr/share/mime/packages/io.github.archiver.xml",
                     "/usr/share/glib-2.0/schemas/io.github.archiver.gschema.xml", "/usr/share/metainfo/io.github.archiver.metainfo.xml",
                     "/usr/share/icons/hicolor/scalable/apps/io.github.archiver.svg", "/usr/share/locale/de/LC_MESSAGES/archiver.mo",
                     "/usr/share/nemo/actions/io.github.archiver.compress.nemo_action",
                     "/usr/share/file-manager/actions/io.github.archiver.compress.desktop",
                     "/usr/share/kio/servicemenus/io.github.archiver.compress.desktop",
                     "/usr/share/nautilus-python/extensions/io_github_archiver.py"] {
            #expect(fm.fileExists(atPath: stage + path), "\(path) is missing")
        }
        // Nothing per user, nothing for Nautilus scripts, no caches (dpkg triggers make them).
        #expect(!fm.fileExists(atPath: stage + "/usr/share/nautilus/scripts"))
        #expect(!fm.fileExists(atPath: stage + "/usr/share/applications/mimeinfo.cache"))
        #expect(!fm.fileExists(atPath: stage + "/usr/share/io.github.archiver"))
    }

    /// `apt-get install ./archiver_….deb` on a clean Debian 12 root (mmdebstrap, as root, with the network):
    /// everything resolves, a round trip works, --help speaks German, the installed files validate, and
    /// `apt-get purge` leaves nothing of ours. Several minutes, so only with ARCHIVER_SLOW_TESTS=1.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["ARCHIVER_SLOW_TESTS"] == "1" && getuid() == 0))
    func installsAndPurgesOnACleanDebian12() throws {
        let (deb, _, _) = try Self.built.get()
        let root = Paths.packageRoot + "/.build/deb/clean-root"
        let host = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"]
        func sh(_ command: String) throws -> Run {
            try run([Bytes("/bin/sh"), Bytes("-c"), Bytes(command)], environment: host)
        }
        // --one-file-system: never into the root's /proc, should unmounting it have failed.
        let remove = "umount '\(root)/proc' 2>/dev/null; rm -rf --one-file-system '\(root)'"
        _ = try sh(remove)
        defer { _ = try? sh(remove) }
        let made = try sh("mmdebstrap --quiet --variant=apt bookworm '\(root)'")
        try #require(made.ok, "mmdebstrap: \(made.stderr)")
        try FileManager.default.copyItem(atPath: deb, toPath: root + "/tmp/archiver.deb")
        // mmdebstrap leaves no package lists; the root resolves names as the host does. The tools read their
        // arguments from /proc/self/cmdline.
        try? FileManager.default.removeItem(atPath: root + "/etc/resolv.conf")
        try FileManager.default.copyItem(atPath: "/etc/resolv.conf", toPath: root + "/etc/resolv.conf")
        try #require(try sh("mount -t proc proc '\(root)/proc'").ok)
        func inRoot(_ command: String) throws -> Run {
            try sh("chroot '\(root)' /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -c '\(command)'")
        }
        let installed = try inRoot("apt-get update -q && apt-get install -y -q ./tmp/archiver.deb")
        try #require(installed.ok, "apt-get install: \(installed.stdout)\(installed.stderr)")
        let roundTrip = try inRoot("cd /tmp && mkdir t && echo hello > t/a.txt && compress-with-archiver --no-notify t && extract-with-archiver --no-notify --to out t.zip && cat out/t/a.txt")
        #expect(roundTrip.ok && roundTrip.stdout.hasSuffix("hello\n"), "\(roundTrip.stdout)\(roundTrip.stderr)")
        let german = try inRoot("apt-get install -y -q locales >/dev/null && localedef -i de_DE -f UTF-8 de_DE.UTF-8 && LC_ALL=de_DE.UTF-8 compress-with-archiver --help")
        #expect(german.ok && german.stdout.contains("Dateien und Ordner"), "\(german.stdout)")
        for file in try FileManager.default.contentsOfDirectory(atPath: root + "/usr/share/applications") where file.hasPrefix("io.github.archiver") {
            let valid = try sh("desktop-file-validate '\(root)/usr/share/applications/\(file)'")
            #expect(valid.ok && valid.stdout.isEmpty, "\(file): \(valid.stdout)")
        }
        #expect(try sh("appstreamcli validate --no-net '\(root)/usr/share/metainfo/io.github.archiver.metainfo.xml'").ok)
        let purged = try inRoot("apt-get purge -y -q archiver && rm -rf /tmp/t /tmp/out /tmp/t.zip /tmp/archiver.deb")
        try #require(purged.ok, "apt-get purge: \(purged.stderr)")
        let left = try sh("cd '\(root)' && find usr etc var/lib -path '*archiver*' ! -path 'var/lib/dpkg/*' ! -path 'var/lib/apt/*'")
        #expect(left.stdout.isEmpty, "left behind: \(left.stdout)")
    }
}
