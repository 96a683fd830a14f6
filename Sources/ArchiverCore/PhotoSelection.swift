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

        public init(path: FilePath, size: Int64) {
            self.path = path
            self.size = size
        }

        public var name: String { path.lastComponent?.string ?? path.string }
        /// Given to a run: selected and readable.
        public var included: Bool { selected && status != .unreadable }
    }

    public private(set) var photos: [Photo] = []
    private var index: [FilePath: Int] = [:]

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
        photos.append(Photo(path: path, size: size))
        index[path] = photos.count - 1
        return photos.count - 1
    }

    public func position(of path: FilePath) -> Int? { index[path] }

    public subscript(position: Int) -> Photo {
        get { photos[position] }
        set { photos[position] = newValue }
    }

    /// One `estimate` event of `--estimate`: the photo's status and the size of its copy. A photo the walk did
    /// not find is added (the engine's plan is the authority on what is a photo).
    @discardableResult
    public mutating func estimate(path: FilePath, size: Int64, status: Status, estimatedSize: Int64?, width: Int?, height: Int?) -> Int {
        let at = add(path: path, size: size)
        photos[at].size = size
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

    public mutating func selectAll(_ on: Bool) {
        for at in photos.indices { select(at, on) }
    }

    // MARK: - Totals

    public struct Totals: Equatable, Sendable {
        public var count = 0
        public var bytes: Int64 = 0
        /// The estimated size of the copies; nil while some selected photo has no estimate yet.
        public var estimated: Int64?
        public var unreadable = 0

        public init(count: Int = 0, bytes: Int64 = 0, estimated: Int64? = nil, unreadable: Int = 0) {
            self.count = count
            self.bytes = bytes
            self.estimated = estimated
            self.unreadable = unreadable
        }
    }

    public var totals: Totals {
        var totals = Totals()
        var estimated: Int64? = 0
        for photo in photos {
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
