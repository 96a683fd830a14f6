import ArchiverTestSupport
import Foundation
import Testing

/// Real jobs of all four executables, run under a given language, with what a person reads collected:
/// stdout, stderr and every notification a real notification daemon (python3-dbusmock) received.
enum LocalizedRuns {
    static let tools = ["compress-with-archiver", "extract-with-archiver", "compress-pdf-with-archiver", "compress-photos-with-archiver"]
    static let binDir: String? = BuiltProducts.folder(holding: tools)

    /// One run: its exit status and what it printed.
    struct Output {
        var label: String
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The environment of a language: nil for none at all (CI's default: English).
    enum Language {
        case unset
        case pseudo
        case german
    }

    static func environment(_ language: Language) throws -> [String: String] {
        switch language {
        case .unset:
            return [:]
        case .pseudo:
            return try TestLanguages.pseudo()
        case .german:
            return try TestLanguages.german()
        }
    }

    /// Runs one of ours with stdin from /dev/null (or `input`), isolated from the person's desktop, on a
    /// private bus of its own with a notification daemon whose calls land in `notifications`.
    /// When the result offers buttons, the process waits for one (stdin is no terminal): "Open folder" is
    /// clicked, as a person would.
    static func run(
        _ label: String, _ tool: String, _ arguments: [String], language: Language, input: String? = nil,
        in s: ScratchDirectory
    ) throws -> (output: Output, notifications: [LoggedNotification]) {
        let binDir = try #require(binDir, "the built executables were not found (swift build)")
        let busFolder = s.sub("bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: busFolder, withIntermediateDirectories: true)
        let bus = try PrivateBus()
        defer { bus.stop() }
        let log = busFolder + "/notify.log"
        try bus.startNotificationServer(log: log)
        try bus.startFileManager(log: busFolder + "/filemanager.log")

        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("LC_") || ["LANG", "LANGUAGE", "LOCPATH", "ARCHIVER_LOCALEDIR"].contains(key) {
            environment[key] = nil
        }
        environment.merge(DesktopIsolation.variables) { $1 }
        environment.merge(try Self.environment(language)) { $1 }
        environment.merge(bus.environment) { $1 }
        let (outPath, errPath) = (busFolder + "/out", busFolder + "/err")
        let running = try Tool.start(
            [binDir + "/" + tool] + arguments, in: s.path, environment: environment, input: input, output: outPath,
            errors: errPath)
        let process = running.process
        let deadline = Date().addingTimeInterval(120)
        var clicked = false
        while process.isRunning, Date() < deadline {
            usleep(50_000)
            let calls = LoggedNotification.all(in: log)
            if !clicked, let last = calls.last, last.urgency != 0, last.actions.contains("open-folder") {
                clicked = true
                try? bus.invokeAction("open-folder", notification: UInt32(max(last.replacesID, 1)))
            }
        }
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        let output = Output(
            label: label, status: process.terminationStatus,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
        return (output, LoggedNotification.all(in: log))
    }

    /// The inputs of the jobs, made once per scratch folder: a folder of files, a tar with an entry that
    /// climbs out, a damaged zip, two photos and a PDF with a large image.
    static func makeInputs(in s: ScratchDirectory) throws {
        try E2E.python(
            """
            import os, sys, tarfile, io
            root = sys.argv[1]
            os.makedirs(root + '/Fotos/Urlaub')
            for i in range(3):
                open(root + '/Fotos/Urlaub/notiz%d.txt' % i, 'w').write('Sommer ' * 20000)
            with tarfile.open(root + '/evil.tar', 'w') as t:
                for name, data in (('good.txt', b'fine'), ('../evil.txt', b'bad')):
                    info = tarfile.TarInfo(name); info.size = len(data); t.addfile(info, io.BytesIO(data))
            import zipfile
            with zipfile.ZipFile(root + '/whole.zip', 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('a.txt', os.urandom(50000))
            data = open(root + '/whole.zip', 'rb').read()
            open(root + '/broken.zip', 'wb').write(data[:len(data) // 2])
            from PIL import Image
            for i in range(2):
                Image.effect_noise((2400, 1600), 40 + i).convert('RGB').save(root + '/IMG_%d.jpg' % i, quality=95)
            Image.effect_noise((1800, 1200), 50).convert('RGB').save(root + '/page.jpg', quality=95)
            from reportlab.pdfgen import canvas
            c = canvas.Canvas(root + '/Bericht.pdf', pagesize=(595, 842))
            c.drawString(72, 800, 'Quarterly report')
            c.drawImage(root + '/page.jpg', 72, 300, width=300, height=200)
            c.showPage(); c.save()
            os.remove(root + '/page.jpg')
            """, [s.path])
    }

    /// Every job of the coverage list, in `s` (inputs made by `makeInputs`), under `language`.
    static func jobs(in s: ScratchDirectory, language: Language) throws -> [(output: Output, notifications: [LoggedNotification])] {
        var runs: [(output: Output, notifications: [LoggedNotification])] = []
        func job(_ label: String, _ tool: String, _ arguments: [String], input: String? = nil) throws {
            runs.append(try run(label, tool, arguments, language: language, input: input, in: s))
        }
        try job("compress", "compress-with-archiver", ["--format", "zip", "Fotos"])
        try job("extract", "extract-with-archiver", ["Fotos.zip"])
        try job("refused entry", "extract-with-archiver", ["evil.tar"])
        try job("encrypt", "compress-with-archiver", ["--format", "zip", "--encrypt", "--password-stdin", "--output", "secret.zip", "Fotos"], input: "richtig\n")
        try job("wrong password", "extract-with-archiver", ["--password-stdin", "secret.zip"], input: "falsch\n")
        try job("corrupt", "extract-with-archiver", ["broken.zip"])
        try job("missing", "extract-with-archiver", ["nowhere.zip"])
        try job("photos", "compress-photos-with-archiver", ["IMG_0.jpg", "IMG_1.jpg"])
        try job("pdf", "compress-pdf-with-archiver", ["Bericht.pdf"])
        for tool in tools { try job("\(tool) --help", tool, ["--help"]) }
        return runs
    }
}
