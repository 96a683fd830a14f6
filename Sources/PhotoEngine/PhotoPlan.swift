import ArchiverCore
import Glibc
import Platform
import SystemPackage

/// One file of a batch: where it comes from and where its copy goes.
public struct PhotoJob: Sendable {
    public enum Kind: Sendable { case photo, companion }
    public var kind: Kind
    public var source: FilePath
    /// The folder the copy goes into (created when needed).
    public var folder: FilePath
    /// The copy's name, numbered when taken.
    public var name: [UInt8]
    /// The name when the photo is copied as is (nil under `--replace`: the original simply stays).
    public var keptName: [UInt8]?
    public var bytes: Int64
    /// The original goes to the trash once its copy is ready.
    public var replacesSource: Bool
}

/// The files a batch will handle, found before anything is written (so that a destination inside an
/// input is never walked), and the problems found on the way.
public struct PhotoPlan: Sendable {
    public var jobs: [PhotoJob] = []
    /// What "Open folder" shows: each input's mirror folder, or the copy of a loose photo.
    public var roots: [FilePath] = []
    /// Folders this plan created (the mirror roots), removed again if they stay empty.
    public var createdFolders: [FilePath] = []
    /// Inputs that are missing or not photos, named by the errors.
    public var problems: [ArchiverError] = []
    /// Files inside folders that are neither photos nor their companions, left alone.
    public var otherFiles = 0

    public var photoCount: Int { jobs.count { $0.kind == .photo } }

    /// Walks the inputs. Mirror roots are claimed here (`Compressed - Album`, else `… (2)`), so that two
    /// runs side by side never share one.
    /// - Parameters:
    ///   - reusing: mirror roots an interrupted run of the same batch claimed (input → root), used again
    ///     where they still exist.
    ///   - claimed: told each folder input and the root about to be claimed for it, before it is made (the
    ///     resume journal), so that a kill never leaves a claimed folder that a resumed run does not know.
    public static func make(
        inputs: [FilePath], destination: PhotoDestination, format: PhotoFormat, reusing: [FilePath: FilePath] = [:],
        claimed: (FilePath, FilePath) -> Void = { _, _ in }
    ) throws(ArchiverError) -> PhotoPlan {
        var plan = PhotoPlan()
        var destination = destination
        if case .folder(let folder) = destination { destination = .folder(folder.madeAbsolute) }
        do throws(ArchiverError) {
            try plan.add(inputs, destination: destination, format: format, reusing: reusing, claimed: claimed)
        } catch {
            plan.removeEmptyFolders()
            throw error
        }
        return plan
    }

    private mutating func add(
        _ inputs: [FilePath], destination: PhotoDestination, format: PhotoFormat, reusing: [FilePath: FilePath],
        claimed: (FilePath, FilePath) -> Void
    ) throws(ArchiverError) {
        for input in inputs {
            let input = input.madeAbsolute
            // A link the person chose is followed (its target is read, its name names the copy); links
            // inside folders are not.
            let info = FileSystem.status(input).flatMap { info in
                FileSystem.isSymlink(info) ? FileSystem.resolve(input).flatMap(FileSystem.status) : info
            }
            guard let info, let name = input.lastComponent?.bytes else {
                problems.append(
                    ArchiverError(.inputUnreadable, tr("“%@” does not exist.", input), hint: tr("Check the name."), file: input))
                continue
            }
            let parent = input.removingLastComponent()
            if FileSystem.isDirectory(info) {
                let root: FilePath
                let reused = reusing[input].flatMap { FileSystem.status($0).map(FileSystem.isDirectory) == true ? $0 : nil }
                switch destination {
                case .beside:
                    if let reused {
                        root = reused
                    } else {
                        root = try Self.claimFolder(PhotoNaming.mirrorFolderName(name), in: parent) { claimed(input, $0) }
                    }
                case .folder(let folder):
                    try FileSystem.makeDirectories(folder)
                    if let reused { root = reused } else { root = try Self.claimFolder(name, in: folder) { claimed(input, $0) } }
                case .replace: root = input
                }
                if root != input {
                    createdFolders.append(root)
                }
                roots.append(root)
                try walk(input, into: root, replace: destination == .replace, format: format)
            } else if FileSystem.isRegular(info) {
                addLoose(input, name: name, parent: parent, bytes: Int64(info.st_size), destination: destination, format: format)
            } else {
                problems.append(ArchiverError(.notAnArchive, tr("“%@” is not a photo.", input), file: input))
            }
        }
    }

    private mutating func addLoose(
        _ input: FilePath, name: [UInt8], parent: FilePath, bytes: Int64, destination: PhotoDestination, format: PhotoFormat
    ) {
        guard PhotoNaming.isPhoto(name) else {
            let (_, ext) = PhotoNaming.stemAndExtension(name)
            if PhotoNaming.companionExtensions.contains(ext) {
                // A Live Photo's video chosen with its still: beside it already, or copied with it.
                if case .folder(let folder) = destination {
                    jobs.append(PhotoJob(kind: .companion, source: input, folder: folder, name: name, keptName: name,
                                         bytes: bytes, replacesSource: false))
                }
                return
            }
            problems.append(ArchiverError(
                .notAnArchive, tr("“%@” is not a photo Archiver compresses.", name.displayName),
                hint: PhotoNaming.formatsHint, file: input))
            return
        }
        switch destination {
        case .beside:
            jobs.append(PhotoJob(kind: .photo, source: input, folder: parent, name: PhotoNaming.besideName(name, format: format),
                                 keptName: PhotoNaming.keptName(name, beside: true), bytes: bytes, replacesSource: false))
            roots.append(parent.appending(bytes: PhotoNaming.besideName(name, format: format)))
        case .folder(let folder):
            jobs.append(PhotoJob(kind: .photo, source: input, folder: folder, name: PhotoNaming.copyName(name, format: format),
                                 keptName: name, bytes: bytes, replacesSource: false))
            roots.append(folder.appending(bytes: PhotoNaming.copyName(name, format: format)))
        case .replace:
            jobs.append(PhotoJob(kind: .photo, source: input, folder: parent, name: PhotoNaming.copyName(name, format: format),
                                 keptName: nil, bytes: bytes, replacesSource: true))
            roots.append(input)
        }
    }

    /// Adds the photos of `folder` and its subfolders, their copies at the same relative place under `root`.
    /// Hidden entries and symlinks are skipped: junk, and no loops.
    private mutating func walk(_ folder: FilePath, into root: FilePath, replace: Bool, format: PhotoFormat) throws(ArchiverError) {
        let names = try FileSystem.entries(of: folder).filter { !PhotoNaming.isHidden($0) }.sorted { $0.lexicographicallyPrecedes($1) }
        var files: [([UInt8], stat)] = []
        for name in names {
            guard let info = FileSystem.status(folder.appending(bytes: name)) else { continue }
            if FileSystem.isDirectory(info) {
                try walk(folder.appending(bytes: name), into: root.appending(bytes: name), replace: replace, format: format)
            } else if FileSystem.isRegular(info) {
                files.append((name, info))
            }
        }
        let kinds = PhotoNaming.classify(files.map(\.0))
        for ((name, info), kind) in zip(files, kinds) {
            let source = folder.appending(bytes: name)
            switch kind {
            case .photo:
                jobs.append(PhotoJob(
                    kind: .photo, source: source, folder: root, name: PhotoNaming.copyName(name, format: format),
                    keptName: replace ? nil : name, bytes: Int64(info.st_size), replacesSource: replace))
            case .companion where !replace:
                jobs.append(PhotoJob(kind: .companion, source: source, folder: root, name: name, keptName: name,
                                     bytes: Int64(info.st_size), replacesSource: false))
            case .companion, .other:
                if kind == .other { otherFiles += 1 }
            }
        }
    }

    /// Creates `name` in `parent`, or `name (2)`, … when taken; never an existing folder.
    /// - Parameter announce: told a free name just before it is made.
    static func claimFolder(_ name: [UInt8], in parent: FilePath, announce: (FilePath) -> Void = { _ in }) throws(ArchiverError)
        -> FilePath
    {
        for attempt in 1...10_000 {
            let candidate = parent.appending(bytes: ArchiveNaming.numbered(name, isDirectory: true, attempt: attempt))
            // A name taken is never announced: a resumed run must not take someone else's folder for its own.
            if FileSystem.status(candidate) != nil { continue }
            announce(candidate)
            if candidate.withPlatformString({ mkdir($0, 0o777) }) == 0 { return candidate }
            if errno != EEXIST {
                var error = FileSystem.destinationError(errno, parent)
                error.hint = tr("Choose where the copies go with --output DIR.")
                throw error
            }
        }
        throw ArchiverError(.destination, tr("No free name for “%1$@” in “%2$@”.", name.displayName, parent))
    }
}
