import ArchiverCore
import Glibc
import SystemPackage

/// One walk over a selection that finds what the leave-out rules match: per rule its items and bytes (for
/// the Compress… window's switches and `--json`), and the items the chosen rules leave out. Touches
/// nothing but the selection (and `git`, asked once per work tree); safe to run off the main thread.
package enum LeaveOutScan {
    package struct Result: Sendable {
        package var report: LeaveOutReport
        /// The absolute paths of the items left out whose folder is not: the walk that writes the archive
        /// skips them and everything under them.
        package var leftOut: Set<[UInt8]>
        /// What the result should say besides: git not installed, ….
        package var notes: [JobWarning]
        /// Whether a selected folder is in a git work tree (the window offers "Follow .gitignore" then);
        /// known only when `.gitignore` or `.caches` was considered.
        package var inGitWorkTree: Bool
        /// Up to `Sample.size` regular files that are kept, spread over the walk: what the window compresses a
        /// little of to estimate the archive's size.
        package var sample: [[UInt8]] = []
    }

    /// How often a partial report is handed out: the window's live totals (issue 31: the first figures within
    /// 0.5 s of the scan's start, whatever the size of the tree).
    package static let reportEvery: Duration = .milliseconds(100)

    /// Scans `inputs`.
    /// - Parameters:
    ///   - inputs: absolute paths, as the compression plan has them. Each is kept, whatever the rules.
    ///   - choice: the rules that leave items out.
    ///   - considering: the rules to count besides (the window counts all); `choice.rules` always are.
    ///   - environment: where the user's git ignore file is.
    ///   - control: checked as the walk goes; its stop ends the scan with its error.
    ///   - progress: called with partial reports as the walk goes (every `reportEvery`), on the scanning thread.
    ///   - reportEvery: the time between partial reports, the first one included.
    /// - Throws: `ArchiverError` from `control` only: an unreadable folder is left for the writer to report.
    package static func run(
        _ inputs: [FilePath], choice: LeaveOutChoice, considering: Set<LeaveOutRule> = [],
        environment: ProcessEnvironment = .current, control: JobControl? = nil,
        reportEvery: Duration = reportEvery, progress: ((LeaveOutReport) -> Void)? = nil
    ) throws(ArchiverError) -> Result {
        let walker = Walker(
            choice: choice, considering: considering.union(choice.rules), environment: environment, control: control,
            reportEvery: reportEvery, progress: progress)
        for input in inputs { try walker.scan(input) }
        walker.report.finished = true
        progress?(walker.report)
        return Result(
            report: walker.report, leftOut: walker.leftOut, notes: walker.notes, inGitWorkTree: !walker.trees.isEmpty,
            sample: walker.sample.paths)
    }
}

private let slash = UInt8(ascii: "/")

/// The walk's state; a class so that the recursion shares one report.
private final class Walker {
    let choice: LeaveOutChoice
    let considering: Set<LeaveOutRule>
    let environment: ProcessEnvironment
    let control: JobControl?
    let progress: ((LeaveOutReport) -> Void)?
    let reportEvery: Duration
    var nextReport: ContinuousClock.Instant
    var sample = Sample()
    let builtIn: Bool
    let patterns: IgnoreList?
    var report = LeaveOutReport()
    var leftOut: Set<[UInt8]> = []
    var notes: [JobWarning] = []
    var seen = 0
    /// Work trees by root, read once however many inputs they hold.
    var trees: [[UInt8]: GitWorkTree] = [:]

    init(
        choice: LeaveOutChoice, considering: Set<LeaveOutRule>, environment: ProcessEnvironment, control: JobControl?,
        reportEvery: Duration, progress: ((LeaveOutReport) -> Void)?
    ) {
        self.reportEvery = reportEvery
        nextReport = .now + reportEvery
        self.choice = choice
        self.considering = considering
        self.environment = environment
        self.control = control
        self.progress = progress
        builtIn = !considering.isDisjoint(with: [.vcs, .nodeModules, .caches, .editor, .junk])
        patterns = choice.patterns.isEmpty ? nil : IgnoreList(base: [], patterns: choice.patterns)
    }

    /// Where a folder sits, for the lists that decide its entries.
    struct Place {
        var path: FilePath
        /// `path`'s bytes, to which each entry's name is appended (a `FilePath` an entry costs more than
        /// the rest of the scan).
        var bytes: [UInt8]
        /// From the selected folder, for `.archiverignore` and `--exclude` (empty at the folder itself).
        var inSelection: [UInt8]
        var archiverLists: IgnoreStack
        var git: GitPlace?
        /// The rules that matched the folder or one above it: everything inside matches them too.
        var inherited: Set<LeaveOutRule>
        /// The rule that left out the folder or one above it.
        var leftOutBy: LeaveOutRule?
    }

    struct GitPlace {
        var tree: GitWorkTree
        var relative: [UInt8]
        var lists: IgnoreStack
        /// Whether git ignores the folder or one above it: then it ignores whatever inside is untracked.
        var ignored: Bool
    }

    func scan(_ input: FilePath) throws(ArchiverError) {
        guard let info = FileSystem.status(input) else { return }
        report.kept.add(bytes: FileSystem.isRegular(info) ? Int64(info.st_size) : 0)
        guard FileSystem.isDirectory(info) else { return }
        var git: GitPlace?
        if considering.contains(.gitignore) || considering.contains(.caches), let tree = workTree(for: input),
            let relative = tree.relative(input)
        {
            // The `.gitignore` files from the top of the work tree down to the selected folder's parent.
            var lists = IgnoreStack(tree.repositoryLists)
            var folder = tree.root
            var folderRelative: [UInt8] = []
            let parts = relative.split(separator: slash)
            for part in parts.dropLast() {
                if let list = tree.list(of: folder, relative: folderRelative) { lists.lists.insert(list, at: 0) }
                folder = folder.appending(bytes: Array(part))
                folderRelative = folderRelative.isEmpty ? Array(part) : folderRelative + [slash] + part
            }
            if !parts.isEmpty, let list = tree.list(of: folder, relative: folderRelative) { lists.lists.insert(list, at: 0) }
            git = GitPlace(tree: tree, relative: relative, lists: lists, ignored: false)
        }
        try visit(
            Place(path: input, bytes: input.bytes, inSelection: [], archiverLists: IgnoreStack(), git: git, inherited: [], leftOutBy: nil))
    }

    private func workTree(for folder: FilePath) -> GitWorkTree? {
        guard let tree = GitWorkTree.containing(folder, isDirectory: true, environment: environment) else { return nil }
        if let known = trees[tree.root.bytes] { return known }
        trees[tree.root.bytes] = tree
        if let note = tree.note, considering.contains(.gitignore), !notes.contains(where: { $0.code == note.code }) {
            notes.append(note)
        }
        return tree
    }

    private func visit(_ place: Place) throws(ArchiverError) {
        guard let names = try? FileSystem.entries(of: place.path) else { return }
        let siblings = Set(names)
        var archiverLists = place.archiverLists
        if let text = FileSystem.wholeFile(place.path.appending(".archiverignore"), limit: 1 << 20) {
            archiverLists.lists.insert(IgnoreList(base: place.inSelection, patterns: IgnorePattern.lines(of: text)), at: 0)
        }
        var gitLists = place.git?.lists
        // git reads no `.gitignore` inside a folder it ignores: nothing untracked there can come back.
        if let git = place.git, !git.ignored, let list = git.tree.list(of: place.path, relative: git.relative) {
            gitLists?.lists.insert(list, at: 0)
        }
        // A folder's own entries first, then its subfolders: what sits at the top (node_modules, .git, junk) is
        // in the first figures, not only once a large sibling has been walked.
        var subfolders: [Place] = []
        for name in names {
            seen += 1
            if seen % 256 == 0 { try control?.check() }
            if seen % 32 == 0, progress != nil {
                let now = ContinuousClock.now
                if now >= nextReport {
                    progress?(report)
                    nextReport = now + reportEvery
                }
            }
            let path = place.bytes + [slash] + name
            var info = stat()
            guard withCString(path, { lstat($0, &info) }) == 0 else { continue }
            let mode = info.st_mode & S_IFMT
            guard mode == S_IFREG || mode == S_IFDIR || mode == S_IFLNK else { continue }
            let isDirectory = mode == S_IFDIR
            // Made only when a list will read it, or a folder's entries may need it.
            let needsInSelection = isDirectory || !archiverLists.lists.isEmpty || patterns != nil
            let inSelection = !needsInSelection ? [] : place.inSelection.isEmpty ? name : place.inSelection + [slash] + name
            var matched = place.inherited

            var childGit: GitPlace?
            if let git = place.git, let lists = gitLists {
                let relative = git.relative.isEmpty ? name : git.relative + [slash] + name
                let ignoredHere = git.ignored || name == Array(".git".utf8) || lists.isIgnored(relative, isDirectory: isDirectory)
                let ignored = ignoredHere && !(git.tree.tracked?.contains(relative) ?? false)
                if ignored, considering.contains(.gitignore) { matched.insert(.gitignore) }
                if isDirectory { childGit = GitPlace(tree: git.tree, relative: relative, lists: lists, ignored: ignoredHere) }
            }
            if builtIn, BuiltInRules.mayMatch(name) {
                let context = LeaveOutContext(
                    hasSibling: { siblings.contains($0) },
                    hasChild: { child in
                        var info = stat()
                        return withCString(path + [slash] + child) { lstat($0, &info) } == 0
                    },
                    isGitIgnored: { childGit?.ignored ?? false })
                if let rule = BuiltInRules.match(name, isDirectory: isDirectory, context: context), considering.contains(rule) {
                    matched.insert(rule)
                }
            }
            if !archiverLists.lists.isEmpty, archiverLists.isIgnored(inSelection, isDirectory: isDirectory) {
                matched.insert(.archiverignore)
            }
            if let patterns, let pattern = patterns.lastMatch(inSelection, isDirectory: isDirectory), !pattern.negated {
                matched.insert(.pattern)
            }

            let bytes = mode == S_IFREG ? Int64(info.st_size) : 0
            for rule in matched where considering.contains(rule) { report.available[rule, default: .init()].add(bytes: bytes) }
            let leftOutBy = place.leftOutBy ?? matched.intersection(choice.rules).min()
            if let leftOutBy {
                report.leftOut[leftOutBy, default: .init()].add(bytes: bytes)
                if place.leftOutBy == nil { leftOut.insert(path) }
            } else {
                report.kept.add(bytes: bytes)
                if mode == S_IFREG { sample.offer(path) }
            }
            if isDirectory {
                subfolders.append(
                    Place(
                        path: FilePath(bytes: path), bytes: path, inSelection: inSelection, archiverLists: archiverLists,
                        git: childGit, inherited: matched,
                        leftOutBy: leftOutBy))
            }
        }
        for folder in subfolders { try visit(folder) }
    }
}

/// Every n-th file offered, n doubling each time the sample is full (half of it then goes): a sample spread
/// over the whole walk, at most `size` paths, whatever the number of files.
struct Sample {
    static let size = 32
    private(set) var paths: [[UInt8]] = []
    private var stride = 1
    private var offered = 0

    mutating func offer(_ path: [UInt8]) {
        offered += 1
        guard offered % stride == 0 else { return }
        if paths.count == Self.size {
            paths = paths.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            stride *= 2
            guard offered % stride == 0 else { return }
        }
        paths.append(path)
    }
}
