import ArchiverTestSupport
import Foundation
import Testing

/// Large text and a phone's width (issue 33): with text at 1.5× (GNOME's "Large Text", through XSETTINGS
/// `Xft/DPI`) and the window at its default size, then 360 px wide (Phosh), nothing is cut off. The debug
/// build's layout check (`ARCHIVER_TEST_LAYOUT`) reports each label that got less room than its text needs
/// or reaches past the window's edge; screenshots in `.build/screenshots/large-text/`.
@Suite(.serialized, .disabled(if: WindowSession.missing != nil, Comment(rawValue: WindowSession.missing ?? "")))
struct LargeTextTests {
    enum Window: String, CaseIterable, CustomTestStringConvertible {
        /// `app`: Home, Recent and Settings.
        case compress, extract, app
        var testDescription: String { rawValue }
    }

    private static let check = ["ARCHIVER_TEST_LAYOUT": "1"]

    private func executable(_ name: String, with others: [String]) throws -> String {
        try #require(BuiltProducts.folder(holding: [name] + others).map { $0 + "/" + name }, "build \(name) first")
    }

    /// The layout check's reports so far.
    private func cuts(_ program: WindowSession.Launched) -> [String] {
        program.errors.split(separator: "\n").filter { $0.hasPrefix("layout check:") }.map(String.init)
    }

    /// Lets the check run over the laid-out window (it looks every half second).
    private func settle() { usleep(1_200_000) }

    @Test(arguments: Window.allCases)
    func nothingIsCutAtLargeTextAndAPhonesWidth(_ window: Window) throws {
        let scratch = try ScratchDirectory()
        let session = try WindowSession()
        defer { session.stop() }
        try session.scaleText(1.5)
        let program: WindowSession.Launched
        var pages: [(name: String, show: () throws -> Void)] = [("window", {})]
        switch window {
        case .compress:
            let folder = scratch.sub("Holiday photos from the summer")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "notes\n".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
            // "Will it open for them?" with its fix buttons (issue 31): a reserved name and a symlink.
            try "aux\n".write(toFile: folder + "/AUX.txt", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: folder + "/latest notes", withDestinationPath: "notes.txt")
            program = try session.launch([try executable("archiver-compress", with: ["compress-with-archiver"]), folder], environment: Self.check)
            try session.waitForApp("archiver-compress")
            try session.waitFor("Follow the symbolic links", timeout: 30)
        case .extract:
            let zip = scratch.sub("Quarterly report with a long name.zip")
            let made = try Tool.run([
                "/usr/bin/python3", "-c",
                "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], 'w'); [z.writestr(n, 'text\\n' * 200) for n in ('report/a chapter with a rather long file name.txt', 'report/b.txt', 'readme.md')]; z.close()",
                zip,
            ])
            #expect(made.status == 0, "\(made.output)")
            program = try session.launch([try executable("archiver-extract", with: ["extract-with-archiver"]), zip], environment: Self.check)
            try session.waitForApp("archiver-extract")
            try session.waitForText("readme.md")
        case .app:
            let environment = WindowSession.keyfileSettings.merging(["XDG_DATA_HOME": session.folder + "/data"]) { $1 }
            program = try session.launch([try executable("archiver", with: ["archiver-compress", "archiver-extract"])],
                                         environment: environment.merging(Self.check) { $1 })
            try session.waitForApp("archiver")
            pages = [("home", "ctrl+h"), ("recent", "ctrl+r"), ("settings", "ctrl+,")].map { page in
                (page.0, { try session.press(page.1); usleep(400_000) })
            }
        }
        for width in [0, 360] {
            if width > 0 {
                let shown = try session.resizeWindow(of: program, width: width, height: 700)
                // At 1.5× text every window fits a phone: Extract…'s tree scrolls sideways and its header line holds
                // only the summary (which wraps), Search and the ⋮ menu; the app's Home cards stack, Recent's search
                // has its own line, Settings' Reset buttons are two lines; Compress…'s title gives way to its buttons.
                #expect(shown == width, "the window took \(shown) px, not \(width)")
            }
            for page in pages {
                try page.show()
                settle()
                try session.screenshot("large-text/\(window)-\(page.name)-\(width > 0 ? "\(width)px" : "default")", trimmed: false)
            }
        }
        #expect(program.process.isRunning, "\(program.errors)")
        #expect(cuts(program) == [], "\(window): \(cuts(program))")
    }

    /// Compress Photos…' filters (issue 35) at 1.5× text: the popover, with the date range open and a place
    /// name far longer than a phone's width chosen, keeps every control within 360 px and cuts no label.
    @Test func photoFiltersFitAPhonesWidthAtLargeText() throws {
        let scratch = try ScratchDirectory()
        let folder = scratch.sub("Album")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let long = "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch"
        let made = try Tool.run([
            "/usr/bin/python3", "-c",
            "import sys; from PIL import Image; [Image.new('RGB', (640, 480), (9, 99, 199)).save(sys.argv[1] + f'/IMG_{i}.jpg') for i in range(2)]",
            folder,
        ])
        #expect(made.status == 0, "\(made.output)")
        let tagged = try Tool.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-ExifIFD:DateTimeOriginal=2023:05:06 07:08:09", "-XMP-photoshop:City=\(long)",
            folder + "/IMG_0.jpg",
        ])
        #expect(tagged.status == 0, "\(tagged.output)")
        let session = try WindowSession()
        defer { session.stop() }
        try session.scaleText(1.5)
        let program = try session.launch(
            [try executable("archiver-compress-photos", with: ["compress-photos-with-archiver"]), folder], environment: Self.check)
        try session.waitForApp("archiver-compress-photos")
        try session.waitForText("→ about", timeout: 30)
        try session.click("Filters", role: "push button")
        try session.select("Between two dates", in: "Date taken")
        try session.select(long, in: "Place")
        settle()
        try session.screenshot("large-text/photos-filters", trimmed: false)
        // By name: of an entry and the label naming it, the driver takes the entry.
        for name in ["Date taken", "From", "To", "Album", "Location", "Place", "Size", "Clear Filters"] {
            let box = try session.extents(of: name).box
            #expect(box.count == 4 && box[2] > 0 && box[2] <= 330, "\(name): \(box)")
        }
        #expect(program.process.isRunning, "\(program.errors)")
        #expect(cuts(program) == [], "\(cuts(program))")
    }

    /// The scale reaches GTK: a heading grows by half when xsettingsd starts serving Xft/DPI 147456. (The layout
    /// check is not asked here: in the moment between the new font and the new layout it rightly sees cuts.)
    @Test func theScaleReachesGTK() throws {
        let session = try WindowSession()
        defer { session.stop() }
        let environment = WindowSession.keyfileSettings.merging(["XDG_DATA_HOME": session.folder + "/data"]) { $1 }
        let program = try session.launch([try executable("archiver", with: [])], environment: environment.merging(Self.check) { $1 })
        try session.waitForApp("archiver")
        let before = try session.extents(of: "Drop Files Here", role: "label").box
        try session.scaleText(1.5)
        var after = before
        #expect(try eventually(within: 5) {
            after = try session.extents(of: "Drop Files Here", role: "label").box
            return after.count == 4 && before.count == 4 && Double(after[3]) >= 1.35 * Double(before[3])
        }, "heading \(before) → \(after)")
        #expect(program.process.isRunning, "\(program.errors)")
    }
}
