import CPoppler

/// A PDF's first page drawn by poppler from the file's bytes in memory (no file is written), on white, at
/// most `edge` pixels long: cairo's ARGB32 rows, premultiplied, which GdkMemoryTexture takes as
/// `GDK_MEMORY_DEFAULT`. Safe on a worker thread: the document is this call's own.
struct PDFFirstPage: Sendable {
    let width: Int32
    let height: Int32
    let stride: Int32
    let pixels: [UInt8]

    /// nil when poppler cannot open it (damaged, or encrypted with a password) or it has no page.
    init?(_ data: [UInt8], edge: Double) {
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        guard let document = poppler_document_new_from_bytes(bytes, nil, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(document)) }
        guard poppler_document_get_n_pages(document) > 0, let page = poppler_document_get_page(document, 0) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        var pageWidth = 0.0, pageHeight = 0.0
        poppler_page_get_size(page, &pageWidth, &pageHeight)
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
        poppler_page_render(page, cairo)
        cairo_destroy(cairo)
        cairo_surface_flush(surface)
        stride = cairo_image_surface_get_stride(surface)
        guard let start = cairo_image_surface_get_data(surface) else { return nil }
        pixels = Array(UnsafeBufferPointer(start: start, count: Int(stride) * Int(height)))
    }
}
