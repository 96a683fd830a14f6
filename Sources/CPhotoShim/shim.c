#include "CPhotoShim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libintl.h>
#include <vips/vips.h>

/* libvips's warnings ("error in tile 0 x 536", "ignoring nclx profile") say nothing to a person; the
   failure that matters comes back as an error and is reported by name. ARCHIVER_DEBUG=1 shows them. */
static void drop_message(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void) domain; (void) level; (void) message; (void) data;
}

int archiver_photo_init(int concurrency) {
    if (VIPS_INIT("compress-photos-with-archiver")) return -1;
    /* libvips's own messages stay English in every language: PhotoCodec.plainReason recognises them by
       their English words, and --json must not change with the locale. vips_init bound its catalog
       (domain "vips<major>.<minor>"); bound to a folder without catalogs, gettext returns the English. */
    char domain[32];
    snprintf(domain, sizeof domain, "vips%d.%d", vips_version(0), vips_version(1));
    bindtextdomain(domain, "/nonexistent");
    const char *debug = g_getenv("ARCHIVER_DEBUG");
    if (!debug || strcmp(debug, "1") != 0)
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, drop_message, NULL);
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

/* Says why a photo failed by one of the keys PhotoCodec.reason turns into words. Never libvips's error
   text: its buffer is one for all threads, and in a batch it holds other photos' errors ("Corrupt JPEG
   data" for a PNG); the key comes from this photo's own calls. ARCHIVER_DEBUG=1 prints the text. */
static int fail(char **error, const char *key) {
    const char *debug = g_getenv("ARCHIVER_DEBUG");
    if (debug && strcmp(debug, "1") == 0) fprintf(stderr, "libvips: %s", vips_error_buffer());
    vips_error_clear();
    if (error) *error = strdup(key);
    return -1;
}

/* Whether `input` decodes whole, shrunk to `side` as the copy was (libvips's errors cleared). */
static int decodes(const char *input, int side) {
    VipsImage *thumb = NULL;
    double mean = 0;
    int ok = !vips_thumbnail(input, &thumb, side, "height", side, "size", VIPS_SIZE_BOTH, "fail_on",
                             VIPS_FAIL_ON_ERROR, NULL) &&
             !vips_avg(thumb, &mean, NULL);
    if (thumb) g_object_unref(thumb);
    return ok;
}

/* A TIFF variant libtiff reads but libvips 8.14 does not, from the first IFD: "tiff-old-jpeg" (compression
   6, JPEG of TIFF 5.0/6.0's first kind) or "tiff-bits:N" (N bits per sample, not a whole byte nor 1, 2 or 4
   bits); NULL for anything else. Written into `key` (at least 32 bytes). */
static const char *tiff_variant(const char *input, char *key) {
    FILE *file = fopen(input, "rb");
    if (!file) return NULL;
    unsigned char head[8], entry[12], count_bytes[2];
    const char *found = NULL;
    if (fread(head, 1, 8, file) == 8 && (memcmp(head, "II*\0", 4) == 0 || memcmp(head, "MM\0*", 4) == 0)) {
        int little = head[0] == 'I';
#define U16(p) (little ? (unsigned) (p)[0] | (unsigned) (p)[1] << 8 : (unsigned) (p)[0] << 8 | (unsigned) (p)[1])
#define U32(p) (little ? (unsigned long) U16(p) | (unsigned long) U16((p) + 2) << 16 \
                       : (unsigned long) U16(p) << 16 | (unsigned long) U16((p) + 2))
        if (fseek(file, (long) U32(head + 4), SEEK_SET) == 0 && fread(count_bytes, 1, 2, file) == 2) {
            for (unsigned i = 0, n = U16(count_bytes); i < n && i < 512 && fread(entry, 1, 12, file) == 12; i++) {
                unsigned tag = U16(entry), type = U16(entry + 2);
                /* A SHORT value: the first, inline when it fits (BitsPerSample's per-band values agree). */
                unsigned long values = U32(entry + 4);
                unsigned value = type == 3 && values <= 2 ? U16(entry + 8) : 0;
                if (type == 3 && values > 2) {
                    long back = ftell(file);
                    unsigned char first[2];
                    if (fseek(file, (long) U32(entry + 8), SEEK_SET) == 0 && fread(first, 1, 2, file) == 2) value = U16(first);
                    if (fseek(file, back, SEEK_SET) != 0) break;
                }
                if (tag == 259 && value == 6) {
                    found = strcpy(key, "tiff-old-jpeg");
                    break;
                }
                if (tag == 258 && value && value != 1 && value != 2 && value != 4 && value % 8 != 0) {
                    snprintf(key, 32, "tiff-bits:%u", value);
                    found = key;
                    break;
                }
            }
        }
#undef U32
#undef U16
    }
    fclose(file);
    return found;
}

/* Why `input` could not be read, from this photo alone: a TIFF variant we name, no loader knowing it, or
   data that does not decode. `key` holds what is returned (at least 32 bytes). */
static const char *unreadable(const char *input, char *key) {
    const char *variant = tiff_variant(input, key);
    if (variant) return variant;
    return vips_foreign_find_load(input) ? "damaged" : "not-image";
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

/* Photoshop's image resources (APP13 "Photoshop 3.0", libvips's iptc-data) without its thumbnails
   (resources 0x0409 and 0x040C): like the EXIF one, a picture of the original that may not match the copy
   (or even the photo, after an edit). Everything else, IPTC included, is kept byte for byte. */
static void remove_photoshop_thumbnail(VipsImage *image) {
    const void *data = NULL;
    size_t length = 0;
    static const char header[] = "Photoshop 3.0";
    if (!vips_image_get_typeof(image, VIPS_META_IPTC_NAME) ||
        vips_image_get_blob(image, VIPS_META_IPTC_NAME, &data, &length) || !data ||
        length < sizeof header || memcmp(data, header, sizeof header) != 0)
        return;
    const unsigned char *bytes = data;
    GByteArray *kept = g_byte_array_sized_new(length);
    g_byte_array_append(kept, bytes, sizeof header);
    size_t at = sizeof header;
    int dropped = 0;
    while (at + 12 <= length && memcmp(bytes + at, "8BIM", 4) == 0) {
        unsigned id = (unsigned) bytes[at + 4] << 8 | bytes[at + 5];
        size_t name = 1 + bytes[at + 6];
        name += name & 1;
        if (at + 6 + name + 4 > length) break;
        const unsigned char *size_field = bytes + at + 6 + name;
        size_t size = (size_t) size_field[0] << 24 | (size_t) size_field[1] << 16 | (size_t) size_field[2] << 8 | size_field[3];
        size_t end = at + 6 + name + 4 + size + (size & 1);
        if (end > length || end < at) break;
        if (id == 0x0409 || id == 0x040C)
            dropped = 1;
        else
            g_byte_array_append(kept, bytes + at, end - at);
        at = end;
    }
    /* A block we cannot walk to its end is left whole rather than cut. */
    if (dropped && at == length) vips_image_set_blob_copy(image, VIPS_META_IPTC_NAME, kept->data, kept->len);
    g_byte_array_free(kept, TRUE);
}

static int is_name_char(char c) {
    return g_ascii_isalnum(c) || c == ':' || c == '_' || c == '-' || c == '.';
}

/* What an edit of an XMP packet changes; a NULL field is left alone. */
typedef struct {
    const char *orientation;
    const char *width;
    const char *height;
    int strip_location;
    const char *creator_tool;
    /* Set when the packet had an xmp:CreatorTool (replaced). */
    int found_tool;
    /* The copy has no gain map: the properties announcing one (UltraHDR) go. */
    int drop_gain_map;
} XmpEdits;

/* The value a property gets (NULL: removed), or "" when the property is left alone. */
static const char *xmp_edit_for(const char *name, size_t length, XmpEdits *edits) {
#define IS(literal) (length == strlen(literal) && strncmp(name, literal, length) == 0)
#define OR_KEEP(value) ((value) ? (value) : "")
    /* exif:Orientation is not in the standard, but some writers put it there (Debian's wallpapers have it). */
    if (IS("tiff:Orientation") || IS("exif:Orientation")) return OR_KEEP(edits->orientation);
    if (IS("exif:PixelXDimension") || IS("tiff:ImageWidth")) return OR_KEEP(edits->width);
    if (IS("exif:PixelYDimension") || IS("tiff:ImageLength")) return OR_KEEP(edits->height);
    if (edits->strip_location && length > 8 && strncmp(name, "exif:GPS", 8) == 0) return NULL;
    /* libvips writes the primary picture only: an UltraHDR photo's copy has no gain map (its MPF
       index goes too), and properties announcing one would send a viewer looking for it. */
    if (edits->drop_gain_map && ((length > 6 && strncmp(name, "hdrgm:", 6) == 0) || IS("Container:Directory")))
        return NULL;
    /* xap: is the xmp: namespace's prefix in packets written before XMP took its name (Photoshop 7). */
    if ((IS("xmp:CreatorTool") || IS("xap:CreatorTool")) && edits->creator_tool) {
        edits->found_tool = 1;
        return edits->creator_tool;
    }
#undef OR_KEEP
#undef IS
    return "";
}

static GString *edit_xmp(const char *xmp, size_t length, XmpEdits *edits) {
    GString *out = g_string_sized_new(length + 128);
    size_t i = 0;
    while (i < length) {
        /* A property starts after whitespace (attribute form: name="value") or '<' (element form:
           <name>value</name>). */
        char before = i > 0 ? xmp[i - 1] : '\0';
        if (i > 0 && (g_ascii_isspace(before) || before == '<') && g_ascii_isalpha(xmp[i])) {
            size_t end = i;
            while (end < length && is_name_char(xmp[end])) end++;
            const char *value = xmp_edit_for(xmp + i, end - i, edits);
            if (!value || *value) {
                size_t j = end;
                if (before != '<') {
                    while (j < length && g_ascii_isspace(xmp[j])) j++;
                    if (j < length && xmp[j] == '=') {
                        j++;
                        while (j < length && g_ascii_isspace(xmp[j])) j++;
                        const char *close = j < length && (xmp[j] == '"' || xmp[j] == '\'')
                                                ? memchr(xmp + j + 1, xmp[j], length - j - 1) : NULL;
                        if (close) {
                            char quote = xmp[j];
                            if (value) {
                                g_string_append_len(out, xmp + i, end - i);
                                g_string_append_printf(out, "=%c%s%c", quote, value, quote);
                            } else {
                                while (out->len > 0 && g_ascii_isspace(out->str[out->len - 1]))
                                    g_string_truncate(out, out->len - 1);
                                g_string_append_c(out, ' ');
                            }
                            i = close - xmp + 1;
                            continue;
                        }
                    }
                } else if (end < length && xmp[end] == '>') {
                    GString *closing = g_string_new("</");
                    g_string_append_len(closing, xmp + i, end - i);
                    g_string_append_c(closing, '>');
                    const char *close = g_strstr_len(xmp + end, length - end, closing->str);
                    if (close) {
                        if (value) {
                            g_string_append_len(out, xmp + i, end - i + 1);
                            g_string_append(out, value);
                            g_string_append(out, closing->str);
                        } else {
                            g_string_truncate(out, out->len - 1); /* the '<' */
                        }
                        i = close - xmp + closing->len;
                        g_string_free(closing, TRUE);
                        continue;
                    }
                    g_string_free(closing, TRUE);
                }
            }
        }
        g_string_append_c(out, xmp[i]);
        i++;
    }
    if (edits->creator_tool && !edits->found_tool) {
        /* A Description of its own, declaring the namespace it uses: whatever prefixes the packet's other
           Descriptions declare, this one stands alone. No packet, or none with an rdf:RDF: a new packet. */
        gchar *description = g_markup_printf_escaped(
            "<rdf:Description rdf:about=\"\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmp:CreatorTool=\"%s\"/>",
            edits->creator_tool);
        const char *rdf = g_strstr_len(out->str, out->len, "<rdf:RDF");
        const char *rdf_end = rdf ? strchr(rdf, '>') : NULL;
        if (rdf_end && rdf_end[-1] != '/') {
            g_string_insert(out, rdf_end + 1 - out->str, description);
        } else {
            g_string_assign(out, "<?xpacket begin=\"\xef\xbb\xbf\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
                                 "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">"
                                 "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">");
            g_string_append(out, description);
            g_string_append(out, "</rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>");
        }
        g_free(description);
    }
    return out;
}

/* malloc'd, so that Swift frees it with free() without knowing GLib. */
static char *to_malloc(GString *out, size_t *out_length) {
    char *result = malloc(out->len + 1);
    if (result) memcpy(result, out->str, out->len + 1);
    *out_length = result ? out->len : 0;
    g_string_free(out, TRUE);
    return result;
}

char *archiver_photo_edit_xmp(const char *xmp, size_t length, int strip_location, int width, int height,
                              size_t *out_length) {
    char width_text[16], height_text[16];
    snprintf(width_text, sizeof width_text, "%d", width);
    snprintf(height_text, sizeof height_text, "%d", height);
    XmpEdits edits = {"1", width_text, height_text, strip_location, NULL, 0, 0};
    return to_malloc(edit_xmp(xmp, length, &edits), out_length);
}

char *archiver_photo_mark_xmp(const char *xmp, size_t length, const char *tool, size_t *out_length) {
    XmpEdits edits = {NULL, NULL, NULL, 0, tool, 0, 0};
    return to_malloc(edit_xmp(xmp ? xmp : "", xmp ? length : 0, &edits), out_length);
}

/* `needle` in `size` bytes at `haystack`, NUL bytes included; NULL when absent. */
static const char *find_bytes(const char *haystack, size_t size, const char *needle) {
    size_t length = strlen(needle);
    const char *end = haystack + size;
    for (const char *at = haystack; (size_t) (end - at) >= length; at++) {
        at = memchr(at, needle[0], (size_t) (end - at) - length + 1);
        if (!at) return NULL;
        if (memcmp(at, needle, length) == 0) return at;
    }
    return NULL;
}

/* libvips 8.14's HEIF loader reads EXIF but not XMP: a HEIC's packet (a metadata item libheif keeps
   uncompressed) is taken from the file itself, so that the copy keeps it. */
static void read_heif_xmp(VipsImage *image, const char *input) {
    const char *loader = vips_foreign_find_load(input);
    if (!loader || strcmp(loader, "VipsForeignLoadHeifFile") != 0 || vips_image_get_typeof(image, VIPS_META_XMP_NAME))
        return;
    gchar *contents = NULL;
    gsize size = 0;
    if (!g_file_get_contents(input, &contents, &size, NULL)) return;
    const char *start = find_bytes(contents, size, "<?xpacket begin");
    if (!start) start = find_bytes(contents, size, "<x:xmpmeta");
    if (start) {
        size_t rest = contents + size - start;
        const char *end = find_bytes(start, rest, "<?xpacket end");
        const char *close = end ? find_bytes(end, contents + size - end, "?>") : NULL;
        if (close) {
            close += 2;
        } else if ((end = find_bytes(start, rest, "</x:xmpmeta>"))) {
            close = end + strlen("</x:xmpmeta>");
        }
        if (close) vips_image_set_blob_copy(image, VIPS_META_XMP_NAME, start, close - start);
    }
    g_free(contents);
}

/* The copy's XMP: its EXIF fields brought in line with the copy, and our marker. */
static void fix_xmp(VipsImage *image, const ArchiverPhotoOptions *options) {
    const void *xmp = NULL;
    size_t length = 0;
    if (vips_image_get_typeof(image, VIPS_META_XMP_NAME) &&
        vips_image_get_blob(image, VIPS_META_XMP_NAME, &xmp, &length))
        xmp = NULL;
    if (!xmp && !options->creator_tool) return;
    /* A UTF-16 packet (XMP allows it) is edited, and kept, as UTF-8: read as bytes it has no property
       to find, and would be replaced by one holding our marker only. */
    gchar *converted = NULL;
    const unsigned char *bytes = xmp;
    if (xmp && length >= 4 && length % 2 == 0 && (bytes[0] == 0 || bytes[1] == 0 || (bytes[0] == 0xfe && bytes[1] == 0xff) ||
                                                  (bytes[0] == 0xff && bytes[1] == 0xfe))) {
        int big = bytes[0] == 0 || bytes[0] == 0xfe;
        gsize written = 0;
        converted = g_convert(xmp, length, "UTF-8", big ? "UTF-16BE" : "UTF-16LE", NULL, &written, NULL);
        if (converted) {
            /* The byte order mark, now UTF-8's, would sit before the packet's "<?xpacket". */
            const char *start = converted;
            if (written >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0) start += 3, written -= 3;
            xmp = start;
            length = written;
        }
    }
    char width_text[16], height_text[16];
    snprintf(width_text, sizeof width_text, "%d", image->Xsize);
    snprintf(height_text, sizeof height_text, "%d", image->Ysize);
    XmpEdits edits = {"1", width_text, height_text, options->strip_location, options->creator_tool, 0, 1};
    GString *edited = edit_xmp(xmp ? xmp : "", xmp ? length : 0, &edits);
    vips_image_set_blob_copy(image, VIPS_META_XMP_NAME, edited->str, edited->len);
    g_string_free(edited, TRUE);
    g_free(converted);
}

int archiver_photo_header(const char *path, ArchiverPhotoHeader *header, char **xmp, size_t *xmp_length, char **error) {
    if (error) *error = NULL;
    *xmp = NULL;
    *xmp_length = 0;
    memset(header, 0, sizeof *header);
    /* Opening reads the header only; the pixels would be decoded on first use, which never comes. */
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    char key[32];
    if (!image) return fail(error, unreadable(path, key));
    int orientation = vips_image_get_orientation(image);
    int swap = orientation >= 5 && orientation <= 8;
    header->width = swap ? image->Ysize : image->Xsize;
    header->height = swap ? image->Xsize : image->Ysize;
    const char *loader = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER) && !vips_image_get_string(image, VIPS_META_LOADER, &loader) && loader)
        g_strlcpy(header->loader, loader, sizeof header->loader);
    const void *blob = NULL;
    size_t length = 0;
    if (vips_image_get_typeof(image, VIPS_META_XMP_NAME) &&
        !vips_image_get_blob(image, VIPS_META_XMP_NAME, &blob, &length) && blob && length > 0) {
        *xmp = malloc(length);
        if (*xmp) {
            memcpy(*xmp, blob, length);
            *xmp_length = length;
        }
    }
    g_object_unref(image);
    return 0;
}

const char *archiver_photo_pictures_dir(void) { return g_get_user_special_dir(G_USER_DIRECTORY_PICTURES); }

static int save(VipsImage *image, const char *output, const ArchiverPhotoOptions *options) {
    switch (options->format) {
    case ARCHIVER_PHOTO_JPEG:
        return vips_jpegsave(image, output, "Q", options->quality, "optimize_coding", TRUE, NULL);
    case ARCHIVER_PHOTO_WEBP:
        return vips_webpsave(image, output, "Q", options->quality, NULL);
    case ARCHIVER_PHOTO_AVIF:
        /* libaom's default effort takes seconds a photo on one thread; effort 1 is 6x faster for a
           file 2 % larger (1500 px, Q50). */
        return vips_heifsave(image, output, "Q", options->quality, "compression",
                             VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", 1, NULL);
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
    /* Never enlarged: the side is capped at the photo's own (its first page, the full resolution). Not
       VIPS_SIZE_DOWN, with which libvips 8.14 takes a pyramid TIFF's smallest level (4000 px → 125). */
    char key[32];
    VipsImage *header = vips_image_new_from_file(input, NULL);
    if (!header) return fail(error, unreadable(input, key));
    int largest = header->Xsize > header->Ysize ? header->Xsize : header->Ysize;
    g_object_unref(header);
    if (side > largest) side = largest;
    VipsImage *thumb = NULL;
    /* Shrink-on-load, upright by the EXIF Orientation (HEIC: libheif applies the container's irot). A
       truncated or corrupt file is an error, not a grey half-photo. */
    if (vips_thumbnail(input, &thumb, side, "height", side, "size", VIPS_SIZE_BOTH, "fail_on",
                       VIPS_FAIL_ON_ERROR, NULL))
        return fail(error, unreadable(input, key));

    VipsImage *ready = thumb;
    if (options->format == ARCHIVER_PHOTO_JPEG && vips_image_hasalpha(thumb)) {
        /* JPEG has no alpha: transparent parts become white, as on a page, not black. */
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        VipsImage *flat = NULL;
        int failed = vips_flatten(thumb, &flat, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        g_object_unref(thumb);
        if (failed) return fail(error, "process");
        ready = flat;
    }
    /* A fresh header of our own, so removing fields touches nothing shared. */
    VipsImage *copy = NULL;
    int failed = vips_copy(ready, &copy, NULL);
    g_object_unref(ready);
    if (failed) return fail(error, "process");
    remove_metadata(copy, options->strip_location);
    remove_photoshop_thumbnail(copy);
    read_heif_xmp(copy, input);
    fix_xmp(copy, options);
    failed = save(copy, output, options);
    if (!failed && result) {
        result->width = copy->Xsize;
        result->height = copy->Ysize;
    }
    g_object_unref(copy);
    /* The pixels are decoded while the copy is written: a photo cut short fails only here. */
    if (failed) return fail(error, decodes(input, side) ? "write" : "damaged");
    return 0;
}
