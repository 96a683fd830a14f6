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
} pdfshim_result;

/** Writes into the file open as `output` (from its start, truncating it): `input` with its oversized images
    resampled and re-encoded, then written with object streams and recompressed Flate streams, encrypted as
    the input was. The descriptor stays open; the caller made the file, so no path is ever reopened. */
pdfshim_status pdfshim_compress(const char *input, int output, const pdfshim_options *options,
                                pdfshim_result *result);

/** Opens `input` (with `password`, which may be NULL) and fills `pages` and `encrypted` of `result`,
    writing nothing. */
pdfshim_status pdfshim_inspect(const char *input, const char *password, pdfshim_result *result);

/** Writes into the file open as `output`, as pdfshim_compress does: a PDF of one page per JPEG, each page
    the JPEG's size at `dpi`, the image filling it (the flatten mode's rebuild after rendering). */
pdfshim_status pdfshim_pages_from_jpegs(const char *const *jpegs, int32_t count, int32_t dpi, int output,
                                        pdfshim_result *result);

/** The resampling decision for one image: `width` × `height` pixels drawn at most `width_inches` ×
    `height_inches`. Returns 1 and the new size when its resolution exceeds `target_dpi` by more than 10 %
    (smaller gains cost a generation of JPEG loss for little), else 0. */
int32_t pdfshim_plan_resample(int64_t width, int64_t height, double width_inches, double height_inches,
                              int32_t target_dpi, int64_t *new_width, int64_t *new_height);

#ifdef __cplusplus
}
#endif
#endif
