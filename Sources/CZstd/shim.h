#ifndef ARCHIVER_CZSTD_SHIM_H
#define ARCHIVER_CZSTD_SHIM_H
/* libzstd's advanced parameters (ZSTD_c_jobSize) are in its stable API since 1.4. */
#include <zstd.h>
#endif
