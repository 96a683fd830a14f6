#ifndef ARCHIVER_CZLIB_SHIM_H
#define ARCHIVER_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro passing zlib's version and the stream's size, which Swift does not import. */
static inline int cz_inflate_init(z_stream *stream, int windowBits) { return inflateInit2(stream, windowBits); }
/* deflateInit2 likewise: a raw deflate stream (no zlib or gzip wrapper), zlib's default memory level. */
static inline int cz_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
#endif
