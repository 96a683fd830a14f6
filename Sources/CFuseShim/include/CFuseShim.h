// A thin shim over libfuse3's low-level API: Swift cannot import its version macros
// (fuse_session_loop_mt) and its reply functions, so this file holds the operations table and hands each
// request to plain functions with the context first. Inodes are the caller's numbers (1: the root), so
// libfuse keeps no table of names: memory stays what the caller's index takes, however many names the
// kernel has looked up.
#pragma once
#include <stdint.h>
#include <stddef.h>
#include <sys/stat.h>

/// Adds one directory entry, the `next`th (1 for the first); returns nonzero when the kernel's buffer is full.
typedef int (*cfuse_fill)(void *buffer, const char *name, const struct stat *status, int64_t next);

typedef struct cfuse_operations {
    /// The attributes of `name` in folder `parent`, with `st_ino` its inode; -ENOENT when there is none.
    int (*lookup)(void *context, uint64_t parent, const char *name, struct stat *status);
    int (*getattr)(void *context, uint64_t node, struct stat *status);
    /// Writes the target, NUL-terminated, into `target` of `size` bytes.
    int (*readlink)(void *context, uint64_t node, char *target, size_t size);
    /// Lists from the entry after the `offset`th (0: from the start).
    int (*readdir)(void *context, uint64_t node, int64_t offset, void *buffer, cfuse_fill fill);
    /// Stores a handle for `read` and `release`; `flags` are open(2)'s.
    int (*open)(void *context, uint64_t node, int flags, uint64_t *handle);
    /// Returns the bytes read (0 at the end) or -errno.
    int (*read)(void *context, uint64_t handle, char *buffer, size_t size, int64_t offset);
    int (*release)(void *context, uint64_t handle);
    /// Called once the kernel has answered the first request: the folder is usable.
    void (*ready)(void *context);

    // A writable folder's operations; all NULL for a read-only one (the kernel then answers EROFS).
    /// Makes and opens file `name` in `parent`; fills its attributes and a handle as `open` does.
    int (*create)(void *context, uint64_t parent, const char *name, mode_t mode, int flags, struct stat *status,
                  uint64_t *handle);
    /// Returns the bytes written or -errno.
    int (*write)(void *context, uint64_t handle, const char *buffer, size_t size, int64_t offset);
    /// Changes what `which` (CFUSE_SET_* bits) names from `wanted`; `handle` is 0 without an open file.
    /// Fills the attributes after the change.
    int (*setattr)(void *context, uint64_t node, const struct stat *wanted, int which, uint64_t handle,
                   struct stat *status);
    int (*mkdir)(void *context, uint64_t parent, const char *name, mode_t mode, struct stat *status);
    int (*symlink)(void *context, uint64_t parent, const char *name, const char *target, struct stat *status);
    int (*unlink)(void *context, uint64_t parent, const char *name);
    int (*rmdir)(void *context, uint64_t parent, const char *name);
    /// `flags`: rename2's (RENAME_NOREPLACE, RENAME_EXCHANGE).
    int (*rename)(void *context, uint64_t parent, const char *name, uint64_t new_parent, const char *new_name,
                  unsigned flags);
} cfuse_operations;

/// What `setattr` changes (libfuse's FUSE_SET_ATTR_* values).
enum {
    CFUSE_SET_MODE = 1 << 0,
    CFUSE_SET_SIZE = 1 << 3,
    CFUSE_SET_ATIME = 1 << 4,
    CFUSE_SET_MTIME = 1 << 5,
    CFUSE_SET_ATIME_NOW = 1 << 7,
    CFUSE_SET_MTIME_NOW = 1 << 8,
};

typedef struct cfuse cfuse;

/// Mounts at `mountpoint` with `options` (a comma-separated -o list). NULL when that fails, with the
/// reason on stderr (libfuse prints it).
cfuse *cfuse_mount(const char *mountpoint, const char *options, const cfuse_operations *operations,
                   void *context, double cache_seconds);

/// Serves requests on up to `threads` threads until unmounted or `cfuse_exit`; then unmounts and frees.
/// Returns 0 when the loop ended normally.
int cfuse_serve(cfuse *fuse, unsigned threads);

/// Makes `cfuse_serve` return (it checks between requests, so the caller wakes it with one request).
void cfuse_exit(cfuse *fuse);
