#include "CPhotoShim.h"

#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

int archiver_photo_init(int concurrency) {
    if (VIPS_INIT("compress-photos-with-archiver")) return -1;
    vips_concurrency_set(concurrency);
    /* The operation cache would keep decoded photos (and their files) alive between photos of a batch:
       memory must stay at one decode per worker. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    return 0;
}

const char *archiver_photo_vips_version(void) { return vips_version_string(); }

int archiver_photo_can_write(ArchiverPhotoFormat format) {
    const char *name = NULL;
    switch (format) {
    case ARCHIVER_PHOTO_JPEG: name = "x.jpg"; break;
    case ARCHIVER_PHOTO_WEBP: name = "x.webp"; break;
    case ARCHIVER_PHOTO_AVIF: name = "x.avif"; break;
    case ARCHIVER_PHOTO_HEIC: name = "x.heic"; break;
    }
    if (!name || !vips_foreign_find_save(name)) {
        vips_error_clear();
        return 0;
    }
    if (format == ARCHIVER_PHOTO_AVIF || format == ARCHIVER_PHOTO_HEIC) {
        /* The saver exists whenever libheif does; the encoder (x265, aom) may not. Try a tiny image. */
        VipsImage *tiny = NULL;
        void *buffer = NULL;
        size_t length = 0;
        int ok = 0;
        if (!vips_black(&tiny, 16, 16, "bands", 3, NULL)) {
            VipsImage *bytes = NULL;
            if (!vips_cast_uchar(tiny, &bytes, NULL)) {
                ok = !vips_heifsave_buffer(bytes, &buffer, &length, "compression",
                                           format == ARCHIVER_PHOTO_AVIF ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1
                                                                         : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC,
                                           NULL);
                g_object_unref(bytes);
            }
            g_object_unref(tiny);
        }
        g_free(buffer);
        vips_error_clear();
        return ok;
    }
    return 1;
}

/* Takes libvips's error text (the buffer is shared by all threads; a batch fails rarely enough). */
static int fail(char **error, const char *fallback) {
    char *text = vips_error_buffer_copy();
    if (error) {
        const char *chosen = text && *text ? text : fallback;
        *error = strdup(chosen);
        /* One line for a person: libvips stacks "loader: reason\n" lines. */
        char *end = *error ? strchr(*error, '\n') : NULL;
        if (end && end[1] == '\0') *end = '\0';
    }
    g_free(text);
    return -1;
}

/* Metadata that must not survive: the IFD1 thumbnail (the unrotated, full-frame preview of the original)
   and, when asked, the GPS IFD. libvips rebuilds the EXIF block at save time from these fields: an
   entry whose field is gone is dropped from the block. */
static void remove_metadata(VipsImage *image, int strip_location) {
    gchar **fields = vips_image_get_fields(image);
    for (gchar **field = fields; field && *field; field++) {
        if (vips_isprefix("exif-ifd1-", *field) || (strip_location && vips_isprefix("exif-ifd3-", *field)) ||
            strcmp(*field, "jpeg-thumbnail-data") == 0)
            vips_image_remove(image, *field);
    }
    g_strfreev(fields);
}

static int save(VipsImage *image, const char *output, const ArchiverPhotoOptions *options) {
    switch (options->format) {
    case ARCHIVER_PHOTO_JPEG:
        return vips_jpegsave(image, output, "Q", options->quality, "optimize_coding", TRUE, NULL);
    case ARCHIVER_PHOTO_WEBP:
        return vips_webpsave(image, output, "Q", options->quality, NULL);
    case ARCHIVER_PHOTO_AVIF:
        return vips_heifsave(image, output, "Q", options->quality, "compression",
                             VIPS_FOREIGN_HEIF_COMPRESSION_AV1, NULL);
    case ARCHIVER_PHOTO_HEIC:
        return vips_heifsave(image, output, "Q", options->quality, "compression",
                             VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
    }
    vips_error("archiver", "unknown output format");
    return -1;
}

int archiver_photo_compress(const char *input, const char *output, const ArchiverPhotoOptions *options,
                            ArchiverPhotoResult *result, char **error) {
    if (error) *error = NULL;
    int side = options->max_size > 0 ? options->max_size : VIPS_MAX_COORD;
    VipsImage *thumb = NULL;
    /* Shrink-on-load, upright by the EXIF Orientation (HEIC: libheif applies the container's irot), never
       enlarged. A truncated or corrupt file is an error, not a grey half-photo. */
    if (vips_thumbnail(input, &thumb, side, "height", side, "size", VIPS_SIZE_DOWN, "fail_on",
                       VIPS_FAIL_ON_ERROR, NULL))
        return fail(error, "cannot read the photo");

    VipsImage *ready = thumb;
    if (options->format == ARCHIVER_PHOTO_JPEG && vips_image_hasalpha(thumb)) {
        /* JPEG has no alpha: transparent parts become white, as on a page, not black. */
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        VipsImage *flat = NULL;
        int failed = vips_flatten(thumb, &flat, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        g_object_unref(thumb);
        if (failed) return fail(error, "cannot flatten the transparency");
        ready = flat;
    }
    /* A fresh header of our own, so removing fields touches nothing shared. */
    VipsImage *copy = NULL;
    int failed = vips_copy(ready, &copy, NULL);
    g_object_unref(ready);
    if (failed) return fail(error, "cannot prepare the photo");
    remove_metadata(copy, options->strip_location);
    failed = save(copy, output, options);
    if (!failed && result) {
        result->width = copy->Xsize;
        result->height = copy->Ysize;
    }
    g_object_unref(copy);
    if (failed) return fail(error, "cannot write the compressed photo");
    return 0;
}
