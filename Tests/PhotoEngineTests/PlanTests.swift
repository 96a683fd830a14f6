import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import PhotoEngine

/// The plan walks real folders: what is a job, where its copy goes, which folder it claims.
@Suite struct PhotoPlanTests {
    private func touch(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func aFolderIsMirroredBesideItself() throws {
        let scratch = try ScratchDirectory()
        for name in ["Album/b.jpg", "Album/a.HEIC", "Album/a.MOV", "Album/Trip/c.png", "Album/.thumbs/d.jpg",
                     "Album/notes.txt", "Album/solo.mov"] {
            try touch(scratch.sub(name))
        }
        try FileManager.default.createDirectory(atPath: scratch.sub("Compressed - Album"), withIntermediateDirectories: true)
        let plan = try PhotoPlan.make(inputs: [FilePath(scratch.sub("Album"))], destination: .beside, format: .jpeg)
        let root = FilePath(scratch.sub("Compressed - Album (2)"))
        #expect(plan.roots == [root] && plan.createdFolders == [root], "an existing folder is never reused")
        #expect(plan.jobs.map { "\($0.kind) \($0.folder.string.dropFirst(root.string.count)) \($0.name.displayName)" } == [
            "photo /Trip c.jpg", "photo  a.jpg", "companion  a.MOV", "photo  b.jpg",
        ])
        #expect(plan.otherFiles == 2)
        #expect(plan.jobs.allSatisfy { !$0.replacesSource })
    }

    @Test func loosePhotosAndProblems() throws {
        let scratch = try ScratchDirectory()
        try touch(scratch.sub("IMG_1.heic"))
        try touch(scratch.sub("IMG_1.mov"))
        try touch(scratch.sub("doc.pdf"))
        let inputs = ["IMG_1.heic", "IMG_1.mov", "doc.pdf", "gone.jpg"].map { FilePath(scratch.sub($0)) }
        let beside = try PhotoPlan.make(inputs: inputs, destination: .beside, format: .webp)
        #expect(beside.jobs.map(\.name.displayName) == ["IMG_1 (compressed).webp"])
        #expect(beside.jobs.first?.keptName?.displayName == "IMG_1 (compressed).heic")
        #expect(beside.problems.map(\.code) == [.notAnArchive, .inputUnreadable])

        let out = FilePath(scratch.sub("out"))
        let elsewhere = try PhotoPlan.make(inputs: Array(inputs.prefix(2)), destination: .folder(out), format: .jpeg)
        #expect(elsewhere.jobs.map { "\($0.kind) \($0.name.displayName)" } == ["photo IMG_1.jpg", "companion IMG_1.mov"])
        #expect(elsewhere.jobs.allSatisfy { $0.folder == out })

        let replace = try PhotoPlan.make(inputs: Array(inputs.prefix(2)), destination: .replace, format: .jpeg)
        #expect(replace.jobs.count == 1 && replace.jobs[0].replacesSource && replace.jobs[0].keptName == nil)
    }
}
