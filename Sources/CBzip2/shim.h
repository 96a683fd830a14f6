#ifndef ARCHIVER_CBZIP2_SHIM_H
#define ARCHIVER_CBZIP2_SHIM_H
/* libbz2's stream API: a tar.bz2 is decoded block by block, each block alone (no pkg-config file on Debian). */
#include <bzlib.h>
#endif
