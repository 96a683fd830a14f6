#ifndef ARCHIVER_CISAL_SHIM_H
#define ARCHIVER_CISAL_SHIM_H
#include <isa-l.h>
#include <string.h>

/* A decoder's state is one flat struct (no pointers but next_in and next_out), so a copy of it taken between
   two calls of isal_inflate resumes decoding from there: that is what a gzip seek point keeps. The copy is
   only valid for the library version and layout it was taken with. */
static const unsigned int CI_STATE_SIZE = sizeof(struct inflate_state);
static const unsigned int CI_STATE_TAG = ISAL_VERSION ^ ((unsigned int)sizeof(struct inflate_state) << 8);

/* Zeroes the part of a copied state's output buffer that holds nothing, so that the copy compresses well. */
static inline void ci_clear_unused(struct inflate_state *copy) {
    int valid = copy->tmp_out_valid < 0 ? 0 : copy->tmp_out_valid;
    if ((size_t)valid < sizeof(copy->tmp_out_buffer))
        memset(copy->tmp_out_buffer + valid, 0, sizeof(copy->tmp_out_buffer) - (size_t)valid);
    copy->next_in = 0;
    copy->next_out = 0;
    copy->avail_in = 0;
    copy->avail_out = 0;
}
/* The level buffer ISA-L suggests for a deflate level (ISAL_DEF_LVLx_DEFAULT are macros over macros). */
static inline unsigned int ci_level_buffer_size(unsigned int level) {
    switch (level) {
    case 0: return ISAL_DEF_LVL0_DEFAULT;
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    default: return ISAL_DEF_LVL3_DEFAULT;
    }
}
#endif
