/* Deflate libraries on the blocks the parallel compressor makes (bench/deflate.sh builds and runs it):
   the input cut into BLOCK-byte blocks, each compressed after the previous 32 KiB as a dictionary and ended
   with a sync flush, as ParallelDeflate does, one thread, CPU time. libdeflate has neither dictionaries nor
   unfinished blocks, so its blocks are compressed each on their own (what it would cost in size if used).
   Usage: deflate-blocks FILE [BLOCK [LEVELS]]   (LEVELS: zlib levels to compare with, e.g. 1,6; default 1,6,9) */
#include <isa-l.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static unsigned char *out;
static size_t outCap;

static size_t zlibBlocks(const unsigned char *in, size_t n, size_t block, int level) {
    size_t total = 0;
    z_stream s;
    memset(&s, 0, sizeof s);
    deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    for (size_t at = 0; at < n; at += block) {
        size_t len = n - at < block ? n - at : block;
        deflateReset(&s);
        if (at > 0) deflateSetDictionary(&s, in + at - 32768, 32768);
        s.next_in = (unsigned char *)in + at;
        s.avail_in = (unsigned)len;
        s.next_out = out;
        s.avail_out = (unsigned)outCap;
        deflate(&s, at + len == n ? Z_FINISH : Z_SYNC_FLUSH);
        total += outCap - s.avail_out;
    }
    deflateEnd(&s);
    return total;
}

static size_t isalBlocks(const unsigned char *in, size_t n, size_t block, int level) {
    static const unsigned sizes[] = {ISAL_DEF_LVL0_DEFAULT, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT};
    unsigned char *levelBuf = malloc(sizes[level]);
    size_t total = 0;
    struct isal_zstream s;
    for (size_t at = 0; at < n; at += block) {
        size_t len = n - at < block ? n - at : block;
        isal_deflate_init(&s);
        s.level = level;
        s.level_buf = levelBuf;
        s.level_buf_size = sizes[level];
        s.gzip_flag = IGZIP_DEFLATE;
        if (at > 0) isal_deflate_set_dict(&s, (unsigned char *)in + at - 32768, 32768);
        s.next_in = (unsigned char *)in + at;
        s.avail_in = (unsigned)len;
        s.next_out = out;
        s.avail_out = (unsigned)outCap;
        s.end_of_stream = at + len == n;
        s.flush = s.end_of_stream ? NO_FLUSH : SYNC_FLUSH;
        if (isal_deflate(&s) != COMP_OK || s.avail_in != 0) { fprintf(stderr, "isal failed\n"); exit(1); }
        total += outCap - s.avail_out;
    }
    free(levelBuf);
    return total;
}

static size_t libdeflateBlocks(const unsigned char *in, size_t n, size_t block, int level) {
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    size_t total = 0;
    for (size_t at = 0; at < n; at += block) {
        size_t len = n - at < block ? n - at : block;
        total += libdeflate_deflate_compress(c, in + at, len, out, outCap);
    }
    libdeflate_free_compressor(c);
    return total;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    size_t block = argc > 2 ? strtoul(argv[2], 0, 10) : 131072;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 3;
    fseek(f, 0, SEEK_END);
    size_t n = ftell(f);
    rewind(f);
    unsigned char *in = malloc(n);
    if (fread(in, 1, n, f) != n) return 3;
    outCap = compressBound(block) + 1024;
    out = malloc(outCap);
    printf("| library | level | size (bytes) | vs zlib same level | MB/s (one core, CPU time) |\n|---|---|---|---|---|\n");
    int levels[9] = {1, 6, 9}, count = 3;
    if (argc > 3) {
        count = 0;
        for (char *p = argv[3]; *p && count < 9; p++)
            if (*p >= '0' && *p <= '9') levels[count++] = *p - '0';
    }
    for (int i = 0; i < count; i++) {
        int level = levels[i];
        double t = now();
        size_t z = zlibBlocks(in, n, block, level);
        double zt = now() - t;
        printf("| zlib %s | %d | %zu | 1.0000 | %.1f |\n", zlibVersion(), level, z, n / zt / 1e6);
        t = now();
        size_t d = libdeflateBlocks(in, n, block, level);
        double dt = now() - t;
        printf("| libdeflate (blocks without dictionary) | %d | %zu | %.4f | %.1f |\n", level, d, (double)d / z, n / dt / 1e6);
        for (int il = 1; il <= 3; il++) {
            t = now();
            size_t s = isalBlocks(in, n, block, il);
            double st = now() - t;
            printf("| ISA-L igzip level %d | vs %d | %zu | %.4f | %.1f |\n", il, level, s, (double)s / z, n / st / 1e6);
        }
        fflush(stdout);
    }
    return 0;
}
