#ifndef ARCHIVER_CZLIB_SHIM_H
#define ARCHIVER_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro passing zlib's version and the stream's size, which Swift does not import. */
static inline int cz_inflate_init(z_stream *stream, int windowBits) { return inflateInit2(stream, windowBits); }
/* deflateInit2 likewise: raw deflate (windowBits -15, no zlib or gzip wrapper) for zip members and gzip blocks. */
static inline int cz_deflate_init(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
