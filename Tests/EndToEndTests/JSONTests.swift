import ArchiverTestSupport
import Foundation
import Testing

@Suite struct JSONTests {
    static func iso(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// The mtimes `Tree.makeRich` gives its files.
    static func fileMTimes(_ facts: Tree.Facts) -> [String: Int] {
        var t = Tree.baseTime
        var out: [String: Int] = [:]
        for rel in facts.files.keys.sorted() {
            t += 3600
            out[rel] = t
        }
        return out
    }

    @Test(arguments: ["zip", "7z", "tar.gz"])
    func compressExtractAndListReportTheFacts(format: String) throws {
        try E2E.withScratch("json-\(format)") { s in
            let facts = try Tree.makeRich(at: s.path("Tree"))

            // compress --json: one object with the documented fields.
            let made = try s.compress(["--json", "--format", format, s.path("Tree")])
            #expect(made.status == 0, "\(made)")
            let c = try #require(made.json, "stdout is one JSON object: \(made.stdout)")
            #expect(c["operation"] as? String == "compress")
            #expect(E2E.int(c["exitCode"]) == 0)
            let duration = try #require(E2E.double(c["durationSeconds"]), "durationSeconds is a number")
            #expect(duration >= 0 && duration < 120)
            let outputs = try #require(c["outputs"] as? [[String: Any]])
            #expect(outputs.count == 1)
            #expect(outputs.first?["path"] as? String == s.path("Tree.\(format)"))
            #expect(E2E.int(outputs.first?["size"]) == E2E.size(s.path("Tree.\(format)")))
            #expect(E2E.int(c["inputBytes"]) == facts.inputBytes, "inputBytes \(c["inputBytes"] ?? "nil") vs \(facts.inputBytes)")
            #expect(E2E.int(c["files"]) == facts.files.count)
            #expect(E2E.int(c["folders"]) == facts.folders.count + 1, "the top folder counts")
            #expect(E2E.int(c["symlinks"]) == facts.symlinks.count)
            #expect((c["warnings"] as? [Any])?.isEmpty == true)
            #expect((c["warningCodes"] as? [Any])?.isEmpty == true, "warningCodes is there, beside warnings")
            #expect(E2E.isNull(c["error"]))

            // extract --json.
            let out = try s.extract(["--json", "--to", s.path("out"), s.path("Tree.\(format)")])
            #expect(out.status == 0, "\(out)")
            let x = try #require(out.json, "\(out.stdout)")
            #expect(x["operation"] as? String == "extract")
            #expect(E2E.int(x["exitCode"]) == 0)
            #expect(E2E.double(x["durationSeconds"]) != nil)
            #expect((x["warnings"] as? [Any])?.isEmpty == true)
            #expect((x["warningCodes"] as? [Any])?.isEmpty == true)
            let results = try #require(x["results"] as? [[String: Any]])
            #expect(results.count == 1)
            let r = try #require(results.first)
            #expect(r["archive"] as? String == s.path("Tree.\(format)"))
            #expect(r["output"] as? String == s.path("out/Tree"))
            #expect(E2E.int(r["files"]) == facts.files.count)
            #expect(E2E.int(r["folders"]) == facts.folders.count + 1)
            #expect(E2E.int(r["symlinks"]) == facts.symlinks.count)
            #expect(E2E.int(r["bytes"]) == facts.inputBytes)
            #expect((r["refused"] as? [Any])?.isEmpty == true)
            #expect((r["skippedJunk"] as? [Any])?.isEmpty == true)
            #expect((r["warnings"] as? [Any])?.isEmpty == true && (r["warningCodes"] as? [Any])?.isEmpty == true)
            #expect(E2E.isNull(r["error"]))

            // --list --json, given a relative path: absolute archive path, every entry with its facts.
            let listed = try s.extract(["--list", "--json", "Tree.\(format)"], cwd: s.root)
            #expect(listed.status == 0, "\(listed)")
            let l = try #require(listed.json, "\(listed.stdout)")
            #expect(l["operation"] as? String == "list")
            #expect(E2E.int(l["exitCode"]) == 0)
            let archives = try #require(l["archives"] as? [[String: Any]])
            #expect(archives.count == 1)
            let a = try #require(archives.first)
            #expect(a["archive"] as? String == s.path("Tree.\(format)"))
            #expect(E2E.nonEmptyString(a["format"]))
            let entries = try #require(a["entries"] as? [[String: Any]])
            var byPath: [String: [String: Any]] = [:]
            for entry in entries {
                let path = (entry["path"] as? String ?? "?")
                byPath[path.hasSuffix("/") ? String(path.dropLast()) : path] = entry
            }
            let expected = Set(facts.files.keys.map { "Tree/" + $0 } + facts.symlinks.keys.map { "Tree/" + $0 }
                + facts.folders.map { "Tree/" + $0 } + ["Tree"])
            #expect(Set(byPath.keys) == expected, "extra: \(Set(byPath.keys).subtracting(expected).sorted()) missing: \(expected.subtracting(byPath.keys).sorted())")
            let mtimes = Self.fileMTimes(facts)
            for (rel, data) in facts.files {
                let entry = byPath["Tree/" + rel]
                #expect(entry?["type"] as? String == "file", "\(rel)")
                #expect(E2E.int(entry?["size"]) == data.count, "\(rel) size")
                #expect(entry?["encrypted"] as? Bool == false, "\(rel)")
                #expect(E2E.isNull(entry?["linkTarget"]), "\(rel)")
                #expect(entry?.keys.contains("packedSize") == true, "\(rel) has packedSize")
                #expect(entry?["mtime"] as? String == Self.iso(mtimes[rel]!), "\(rel) mtime \(entry?["mtime"] ?? "nil")")
            }
            for (rel, target) in facts.symlinks {
                #expect(byPath["Tree/" + rel]?["type"] as? String == "symlink", "\(rel)")
                #expect(byPath["Tree/" + rel]?["linkTarget"] as? String == target, "\(rel)")
            }
            for rel in facts.folders + [""] {
                let key = rel.isEmpty ? "Tree" : "Tree/" + rel
                #expect(byPath[key]?["type"] as? String == "directory", "\(key)")
            }
            // Listing writes nothing.
            #expect(E2E.list(s.root) == ["Tree", "Tree.\(format)", "home", "out"])
        }
    }

    @Test func listShowsEveryEntryType() throws {
        try E2E.withScratch { s in
            try s.python(
                """
                import tarfile, io, sys
                with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:
                    def add(name, data=None, **kw):
                        i = tarfile.TarInfo(name); i.mtime = 1700000000
                        for k, v in kw.items(): setattr(i, k, v)
                        if data is None: t.addfile(i)
                        else: i.size = len(data); t.addfile(i, io.BytesIO(data))
                    add('d', type=tarfile.DIRTYPE, mode=0o755)
                    add('d/file.txt', b'twelve bytes')
                    add('d/sym', type=tarfile.SYMTYPE, linkname='file.txt')
                    add('d/hard', type=tarfile.LNKTYPE, linkname='d/file.txt')
                    add('d/chr', type=tarfile.CHRTYPE, devmajor=1, devminor=3)
                    add('d/blk', type=tarfile.BLKTYPE, devmajor=7, devminor=0)
                    add('d/fifo', type=tarfile.FIFOTYPE)
                """, [s.path("types.tar")])
            let listed = try s.extract(["--list", "--json", s.path("types.tar")])
            #expect(listed.status == 0, "listing hostile types is harmless: \(listed)")
            let entries = ((listed.json?["archives"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]]) ?? []
            var types: [String: String] = [:]
            for entry in entries {
                types[(entry["path"] as? String ?? "?").trimmingCharacters(in: CharacterSet(charactersIn: "/"))] = entry["type"] as? String
            }
            #expect(types == ["d": "directory", "d/file.txt": "file", "d/sym": "symlink", "d/hard": "hardlink",
                              "d/chr": "character-device", "d/blk": "block-device", "d/fifo": "fifo"], "\(types)")
            let file = entries.first { ($0["path"] as? String) == "d/file.txt" }
            #expect(E2E.int(file?["size"]) == 12)
            #expect(file?["mtime"] as? String == "2023-11-14T22:13:20Z")
            let hard = entries.first { ($0["path"] as? String) == "d/hard" }
            #expect(hard?["linkTarget"] as? String == "d/file.txt")
            #expect(E2E.list(s.root) == ["home", "types.tar"])

            // Plain --list (no JSON) names every entry on stdout.
            let plain = try s.extract(["--list", s.path("types.tar")])
            #expect(plain.status == 0)
            for name in ["d/file.txt", "d/sym", "d/fifo"] { #expect(plain.stdout.contains(name), "\(plain.stdout)") }
        }
    }

    /// Each warning has a stable code in `warningCodes`, in the same order; the reason of a refused entry
    /// has its own code too (`reasonCode`). Both stay English and never follow the language.
    @Test func warningsCarryMachineCodes() throws {
        try E2E.withScratch { s in
            try s.python(
                """
                import tarfile, io, sys
                with tarfile.open(sys.argv[1], 'w') as t:
                    for name in ['good.txt', '../escape.txt', '/abs.txt']:
                        i = tarfile.TarInfo(name); i.size = 2; t.addfile(i, io.BytesIO(b'hi'))
                """, [s.path("bad.tar")])
            let out = try s.extract(["--json", "--to", s.path("out"), s.path("bad.tar")])
            #expect(out.status == 1, "\(out)")
            let x = try #require(out.json, "\(out.stdout)")
            let warnings = try #require(x["warnings"] as? [String])
            let codes = try #require(x["warningCodes"] as? [String])
            #expect(codes == ["entry-refused", "entry-refused"], "\(codes)")
            #expect(warnings.count == codes.count && warnings.allSatisfy { $0.hasPrefix("Refused “") }, "\(warnings)")
            let result = try #require((x["results"] as? [[String: Any]])?.first)
            let refused = (result["refused"] as? [[String: Any]]) ?? []
            #expect(Set(refused.compactMap { $0["reasonCode"] as? String }).count == 2, "\(refused)")
            #expect((result["warningCodes"] as? [String]) != nil, "per archive too: \(result)")
        }
    }

    @Test func severalInputsAndFailuresInJSON() throws {
        try E2E.withScratch { s in
            try s.write("w/a.txt", String(repeating: "a", count: 100))
            try s.write("w/b.txt", String(repeating: "b", count: 50))
            let made = try s.compress(["--json", "--format", "tar", s.path("w/a.txt"), s.path("w/b.txt")])
            #expect(made.status == 0, "\(made)")
            let c = try #require(made.json)
            #expect(E2E.int(c["files"]) == 2)
            #expect(E2E.int(c["folders"]) == 0)
            #expect(E2E.int(c["symlinks"]) == 0)
            #expect(E2E.int(c["inputBytes"]) == 150)
            #expect((c["outputs"] as? [[String: Any]])?.first?["path"] as? String == s.path("w/Archive.tar"))

            // A batch with one missing archive: exit 1, two results, the missing one with error code 3.
            let out = try s.extract(["--json", "--to", s.path("D"), s.path("w/Archive.tar"), s.path("w/missing.zip")])
            #expect(out.status == 1, "\(out)")
            let x = try #require(out.json, "\(out.stdout)")
            #expect(E2E.int(x["exitCode"]) == 1)
            let results = (x["results"] as? [[String: Any]]) ?? []
            #expect(results.count == 2)
            let good = results.first { ($0["archive"] as? String) == s.path("w/Archive.tar") }
            let bad = results.first { ($0["archive"] as? String) == s.path("w/missing.zip") }
            #expect(good?["output"] as? String == s.path("D/Archive"))
            #expect(E2E.isNull(good?["error"]))
            #expect(E2E.isNull(bad?["output"]))
            let error = bad?["error"] as? [String: Any]
            #expect(E2E.int(error?["code"]) == 3, "\(bad ?? [:])")
            #expect(E2E.nonEmptyString(error?["message"]))
            #expect(error?.keys.contains("hint") == true)
            #expect(E2E.list(s.path("D/Archive")) == ["a.txt", "b.txt"])
        }
    }
}

@Suite(.enabled(if: ProcessInfo.processInfo.environment["ARCHIVER_SLOW_TESTS"] == "1", "set ARCHIVER_SLOW_TESTS=1 for the >4 GiB zip64 test"))
struct Zip64Tests {
    @Test func sparseFileOver4GiBRoundTrips() throws {
        try E2E.withScratch { s in
            try s.mkdir("Huge")
            try s.write("Huge/small.txt", "a small neighbour\n")
            try s.must("/usr/bin/truncate", ["-s", "4608M", s.path("Huge/sparse.bin")])  // 4.5 GiB
            let made = try s.compress(["--format", "zip", "--level", "fast", s.path("Huge")])
            #expect(made.status == 0, "\(made)")
            let test = try s.tool("/usr/bin/7zz", ["t", s.path("Huge.zip")])
            #expect(test.status == 0, "\(test)")
            let listing = try s.tool("/usr/bin/unzip", ["-l", s.path("Huge.zip")])
            #expect(listing.status == 0, "\(listing)")
            #expect(listing.stdout.contains("4831838208"), "\(listing.stdout)")
            let out = try s.extract(["--to", s.path("out"), s.path("Huge.zip")])
            #expect(out.status == 0, "\(out)")
            #expect(E2E.size(s.path("out/Huge/sparse.bin")) == 4_831_838_208)
            #expect(E2E.text(s.path("out/Huge/small.txt")) == "a small neighbour\n")
            let sums = try s.must("/usr/bin/sha256sum", [s.path("Huge/sparse.bin"), s.path("out/Huge/sparse.bin")]).stdout
                .split(separator: "\n").map { String($0.prefix(64)) }
            #expect(sums.count == 2 && sums[0] == sums[1], "\(sums)")
        }
    }
}
