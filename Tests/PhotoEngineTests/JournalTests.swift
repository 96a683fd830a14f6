import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import PhotoEngine

/// The resume journal's format: any path on one line, a torn last line ignored, the same batch the same file.
@Suite struct PhotoJournalTests {
    private func entry(_ source: String, _ output: String, size: Int64 = 100) -> PhotoJournal.Entry {
        PhotoJournal.Entry(PhotoItem(source: FilePath(source), output: FilePath(output), inputBytes: 1000, outputBytes: size,
                                     outcome: .compressed, width: 40, height: 30, outWidth: 20, outHeight: 15))
    }

    @Test func linesCarryAnyPath() {
        let odd = entry("/a/tab\there/100%.jpg", "/b/new\nline.jpg")
        let bytes = Array("archiver-photos-journal 1\n".utf8) + PhotoJournal.line(["root", "/a", "/out/a"]) + PhotoJournal.line(odd)
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 3, "one line each")
        let contents = PhotoJournal.parse(bytes)
        #expect(contents.roots == [FilePath("/a"): FilePath("/out/a")])
        #expect(contents.entries[FilePath("/a/tab\there/100%.jpg")] == odd)
    }

    @Test func aTornLastLineIsIgnoredAndTheLastLineWins() {
        let first = PhotoJournal.line(entry("/a.jpg", "/o/a.jpg", size: 1))
        let second = PhotoJournal.line(entry("/a.jpg", "/o/a (2).jpg", size: 2))
        let torn = Array(PhotoJournal.line(entry("/b.jpg", "/o/b.jpg")).dropLast(5))
        let contents = PhotoJournal.parse(first + second + torn)
        #expect(contents.entries.count == 1)
        #expect(contents.entries[FilePath("/a.jpg")]?.output == FilePath("/o/a (2).jpg"))
        #expect(PhotoJournal.parse(Array("done\tonly\tthree\n".utf8)).entries.isEmpty, "malformed lines are skipped")
    }

    @Test func theSameBatchHasTheSameJournal() {
        let inputs = [FilePath("/p/Album"), FilePath("/p/x.jpg")]
        let key = PhotoJournal.key(inputs: inputs, destination: .beside, options: PhotoOptions())
        #expect(key.count == 16)
        #expect(key == PhotoJournal.key(inputs: inputs, destination: .beside, options: PhotoOptions()))
        #expect(key != PhotoJournal.key(inputs: inputs, destination: .beside, options: PhotoOptions(quality: 80)))
        #expect(key != PhotoJournal.key(inputs: inputs.reversed(), destination: .beside, options: PhotoOptions()))
        #expect(key != PhotoJournal.key(inputs: inputs, destination: .folder("/out"), options: PhotoOptions()))
        let state = FilePath("/home/u/.local/state")
        #expect(PhotoJournal.location(inputs: inputs, destination: .beside, options: PhotoOptions(), stateHome: state)
            == FilePath("/p/.archiver-photos-\(key).journal"))
        #expect(PhotoJournal.location(inputs: inputs, destination: .folder("/out"), options: PhotoOptions(), stateHome: state)
            .removingLastComponent() == FilePath("/out"))
        #expect(PhotoJournal.location(inputs: inputs, destination: .replace, options: PhotoOptions(), stateHome: state)
            .removingLastComponent() == FilePath("/home/u/.local/state/io.github.archiver"))
        // Not a temporary's name: the clean-up of dead runs' leftovers never takes it.
        let name = PhotoJournal.location(inputs: inputs, destination: .beside, options: PhotoOptions(), stateHome: state).lastComponent!
        #expect(TemporaryName.pid(in: Array(name.string.utf8)) == nil)
    }

    /// With a relative `$XDG_STATE_HOME` (ignored, as the XDG spec says), the Compress Photos… window looks for a
    /// `--replace` batch's journal where the tool writes it: both take the state folder from `BaseFolders` and
    /// the folder from `PhotoJournalPlace` (the window: `offerResume`, with the switch on Replace).
    @Test func theWindowLooksWhereTheToolWrites() {
        let environment = ["HOME": "/home/u", "XDG_STATE_HOME": "relative/state"]
        let inputs = [FilePath("/p/Album"), FilePath("/p/x.jpg")]
        for destination in [PhotoDestination.replace, .beside] {
            let state = BaseFolders(environment: environment).state
            let tool = PhotoJournal.location(inputs: inputs, destination: destination, options: PhotoOptions(), stateHome: state)
            let window = PhotoJournalPlace.folder(firstInput: inputs[0], destination: destination, stateHome: state)
            #expect(tool.removingLastComponent() == window)
            #expect(PhotoJournalPlace.isJournal(tool.lastComponent?.string ?? ""))
        }
        let state = BaseFolders(environment: environment).state
        #expect(PhotoJournal.location(inputs: inputs, destination: .replace, options: PhotoOptions(), stateHome: state)
            .removingLastComponent() == "/home/u/.local/state/io.github.archiver")
    }

    @Test func reopeningCutsATornLineAndAppends() throws {
        let scratch = try ScratchDirectory()
        let path = FilePath(scratch.sub("sub/j.journal"))
        let journal = try PhotoJournal(path: path, fresh: true)
        journal.record(entry("/a.jpg", "/o/a.jpg"))
        let handle = try #require(FileHandle(forWritingAtPath: path.string))
        handle.seekToEndOfFile()
        handle.write(Data("done\t/b.jpg\t/o/b".utf8))  // killed mid-line
        try handle.close()
        let again = try PhotoJournal(path: path, fresh: false)
        again.record(entry("/c.jpg", "/o/c.jpg"))
        let contents = try #require(PhotoJournal.load(path))
        #expect(Set(contents.entries.keys) == [FilePath("/a.jpg"), FilePath("/c.jpg")])
        let fresh = try PhotoJournal(path: path, fresh: true)
        #expect(PhotoJournal.load(path)?.entries.isEmpty == true)
        fresh.remove()
        #expect(PhotoJournal.load(path) == nil)
    }
}
