import ArchiverCore
import SystemPackage
import Testing

struct PhotoSelectionTests {
    /// /p/Album/a.jpg (1000), /p/Album/Old/b.heic (2000), /p/Album/c.png (3000), /p/single.jpg (4000).
    private func sample() -> PhotoSelection {
        var selection = PhotoSelection()
        selection.add(path: "/p/Album/a.jpg", size: 1000)
        selection.add(path: "/p/Album/Old/b.heic", size: 2000)
        selection.add(path: "/p/Album/c.png", size: 3000)
        selection.add(path: "/p/single.jpg", size: 4000)
        return selection
    }

    private let inputs: [(path: FilePath, isDirectory: Bool)] = [("/p/Album", true), ("/p/single.jpg", false)]

    @Test func photoNamesByExtension() {
        #expect(PhotoSelection.isPhotoName("IMG_1.JPG"))
        #expect(PhotoSelection.isPhotoName("a.heic"))
        #expect(PhotoSelection.isPhotoName("scan.tiff"))
        #expect(!PhotoSelection.isPhotoName("notes.txt"))
        #expect(!PhotoSelection.isPhotoName(".jpg"), "a hidden file named only by its extension")
        #expect(!PhotoSelection.isPhotoName("jpg"))
    }

    @Test func addingTwiceKeepsOnePhoto() {
        var selection = sample()
        #expect(selection.add(path: "/p/Album/a.jpg", size: 1000) == 0)
        #expect(selection.photos.count == 4)
    }

    @Test func totalsWaitForEveryEstimateThenAddThem() {
        var selection = sample()
        #expect(selection.totals == PhotoSelection.Totals(count: 4, bytes: 10_000, estimated: nil, unreadable: 0))
        selection.estimate(path: "/p/Album/a.jpg", size: 1000, status: .ok, estimatedSize: 200, width: 4000, height: 3000)
        selection.estimate(path: "/p/Album/Old/b.heic", size: 2000, status: .ok, estimatedSize: 500, width: nil, height: nil)
        selection.estimate(path: "/p/Album/c.png", size: 3000, status: .small, estimatedSize: 2900, width: nil, height: nil)
        #expect(selection.totals.estimated == nil, "single.jpg has no estimate yet")
        selection.estimate(path: "/p/single.jpg", size: 4000, status: .unreadable, estimatedSize: nil, width: nil, height: nil)
        // A small photo's copy is itself; an unreadable one is skipped and counted apart.
        #expect(selection.totals == PhotoSelection.Totals(count: 3, bytes: 6000, estimated: 3700, unreadable: 1))
        #expect(selection[0].width == 4000)
    }

    @Test func unselectingFollowsInTheTotalsAndUnreadableNeverSelects() {
        var selection = sample()
        selection.select(1, false)
        #expect(selection.totals.count == 3)
        #expect(selection.totals.bytes == 8000)
        selection.estimate(path: "/p/single.jpg", size: 4000, status: .unreadable, estimatedSize: nil, width: nil, height: nil)
        selection.selectAll(true)
        #expect(!selection[3].selected)
        #expect(selection.totals.count == 3)
        selection.selectAll(false)
        #expect(selection.totals.count == 0)
        #expect(selection.totals.estimated == nil)
    }

    @Test func theTotalsLineHasPluralsAndTheEstimate() {
        var selection = sample()
        #expect(PhotoSelection.totalsLine(selection.totals).localized == "4 photos, 10.0 kB")
        for photo in selection.photos {
            selection.estimate(path: photo.path, size: photo.size, status: .ok, estimatedSize: photo.size / 5, width: nil, height: nil)
        }
        #expect(PhotoSelection.totalsLine(selection.totals).localized == "4 photos, 10.0 kB → about 2.0 kB")
        selection.selectAll(false)
        selection.select(0, true)
        #expect(PhotoSelection.totalsLine(selection.totals).localized == "1 photo, 1.0 kB → about 200 bytes")
    }

    @Test func aWholeFolderStaysAFolderAndAPartOfOneGoesPhotoByPhoto() {
        var selection = sample()
        #expect(selection.runInputs(inputs) == ["/p/Album", "/p/single.jpg"])
        // An unreadable photo does not split the folder: the engine reports it as it does today.
        selection.estimate(path: "/p/Album/c.png", size: 3000, status: .unreadable, estimatedSize: nil, width: nil, height: nil)
        #expect(selection.runInputs(inputs) == ["/p/Album", "/p/single.jpg"])
        selection.select(0, false)
        #expect(selection.runInputs(inputs) == ["/p/Album/Old/b.heic", "/p/single.jpg"])
        selection.select(3, false)
        #expect(selection.runInputs(inputs) == ["/p/Album/Old/b.heic"])
        // A folder whose name starts like another's is not inside it.
        var other = PhotoSelection()
        other.add(path: "/p/Album 2/x.jpg", size: 1)
        #expect(other.runInputs(inputs) == ["/p/Album 2/x.jpg"])
    }

    @Test func suggestionsOrderTheGridAndEstimatesClearWhenTheSettingsChange() {
        var selection = sample()
        selection.reorder(["/p/single.jpg", "/p/Album/c.png"])
        #expect(selection.photos.map(\.name) == ["single.jpg", "c.png", "a.jpg", "b.heic"])
        #expect(selection.position(of: "/p/Album/a.jpg") == 2)
        selection.estimate(path: "/p/Album/a.jpg", size: 1000, status: .ok, estimatedSize: 200, width: nil, height: nil)
        selection.estimate(path: "/p/single.jpg", size: 4000, status: .unreadable, estimatedSize: nil, width: nil, height: nil)
        selection.clearEstimates()
        #expect(selection[2].status == .pending)
        #expect(selection[2].estimatedSize == nil)
        #expect(selection[0].status == .unreadable, "damage does not depend on the settings")
    }

    @Test func finishedPhotosAreTheOnesToCompare() {
        var selection = sample()
        #expect(selection.finished(source: "/p/Album/a.jpg", output: "/p/Compressed - Album/a.jpg", size: 300, outWidth: 1500, outHeight: 1125, failed: false) == 0)
        #expect(selection.finished(source: "/p/single.jpg", output: nil, size: nil, outWidth: nil, outHeight: nil, failed: true) == 3)
        #expect(selection.finished(source: "/elsewhere.jpg", output: nil, size: nil, outWidth: nil, outHeight: nil, failed: false) == nil)
        #expect(selection.finishedPositions == [0])
        #expect(selection[0].outputWidth == 1500)
    }

    @Test func photosAreKeptByTheirBytes() {
        // café.jpg and cafè.jpg in Latin-1: as text both read "caf\u{FFFD}.jpg", as paths they are two photos.
        let e9 = FilePath(bytes: Array("/p/caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let e8 = FilePath(bytes: Array("/p/caf".utf8) + [0xE8] + Array(".jpg".utf8))
        var selection = PhotoSelection()
        #expect(selection.add(path: e9, size: 1) == 0)
        #expect(selection.add(path: e8, size: 2) == 1)
        #expect(selection.finished(source: e8, output: "/p/out.jpg", size: 1, outWidth: nil, outHeight: nil, failed: false) == 1)
        #expect(selection[1].path.bytes == e8.bytes)
        #expect(selection.runInputs([("/p", true)]) == ["/p"])
        selection.select(0, false)
        #expect(selection.runInputs([("/p", true)]).map(\.bytes) == [e8.bytes])
    }
}
