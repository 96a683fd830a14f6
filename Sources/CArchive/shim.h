#ifndef ARCHIVER_CARCHIVE_SHIM_H
#define ARCHIVER_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#include <locale.h>

/* The AE_IF* macros are casts, which Swift does not import. */
static const unsigned int CA_AE_IFMT = AE_IFMT;
static const unsigned int CA_AE_IFREG = AE_IFREG;
static const unsigned int CA_AE_IFDIR = AE_IFDIR;
static const unsigned int CA_AE_IFLNK = AE_IFLNK;
static const unsigned int CA_AE_IFCHR = AE_IFCHR;
static const unsigned int CA_AE_IFBLK = AE_IFBLK;
static const unsigned int CA_AE_IFIFO = AE_IFIFO;
static const unsigned int CA_AE_IFSOCK = AE_IFSOCK;

/* archive_set_error is variadic, which Swift cannot call. */
static inline void ca_set_error(struct archive *a, int err, const char *msg) {
    archive_set_error(a, err, "%s", msg);
}

/* LC_CTYPE_MASK is a macro Swift does not import: the C locale for the calling thread only. */
static inline locale_t ca_new_c_locale(void) { return newlocale(LC_CTYPE_MASK, "C", (locale_t)0); }

#endif
