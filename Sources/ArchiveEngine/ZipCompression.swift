internal import CZlib
import ArchiverCore
import Dispatch
import Glibc
import Platform
import Synchronization
import SystemPackage

/// Compress's zip writer: the tree's items as members of our own container (`ZipContainerWriter`), their
/// data compressed on every core and written in order. Members up to `wholeLimit` are read and deflated
/// whole, several at once, one a worker; a larger one is streamed through `ParallelDeflate` on every
/// worker. Both cut the deflate stream into the same 128 KiB blocks, so the bytes depend neither on the
/// number of workers nor on the way a member went.
///
/// A whole member that deflate made no smaller is stored, as Info-ZIP does; a streamed one stays deflated
/// (its header is out before its size is known, and incompressible data grows by about 0.01 %).
///
/// With a password, each file's compressed bytes are encrypted (WinZip AES, `ZipAES`) by whoever compressed
/// them, its keys derived there too; the salts are drawn in the members' order, so that in a test
/// (`ARCHIVER_TEST_SALT`) the bytes still do not depend on the number of workers. Symlinks, folders and
/// empty files stay plain, as libarchive's writer left them: libarchive 3.6 (our reader, bsdtar) cannot
/// read an encrypted symlink, and opens an encrypted empty file with any password, so that our extractor
/// would check a password on it (the smallest) and take a wrong one.
struct ZipCompression {
    /// "A few MiB": larger members keep every worker busy on their own.
    static let wholeLimit: Int64 = 4 << 20
    /// Input bytes held by whole members in flight, beyond the one being added: with their output, this
    /// bounds the memory to a few tens of MiB whatever the tree.
    static let heldLimit: Int64 = 16 << 20

    let tree: FileTree
    /// `--portable`'s name of each item, nil for one left out; nil: the tree's own names.
    let names: [[UInt8]?]?
    /// zlib's level; nil stores.
    let level: Int32?
    let workers: Int
    let control: JobControl
    /// Encrypts every file; nil: none.
    var password: Secret? = nil

    /// Writes the whole zip, with `comment` in its end record, through `sink` into `folder`; `progress` is
    /// called with the bytes of files done so far.
    func write(into sink: OutputSink, folder: FilePath, comment: [UInt8], progress: (Int64) -> Void) throws(ArchiverError) {
        var writer = ZipContainerWriter(sink: sink, folder: folder)
        var flight: [Job] = []
        var held: Int64 = 0
        var done: Int64 = 0
        let running = DispatchSemaphore(value: workers)
        let (level, password) = (level, password)
        let kits = Kits(level: level)
        var salts = ZipAES.Salts()
        // Whatever is thrown, no worker may still be reading when the job ends.
        defer { for job in flight { job.collect(blocking: true) } }

        func writeOldest(blocking: Bool) throws(ArchiverError) -> Bool {
            guard let job = flight.first, job.collect(blocking: blocking) else { return false }
            flight.removeFirst()
            held -= job.size
            if let error = job.error { throw error }
            try writer.add(job.member, sums: job.sums, data: job.output)
            done += job.kind == .file ? job.size : 0
            progress(done)
            return true
        }

        progress(0)
        for (index, item) in tree.enumerated() {
            try control.check()
            var name = item.nameInArchive
            if let names {
                guard let renamed = names[index] else { continue }
                name = renamed
            }
            if item.kind == .directory, name.last != UInt8(ascii: "/") { name.append(UInt8(ascii: "/")) }
            let size = item.kind == .file ? item.status.size : 0
            let member = ZipContainerWriter.NewMember(
                name: name, mode: item.status.mode, modified: Int64(item.status.modified), owner: item.status.owner,
                group: item.status.group, method: item.kind == .file && level != nil ? 8 : 0, expectedSize: size,
                encrypted: item.kind == .file && size > 0 && password != nil)
            let salt = member.encrypted ? salts.next() : nil
            if item.kind == .file, size > Self.wholeLimit {
                while try writeOldest(blocking: true) {}
                let aes = salt.map { ZipAES(password: password!, salt: $0) }
                try stream(item, as: member, encryptedBy: aes, into: &writer, done: &done, progress: progress)
                continue
            }
            let job = Job(
                member: member, kind: item.kind, size: size, source: item.sourceBytes, link: item.symlinkTarget ?? [],
                sealing: salt.map { (password!, $0) })
            while !flight.isEmpty, flight.count >= workers * 4 || held + size > Self.heldLimit {
                _ = try writeOldest(blocking: true)
            }
            while try writeOldest(blocking: false) {}
            flight.append(job)
            held += size
            if item.kind != .file || workers == 1 {
                job.run(kits)
                job.collected = true
            } else {
                running.wait()
                DispatchQueue.global().async {
                    job.run(kits)
                    running.signal()
                    job.done.signal()
                }
            }
        }
        while try writeOldest(blocking: true) {}
        try writer.finish(comment: comment)
    }

    /// A member too large to hold: its header, then its data deflated on every worker as it is read, then
    /// its sizes and CRC set in the header.
    private func stream(
        _ item: FileTree.Item, as member: ZipContainerWriter.NewMember, encryptedBy aes: ZipAES?, into writer: inout ZipContainerWriter,
        done: inout Int64, progress: (Int64) -> Void
    ) throws(ArchiverError) {
        let file = try InputFile.open(item.source)
        defer { close(file) }
        _ = posix_fadvise(file, 0, 0, POSIX_FADV_SEQUENTIAL)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        let open = try writer.begin(member)
        let deflate = level.map { ParallelDeflate(level: $0, workers: workers) }
        var crc: uLong = 0
        var failure: ArchiverError?
        func written(_ bytes: UnsafeRawBufferPointer) -> Bool {
            do throws(ArchiverError) { try writer.append(bytes) } catch {
                failure = error
                return false
            }
            return true
        }
        func emit(_ bytes: UnsafeRawBufferPointer) -> Bool { aes.map { $0.encrypt(bytes, emit: written) } ?? written(bytes) }
        if let aes, !aes.header.withUnsafeBytes(written) { throw failure ?? outOfMemory() }
        let size = item.status.size
        var read: Int64 = 0
        while read < size {
            try control.check()
            let count = try InputFile.read(file, into: buffer, count: Int(min(Int64(buffer.count), size - read)), at: read, item.source)
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            if let deflate {
                guard deflate.write(chunk, emit: emit) else { throw failure ?? outOfMemory() }
            } else {
                crc = crc32(crc, chunk.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(count))
                guard emit(chunk) else { throw failure! }
            }
            read += Int64(count)
            progress(done + read)
        }
        var sums = ZipContainerWriter.Sums(crc: UInt32(crc), compressedSize: size, size: size, method: 0)
        if let deflate {
            guard deflate.finish(emit: emit) else { throw failure ?? outOfMemory() }
            sums = .init(crc: deflate.crc, compressedSize: deflate.outputSize, size: size, method: 8)
        }
        if let aes {
            guard aes.authenticationCode().withUnsafeBytes(written) else { throw failure ?? outOfMemory() }
            sums.compressedSize += ZipAES.overhead
        }
        try writer.end(open, sums: sums)
        done += size
    }

    private func outOfMemory() -> ArchiverError { ArchiverError(.destination, tr("Out of memory while starting the archive.")) }

    /// One member read and compressed whole, on a worker: the producer hands it out, and reads its result
    /// only after `done` (or runs it itself).
    private final class Job: @unchecked Sendable {
        let member: ZipContainerWriter.NewMember
        let kind: FileTree.Kind
        let size: Int64
        let source: [UInt8]
        let link: [UInt8]
        /// The password and salt its data is encrypted with, after it is compressed.
        let sealing: (password: Secret, salt: [UInt8])?
        var output: [UInt8] = []
        var sums = ZipContainerWriter.Sums(crc: 0, compressedSize: 0, size: 0, method: 0)
        var error: ArchiverError?
        let done = DispatchSemaphore(value: 0)
        /// Set by the producer once the result is its own.
        var collected = false

        init(
            member: ZipContainerWriter.NewMember, kind: FileTree.Kind, size: Int64, source: [UInt8], link: [UInt8],
            sealing: (password: Secret, salt: [UInt8])?
        ) {
            (self.member, self.kind, self.size, self.source, self.link, self.sealing) = (member, kind, size, source, link, sealing)
        }

        /// Whether the result is there, waiting for it when `blocking`.
        @discardableResult
        func collect(blocking: Bool) -> Bool {
            if collected { return true }
            if blocking { done.wait() } else if done.wait(timeout: .now()) == .timedOut { return false }
            collected = true
            return true
        }

        func run(_ kits: Kits) {
            do throws(ArchiverError) {
                switch kind {
                case .directory: break
                case .symlink: store(link)
                case .file:
                    let kit = kits.take()
                    defer { kits.give(kit) }
                    try compress(with: kit)
                    if let sealing { seal(sealing.password, salt: sealing.salt) }
                }
            } catch {
                self.error = error
            }
        }

        private func store(_ bytes: [UInt8]) {
            let crc = bytes.withUnsafeBytes { crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count)) }
            output = bytes
            sums = .init(crc: UInt32(crc), compressedSize: Int64(bytes.count), size: Int64(bytes.count), method: 0)
        }

        /// Encrypts the compressed bytes: salt and verifier, the bytes, the authentication code.
        private func seal(_ password: Secret, salt: [UInt8]) {
            let aes = ZipAES(password: password, salt: salt)
            output.withUnsafeMutableBytes { aes.encrypt($0) }
            output = aes.header + output + aes.authenticationCode()
            sums.compressedSize = Int64(output.count)
        }

        private func compress(with kit: Kit) throws(ArchiverError) {
            let path = FilePath(bytes: source)
            let file = try InputFile.open(path)
            defer { close(file) }
            let input = kit.input(Int(size))
            var read = 0
            while read < input.count {
                read += try InputFile.read(file, into: UnsafeMutableRawBufferPointer(rebasing: input[read...]), count: input.count - read, at: Int64(read), path)
            }
            guard let deflate = kit.deflate, size > 0 else { return store(Array(input)) }
            deflate.reset()
            var packed: [UInt8] = []
            packed.reserveCapacity(input.count / 2)
            let emit = { (bytes: UnsafeRawBufferPointer) -> Bool in
                packed.append(contentsOf: bytes)
                return true
            }
            let finished = deflate.write(UnsafeRawBufferPointer(input), emit: emit) && deflate.finish(emit: emit)
            guard finished else { throw ArchiverError(.destination, tr("Out of memory while starting the archive.")) }
            // Deflate that saved nothing: stored, as Info-ZIP does.
            guard packed.count < input.count else { return store(Array(input)) }
            output = packed
            sums = .init(crc: deflate.crc, compressedSize: Int64(packed.count), size: size, method: 8)
        }
    }

    /// What a worker compresses whole members with, kept from one member to the next: its deflater and a
    /// buffer for the file. Made afresh for each member (zlib's state, the block's buffers and the file's,
    /// each allocated and faulted in again), they cost more than deflating a small file: zip on one core
    /// was 1.15× bsdtar's time, while tar.gz, one deflate stream, was 0.89×.
    private final class Kit: @unchecked Sendable {
        /// nil: members are stored.
        let deflate: ParallelDeflate?
        private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

        init(level: Int32?) { deflate = level.map { ParallelDeflate(level: $0, workers: 1) } }

        deinit { buffer.deallocate() }

        /// Room for `count` bytes of input (at most `wholeLimit`), grown as larger members come.
        func input(_ count: Int) -> UnsafeMutableRawBufferPointer {
            if buffer.count < count {
                buffer.deallocate()
                buffer = .allocate(byteCount: max(count, 64 << 10), alignment: 16)
            }
            return UnsafeMutableRawBufferPointer(rebasing: buffer[..<count])
        }
    }

    /// The kits not in use: at most one a worker is ever made.
    private final class Kits: Sendable {
        private let free = Mutex<[Kit]>([])
        private let level: Int32?

        init(level: Int32?) { self.level = level }

        func take() -> Kit { free.withLock { $0.popLast() } ?? Kit(level: level) }

        func give(_ kit: Kit) { free.withLock { $0.append(kit) } }
    }
}

/// Opening and reading an input file while compressing, with the messages every writer gives.
enum InputFile {
    /// Opens `path` for reading, not following a symlink that took its place.
    static func open(_ path: FilePath) throws(ArchiverError) -> Int32 {
        let file = path.withPlatformString { Glibc.open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard file >= 0 else {
            throw ArchiverError(
                // TRANSLATORS: %1$@ is a file, %2$@ the system's reason (from the C library).
                .inputUnreadable, tr("Cannot read “%1$@”: %2$@.", path, TextValue.systemError(errno)),
                hint: tr("Check its permissions; no archive was made."), path: path.string)
        }
        return file
    }

    /// Reads up to `count` bytes at `offset` into `buffer`: how many, never 0 (a file that got shorter
    /// after it was listed is an error; the archive records its listed size).
    static func read(_ file: Int32, into buffer: UnsafeMutableRawBufferPointer, count: Int, at offset: Int64, _ path: FilePath)
        throws(ArchiverError) -> Int
    {
        while true {
            let got = pread(file, buffer.baseAddress, count, off_t(offset))
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw readFailed(path, errno) }
            guard got > 0 else { throw shrank(path) }
            return got
        }
    }

    static func readFailed(_ path: FilePath, _ code: Int32) -> ArchiverError {
        ArchiverError(
            // TRANSLATORS: %1$@ is a file, %2$@ the system's reason (from the C library).
            .inputUnreadable, tr("Reading “%1$@” failed: %2$@.", path, TextValue.systemError(code)),
            hint: tr("No archive was made."), path: path.string)
    }

    static func shrank(_ path: FilePath) -> ArchiverError {
        ArchiverError(
            .inputUnreadable, tr("“%@” got shorter while it was being compressed.", path),
            hint: tr("Try again when nothing is writing to it; no archive was made."), path: path.string)
    }
}
