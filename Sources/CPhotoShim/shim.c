#include "CPhotoShim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libintl.h>
#include <vips/vips.h>
#include <libexif/exif-tag.h>

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

/* A TIFF-structured block: a TIFF file, or an EXIF block after its "Exif\0\0". Values keep its byte order. */
typedef struct {
    const unsigned char *data;
    size_t size;
    int little;
} TiffBlock;

static unsigned tiff_u16(const TiffBlock *tiff, size_t at) {
    const unsigned char *p = tiff->data + at;
    return tiff->little ? (unsigned) p[0] | (unsigned) p[1] << 8 : (unsigned) p[0] << 8 | (unsigned) p[1];
}

static size_t tiff_u32(const TiffBlock *tiff, size_t at) {
    return tiff->little ? (size_t) tiff_u16(tiff, at) | (size_t) tiff_u16(tiff, at + 2) << 16
                        : (size_t) tiff_u16(tiff, at) << 16 | (size_t) tiff_u16(tiff, at + 2);
}

static int tiff_open(TiffBlock *tiff, const void *data, size_t size) {
    const unsigned char *bytes = data;
    if (size < 8 || !(memcmp(bytes, "II*\0", 4) == 0 || memcmp(bytes, "MM\0*", 4) == 0)) return 0;
    *tiff = (TiffBlock) {bytes, size, bytes[0] == 'I'};
    return 1;
}

/* Bytes a value of TIFF `type` takes; 0 for a type we do not know. */
static size_t tiff_type_size(unsigned type) {
    static const unsigned char sizes[] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
    return type < sizeof sizes ? sizes[type] : 0;
}

/* Where entry `at`'s value is, and how long; 0 when it lies outside the block or its type is unknown. */
static size_t tiff_value(const TiffBlock *tiff, size_t at, size_t *length) {
    size_t unit = tiff_type_size(tiff_u16(tiff, at + 2)), count = tiff_u32(tiff, at + 4);
    if (!unit || count > tiff->size / unit) return 0;
    *length = unit * count;
    size_t start = *length <= 4 ? at + 8 : tiff_u32(tiff, at + 8);
    return start <= tiff->size && *length <= tiff->size - start ? start : 0;
}

/* The IFD at `offset` when its entries lie inside the block: their count, else 0. */
static unsigned tiff_entries(const TiffBlock *tiff, size_t offset) {
    if (offset < 8 || offset > tiff->size - 2) return 0;
    unsigned count = tiff_u16(tiff, offset);
    return (size_t) count * 12 <= tiff->size - offset - 2 ? count : 0;
}

static void put_u16(GByteArray *out, size_t at, unsigned value, int little) {
    out->data[at] = little ? value & 0xff : value >> 8 & 0xff;
    out->data[at + 1] = little ? value >> 8 & 0xff : value & 0xff;
}

static void put_u32(GByteArray *out, size_t at, size_t value, int little) {
    put_u16(out, at + (little ? 0 : 2), value & 0xffff, little);
    put_u16(out, at + (little ? 2 : 0), value >> 16 & 0xffff, little);
}

/* A TIFF's first-IFD tags that describe its pixels (or that libvips reads itself: XMP, IPTC, Photoshop,
   ICC; and Orientation, applied): everything else of IFD0 is metadata the copy keeps. */
static int is_pixel_tag(unsigned tag) {
    static const unsigned tags[] = {254, 255, 256, 257, 258, 259, 262, 263, 266, 269, 273, 274, 277, 278, 279,
                                    280, 281, 284, 292, 293, 317, 318, 319, 320, 322, 323, 324, 325, 330, 338,
                                    339, 340, 341, 347, 512, 513, 514, 515, 529, 530, 531, 532, 700, 33723,
                                    34377, 34675};
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
        if (tags[i] == tag) return 1;
    return 0;
}

/* Copies the IFD at `offset` of `tiff` (offsets relative to the block's start) to the end of `out`, whose
   TIFF header starts at `base`; its Exif, GPS and Interoperability sub-IFDs follow it, copied too. In the
   first IFD (`top`), pixel tags are left out. Returns the new IFD's offset, 0 when there is none to copy. */
static size_t copy_ifd(const TiffBlock *tiff, size_t offset, GByteArray *out, size_t base, int top, int depth) {
    unsigned count = tiff_entries(tiff, offset);
    if (!count || depth > 2) return 0;
    unsigned kept = 0;
    for (unsigned i = 0; i < count; i++)
        if (!(top && is_pixel_tag(tiff_u16(tiff, offset + 2 + 12 * i)))) kept++;
    if (!kept) return 0;
    size_t start = out->len, entry = start + 2;
    g_byte_array_set_size(out, start + 2 + 12 * kept + 4);
    memset(out->data + start, 0, out->len - start);
    for (unsigned i = 0; i < count; i++) {
        size_t at = offset + 2 + 12 * i, length = 0;
        unsigned tag = tiff_u16(tiff, at);
        if (top && is_pixel_tag(tag)) continue;
        memcpy(out->data + entry, tiff->data + at, 12);
        size_t value = tiff_value(tiff, at, &length);
        if (tag == 34665 || tag == 34853 || tag == 40965) {
            size_t sub = copy_ifd(tiff, tiff_u32(tiff, at + 8), out, base, 0, depth + 1);
            /* A pointer to nothing is left out (the count below says so; its slot stays zero). */
            if (!sub) {
                memset(out->data + entry, 0, 12);
                kept--;
                continue;
            }
            put_u32(out, entry + 8, sub, tiff->little);
        } else if (!value) {
            put_u32(out, entry + 4, 0, tiff->little); /* a value outside the file: none, not garbage */
        } else if (length > 4) {
            if (out->len & 1) g_byte_array_append(out, (const guint8 *) "", 1);
            put_u32(out, entry + 8, out->len - base, tiff->little);
            g_byte_array_append(out, tiff->data + value, length);
        }
        entry += 12;
    }
    put_u16(out, start, kept, tiff->little);
    return kept ? start - base : 0;
}

/* A TIFF's EXIF as the block JPEG carries ("Exif\0\0", then a TIFF structure): IFD0's metadata tags (Make,
   Model, Artist, Copyright, DateTime, …) and its Exif and GPS IFDs. libvips 8.14 reads none of it from a
   TIFF. NULL when the file is no TIFF or has nothing to keep. */
static GByteArray *tiff_exif(const char *input) {
    GMappedFile *file = g_mapped_file_new(input, FALSE, NULL);
    if (!file) return NULL;
    TiffBlock tiff;
    GByteArray *out = NULL;
    if (tiff_open(&tiff, g_mapped_file_get_contents(file), g_mapped_file_get_length(file))) {
        out = g_byte_array_new();
        g_byte_array_append(out, (const guint8 *) "Exif\0\0", 6);
        g_byte_array_append(out, tiff.data, 4);
        g_byte_array_set_size(out, 14);
        put_u32(out, 10, 8, tiff.little);
        if (!copy_ifd(&tiff, tiff_u32(&tiff, 4), out, 6, 1, 0)) {
            g_byte_array_free(out, TRUE);
            out = NULL;
        }
    }
    g_mapped_file_unref(file);
    return out;
}

/* libvips keeps EXIF twice: the block (exif-data) and a field for each entry (exif-ifd0-Make, …), from which
   it rebuilds the block when saving. Both are set on `image` from `exif`, as libvips's JPEG loader sets them:
   a 1×1 JPEG carrying the block is loaded, and its fields taken. */
static void attach_exif(VipsImage *image, const GByteArray *exif) {
    if (exif->len + 2 > 0xffff) return;
    VipsImage *dot = NULL, *loaded = NULL;
    void *jpeg = NULL;
    size_t length = 0;
    if (vips_black(&dot, 1, 1, NULL) || vips_jpegsave_buffer(dot, &jpeg, &length, "strip", TRUE, NULL) || length < 2) {
        if (dot) g_object_unref(dot);
        g_free(jpeg);
        vips_error_clear();
        return;
    }
    g_object_unref(dot);
    GByteArray *carrier = g_byte_array_sized_new(length + exif->len + 4);
    unsigned char marker[4] = {0xff, 0xe1, (exif->len + 2) >> 8, (exif->len + 2) & 0xff};
    g_byte_array_append(carrier, jpeg, 2);
    g_byte_array_append(carrier, marker, 4);
    g_byte_array_append(carrier, exif->data, exif->len);
    g_byte_array_append(carrier, (const guint8 *) jpeg + 2, length - 2);
    g_free(jpeg);
    if (!vips_jpegload_buffer(carrier->data, carrier->len, &loaded, NULL)) {
        gchar **fields = vips_image_get_fields(loaded);
        for (gchar **field = fields; field && *field; field++) {
            GValue value = G_VALUE_INIT;
            if (vips_isprefix("exif-", *field) && !vips_image_get(loaded, *field, &value)) {
                vips_image_set(image, *field, &value);
                g_value_unset(&value);
            }
        }
        g_strfreev(fields);
        g_object_unref(loaded);
        /* EXIF requires it of a JPEG, and a TIFF has no reason to carry it: the JPEG default, centred. */
        if (!vips_image_get_typeof(image, "exif-ifd0-YCbCrPositioning"))
            vips_image_set_string(image, "exif-ifd0-YCbCrPositioning", "1 (Centered, Short, 1 components, 2 bytes)");
    }
    vips_error_clear();
    g_byte_array_free(carrier, TRUE);
}

/* An EXIF text that is not UTF-8, as the original has it. */
typedef struct {
    int ifd;
    unsigned tag;
    GBytes *bytes;
} ExifText;

static void free_exif_text(gpointer text) {
    g_bytes_unref(((ExifText *) text)->bytes);
    g_free(text);
}

/* Calls `visit` for each ASCII entry of IFD0 and the Exif and GPS IFDs (libexif's IFD numbers 0, 2, 3). */
static void each_exif_text(const TiffBlock *tiff, void (*visit)(int ifd, unsigned tag, size_t value, size_t length, void *context),
                           void *context) {
    size_t ifds[4] = {tiff_u32(tiff, 4), 0, 0, 0};
    for (int n = 0; n < 4; n++) {
        unsigned count = ifds[n] ? tiff_entries(tiff, ifds[n]) : 0;
        for (unsigned i = 0; i < count; i++) {
            size_t at = ifds[n] + 2 + 12 * i, length = 0;
            unsigned tag = tiff_u16(tiff, at);
            if (n == 0 && (tag == 34665 || tag == 34853)) ifds[tag == 34665 ? 2 : 3] = tiff_u32(tiff, at + 8);
            size_t value = tiff_u16(tiff, at + 2) == 2 ? tiff_value(tiff, at, &length) : 0;
            if (value) visit(n, tag, value, length, context);
        }
    }
}

/* The TIFF structure of an EXIF block (after "Exif\0\0", when it has one). */
static int exif_block(TiffBlock *tiff, const unsigned char *bytes, size_t size) {
    if (size >= 6 && memcmp(bytes, "Exif\0\0", 6) == 0) bytes += 6, size -= 6;
    return tiff_open(tiff, bytes, size);
}

typedef struct {
    VipsImage *image;
    const TiffBlock *tiff;
    GPtrArray *texts;
} TextSearch;

static void note_text(int ifd, unsigned tag, size_t value, size_t length, void *context) {
    TextSearch *search = context;
    const char *text = (const char *) search->tiff->data + value;
    size_t used = strnlen(text, length);
    const char *name = exif_tag_get_name_in_ifd(tag, ifd);
    char field[128];
    if (!used || g_utf8_validate(text, used, NULL) || !name) return;
    snprintf(field, sizeof field, "exif-ifd%d-%s", ifd, name);
    if (!vips_image_get_typeof(search->image, field)) return;
    /* The field holds as many bytes, each not ASCII one a '?', until restore_exif_text puts them back. */
    gchar *stand_in = g_strndup(text, used);
    for (gchar *c = stand_in; *c; c++)
        if ((unsigned char) *c >= 0x80) *c = '?';
    gchar *value_text = g_strdup_printf("%s (ASCII, %zu bytes)", stand_in, used + 1);
    vips_image_set_string(search->image, field, value_text);
    g_free(value_text);
    g_free(stand_in);
    ExifText *kept = g_new(ExifText, 1);
    *kept = (ExifText) {ifd, tag, g_bytes_new(text, used)};
    g_ptr_array_add(search->texts, kept);
}

/* libvips cannot carry an EXIF text that is not UTF-8 (a Latin-1 "®" in Make): it writes
   "<invalid utf-8 string>" instead. Such texts are noted, to be put back into the written JPEG. */
static GPtrArray *note_exif_texts(VipsImage *image) {
    const void *data = NULL;
    size_t size = 0;
    TiffBlock tiff;
    if (!vips_image_get_typeof(image, VIPS_META_EXIF_NAME) || vips_image_get_blob(image, VIPS_META_EXIF_NAME, &data, &size) ||
        !exif_block(&tiff, data, size))
        return NULL;
    TextSearch search = {image, &tiff, g_ptr_array_new_with_free_func(free_exif_text)};
    each_exif_text(&tiff, note_text, &search);
    if (!search.texts->len) {
        g_ptr_array_free(search.texts, TRUE);
        return NULL;
    }
    return search.texts;
}

typedef struct {
    unsigned char *base;
    GPtrArray *texts;
} TextRestore;

static void restore_text(int ifd, unsigned tag, size_t value, size_t length, void *context) {
    TextRestore *restore = context;
    for (guint i = 0; i < restore->texts->len; i++) {
        ExifText *text = g_ptr_array_index(restore->texts, i);
        gsize size = 0;
        const void *bytes = g_bytes_get_data(text->bytes, &size);
        if (text->ifd == ifd && text->tag == tag && size < length) memcpy(restore->base + value, bytes, size);
    }
}

/* Where the MakerNote (tag 37500 of the Exif IFD) of an EXIF TIFF structure is, and how long; 0: none. */
static size_t maker_note(const TiffBlock *tiff, size_t *length) {
    size_t ifd0 = tiff_u32(tiff, 4), exif = 0;
    for (unsigned i = 0, n = tiff_entries(tiff, ifd0); i < n; i++)
        if (tiff_u16(tiff, ifd0 + 2 + 12 * i) == 34665) exif = tiff_u32(tiff, ifd0 + 2 + 12 * i + 8);
    for (unsigned i = 0, n = exif ? tiff_entries(tiff, exif) : 0; i < n; i++)
        if (tiff_u16(tiff, exif + 2 + 12 * i) == 37500) return tiff_value(tiff, exif + 2 + 12 * i, length);
    return 0;
}

/* libexif re-encodes the maker notes it recognises when libvips saves, and writes Apple's as 0 bytes;
   those it does not recognise it keeps byte for byte. Apple's (relative offsets: it may move) is made
   unrecognisable by its first byte, which restore_maker_note puts back. Others, which libexif re-encodes
   with their offsets fixed, are left to it. Returns that byte, or 0 when the note was left alone. */
static unsigned char hide_maker_note(VipsImage *image) {
    static const char *const signatures[] = {"Apple iOS"};
    const void *data = NULL;
    size_t size = 0, length = 0;
    TiffBlock tiff;
    if (!vips_image_get_typeof(image, VIPS_META_EXIF_NAME) || vips_image_get_blob(image, VIPS_META_EXIF_NAME, &data, &size) ||
        !exif_block(&tiff, data, size))
        return 0;
    size_t note = maker_note(&tiff, &length);
    for (size_t i = 0; note && i < sizeof signatures / sizeof *signatures; i++) {
        if (length <= strlen(signatures[i]) || memcmp(tiff.data + note, signatures[i], strlen(signatures[i])) != 0) continue;
        unsigned char first = tiff.data[note];
        unsigned char *copy = g_memdup2(data, size);
        copy[(tiff.data - (const unsigned char *) data) + note] = '_';
        vips_image_set_blob_copy(image, VIPS_META_EXIF_NAME, copy, size);
        g_free(copy);
        return first;
    }
    return 0;
}

/* The first byte hide_maker_note changed, back in the written JPEG's EXIF `tiff` (in place). */
static void restore_maker_note(const TiffBlock *tiff, unsigned char first) {
    size_t length = 0, note = maker_note(tiff, &length);
    if (note && tiff->data[note] == '_') ((unsigned char *) tiff->data)[note] = first;
}

static size_t le32(const unsigned char *p) {
    return (size_t) p[0] | (size_t) p[1] << 8 | (size_t) p[2] << 16 | (size_t) p[3] << 24;
}

/* Where a WebP's EXIF chunk's data starts, and how long it is; 0 when the file is no WebP or has none. */
static size_t webp_exif(const unsigned char *bytes, size_t size, size_t *length) {
    if (size < 12 || memcmp(bytes, "RIFF", 4) != 0 || memcmp(bytes + 8, "WEBP", 4) != 0) return 0;
    for (size_t at = 12; at + 8 <= size;) {
        size_t chunk = le32(bytes + at + 4);
        if (chunk > size - at - 8) return 0;
        if (memcmp(bytes + at, "EXIF", 4) == 0) {
            *length = chunk;
            return at + 8;
        }
        at += 8 + chunk + (chunk & 1);
    }
    return 0;
}

/* The EXIF TIFF structure of a written file, found in place. A JPEG's is in its APP1 "Exif" segment, a
   WebP's in its EXIF chunk. HEIF (its Exif item, after libheif's offset word) carries the block libvips
   gives it, "Exif\0\0" first: the first such header followed by a TIFF structure with entries is it. */
static int written_exif(const unsigned char *bytes, size_t size, TiffBlock *tiff) {
    size_t length = 0, chunk = webp_exif(bytes, size, &length);
    if (chunk) return exif_block(tiff, bytes + chunk, length);
    if (size >= 2 && bytes[0] == 0xff && bytes[1] == 0xd8) {
        for (size_t at = 2; at + 4 <= size && bytes[at] == 0xff && bytes[at + 1] != 0xda;) {
            size_t length = (size_t) bytes[at + 2] << 8 | bytes[at + 3];
            if (length < 2 || at + 2 + length > size) return 0;
            if (bytes[at + 1] == 0xe1 && length >= 8 && memcmp(bytes + at + 4, "Exif\0\0", 6) == 0)
                return exif_block(tiff, bytes + at + 4, length - 2);
            at += 2 + length;
        }
        return 0;
    }
    for (const char *at = (const char *) bytes; (at = find_bytes(at, size - (at - (const char *) bytes), "Exif"));
         at += 4) {
        size_t rest = size - (at - (const char *) bytes);
        if (rest > 6 && memcmp(at, "Exif\0\0", 6) == 0 && exif_block(tiff, (const unsigned char *) at, rest) && tiff_entries(tiff, tiff_u32(tiff, 4)))
            return 1;
    }
    return 0;
}

/* The written `output`'s EXIF texts that note_exif_texts noted get their original bytes back (in place: the
   stand-in had as many, so no offset of the container, HEIF's item locations, moves), and its maker note
   the first byte hide_maker_note changed. A WebP's EXIF chunk loses the "Exif\0\0" libvips 8.14 puts
   before its TIFF structure, which WebP does not have there (readers then find no EXIF, or warn). */
static int restore_exif(const char *output, GPtrArray *texts, unsigned char maker_note_byte) {
    gchar *contents = NULL;
    gsize size = 0;
    if (!g_file_get_contents(output, &contents, &size, NULL)) return -1;
    unsigned char *bytes = (unsigned char *) contents;
    int failed = 0;
    TiffBlock tiff;
    if (written_exif(bytes, size, &tiff)) {
        TextRestore restore = {(unsigned char *) tiff.data, texts};
        if (texts) each_exif_text(&tiff, restore_text, &restore);
        if (maker_note_byte) restore_maker_note(&tiff, maker_note_byte);
        size_t length = 0, chunk = webp_exif(bytes, size, &length);
        if (chunk && length >= 6 && memcmp(bytes + chunk, "Exif\0\0", 6) == 0) {
            /* As long shorter by 6 (even: no padding byte comes or goes), and the RIFF too. */
            size_t riff = le32(bytes + 4) - 6;
            memmove(bytes + chunk, bytes + chunk + 6, size - chunk - 6);
            size -= 6;
            for (int i = 0; i < 4; i++) {
                bytes[chunk - 4 + i] = (length - 6) >> (8 * i) & 0xff;
                bytes[4 + i] = riff >> (8 * i) & 0xff;
            }
        }
        FILE *file = fopen(output, "wb");
        failed = !file || fwrite(contents, 1, size, file) != size;
        if (file && fclose(file)) failed = 1;
    }
    g_free(contents);
    return failed ? -1 : 0;
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
    /* The Extended XMP is in the packet now, or gone: the note naming it goes. */
    int drop_extension_note;
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
    if (edits->drop_extension_note && IS("xmpNote:HasExtendedXMP")) return NULL;
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
    XmpEdits edits = {"1", width_text, height_text, strip_location, NULL, 0, 0, 0};
    return to_malloc(edit_xmp(xmp, length, &edits), out_length);
}

char *archiver_photo_mark_xmp(const char *xmp, size_t length, const char *tool, size_t *out_length) {
    XmpEdits edits = {NULL, NULL, NULL, 0, tool, 0, 0, 0};
    return to_malloc(edit_xmp(xmp ? xmp : "", xmp ? length : 0, &edits), out_length);
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
static void fix_xmp(VipsImage *image, const ArchiverPhotoOptions *options, int drop_extension_note) {
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
    XmpEdits edits = {"1", width_text, height_text, options->strip_location, options->creator_tool, 0, 1, drop_extension_note};
    GString *edited = edit_xmp(xmp ? xmp : "", xmp ? length : 0, &edits);
    vips_image_set_blob_copy(image, VIPS_META_XMP_NAME, edited->str, edited->len);
    g_string_free(edited, TRUE);
    g_free(converted);
}

static const char extension_header[] = "http://ns.adobe.com/xmp/extension/"; /* and its NUL */

/* The GUID the packet names in xmpNote:HasExtendedXMP (33 bytes with the NUL); 0 when it names none. */
static int extended_xmp_guid(VipsImage *image, char *guid) {
    const void *xmp = NULL;
    size_t length = 0;
    if (!vips_image_get_typeof(image, VIPS_META_XMP_NAME) || vips_image_get_blob(image, VIPS_META_XMP_NAME, &xmp, &length))
        return 0;
    const char *name = find_bytes(xmp, length, "HasExtendedXMP");
    if (!name) return 0;
    /* The value: the next 32 hexadecimal digits after the name's '=' and quote, or its element's '>'. */
    const char *end = (const char *) xmp + length, *at = name + strlen("HasExtendedXMP");
    while (at < end && (*at == '=' || *at == '"' || *at == '\'' || *at == '>' || g_ascii_isspace(*at))) at++;
    if (end - at < 32) return 0;
    for (int i = 0; i < 32; i++)
        if (!g_ascii_isxdigit(at[i])) return 0;
    memcpy(guid, at, 32);
    guid[32] = '\0';
    return 1;
}

/* A JPEG's Extended XMP (Google's depth maps, Photoshop's long histories): the APP1 segments that continue
   its packet past JPEG's 64 kB, whole, when they carry `guid`. libvips reads and writes the main packet only.
   NULL when there are none, and with `strip_location` when they hold a location. `text`, when given, gets
   the serialized packet they carry. */
static GByteArray *extended_xmp(const char *input, const char *guid, int strip_location, GString **text_out) {
    GMappedFile *file = g_mapped_file_new(input, FALSE, NULL);
    if (!file) return NULL;
    const unsigned char *bytes = (const unsigned char *) g_mapped_file_get_contents(file);
    size_t size = g_mapped_file_get_length(file), at = 2;
    GByteArray *segments = g_byte_array_new();
    GString *text = g_string_new(NULL);
    while (size >= 4 && bytes[0] == 0xff && bytes[1] == 0xd8 && at + 4 <= size && bytes[at] == 0xff) {
        unsigned marker = bytes[at + 1];
        if (marker == 0xff) {
            at++;
            continue;
        }
        if (marker == 0xda || marker == 0xd9) break; /* the picture's data: no metadata after it */
        size_t length = (size_t) bytes[at + 2] << 8 | bytes[at + 3];
        if (length < 2 || at + 2 + length > size) break;
        const unsigned char *data = bytes + at + 4;
        size_t header = sizeof extension_header;
        if (marker == 0xe1 && length - 2 > header + 40 && memcmp(data, extension_header, header) == 0 &&
            memcmp(data + header, guid, 32) == 0) {
            g_byte_array_append(segments, bytes + at, 2 + length);
            g_string_append_len(text, (const char *) data + header + 40, length - 2 - header - 40);
        }
        at += 2 + length;
    }
    g_mapped_file_unref(file);
    if (!segments->len || (strip_location && g_strstr_len(text->str, text->len, "exif:GPS"))) {
        g_byte_array_free(segments, TRUE);
        segments = NULL;
    }
    if (segments && text_out)
        *text_out = text;
    else
        g_string_free(text, TRUE);
    return segments;
}

/* Puts `segments` into the JPEG `output` right after its XMP packet's APP1, where readers look for them. */
static int add_after_xmp(const char *output, const GByteArray *segments) {
    gchar *contents = NULL;
    gsize size = 0;
    if (!g_file_get_contents(output, &contents, &size, NULL)) return -1;
    static const char xmp_header[] = "http://ns.adobe.com/xap/1.0/";
    size_t at = 2, insert = 0;
    const unsigned char *bytes = (const unsigned char *) contents;
    while (at + 4 <= size && bytes[at] == 0xff && bytes[at + 1] != 0xda) {
        size_t length = (size_t) bytes[at + 2] << 8 | bytes[at + 3];
        if (length < 2 || at + 2 + length > size) break;
        if (bytes[at + 1] == 0xe1 && length - 2 >= sizeof xmp_header && memcmp(bytes + at + 4, xmp_header, sizeof xmp_header) == 0) {
            insert = at + 2 + length;
            break;
        }
        at += 2 + length;
    }
    int failed = 0;
    if (insert) {
        FILE *file = fopen(output, "wb");
        failed = !file || fwrite(contents, 1, insert, file) != insert ||
                 fwrite(segments->data, 1, segments->len, file) != segments->len ||
                 fwrite(contents + insert, 1, size - insert, file) != size - insert;
        if (file && fclose(file)) failed = 1;
    }
    g_free(contents);
    return failed ? -1 : 0;
}

/* WebP and HEIF hold an XMP packet of any size, and know no Extended XMP: its Descriptions join the main
   packet's (RDF allows several about one resource; the XMP toolkit declares their namespaces on each). */
static void merge_extended_xmp(VipsImage *image, const GString *extension) {
    const void *xmp = NULL;
    size_t length = 0;
    if (!vips_image_get_typeof(image, VIPS_META_XMP_NAME) || vips_image_get_blob(image, VIPS_META_XMP_NAME, &xmp, &length))
        return;
    const char *rdf = g_strstr_len(extension->str, extension->len, "<rdf:RDF");
    const char *inner = rdf ? memchr(rdf, '>', extension->str + extension->len - rdf) : NULL;
    const char *inner_end = inner ? g_strrstr_len(extension->str, extension->len, "</rdf:RDF>") : NULL;
    const char *main_end = g_strrstr_len((const char *) xmp, length, "</rdf:RDF>");
    if (!inner_end || inner_end < inner || !main_end) return;
    GString *merged = g_string_new_len((const char *) xmp, main_end - (const char *) xmp);
    g_string_append_len(merged, inner + 1, inner_end - inner - 1);
    g_string_append_len(merged, main_end, (const char *) xmp + length - main_end);
    vips_image_set_blob_copy(image, VIPS_META_XMP_NAME, merged->str, merged->len);
    g_string_free(merged, TRUE);
}

/* The offset of the sub-IFD that IFD0 of `tiff` points to with `tag` (34665 Exif, 34853 GPS); 0: none. */
static size_t sub_ifd(const TiffBlock *tiff, unsigned tag) {
    size_t ifd0 = tiff_u32(tiff, 4);
    for (unsigned i = 0, n = tiff_entries(tiff, ifd0); i < n; i++)
        if (tiff_u16(tiff, ifd0 + 2 + 12 * i) == tag) return tiff_u32(tiff, ifd0 + 2 + 12 * i + 8);
    return 0;
}

/* Where the value of entry `tag` of the IFD at `ifd` is, and how long; 0: none. */
static size_t ifd_value(const TiffBlock *tiff, size_t ifd, unsigned tag, size_t *length) {
    for (unsigned i = 0, n = ifd ? tiff_entries(tiff, ifd) : 0; i < n; i++)
        if (tiff_u16(tiff, ifd + 2 + 12 * i) == tag) return tiff_value(tiff, ifd + 2 + 12 * i, length);
    return 0;
}

/* What the Compress Photos… filters ask of EXIF: when the photo was taken (DateTimeOriginal, else
   DateTimeDigitized; DateTime is when it was last changed) and whether it has a position (GPSLatitude and
   GPSLongitude; a phone without a fix may write zeros). */
static void read_facts(const TiffBlock *tiff, ArchiverPhotoHeader *header) {
    size_t exif = sub_ifd(tiff, 34665), gps = sub_ifd(tiff, 34853), length = 0, value;
    static const unsigned dates[] = {36867, 36868};
    for (int d = 0; d < 2 && !header->taken[0]; d++) {
        if (!(value = ifd_value(tiff, exif, dates[d], &length))) continue;
        size_t used = strnlen((const char *) tiff->data + value, length);
        if (used >= sizeof header->taken) used = sizeof header->taken - 1;
        memcpy(header->taken, tiff->data + value, used);
        header->taken[used] = 0;
    }
    int found = 0, nonzero = 0;
    for (unsigned tag = 2; tag <= 4; tag += 2) {
        if (!(value = ifd_value(tiff, gps, tag, &length)) || length < 8) continue;
        found++;
        for (size_t i = 0; i < length; i++) nonzero |= tiff->data[value + i] && (i % 8) < 4;
    }
    header->located = found == 2 && nonzero;
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
    if (vips_image_get_typeof(image, VIPS_META_IPTC_NAME) &&
        !vips_image_get_blob(image, VIPS_META_IPTC_NAME, &blob, &length) && blob && length > 0) {
        header->iptc = malloc(length);
        if (header->iptc) {
            memcpy(header->iptc, blob, length);
            header->iptc_length = length;
        }
    }
    TiffBlock tiff;
    if (vips_image_get_typeof(image, VIPS_META_EXIF_NAME) &&
        !vips_image_get_blob(image, VIPS_META_EXIF_NAME, &blob, &length) && exif_block(&tiff, blob, length)) {
        read_facts(&tiff, header);
    } else if (vips_isprefix("tiffload", header->loader)) {
        /* libvips 8.14 reads no EXIF from a TIFF: the file is itself the structure EXIF borrows. */
        GMappedFile *file = g_mapped_file_new(path, FALSE, NULL);
        if (file && tiff_open(&tiff, g_mapped_file_get_contents(file), g_mapped_file_get_length(file))) read_facts(&tiff, header);
        if (file) g_mapped_file_unref(file);
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
    if (!vips_image_get_typeof(copy, VIPS_META_EXIF_NAME)) {
        GByteArray *exif = tiff_exif(input);
        if (exif) {
            attach_exif(copy, exif);
            g_byte_array_free(exif, TRUE);
        }
    }
    GPtrArray *texts = note_exif_texts(copy);
    unsigned char maker_note_byte = hide_maker_note(copy);
    remove_metadata(copy, options->strip_location);
    remove_photoshop_thumbnail(copy);
    read_heif_xmp(copy, input);
    /* Extended XMP is a JPEG's own way: a JPEG copy carries its segments after the packet that names them,
       other formats the properties in the packet itself. */
    int jpeg = options->format == ARCHIVER_PHOTO_JPEG;
    char guid[33];
    GString *extension_text = NULL;
    GByteArray *extension = extended_xmp_guid(copy, guid)
                                ? extended_xmp(input, guid, options->strip_location, jpeg ? NULL : &extension_text) : NULL;
    if (extension_text) {
        merge_extended_xmp(copy, extension_text);
        g_string_free(extension_text, TRUE);
        g_byte_array_free(extension, TRUE);
        extension = NULL;
    }
    fix_xmp(copy, options, !jpeg);
    failed = save(copy, output, options);
    if (!failed && extension && add_after_xmp(output, extension)) failed = 1;
    if (!failed && (texts || maker_note_byte || options->format == ARCHIVER_PHOTO_WEBP) &&
        restore_exif(output, texts, maker_note_byte))
        failed = 1;
    if (extension) g_byte_array_free(extension, TRUE);
    if (texts) g_ptr_array_free(texts, TRUE);
    if (!failed && result) {
        result->width = copy->Xsize;
        result->height = copy->Ysize;
    }
    g_object_unref(copy);
    /* The pixels are decoded while the copy is written: a photo cut short fails only here. */
    if (failed) return fail(error, decodes(input, side) ? "write" : "damaged");
    return 0;
}
