import ArchiverTestSupport
import Foundation
import Testing

/// Runs the built `compress-pdf-with-archiver` away from the desktop of whoever runs the tests, and reads
/// PDFs with other people's tools (qpdf, poppler's pdfimages, pdftotext, pdfinfo).
enum PDF {
    static let executableName = "compress-pdf-with-archiver"

    static let executable: String? = BuiltProducts.executable(executableName)

    /// Away from the person's desktop (`BuiltProducts.isolation`), in a UTF-8 locale.
    static let environment = ProcessInfo.processInfo.environment.merging(BuiltProducts.isolation) { $1 }
        .merging(["LC_ALL": "C.UTF-8"]) { $1 }

    /// Runs the executable with `arguments` in `folder`, `input` on its standard input.
    static func compress(
        _ arguments: [String], in folder: String, input: String? = nil, extraEnvironment: [String: String] = [:]
    ) throws -> Outcome {
        try start(arguments, in: folder, input: input, extraEnvironment: extraEnvironment).wait(timeout: 3600)
    }

    /// Another program run in the same isolated environment (gsettings), with its output merged.
    static func withIsolation(_ argv: [String], extraEnvironment: [String: String]) throws -> (
        status: Int32, output: String
    ) {
        let outcome = try Tool.start(argv, environment: environment.merging(extraEnvironment) { $1 }, mergingErrors: true)
            .wait(timeout: 3600)
        return (outcome.status, outcome.stdout)
    }

    /// The executable started in the background.
    static func start(
        _ arguments: [String], in folder: String, input: String? = nil, extraEnvironment: [String: String] = [:]
    ) throws -> Running {
        guard let executable else {
            Issue.record("Build \(executableName) first (swift build), or set ARCHIVER_BIN_DIR.")
            throw CocoaError(.fileNoSuchFile)
        }
        return try Tool.start(
            [executable] + arguments, in: folder, environment: environment.merging(extraEnvironment) { $1 }, input: input)
    }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// `pdftotext` of the whole document.
    static func text(_ path: String, password: String? = nil) throws -> String {
        try Tool.run(
            ["/usr/bin/pdftotext"] + (password.map { ["-upw", $0] } ?? []) + [path, "-"], mergingErrors: false
        ).output
    }

    /// `qpdf --check` passes.
    static func checks(_ path: String, password: String? = nil) throws -> Bool {
        try Tool.run(["/usr/bin/qpdf", "--check"] + (password.map { ["--password=\($0)"] } ?? []) + [path]).status == 0
    }

    /// One row of `pdfimages -list`.
    struct ImageRow: Equatable {
        var page: Int, type: String, width: Int, height: Int, color: String, encoding: String, object: Int
        var xppi: Int, size: String
    }

    static func images(_ path: String, password: String? = nil) throws -> [ImageRow] {
        let listing = try Tool.run(
            ["/usr/bin/pdfimages", "-list"] + (password.map { ["-upw", $0] } ?? []) + [path], mergingErrors: false)
        return listing.output.split(separator: "\n").dropFirst(2).compactMap { line in
            let f = line.split(separator: " ").map(String.init)
            guard f.count >= 15, let page = Int(f[0]), let width = Int(f[3]), let height = Int(f[4]),
                let object = Int(f[10]), let xppi = Int(f[12])
            else { return nil }
            return ImageRow(
                page: page, type: f[2], width: width, height: height, color: f[5], encoding: f[8], object: object,
                xppi: xppi, size: f[14])
        }
    }

    /// The URLs of link annotations, page by page (`pdfinfo -url`).
    static func links(_ path: String) throws -> [String] {
        try Tool.run(["/usr/bin/pdfinfo", "-url", path], mergingErrors: false).output.split(separator: "\n").dropFirst()
            .map(String.init)
    }

    /// Every outline entry's title, depth-first, with its page (`qpdf --json`).
    static func outline(_ path: String) throws -> [String] {
        let json = try Tool.run(["/usr/bin/qpdf", "--json=2", "--json-key=outlines", path], mergingErrors: false).output
        guard let root = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let entries = root["outlines"] as? [[String: Any]]
        else { return [] }
        func walk(_ entries: [[String: Any]]) -> [String] {
            entries.flatMap { entry in
                ["\(entry["title"] ?? "?")@\(entry["destpageposfrom1"] ?? "?")"]
                    + walk(entry["kids"] as? [[String: Any]] ?? [])
            }
        }
        return walk(entries)
    }
}
