import ArchiverCore
import Glibc
import SystemPackage
import Testing

struct PhotoFilterTests {
    private func date(_ text: String) -> PhotoDate { PhotoDate(parsing: text)! }

    /// Today in these tests: 2024-06-30.
    private let today = PhotoDate.dayNumber(year: 2024, month: 6, day: 30)

    /// /p/Lisbon/IMG_1.jpg (2 MB, 2024-06-20, located, Lisboa, Portugal), /p/Lisbon/IMG_2.jpg (600 kB,
    /// 2023-08-01, Lisboa), /p/Berlin/img_3.heic (7 MB, 2022-01-05, located, Berlin, Germany), /p/Berlin/scan.png
    /// (300 kB, not read yet).
    private func sample() -> PhotoSelection {
        var selection = PhotoSelection()
        let photos: [(String, Int64, PhotoFacts?)] = [
            ("/p/Lisbon/IMG_1.jpg", 2_000_000, PhotoFacts(taken: date("2024:06:20 10:00:00"), located: true, city: "Lisboa", country: "Portugal")),
            ("/p/Lisbon/IMG_2.jpg", 600_000, PhotoFacts(taken: date("2023:08:01 09:00:00"), city: "Lisboa")),
            ("/p/Berlin/img_3.heic", 7_000_000, PhotoFacts(taken: date("2022-01-05T18:30:00+01:00"), located: true, city: "Berlin", state: "Berlin", country: "Germany")),
            ("/p/Berlin/scan.png", 300_000, nil),
        ]
        for (path, size, facts) in photos {
            selection.estimate(path: FilePath(path), size: size, status: .ok, estimatedSize: size / 4, width: nil, height: nil, facts: facts)
        }
        return selection
    }

    private func shown(_ filter: PhotoFilter, in selection: PhotoSelection? = nil) -> [String] {
        var selection = selection ?? sample()
        selection.apply(filter, today: today)
        return selection.shownPositions.map { selection[$0].name }
    }

    @Test func datesAreReadAsCamerasAndXMPWriteThem() {
        #expect(date("2024:04:21 08:03:44").text == "2024-04-21T08:03:44")
        #expect(date("2024-04-21T08:03:44.274+02:00").text == "2024-04-21T08:03:44", "the clock time as written, the zone left")
        #expect(date("2024-04-21").text == "2024-04-21T00:00:00")
        #expect(PhotoDate(parsing: "0000:00:00 00:00:00") == nil, "a camera whose clock was never set")
        #expect(PhotoDate(parsing: "    :  :     :  :  ") == nil)
        #expect(PhotoDate(parsing: "2023-02-29") == nil && PhotoDate(parsing: "2024-02-29") != nil)
        #expect(PhotoDate(parsing: "21.04.2024") == nil)
        #expect(PhotoDate.dayNumber(year: 1970, month: 1, day: 1) == 0)
        #expect(PhotoDate.dayNumber(year: 2000, month: 3, day: 1) == 11_017)
        #expect(date("2024-03-01").dayNumber - date("2024-02-28").dayNumber == 2)
        #expect(date("2024:06:20 10:00:00") < date("2024:06:20 10:00:01"))
    }

    /// A file's time as its local day and clock (the zone is the machine's: only what holds in any zone).
    @Test func aLocalDateFromSecondsCountsDays() throws {
        let start = try #require(PhotoDate.local(seconds: 1_700_000_000))
        let dayLater = try #require(PhotoDate.local(seconds: 1_700_000_000 + 86_400))
        #expect(dayLater.dayNumber == start.dayNumber + 1)
        #expect(abs(start.dayNumber - 1_700_000_000 / 86_400) <= 1, "2023-11-14 in some zone: \(start.text)")
        #expect(abs(PhotoDate.today - Int(time(nil)) / 86_400) <= 1)
    }

    @Test func noFilterShowsEveryPhoto() {
        #expect(shown(PhotoFilter()) == ["IMG_1.jpg", "IMG_2.jpg", "img_3.heic", "scan.png"])
        #expect(!PhotoFilter().isActive)
    }

    @Test func byDateTaken() {
        #expect(shown(PhotoFilter(taken: .lastDays(30))) == ["IMG_1.jpg"])
        #expect(shown(PhotoFilter(taken: .lastDays(11))) == ["IMG_1.jpg"], "2024-06-20 is the 11th day counting today")
        #expect(shown(PhotoFilter(taken: .lastDays(10))) == [])
        #expect(shown(PhotoFilter(taken: .year(2023))) == ["IMG_2.jpg"])
        #expect(shown(PhotoFilter(taken: .between(from: date("2022-01-05"), to: date("2023-08-01")))) == ["IMG_2.jpg", "img_3.heic"],
                "both days included, whatever the time")
        #expect(shown(PhotoFilter(taken: .between(from: date("2023-01-01"), to: nil))) == ["IMG_1.jpg", "IMG_2.jpg"])
        #expect(shown(PhotoFilter(taken: .between(from: nil, to: date("2022-12-31")))) == ["img_3.heic"])
    }

    @Test func aPhotoTakenInTheFutureIsNotInTheLastDays() {
        var selection = sample()
        selection.estimate(path: "/p/x.jpg", size: 1, status: .ok, estimatedSize: 1, width: nil, height: nil,
                           facts: PhotoFacts(taken: date("2024-07-01")))
        #expect(shown(PhotoFilter(taken: .lastDays(30)), in: selection) == ["IMG_1.jpg"])
    }

    @Test func byAlbumLocationPlaceSizeAndName() {
        #expect(shown(PhotoFilter(album: "/p/Berlin")) == ["img_3.heic", "scan.png"])
        #expect(shown(PhotoFilter(location: .with)) == ["IMG_1.jpg", "img_3.heic"])
        #expect(shown(PhotoFilter(location: .without)) == ["IMG_2.jpg"], "scan.png's metadata is not read yet")
        #expect(shown(PhotoFilter(place: "lisboa")) == ["IMG_1.jpg", "IMG_2.jpg"], "any case")
        #expect(shown(PhotoFilter(place: "Germany")) == ["img_3.heic"], "a country")
        #expect(shown(PhotoFilter(size: PhotoFilter.sizeRanges[1])) == ["IMG_2.jpg", "scan.png"])
        #expect(shown(PhotoFilter(size: PhotoFilter.sizeRanges[2])) == ["IMG_1.jpg"])
        #expect(shown(PhotoFilter(size: PhotoFilter.sizeRanges[3])) == ["img_3.heic"])
        #expect(shown(PhotoFilter(name: "img")) == ["IMG_1.jpg", "IMG_2.jpg", "img_3.heic"], "any case")
        #expect(shown(PhotoFilter(name: ".PNG")) == ["scan.png"])
        #expect(shown(PhotoFilter(album: "/p/Lisbon", location: .with, name: "1")) == ["IMG_1.jpg"], "every filter at once")
    }

    @Test func thePhotosMetadataShowsItOnceRead() {
        var selection = sample()
        selection.apply(PhotoFilter(location: .without), today: today)
        #expect(!selection[3].shown)
        selection.estimate(path: "/p/Berlin/scan.png", size: 300_000, status: .ok, estimatedSize: 1, width: nil, height: nil, facts: PhotoFacts())
        let changed = selection.refilter(3)
        #expect(changed)
        #expect(selection[3].shown)
        let again = selection.refilter(3)
        #expect(!again, "nothing changed")
        // A photo added later is shown or hidden by the filter at once.
        let added = selection.add(path: "/p/new.jpg", size: 5)
        #expect(!selection[added].shown)
    }

    @Test func theChangeSaysWhichWayItWent() {
        var selection = sample()
        let changes = [PhotoFilter(name: "img"), PhotoFilter(name: "img_"), PhotoFilter(name: "scan"), PhotoFilter()].map {
            selection.apply($0, today: today)
        }
        #expect(changes == [
            PhotoSelection.FilterChange(hidden: 1, shown: 0), PhotoSelection.FilterChange(),
            PhotoSelection.FilterChange(hidden: 3, shown: 1), PhotoSelection.FilterChange(hidden: 0, shown: 3),
        ])
    }

    @Test func theTotalsAndTheRunFollowTheFilter() {
        var selection = sample()
        selection.apply(PhotoFilter(album: "/p/Lisbon"), today: today)
        let totals = selection.totals
        #expect(totals.count == 2 && totals.bytes == 2_600_000 && totals.estimated == 650_000, "\(totals)")
        #expect(totals.shown == 2 && totals.all == 4)
        #expect(PhotoSelection.filterLine(totals)?.english == "Showing 2 of 4 photos. Only the photos shown are compressed.")
        // The run gets the photos shown, each by itself: its folder holds others.
        #expect(selection.runInputs([("/p", true)]) == ["/p/Lisbon/IMG_1.jpg", "/p/Lisbon/IMG_2.jpg"])
        // Select None and Select All act on the photos shown.
        selection.selectAll(false)
        selection.apply(PhotoFilter(), today: today)
        #expect(selection.totals.count == 2)
        #expect(PhotoSelection.filterLine(selection.totals) == nil)
        #expect(selection.runInputs([("/p", true)]) == ["/p/Berlin/img_3.heic", "/p/Berlin/scan.png"])
    }

    @Test func theChoicesComeFromThePhotos() {
        var selection = sample()
        selection.add(path: "/q/2023/Summer/a.jpg", size: 1)
        selection.add(path: "/q/2024/Summer/b.jpg", size: 1)
        #expect(PhotoFilter.years(selection.photos) == [2024, 2023, 2022])
        #expect(PhotoFilter.places(selection.photos) == ["Berlin", "Germany", "Lisboa", "Portugal"])
        let albums = PhotoFilter.albums(selection.photos)
        #expect(albums.map(\.name) == ["Berlin", "Lisbon", "2023/Summer", "2024/Summer"])
        #expect(albums.map(\.folder) == ["/p/Berlin", "/p/Lisbon", "/q/2023/Summer", "/q/2024/Summer"])
        #expect(PhotoFilter.sizeRanges.map { PhotoFilter.sizeName($0).english } == ["Any size", "Under 1.0 MB", "1.0 MB to 5.0 MB", "Over 5.0 MB"])
    }

    /// Issue 35: on 10,000 photos a filter applies within 0.2 s. Here the pure part, each of five filters
    /// applied and the positions the grid then shows listed, with a bound ten times the target: a debug build
    /// on a loaded CI machine must not fail it, a filter that scans quadratically still does (bench/photo-filter.sh
    /// measures the window against the target itself).
    @Test func tenThousandPhotosFilterQuickly() {
        var selection = PhotoSelection()
        let places = ["Lisboa", "Porto", "Berlin", "Paris", "Wien"]
        for index in 0..<10_000 {
            let at = selection.add(path: FilePath("/photos/\(2015 + index % 10)/IMG_\(index).jpg"), size: Int64(200_000 + index * 1_000))
            selection.estimate(
                path: selection[at].path, size: selection[at].size, status: .ok, estimatedSize: 100_000, width: nil, height: nil,
                facts: PhotoFacts(
                    taken: PhotoDate(year: 2015 + index % 10, month: 1 + index % 12, day: 1 + index % 28), located: index % 3 == 0,
                    city: places[index % 5]))
        }
        let filters = [
            PhotoFilter(taken: .year(2019)), PhotoFilter(location: .with), PhotoFilter(place: "Porto"), PhotoFilter(name: "IMG_12"),
            PhotoFilter(taken: .lastDays(30), size: PhotoFilter.sizeRanges[3]), PhotoFilter(),
        ]
        var counts: [Int] = []
        for filter in filters {
            let clock = ContinuousClock.now
            selection.apply(filter, today: PhotoDate.dayNumber(year: 2024, month: 12, day: 31))
            let positions = selection.shownPositions
            let totals = selection.totals
            let elapsed = ContinuousClock.now - clock
            counts.append(positions.count)
            #expect(totals.shown == positions.count)
            #expect(elapsed < .seconds(2), "\(filter): \(elapsed)")
        }
        #expect(counts == [1000, 3334, 2000, 111, 86, 10_000], "\(counts)")
    }
}
