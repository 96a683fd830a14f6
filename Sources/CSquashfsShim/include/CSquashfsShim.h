// A SquashFS image read as the tar stream `sqfs2tar` writes (pax, through libarchive's writer), block by
// block as the reader asks, so that libarchive reads it as any tar and every check the extractor, the
// listing and the mount make on a tar's entries applies unchanged. Extended attributes are left out: the
// engine keeps none of an archive's.
#pragma once
#include <stdint.h>
#include <stddef.h>

typedef struct csqfs_tar csqfs_tar;

/// Opens the image that starts `start` bytes into `path` (0, or after an AppImage's program) and reads its
/// tables and whole tree. NULL on failure, with libsquashfs's reason (English, for the classifier and the
/// log) in `message`.
csqfs_tar *csqfs_tar_open(const char *path, uint64_t start, char *message, size_t message_size);

/// The next bytes of the tar: their count, 0 at the end, -1 on failure (`csqfs_tar_message`). `*block`
/// stays valid until the next call.
long csqfs_tar_read(csqfs_tar *image, const void **block);

/// Why the last read failed.
const char *csqfs_tar_message(const csqfs_tar *image);

/// The image's size in bytes, and how much of it the tar handed out so far stands for (the share of
/// its files' bytes), for progress.
int64_t csqfs_tar_image_size(const csqfs_tar *image);
int64_t csqfs_tar_consumed(const csqfs_tar *image);

/// The image's compression as libsquashfs names it ("xz", "zstd"…).
const char *csqfs_tar_compression(const csqfs_tar *image);

void csqfs_tar_close(csqfs_tar *image);
