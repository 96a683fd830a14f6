import ArchiverCore
import CGtk
import Dispatch

/// Small pictures for the image entries of the Extract… tree, made from their bytes in the archive
/// (`EntryBytes`) for the rows on screen only, one at a time off the main thread, newest row first; a row
/// scrolled away before its turn costs nothing. Kept per entry while the window is open.
@MainActor
final class EntryThumbnails {
    /// The edge the tree shows them at (a row grows from the 16 px icon).
    nonisolated static let edge: Int32 = 32

    private let bytes: EntryBytes
    /// Made so far: a GdkTexture (owned), or nil when the entry turned out not to be a readable image.
    private var made: [Int: OpaquePointer?] = [:]
    /// The rows on screen that wait for or show a thumbnail: image widget → node and name.
    private var bound: [UnsafeMutableRawPointer: (node: Int, name: String)] = [:]
    /// Nodes (with their paths) in the order their rows came on screen; the last is made first.
    private var waiting: [Job] = []
    private var working = false
    /// Raised when the archive changed: a thumbnail made from the old one is dropped when it arrives.
    private var generation = 0
    /// Encrypted entries are read once the archive was opened with its password.
    private(set) var unlocked = false

    init(bytes: EntryBytes) { self.bytes = bytes }

    /// Opened with `password`: encrypted images get thumbnails too (the rows bound next, or refreshed).
    func unlock(_ password: [UInt8]) {
        bytes.unlock(password)
        unlocked = true
        made = made.filter { $0.value != nil }  // what could not be read before may be readable now
    }

    /// The archive was changed and is listed again (its nodes are new): nothing made or asked for still holds.
    func forget() {
        bytes.forget()
        for case let texture? in made.values { g_object_unref(texture.raw) }
        made = [:]
        bound = [:]
        waiting = []
        generation += 1
    }

    /// A row shows `node` in `image` (already set to its type's icon): its thumbnail when made, else one is
    /// asked for if the entry wants one.
    func bind(_ image: UnsafeMutablePointer<GtkWidget>, node: Int, entry: EntryTree.Node, path: @autoclosure () -> String, encrypted: Bool) {
        bound.removeValue(forKey: image.raw)
        guard !entry.isDirectory,
            EntryPreview.wantsThumbnail(name: entry.name, size: entry.size, encrypted: encrypted, unlocked: unlocked)
        else { return }
        bound[image.raw] = (node, entry.name)
        if let known = made[node] {
            if let texture = known { show(texture, in: image, name: entry.name) }
            return
        }
        waiting.append(Job(node: node, path: path(), generation: generation))
        if waiting.count > 1024 {
            // Scrolled far while one was being made: what went off screen meanwhile is forgotten.
            let onScreen = Set(bound.values.map { $0.node })
            waiting.removeAll { !onScreen.contains($0.node) }
        }
        next()
    }

    /// The row was recycled: its image goes back to an icon at the next bind, and its node is not made for it.
    func unbind(_ image: UnsafeMutablePointer<GtkWidget>) {
        guard bound.removeValue(forKey: image.raw) != nil else { return }
        gtk_image_set_pixel_size(cast(image), -1)
        gtk_accessible_reset_property(cast(image), GTK_ACCESSIBLE_PROPERTY_LABEL)
    }

    private func show(_ texture: OpaquePointer, in image: UnsafeMutablePointer<GtkWidget>, name: String) {
        gtk_image_set_pixel_size(cast(image), Self.edge)
        gtk_image_set_from_paintable(cast(image), cast(texture))
        // TRANSLATORS: what a screen reader says of the small picture in an image's row of the Extract… tree.
        accessibleLabel(image, tr("Thumbnail of “%@”", name).localized)
    }

    /// Starts the newest waiting node still on screen, when nothing is being made.
    private func next() {
        guard !working else { return }
        let onScreen = Set(bound.values.map { $0.node })
        while let job = waiting.popLast() {
            guard onScreen.contains(job.node), made[job.node] == nil else { continue }
            working = true
            let bytes = bytes
            DispatchQueue.global(qos: .utility).async {
                let pixbuf = Self.make(job.path, bytes: bytes)
                DispatchQueue.main.async { MainActor.assumeIsolated { self.arrived(pixbuf, for: job) } }
            }
            return
        }
    }

    private func arrived(_ pixbuf: UInt?, for job: Job) {
        working = false
        let owned = pixbuf.flatMap { OpaquePointer(bitPattern: $0) }
        guard !bytes.control.isCancelled, job.generation == generation else {
            // The window closed meanwhile (its rows are gone), or the archive changed (the node is another's).
            if let owned { g_object_unref(owned.raw) }
            if job.generation != generation { next() }
            return
        }
        let node = job.node
        var texture: OpaquePointer?
        if let owned {
            texture = cast(gdk_texture_new_for_pixbuf(owned)!)
            g_object_unref(owned.raw)
        }
        if made.count >= 4096 {
            // Scrolled through a huge listing: only the rows on screen keep theirs.
            let onScreen = Set(bound.values.map { $0.node })
            for case let (node, texture?) in made where !onScreen.contains(node) { g_object_unref(texture.raw) }
            made = made.filter { onScreen.contains($0.key) }
        }
        made[node] = texture
        if let texture {
            for (image, shown) in bound where shown.node == node { show(texture, in: cast(image), name: shown.name) }
        }
        next()
    }

    private struct Job: Sendable {
        let node: Int
        let path: String
        let generation: Int
    }

    // MARK: - Worker side (a GdkPixbuf as its address: pointers are not Sendable)

    /// The entry's thumbnail as a GdkPixbuf's address (owned), or nil when it is not an image that decodes.
    private nonisolated static func make(_ path: String, bytes: EntryBytes) -> UInt? {
        guard let data = bytes.read(path, limit: Int(EntryPreview.thumbnailLimit)),
            EntryPreview.isImage(Array(data.prefix(EntryPreview.sniffLength)))
        else { return nil }
        return decode(data, edge: edge)
    }

    /// Decodes image bytes in memory at most `edge` pixels long, upright.
    nonisolated static func decode(_ data: [UInt8], edge: Int32) -> UInt? {
        let copied = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(copied) }
        let stream = g_memory_input_stream_new_from_bytes(copied)
        defer { g_object_unref(stream) }
        guard let pixbuf = gdk_pixbuf_new_from_stream_at_scale(stream, edge, edge, 1, nil, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        guard let upright = gdk_pixbuf_apply_embedded_orientation(pixbuf) else { return nil }
        return UInt(bitPattern: UnsafeMutableRawPointer(upright))
    }
}
