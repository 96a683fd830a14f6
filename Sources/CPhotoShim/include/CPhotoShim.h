#ifndef ARCHIVER_CPHOTOSHIM_H
#define ARCHIVER_CPHOTOSHIM_H
/* Fixed-argument wrappers around libvips for Compress Photos: Swift cannot call vips's variadic API.
   One call makes one compressed copy; nothing of libvips crosses into Swift. */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The format of the copy. */
typedef enum {
    ARCHIVER_PHOTO_JPEG = 0,
    ARCHIVER_PHOTO_WEBP = 1,
    ARCHIVER_PHOTO_AVIF = 2,
    ARCHIVER_PHOTO_HEIC = 3,
} ArchiverPhotoFormat;

typedef struct {
    /** Longest side at most this many pixels, never enlarged; 0 keeps the size. */
    int max_size;
    /** The encoder's own quality, 1-100. */
    int quality;
    ArchiverPhotoFormat format;
    /** Remove the GPS IFD (and nothing else). */
    int strip_location;
    /** Written as the copy's XMP `xmp:CreatorTool` (the marker that recognises our copies); NULL: none. */
    const char *creator_tool;
} ArchiverPhotoOptions;

typedef struct {
    int width;
    int height;
} ArchiverPhotoResult;

/** What the header of a photo says, without decoding its pixels. */
typedef struct {
    /** Upright dimensions: an EXIF Orientation of 5-8 swaps the stored ones. */
    int width;
    int height;
    /** libvips's loader: "jpegload", "heifload", "pngload", "webpload", "tiffload", … */
    char loader[32];
    /** EXIF DateTimeOriginal, else DateTimeDigitized, as written ("2024:04:21 08:03:44"); empty: none. */
    char taken[24];
    /** The EXIF GPS IFD holds a latitude and a longitude, not both zero. */
    int located;
    /** The IPTC block libvips read (a JPEG's Photoshop APP13, a TIFF's IPTC tag), malloc'd (free() it); NULL: none. */
    char *iptc;
    size_t iptc_length;
} ArchiverPhotoHeader;

/** Starts libvips once per process; `concurrency` threads per pipeline. Returns 0 on success. */
int archiver_photo_init(int concurrency);

/** Whether this libvips can write `format` (a saver exists and libheif has the encoder). */
int archiver_photo_can_write(ArchiverPhotoFormat format);

/** Reads `input`, rotates it upright, shrinks it, fixes its metadata and writes `output`.
    Returns 0 on success; otherwise -1 with `*error` set to a malloc'd message (free() it). */
int archiver_photo_compress(const char *input, const char *output, const ArchiverPhotoOptions *options,
                            ArchiverPhotoResult *result, char **error);

/** Reads the header of `path` (no pixels), its EXIF date and position and its IPTC block (`header->iptc`), and
    its XMP packet, if any (`*xmp` malloc'd, free() it). Returns 0 on success; otherwise -1 with `*error` a
    malloc'd message. */
int archiver_photo_header(const char *path, ArchiverPhotoHeader *header, char **xmp, size_t *xmp_length, char **error);

/** The copy's XMP: `xmp` (may be NULL) with `xmp:CreatorTool` set to `tool`, replacing a value it had, or
    a new packet holding only that. Returns a malloc'd packet, `*out_length` bytes. */
char *archiver_photo_mark_xmp(const char *xmp, size_t length, const char *tool, size_t *out_length);

/** The person's Pictures folder (XDG user dirs), or NULL when none is set. Owned by GLib. */
const char *archiver_photo_pictures_dir(void);

/** Brings an XMP packet in line with the copy: tiff:Orientation 1, pixel dimensions `width`×`height`, and
    with `strip_location` no exif:GPS* property. Returns a malloc'd packet (free() it; NULL when out of memory), `*out_length`
    bytes. XMP repeats these EXIF fields, and a stale copy would contradict the fixed EXIF. */
char *archiver_photo_edit_xmp(const char *xmp, size_t length, int strip_location, int width, int height,
                              size_t *out_length);

/** The libvips version, "8.14.1". */
const char *archiver_photo_vips_version(void);

#ifdef __cplusplus
}
#endif
#endif
