import ArchiverCore
import JobProtocol
import CGtk
import Desktop
import Dispatch
import Glibc
import SystemPackage
import Platform

/// Thumbnails for the Compress Photos… grid, from the desktop's thumbnail cache (the freedesktop spec:
/// `$XDG_CACHE_HOME/thumbnails/{large,normal}/MD5(uri).png`, valid while its `Thumb::MTime` is the photo's)
/// or made on worker threads and written back there, so the file manager finds them too. Never on the
/// main thread: a photo of 50 megapixels takes a second to decode.
@MainActor
final class Thumbnails {
    enum Result {
        case picture(OpaquePointer)  // a GdkTexture (owned: the receiver unrefs it)
        /// No decoder here could read it (HEIC without libvips' tools): an icon, not a verdict.
        case none
        /// A decoder for its kind tried and failed: damaged.
        case unreadable
    }

    /// The edge of a "large" thumbnail (the spec's 256 px); the grid shows them smaller.
    nonisolated static let edge: Int32 = 256
    private let workers = DispatchSemaphore(value: 2)
    private let queue = DispatchQueue(label: "thumbnails")

    /// Loads `paths` in order, two at a time; `done` gets each on the main thread with its position.
    func load(_ paths: [FilePath], done: @escaping @MainActor (Int, Result) -> Void) {
        let workers = workers
        queue.async { Self.work(paths, workers: workers, done: done) }
    }

    private nonisolated static func work(_ paths: [FilePath], workers: DispatchSemaphore, done: @escaping @MainActor (Int, Result) -> Void) {
        for (position, path) in paths.enumerated() {
            workers.wait()
            DispatchQueue.global().async {
                let made: UInt? = make(path)
                workers.signal()
                DispatchQueue.main.async { MainActor.assumeIsolated { deliver(made, path: path, position: position, done) } }
            }
        }
    }

    private static func deliver(_ made: UInt?, path: FilePath, position: Int, _ done: @MainActor (Int, Result) -> Void) {
        guard let made, let pixbuf = OpaquePointer(bitPattern: made) else {
            done(position, canRead(path) ? .unreadable : .none)
            return
        }
        let texture: OpaquePointer = cast(gdk_texture_new_for_pixbuf(pixbuf)!)
        g_object_unref(pixbuf.raw)
        done(position, .picture(texture))
    }

    /// A decoder is installed for the photo's kind (gdk-pixbuf's own, or libvips' `vipsthumbnail`).
    private nonisolated static func canRead(_ path: FilePath) -> Bool {
        vipsthumbnail != nil
    }

    /// libvips' `vipsthumbnail` (package libvips-tools), found once; nil when it is not installed.
    private nonisolated static let vipsthumbnail = Programs.installed("vipsthumbnail")

    // MARK: - Worker side (a GdkPixbuf as its address: pointers are not Sendable)

    /// The thumbnail as a GdkPixbuf's address (owned), or nil when nothing could read the photo.
    nonisolated static func make(_ path: FilePath) -> UInt? {
        var info = stat()
        guard path.withPlatformString({ stat($0, &info) }) == 0,
            let uri = takeString(path.withPlatformString { g_filename_to_uri($0, nil, nil) })
        else { return nil }
        let mtime = String(info.st_mtim.tv_sec)
        let hash = takeString(g_compute_checksum_for_string(G_CHECKSUM_MD5, uri, -1)) ?? ""
        let root = String(cString: g_get_user_cache_dir()) + "/thumbnails"
        // A cached one first: large, then normal (128 px) rather than none.
        for folder in ["large", "normal"] {
            if let cached = gdk_pixbuf_new_from_file("\(root)/\(folder)/\(hash).png", nil) {
                if let stamp = gdk_pixbuf_get_option(cached, "tEXt::Thumb::MTime"), String(cString: stamp) == mtime {
                    return UInt(bitPattern: UnsafeMutableRawPointer(cached))
                }
                g_object_unref(UnsafeMutableRawPointer(cached))
            }
        }
        guard let made = decode(path, scratch: "\(root)/large/\(hash).png.\(getpid()).vips.png") else { return nil }
        save(made, to: "\(root)/large", name: "\(hash).png", uri: uri, mtime: mtime)
        return UInt(bitPattern: UnsafeMutableRawPointer(made))
    }

    /// The photo for the before/after view, at most `edge` pixels long (a screen's worth), upright, with its
    /// stored size as the options `archiver-width`/`archiver-height`; a GdkPixbuf's address (owned).
    nonisolated static func full(_ path: FilePath, edge: Int32 = 3000) -> UInt? {
        var width: gint = 0, height: gint = 0
        _ = path.withPlatformString { gdk_pixbuf_get_file_info($0, &width, &height) }
        let scratch = String(cString: g_get_tmp_dir()) + "/archiver-compare-\(getpid())-\(UInt.random(in: 0...UInt.max)).png"
        guard let pixbuf = decode(path, scratch: scratch, edge: edge) else { return nil }
        if width > 0, height > 0 {
            gdk_pixbuf_set_option(cast(pixbuf), "archiver-width", String(width))
            gdk_pixbuf_set_option(cast(pixbuf), "archiver-height", String(height))
        }
        return UInt(bitPattern: UnsafeMutableRawPointer(pixbuf))
    }

    /// Decodes at thumbnail size, upright: gdk-pixbuf for JPEG, PNG, TIFF; `vipsthumbnail` for what it lacks
    /// (HEIC, AVIF, WebP on Debian 12).
    private nonisolated static func decode(_ path: FilePath, scratch: String, edge: Int32 = edge) -> OpaquePointer? {
        if let pixbuf = path.withPlatformString({ gdk_pixbuf_new_from_file_at_scale($0, edge, edge, 1, nil) }) {
            defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
            return gdk_pixbuf_apply_embedded_orientation(pixbuf)
        }
        guard let vipsthumbnail else { return nil }
        makeFolder(String(scratch[..<scratch.lastIndex(of: "/")!]))
        defer { unlink(scratch) }
        let argv = [vipsthumbnail.bytes, path.bytes] + ["--size", "\(edge)", "-o", scratch + "[strip]"].map { Array($0.utf8) }
        guard Spawn.run(argv) != nil else { return nil }
        return gdk_pixbuf_new_from_file(scratch, nil)
    }

    /// Writes the thumbnail as the spec asks: PNG with `Thumb::URI` and `Thumb::MTime`, private to the user,
    /// written under a temporary name and renamed, so a reader never sees half of it.
    private nonisolated static func save(_ pixbuf: OpaquePointer, to folder: String, name: String, uri: String, mtime: String) {
        makeFolder(folder)
        let temporary = "\(folder)/.\(name).\(getpid()).\(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pixbuf))))"
        let keyNames: [String] = ["tEXt::Thumb::URI", "tEXt::Thumb::MTime", "tEXt::Software"]
        let keyValues: [String] = [uri, mtime, "Archiver"]
        var keys: [UnsafeMutablePointer<CChar>?] = keyNames.map { strdup($0) } + [nil]
        var values: [UnsafeMutablePointer<CChar>?] = keyValues.map { strdup($0) } + [nil]
        defer { for p in keys + values { free(p) } }
        let saved = gdk_pixbuf_savev(cast(pixbuf), temporary, "png", &keys, &values, nil)
        guard saved != 0 else {
            unlink(temporary)
            return
        }
        chmod(temporary, 0o600)
        if rename(temporary, "\(folder)/\(name)") != 0 { unlink(temporary) }
    }

    private nonisolated static func makeFolder(_ folder: String) {
        g_mkdir_with_parents(folder, 0o700)
    }
}
