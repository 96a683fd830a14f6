import CGtk
import Glibc

/// A PDF's first page drawn by poppler from the file's bytes in memory (no file is written), on white, at
/// most `edge` pixels long: cairo's ARGB32 rows, premultiplied, which GdkMemoryTexture takes as
/// `GDK_MEMORY_DEFAULT`. Safe on a worker thread: the document is this call's own.
struct PDFFirstPage: Sendable {
    let width: Int32
    let height: Int32
    let stride: Int32
    let pixels: [UInt8]

    /// nil when poppler cannot open it (damaged, or encrypted with a password), it has no page, or poppler is
    /// not installed.
    init?(_ data: [UInt8], edge: Double) {
        guard let poppler = Poppler.shared else { return nil }
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let document = poppler.documentFromBytes(bytes, nil, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(document)) }
        guard poppler.pageCount(document) > 0, let page = poppler.page(document, 0) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        var pageWidth = 0.0, pageHeight = 0.0
        poppler.pageSize(page, &pageWidth, &pageHeight)
        guard pageWidth > 0, pageHeight > 0 else { return nil }
        let scale = edge / max(pageWidth, pageHeight)
        width = max(1, Int32(pageWidth * scale))
        height = max(1, Int32(pageHeight * scale))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height) else { return nil }
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)
        cairo_set_source_rgb(cairo, 1, 1, 1)
        cairo_paint(cairo)
        cairo_scale(cairo, scale, scale)
        poppler.render(page, cairo)
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        stride = cairo_image_surface_get_stride(surface)
        guard let start = cairo_image_surface_get_data(surface) else { return nil }
        pixels = Array(UnsafeBufferPointer(start: start, count: Int(stride) * Int(height)))
    }
}

/// poppler-glib, opened at the first PDF preview instead of linked: with the ten libraries it brings (its C++
/// core, NSS, lcms2, OpenJPEG) it cost every window's start-up, and most windows never show a PDF (issue 33).
/// The five calls the preview makes, with poppler-glib's C signatures (documents and pages are GObjects).
private struct Poppler: @unchecked Sendable {
    typealias DocumentFromBytes = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> OpaquePointer?
    typealias PageCount = @convention(c) (OpaquePointer?) -> Int32
    typealias Page = @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    typealias PageSize = @convention(c) (OpaquePointer?, UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?) -> Void
    typealias Render = @convention(c) (OpaquePointer?, OpaquePointer?) -> Void

    let documentFromBytes: DocumentFromBytes
    let pageCount: PageCount
    let page: Page
    let pageSize: PageSize
    let render: Render

    /// Opened once, by the first worker that asks; nil when the library or one of its calls is missing.
    static let shared = Poppler()

    private init?() {
        // The soname Debian 12 ships (libpoppler-glib8); the unversioned name only where the -dev package is.
        guard let library = dlopen("libpoppler-glib.so.8", RTLD_NOW | RTLD_LOCAL) ?? dlopen("libpoppler-glib.so", RTLD_NOW | RTLD_LOCAL) else {
            return nil
        }
        func symbol<T>(_ name: String, as type: T.Type) -> T? { dlsym(library, name).map { unsafeBitCast($0, to: type) } }
        guard let documentFromBytes = symbol("poppler_document_new_from_bytes", as: DocumentFromBytes.self),
            let pageCount = symbol("poppler_document_get_n_pages", as: PageCount.self),
            let page = symbol("poppler_document_get_page", as: Page.self),
            let pageSize = symbol("poppler_page_get_size", as: PageSize.self),
            let render = symbol("poppler_page_render", as: Render.self)
        else { return nil }
        self.documentFromBytes = documentFromBytes
        self.pageCount = pageCount
        self.page = page
        self.pageSize = pageSize
        self.render = render
    }
}
