#ifndef ARCHIVER_CVIPS_SHIM_H
#define ARCHIVER_CVIPS_SHIM_H
/* libvips for the photo and PDF image passes. Most of its API is variadic, which Swift cannot call:
   fixed-argument wrappers live in the C shim targets that depend on this module. */
#include <vips/vips.h>
#endif
