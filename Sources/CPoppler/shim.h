#ifndef ARCHIVER_CPOPPLER_SHIM_H
#define ARCHIVER_CPOPPLER_SHIM_H
/* poppler-glib and cairo: the Extract… window's quick look draws a PDF's first page from its bytes in memory. */
#include <poppler.h>
#include <cairo.h>
#endif
