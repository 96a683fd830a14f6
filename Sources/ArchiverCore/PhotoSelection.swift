import SystemPackage

/// The Compress Photos… window's photos: what each is, its estimate and outcome, which are selected, the
/// totals line and the inputs a run is given. Pure decisions, without GTK (the window shows them).
public struct PhotoSelection: Sendable {
    public enum Status: String, Sendable {
        /// Not estimated yet.
        case pending
        /// Would get smaller (`ok` of `--estimate`).
        case ok
        /// Would not get meaningfully smaller: its copy is the original's bytes.
        case small
        /// A copy Archiver made before.
        case ours
        /// Damaged or not a photo: shown, never selected, never given to a run.
        case unreadable
    }

    public struct Photo: Sendable, Equatable {
        /// Byte for byte: a Latin-1 name is estimated, compressed and compared as it is on disk.
        public var path: FilePath
        public var size: Int64
        public var status: Status = .pending
        public var estimatedSize: Int64?
        public var width: Int?
        public var height: Int?
        public var selected = true
        /// After a run: the copy and its size (nil until its `photo` event).
        public var output: FilePath?
        public var outputSize: Int64?
        public var outputWidth: Int?
        public var outputHeight: Int?
        public var failed = false
        /// What its metadata says (nil until its estimate came: read with it).
        public var facts: PhotoFacts?
        /// The filter shows it.
        public internal(set) var shown = true
        /// Its name as the name filter compares it.
        public let nameKey: String

        public init(path: FilePath, size: Int64) {
            self.path = path
            self.size = size
            nameKey = PhotoFilter.key(path.lastComponent?.string ?? path.string)
        }

        public var name: String { path.lastComponent?.string ?? path.string }
        /// Given to a run: selected, shown by the filter and readable.
        public var included: Bool { selected && shown && status != .unreadable }
    }

    public private(set) var photos: [Photo] = []
    private var index: [FilePath: Int] = [:]
    /// The filter the photos are shown by, and the day its "last 30 days" counted back from.
    public private(set) var filter = PhotoFilter()
    private var today = 0

    public init() {}

    /// The extensions the photo engine reads (`compress-photos-with-archiver --help`), lower case.
    public static let extensions: Set<String> = ["jpg", "jpeg", "jpe", "jfif", "heic", "heif", "hif", "avif", "png", "webp", "tif", "tiff"]

    /// Whether a file is a photo by its name (the folder walk: the engine decides on the content).
    public static func isPhotoName(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// Adds a photo unless it is there already; returns its position.
    @discardableResult
    public mutating func add(path: FilePath, size: Int64) -> Int {
        if let known = index[path] { return known }
        var photo = Photo(path: path, size: size)
        photo.shown = !filter.isActive || filter.matches(photo, today: today)
        photos.append(photo)
        index[path] = photos.count - 1
        return photos.count - 1
    }

    public func position(of path: FilePath) -> Int? { index[path] }

    public subscript(position: Int) -> Photo {
        get { photos[position] }
        set { photos[position] = newValue }
    }

    /// One `estimate` event of `--estimate`: the photo's status, the size of its copy and what its metadata
    /// says. A photo the walk did not find is added (the engine's plan is the authority on what is a photo).
    /// Whether the filter shows it is decided again by `refilter`.
    @discardableResult
    public mutating func estimate(
        path: FilePath, size: Int64, status: Status, estimatedSize: Int64?, width: Int?, height: Int?, facts: PhotoFacts? = nil
    ) -> Int {
        let at = add(path: path, size: size)
        photos[at].size = size
        if let facts { photos[at].facts = facts }
        photos[at].status = status
        photos[at].width = width
        photos[at].height = height
        // A photo kept as it is (small, ours) stays its size; an unreadable one makes nothing.
        photos[at].estimatedSize = status == .unreadable ? nil : (status == .ok ? estimatedSize : size)
        if status == .unreadable { photos[at].selected = false }
        return at
    }

    /// Forgets every estimate (the settings changed: a new `--estimate` runs).
    public mutating func clearEstimates() {
        for at in photos.indices where photos[at].status != .unreadable {
            photos[at].status = .pending
            photos[at].estimatedSize = nil
        }
    }

    /// Puts the photos in `order` (paths; the suggestions' order, largest saving first), the rest after.
    public mutating func reorder(_ order: [FilePath]) {
        var rank: [FilePath: Int] = [:]
        for (at, path) in order.enumerated() where rank[path] == nil { rank[path] = at }
        photos = photos.enumerated().sorted { a, b in
            (rank[a.element.path] ?? order.count + a.offset, a.offset) < (rank[b.element.path] ?? order.count + b.offset, b.offset)
        }.map(\.element)
        index = [:]
        for (at, photo) in photos.enumerated() { index[photo.path] = at }
    }

    public mutating func select(_ position: Int, _ on: Bool) {
        photos[position].selected = on && photos[position].status != .unreadable
    }

    /// Selects (or unselects) the photos the filter shows.
    public mutating func selectAll(_ on: Bool) {
        for at in photos.indices where photos[at].shown { select(at, on) }
    }

    // MARK: - The filter

    /// How many photos a new filter hid and showed: none of one kind lets the grid look again only at the
    /// photos it showed (more strict) or only at those it hid (less strict).
    public struct FilterChange: Equatable, Sendable {
        public var hidden = 0
        public var shown = 0
        public init(hidden: Int = 0, shown: Int = 0) {
            self.hidden = hidden
            self.shown = shown
        }
    }

    /// Shows the photos `filter` matches. `today`: today's day number (`PhotoDate.today`).
    @discardableResult
    public mutating func apply(_ filter: PhotoFilter, today: Int) -> FilterChange {
        self.filter = filter
        self.today = today
        var change = FilterChange()
        let active = filter.isActive
        for at in photos.indices {
            let shown = !active || filter.matches(photos[at], today: today)
            guard shown != photos[at].shown else { continue }
            photos[at].shown = shown
            if shown { change.shown += 1 } else { change.hidden += 1 }
        }
        return change
    }

    /// Decides again whether the filter shows the photo at `position` (its metadata came); true when that changed.
    public mutating func refilter(_ position: Int) -> Bool {
        let shown = !filter.isActive || filter.matches(photos[position], today: today)
        guard shown != photos[position].shown else { return false }
        photos[position].shown = shown
        return true
    }

    /// The positions of the photos shown, in order.
    public var shownPositions: [Int] { photos.indices.filter { photos[$0].shown } }

    // MARK: - Totals

    public struct Totals: Equatable, Sendable {
        public var count = 0
        public var bytes: Int64 = 0
        /// The estimated size of the copies; nil while some selected photo has no estimate yet.
        public var estimated: Int64?
        public var unreadable = 0
        /// The photos the filter shows, and all of them.
        public var shown = 0
        public var all = 0

        public init(count: Int = 0, bytes: Int64 = 0, estimated: Int64? = nil, unreadable: Int = 0, shown: Int? = nil, all: Int? = nil) {
            self.count = count
            self.bytes = bytes
            self.estimated = estimated
            self.unreadable = unreadable
            self.all = all ?? count + unreadable
            self.shown = shown ?? self.all
        }
    }

    public var totals: Totals {
        var totals = Totals()
        var estimated: Int64? = 0
        totals.all = photos.count
        for photo in photos where photo.shown {
            totals.shown += 1
            if photo.status == .unreadable { totals.unreadable += 1 }
            guard photo.included else { continue }
            totals.count += 1
            totals.bytes += photo.size
            if let known = estimated, let guess = photo.estimatedSize { estimated = known + guess } else { estimated = nil }
        }
        totals.estimated = totals.count > 0 ? estimated : nil
        return totals
    }

    /// "48 photos, 212 MB → about 31 MB", or without the estimate while it runs.
    public static func totalsLine(_ totals: Totals) -> Text {
        guard let estimated = totals.estimated else {
            // TRANSLATORS: the Compress Photos… window's totals while the estimate runs: "48 photos, 212 MB".
            return ntr("%1$ld photo, %2$@", "%1$ld photos, %2$@", totals.count, .bytes(totals.bytes))
        }
        // TRANSLATORS: the Compress Photos… window's totals: "48 photos, 212 MB → about 31 MB" (the estimate of the copies).
        return ntr("%1$ld photo, %2$@ → about %3$@", "%1$ld photos, %2$@ → about %3$@", totals.count, .bytes(totals.bytes), .bytes(estimated))
    }

    /// With a filter that hides photos: "Showing 12 of 48 photos. Only those are compressed."; nil without.
    public static func filterLine(_ totals: Totals) -> Text? {
        guard totals.shown < totals.all else { return nil }
        // TRANSLATORS: the Compress Photos… window, when its filters hide some photos: the run compresses only those shown.
        return ntr(
            "Showing %1$ld of %2$ld photos. Only the photos shown are compressed.",
            "Showing %1$ld of %2$ld photos. Only the photos shown are compressed.", totals.shown, totals.all)
    }

    // MARK: - The run's inputs

    /// What a run is given: a folder the person named whose photos are all included stays that folder (its
    /// copies go to "Compressed - Album" with the subfolders mirrored), otherwise each included photo by itself.
    /// - Parameter inputs: what the window was opened with, with whether each is a folder.
    public func runInputs(_ inputs: [(path: FilePath, isDirectory: Bool)]) -> [FilePath] {
        var result: [FilePath] = []
        var covered = Set<FilePath>()
        for input in inputs where input.isDirectory {
            let inside = photos.filter { $0.path != input.path && $0.path.starts(with: input.path) }
            guard !inside.isEmpty, inside.allSatisfy({ $0.included || $0.status == .unreadable }) else { continue }
            result.append(input.path)
            for photo in inside { covered.insert(photo.path) }
        }
        for photo in photos where photo.included && !covered.contains(photo.path) { result.append(photo.path) }
        return result
    }

    // MARK: - The run's events

    /// One `photo` event: the copy made (or kept, or the failure). Returns the photo's position.
    @discardableResult
    public mutating func finished(source: FilePath, output: FilePath?, size: Int64?, outWidth: Int?, outHeight: Int?, failed: Bool) -> Int? {
        guard let at = index[source] else { return nil }
        photos[at].output = output
        photos[at].outputSize = size
        photos[at].outputWidth = outWidth
        photos[at].outputHeight = outHeight
        photos[at].failed = failed
        return at
    }

    /// The photos with a copy, for the before/after view.
    public var finishedPositions: [Int] { photos.indices.filter { photos[$0].output != nil && !photos[$0].failed } }
}
