#ifndef ARCHIVER_CLZMA_SHIM_H
#define ARCHIVER_CLZMA_SHIM_H
/* liblzma's index and Block API: an xz file made with several Blocks (xz -T0) can be read from any Block. */
#include <lzma.h>

/* LZMA_FILTERS_MAX and LZMA_VLI_UNKNOWN are macros with casts Swift does not import. */
static const unsigned int CL_FILTERS_MAX = LZMA_FILTERS_MAX;
static const unsigned long long CL_VLI_UNKNOWN = LZMA_VLI_UNKNOWN;
static const uint32_t CL_CONCATENATED = LZMA_CONCATENATED;
#endif
