#ifndef ARCHIVER_CARCHIVE_SHIM_H
#define ARCHIVER_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#include <locale.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* unshare(CLONE_FS) needs _GNU_SOURCE, which Swift's Glibc module is not built with: the calling thread gets
   a current folder (and umask) of its own, so its chdir moves no other thread. */
static inline int ca_unshare_working_folder(void) { return (int)syscall(SYS_unshare, 0x00000200 /* CLONE_FS */); }
/* renameat2 with RENAME_NOREPLACE (glibc 2.28 wraps it under _GNU_SOURCE only): moves `from` to `to` only if
   nothing is there, in one step, for folders too. -1 with EINVAL or ENOSYS where the file system cannot. */
#include <fcntl.h>
static inline int ca_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
}
/* Glibc's module leaves out malloc.h: gives the free pages inside the heap back to the system (libarchive
   frees a zip's whole central directory, in small blocks between ones still in use). */
#include <malloc.h>
static inline void ca_release_free_memory(void) { malloc_trim(0); }
#endif
