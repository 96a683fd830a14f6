// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Archiver",
    products: [
        .executable(name: "compress-with-archiver", targets: ["compress-with-archiver"]),
        .executable(name: "extract-with-archiver", targets: ["extract-with-archiver"]),
        .executable(name: "edit-with-archiver", targets: ["edit-with-archiver"]),
        .executable(name: "compress-photos-with-archiver", targets: ["compress-photos-with-archiver"]),
        .executable(name: "compress-pdf-with-archiver", targets: ["compress-pdf-with-archiver"]),
        .executable(name: "archiver-compress", targets: ["archiver-compress"]),
        .executable(name: "archiver-extract", targets: ["archiver-extract"]),
        .executable(name: "archiver-compress-pdf", targets: ["archiver-compress-pdf"]),
        .executable(name: "archiver-compress-photos", targets: ["archiver-compress-photos"]),
        .executable(name: "open-with-archiver", targets: ["open-with-archiver"]),
        .executable(name: "archiver", targets: ["archiver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        // glibc's libintl.h, the only C that ArchiverCore sees (gettext; nothing to link).
        .systemLibrary(name: "CGettext"),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CIsal", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CLzma", pkgConfig: "liblzma", providers: [.apt(["liblzma-dev"])]),
        // libbz2 has no pkg-config file on Debian: the module map links it by name.
        .systemLibrary(name: "CBzip2", providers: [.apt(["libbz2-dev"])]),
        // WinZip AES in our zip writer (AES-256, HMAC-SHA1, PBKDF2); libarchive links it too.
        .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"])]),
        // SquashFS images (snaps, .sqfs), read as a tar by CSquashfsShim.
        .systemLibrary(name: "CSquashfs", pkgConfig: "libsquashfs1", providers: [.apt(["libsquashfs-dev"])]),
        .target(name: "CSquashfsShim", dependencies: ["CSquashfs", "CArchive"]),
        .systemLibrary(name: "CGLib", pkgConfig: "gio-unix-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CNotify", pkgConfig: "libnotify", providers: [.apt(["libnotify-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CQPDF", pkgConfig: "libqpdf", providers: [.apt(["libqpdf-dev"])]),
        .target(
            name: "ArchiverCore",
            dependencies: ["CGettext", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // Files, staging and publishing, pending outputs, child processes and program lookup: what every
        // engine needs, with its own small shim over the Linux calls Swift's Glibc does not show, so that the
        // PDF and photo engines need no libarchive.
        .systemLibrary(name: "CPlatform"),
        .target(
            name: "Platform",
            dependencies: ["ArchiverCore", "CPlatform", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(
            name: "ArchiveEngine",
            dependencies: ["ArchiverCore", "Platform", "CArchive", "CZstd", "CZlib", "CIsal", "CLzma", "CBzip2", "CNettle", "CSquashfsShim"]
        ),
        .target(
            name: "Desktop",
            dependencies: ["ArchiverCore", "Platform", "CGLib", "CNotify", .product(name: "SystemPackage", package: "swift-system")]
        ),
        // What the tools and the windows say to each other: events, outcomes, exit status, argv (pure).
        .target(name: "JobProtocol", dependencies: ["ArchiverCore", .product(name: "SystemPackage", package: "swift-system")]),
        // One job session for every command: flags, budget, signals, progress, reports, exit status.
        .target(
            name: "JobKit",
            dependencies: [
                "ArchiverCore", "JobProtocol", "Desktop", "Platform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "ArchiverCLI",
            dependencies: [
                "ArchiverCore", "ArchiveEngine", "Desktop", "JobKit", "JobProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "compress-with-archiver", dependencies: ["ArchiverCLI", "JobKit"]),
        .executableTarget(name: "extract-with-archiver", dependencies: ["ArchiverCLI", "JobKit"]),
        .executableTarget(name: "edit-with-archiver", dependencies: ["ArchiverCLI", "JobKit"]),

        // Compress Photos: its own C shim, engine and CLI, so that the archive executables never link libvips.
        .target(name: "CPhotoShim", dependencies: ["CVips"], linkerSettings: [.linkedLibrary("exif")]),
        .target(
            name: "PhotoEngine",
            dependencies: ["ArchiverCore", "Platform", "CPhotoShim", .product(name: "SystemPackage", package: "swift-system")]
        ),
        .target(
            name: "PhotoCLI",
            dependencies: [
                "PhotoEngine", "JobKit", "JobProtocol", "ArchiverCore", "Desktop", "Platform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "compress-photos-with-archiver", dependencies: ["PhotoCLI", "JobKit"]),
        // PDF compression: its own engine and CLI, so that the archive executables never link qpdf or libvips.
        // zlib: the estimate inflates only the first rows of a Flate image. HarfBuzz's subsetter: fonts embedded whole.
        .target(
            name: "CPDFShim", dependencies: ["CQPDF", "CVips"],
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("harfbuzz-subset"), .linkedLibrary("harfbuzz")]),
        .target(name: "PDFEngine", dependencies: ["ArchiverCore", "Platform", "CPDFShim"]),
        .target(
            name: "PDFCLI",
            dependencies: [
                "ArchiverCore", "JobKit", "JobProtocol", "PDFEngine", "Desktop", "Platform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "compress-pdf-with-archiver", dependencies: ["PDFCLI", "JobKit"]),

        // The windows (Compress…, Extract…): GTK 4 + libadwaita through a thin shim, in executables of their
        // own so that the command-line tools never link GTK. A window runs its job by starting the CLI.
        .systemLibrary(name: "CGtk", pkgConfig: "libadwaita-1", providers: [.apt(["libadwaita-1-dev", "libgtk-4-dev"])]),
        // ArchiveEngine: the thumbnails and the quick look read an entry's bytes in memory, as Open as Folder does
        // (the jobs themselves still run the CLI). poppler-glib, which draws a PDF's first page for the quick
        // look, is not linked but opened at the first PDF preview (UI/PDFFirstPage.swift): start-up, issue 33.
        .target(name: "UI", dependencies: ["ArchiverCore", "ArchiveEngine", "JobProtocol", "Desktop", "Platform", "CGtk"]),
        .executableTarget(name: "archiver-compress", dependencies: ["UI"]),
        .executableTarget(name: "archiver-extract", dependencies: ["UI"]),
        .executableTarget(name: "archiver-compress-pdf", dependencies: ["UI"]),
        .executableTarget(name: "archiver-compress-photos", dependencies: ["UI"]),
        // The app (Home, Recent, Settings): one instance, opening the windows above.
        .executableTarget(name: "archiver", dependencies: ["UI"]),

        // Open as Folder: a read-only FUSE mount of an archive, in an executable of its own so that the
        // others never link libfuse.
        .systemLibrary(name: "CFuse", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),
        .target(name: "CFuseShim", dependencies: ["CFuse"]),
        .target(name: "MountEngine", dependencies: ["ArchiveEngine", "ArchiverCore", "Platform", "CFuseShim"]),
        .target(
            name: "MountCLI",
            dependencies: [
                "MountEngine", "JobKit", "JobProtocol", "ArchiveEngine", "ArchiverCore", "Desktop", "Platform",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "open-with-archiver", dependencies: ["MountCLI", "JobKit"]),

        .target(
            name: "ArchiverTestSupport",
            dependencies: ["ArchiverCore", .product(name: "SystemPackage", package: "swift-system")],
            path: "Tests/ArchiverTestSupport",
            exclude: ["atspi", "python", "session-bus.conf"]
        ),
        .testTarget(name: "ArchiverCoreTests", dependencies: ["ArchiverCore"]),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "ArchiverTestSupport"]),
        .testTarget(name: "ArchiveEngineTests", dependencies: ["ArchiveEngine", "ArchiverCore", "Platform", "ArchiverTestSupport", "CArchive"]),
        .testTarget(
            name: "JobProtocolTests",
            dependencies: ["JobProtocol", "ArchiverCore", "ArchiverTestSupport", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "JobKitTests", dependencies: ["JobKit", "ArchiverCore"]),
        .testTarget(name: "ArchiverCLITests", dependencies: ["ArchiverCLI", "ArchiverCore"]),
        .testTarget(name: "DesktopTests", dependencies: ["Desktop", "ArchiverCore", "ArchiverTestSupport"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ArchiverTestSupport", "JobProtocol", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(name: "DesktopIntegrationTests", dependencies: ["ArchiverTestSupport"]),
        .testTarget(name: "PhotoEngineTests", dependencies: ["PhotoEngine", "ArchiverCore", "ArchiverTestSupport"]),
        .testTarget(name: "PhotoEndToEndTests", dependencies: ["ArchiverTestSupport"]),
        .testTarget(name: "PDFEngineTests", dependencies: ["PDFEngine", "CPDFShim", "ArchiverCore", "ArchiverTestSupport"]),
        .testTarget(name: "PDFEndToEndTests", dependencies: ["ArchiverTestSupport"]),
        // Windows on an Xvfb of their own, driven over AT-SPI (ArchiverTestSupport's WindowSession).
        .testTarget(name: "MountTests", dependencies: ["ArchiverTestSupport", "ArchiverCore"]),
        .testTarget(name: "WindowTests", dependencies: ["ArchiverTestSupport"], exclude: ["Fixtures"]),
    ]
)

// Coverage-guided fuzz targets (fuzz/, `make fuzz`): declared only when fuzz/run.sh builds them, with
// -sanitize=fuzzer into a scratch folder of their own, so the normal build and `swift test` never see them.
if Context.environment["ARCHIVER_FUZZ"] == "1" {
    package.targets += [
        .systemLibrary(name: "CFuzzer", path: "fuzz/CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer"], path: "fuzz/Support"),
    ]
    for (name, library) in [
        ("fuzz-entry-path", "ArchiverCore"), ("fuzz-name-encoding", "ArchiveEngine"), ("fuzz-volume-name", "ArchiverCore"),
        ("fuzz-7zip-listing", "ArchiveEngine"), ("fuzz-unrar-listing", "ArchiveEngine"), ("fuzz-settings", "ArchiverCore"),
        ("fuzz-extract", "ArchiveEngine"), ("fuzz-single-stream", "ArchiveEngine"), ("fuzz-photo", "PhotoEngine"),
        ("fuzz-pdf-images", "PDFEngine"),
    ] {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["FuzzSupport", .target(name: library), "Platform"], path: "fuzz/targets/\(name)"))
    }
}

// Test hooks (`ARCHIVER_TEST_HANG`, `ARCHIVER_STALL_SECONDS`, `ARCHIVER_STATISTICS_PAUSE`, `ARCHIVER_UI_TIMINGS…`,
// `ARCHIVER_TEST_SALT`) are compiled into debug builds only, which the tests and the timing benchmarks run: a release build
// (`make release`, `make install`, the package) reads none of them. Each hook sits in `#if ARCHIVER_TEST_HOOKS`.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.define("ARCHIVER_TEST_HOOKS", .when(configuration: .debug))]
}
