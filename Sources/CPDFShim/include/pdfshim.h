#ifndef ARCHIVER_PDFSHIM_H
#define ARCHIVER_PDFSHIM_H
/* The PDF image pass for Swift: qpdf's C++ object API (content streams, transformation matrices, the
   writer's object streams) and libvips (resampling, JPEG), behind plain C functions. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How a call ended; the result's message says more. */
typedef enum {
    PDFSHIM_OK = 0,
    /** Encrypted, and the password given (or none) does not open it. */
    PDFSHIM_NEEDS_PASSWORD = 1,
    /** qpdf could not read or repair the file. */
    PDFSHIM_DAMAGED = 2,
    /** The output could not be written; `error_number` holds errno when known. */
    PDFSHIM_WRITE_FAILED = 3,
    /** The progress callback asked to stop. */
    PDFSHIM_CANCELLED = 4,
    /** Anything else (out of memory, an internal error). */
    PDFSHIM_FAILED = 5,
} pdfshim_status;

/** Called after each image; returns nonzero to stop the job. */
typedef int (*pdfshim_progress)(void *context, int32_t done, int32_t total);

typedef struct {
    /** Images drawn above this resolution (at their largest placement) are resampled to it. */
    int32_t target_dpi;
    /** JPEG quality 1…100 of the re-encoded images. */
    int32_t jpeg_quality;
    /** NULL or a NUL-terminated password (user or owner). */
    const char *password;
    pdfshim_progress progress;
    void *context;
    /** Nonzero: write a classic cross-reference table and no object streams (the retry when a copy with
        them does not open as well as the original). */
    int32_t plain_structure;
    /** Nonzero: leave embedded fonts as they are (no subsetting; the same retry). */
    int32_t keep_fonts;
} pdfshim_options;

typedef struct {
    /** Image XObjects drawn on some page, and those worth resampling (the progress total). */
    int32_t images_placed;
    int32_t images_candidates;
    /** Images replaced by a smaller resampled JPEG. */
    int32_t images_replaced;
    /** Candidates left as they were: undecodable, or the JPEG was not smaller. */
    int32_t images_kept;
    int32_t pages;
    /** Whether the input was encrypted (the output keeps its encryption). */
    int32_t encrypted;
    /** Whether qpdf had to repair the input (its warnings were suppressed). */
    int32_t repaired;
    /** Whether the input says it holds digital signatures (/AcroForm /SigFlags): any rewrite voids them. */
    int32_t signed_document;
    int32_t error_number;
    char message[512];
    /** Text-showing operators (Tj, TJ, ', ") in the pages' content streams and the forms they draw. */
    int64_t text_operators;
    /** What `pdfshim_check` found wrong: qpdf's warnings and errors (repairs, streams it cannot decode,
        content it cannot parse); the first is in `message`. */
    int32_t problems;
    /** Font programs embedded whole that the copy subsets to the glyphs its pages draw. */
    int32_t fonts_subset;
} pdfshim_result;

/** Writes into the file open as `output` (from its start, truncating it): `input` with its oversized images
    resampled and re-encoded and its fonts embedded whole subset, then written with object streams and
    recompressed Flate streams, encrypted as the input was (RC4 staying RC4). The descriptor stays open; the caller made the file, so no path is ever reopened. */
pdfshim_status pdfshim_compress(const char *input, int output, const pdfshim_options *options,
                                pdfshim_result *result);

/** 1 when `input` encrypts its attached files only (PDF 1.6's /EFF, its streams and strings not encrypted),
    else 0. qpdf's writer knows no such scope: a copy would encrypt the whole document. Needs no password. */
int32_t pdfshim_encrypts_attachments_only(const char *input);

/** Opens `input` (with `password`, which may be NULL) and counts the text-showing operators its pages draw
    into `text_operators` (and `pages`, `encrypted`) of `result`, writing nothing: a compressed copy keeps
    its text when its count is the input's. */
pdfshim_status pdfshim_count_text(const char *input, const char *password, pdfshim_result *result);

/** Reads `input` as `qpdf --check` does (every object, every stream decoded, images included, every page's
    content parsed), writing nothing: `problems` of `result` counts what was wrong, and `text_operators`,
    `pages`, `encrypted` are filled as by pdfshim_count_text. OK unless it cannot be opened at all. */
pdfshim_status pdfshim_check(const char *input, const char *password, pdfshim_result *result);

/** Writes into the file open as `output`, as pdfshim_compress does: a PDF of one page per JPEG, each page
    the JPEG's size at `dpi`, the image filling it (the flatten mode's rebuild after rendering). */
pdfshim_status pdfshim_pages_from_jpegs(const char *const *jpegs, int32_t count, int32_t dpi, int output,
                                        pdfshim_result *result);

/** The resampling decision for one image: `width` × `height` pixels drawn at most `width_inches` ×
    `height_inches`. Returns 1 and the new size when its resolution exceeds `target_dpi` by more than 10 %
    (smaller gains cost a generation of JPEG loss for little), else 0. */
int32_t pdfshim_plan_resample(int64_t width, int64_t height, double width_inches, double height_inches,
                              int32_t target_dpi, int64_t *new_width, int64_t *new_height);


/** The most quality levels one estimate measures. */
#define PDFSHIM_MAX_LEVELS 8

/** One level of the estimate: what `pdfshim_compress` would be given. */
typedef struct {
    int32_t target_dpi;
    int32_t jpeg_quality;
} pdfshim_level;

/** An image's trial at one level. */
typedef struct {
    /** The size the image pass would resample it to; 0 × 0 when it is left as it is at this level. */
    int64_t new_width;
    int64_t new_height;
    /** JPEG bytes per pixel of entropy-coded data (at the level's quality) of the image resampled to `sample_width[k]` pixels
        across, measured on a sample of its rows; 0 when not measured. `sample_width[0]` is the new width
        itself when the trial could resample that far; else the largest width it had, and `[1]` half of it,
        for the Swift side to extrapolate. */
    int64_t sample_width[2];
    double bytes_per_pixel[2];
    /** The JPEG's tables and markers, which come once per image whatever its size. */
    int64_t header_bytes;
} pdfshim_level_trial;

/** What the estimate learnt of one image the image pass would resample at some level. */
typedef struct {
    int64_t width;
    int64_t height;
    /** The bytes it takes in the file, and those it would take if kept (the writer drops ASCII85). */
    int64_t stored_bytes;
    int64_t kept_bytes;
    /** Its soft mask (0 without): pixels and the bytes it would take if kept. */
    int64_t mask_width;
    int64_t mask_height;
    int64_t mask_kept_bytes;
    /** Whether it is stored as a JPEG (the sample is drawn from JPEG images and the others apart). */
    int32_t jpeg;
    /** Whether it was in the sample, tried from up to 9 megapixels decoded (`levels`); when not, the
        levels carry new sizes only. */
    int32_t measured;
    pdfshim_level_trial levels[PDFSHIM_MAX_LEVELS];
    /** Whether the quick trial, from under a megapixel decoded (JPEG images only), was made: up to 24 JPEG
        images get one, and those in the sample tell how far it is from the thorough one at each level. */
    int32_t quick_measured;
    pdfshim_level_trial quick[PDFSHIM_MAX_LEVELS];
} pdfshim_image_trial;

/** Called once per image of the estimate, on the calling thread. */
typedef void (*pdfshim_trial_callback)(void *context, const pdfshim_image_trial *trial);

/** Measures, without writing any file, what `pdfshim_compress` would make of `input` at each of `levels`
    (at most PDFSHIM_MAX_LEVELS): every image that some level would resample is reported through `trial`
    (up to `max_measured` JPEG images and as many others sampled: decoded at up to 9 megapixels, resampled
    and JPEG-encoded on a sample of rows; up to 24 JPEG images, spread likewise, also get the same trial from
    under a megapixel), and `*rest_bytes` is the size the rest of the file takes once rewritten. `result` gets `pages`,
    `encrypted`, `images_placed`, `images_candidates` (images reported) and `text_operators`. */
pdfshim_status pdfshim_estimate(const char *input, const char *password, const pdfshim_level *levels,
                                int32_t level_count, int32_t max_measured, pdfshim_trial_callback trial,
                                void *context, int64_t *rest_bytes, pdfshim_result *result);

#ifdef __cplusplus
}
#endif
#endif
