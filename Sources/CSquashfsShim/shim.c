#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqfs/predef.h>
#include <sqfs/compressor.h>
#include <sqfs/data_reader.h>
#include <sqfs/dir_reader.h>
#include <sqfs/error.h>
#include <sqfs/id_table.h>
#include <sqfs/inode.h>
#include <sqfs/io.h>
#include <sqfs/super.h>
#include "CSquashfsShim.h"

enum { CHUNK = 128 * 1024 };

struct csqfs_tar {
    sqfs_file_t *file;
    sqfs_super_t super;
    sqfs_compressor_t *compressor;
    sqfs_id_table_t *ids;
    sqfs_data_reader_t *data;
    sqfs_dir_reader_t *dirs;
    sqfs_tree_node_t *root;
    struct archive *writer;
    struct archive_entry *entry;
    /// The node whose header was written last; NULL before the first.
    const sqfs_tree_node_t *node;
    /// The current file's data: how far it was read, and its size (0: none left to hand out).
    uint64_t offset, size;
    /// The path a regular file with several links was first written under, by inode number: later
    /// names become tar hard links to it, as tar and sqfs2tar write them.
    char **linked;
    size_t linked_count;
    /// What libarchive's writer produced since the last read.
    unsigned char *out;
    size_t out_length, out_capacity;
    unsigned char *chunk;
    int finished;
    int64_t image_size, file_bytes, handed_out;
    char message[512];
};

/* The image inside a larger file (an AppImage's, after its ELF program): libsquashfs reads offsets from
   the image's start. */
struct offset_file {
    sqfs_file_t base;
    sqfs_file_t *whole;
    sqfs_u64 start;
};

static int offset_read(sqfs_file_t *file, sqfs_u64 offset, void *buffer, size_t size) {
    struct offset_file *self = (struct offset_file *)file;
    return self->whole->read_at(self->whole, self->start + offset, buffer, size);
}

static int offset_write(sqfs_file_t *file, sqfs_u64 offset, const void *buffer, size_t size) {
    (void)file; (void)offset; (void)buffer; (void)size;
    return SQFS_ERROR_IO;
}

static sqfs_u64 offset_size(const sqfs_file_t *file) {
    const struct offset_file *self = (const struct offset_file *)file;
    sqfs_u64 size = self->whole->get_size(self->whole);
    return size > self->start ? size - self->start : 0;
}

static int offset_truncate(sqfs_file_t *file, sqfs_u64 size) {
    (void)file; (void)size;
    return SQFS_ERROR_IO;
}

static void offset_destroy(sqfs_object_t *object) {
    struct offset_file *self = (struct offset_file *)object;
    sqfs_destroy(self->whole);
    free(self);
}

static sqfs_file_t *open_at(const char *path, uint64_t start) {
    sqfs_file_t *whole = sqfs_open_file(path, SQFS_FILE_OPEN_READ_ONLY);
    if (whole == NULL || start == 0) return whole;
    struct offset_file *self = calloc(1, sizeof *self);
    if (self == NULL) {
        sqfs_destroy(whole);
        errno = ENOMEM;
        return NULL;
    }
    self->base.base.destroy = offset_destroy;
    self->base.read_at = offset_read;
    self->base.write_at = offset_write;
    self->base.get_size = offset_size;
    self->base.truncate = offset_truncate;
    self->whole = whole;
    self->start = start;
    return &self->base;
}

static const char *describe(int code) {
    switch (code) {
    case SQFS_ERROR_ALLOC: return "out of memory";
    case SQFS_ERROR_IO: return "read error or truncated image";
    case SQFS_ERROR_COMPRESSOR: return "data does not decompress";
    case SQFS_ERROR_CORRUPTED: return "corrupted";
    case SQFS_ERROR_UNSUPPORTED: return "unsupported feature";
    case SQFS_ERROR_OVERFLOW: return "size out of range";
    case SQFS_ERROR_OUT_OF_BOUNDS: return "location out of bounds (truncated image)";
    case SFQS_ERROR_SUPER_MAGIC: return "no SquashFS super block";
    case SFQS_ERROR_SUPER_VERSION: return "unsupported SquashFS version";
    case SQFS_ERROR_SUPER_BLOCK_SIZE: return "invalid block size";
    case SQFS_ERROR_LINK_LOOP: return "directory loop";
    default: return "corrupted";
    }
}

static void fail(char *message, size_t size, const char *step, int code) {
    snprintf(message, size, "SquashFS image: %s: %s", step, describe(code));
}


/* libarchive's writer hands its output here; the read that asked for it hands it on. */
static la_ssize_t on_write(struct archive *writer, void *context, const void *buffer, size_t length) {
    (void)writer;
    struct csqfs_tar *image = context;
    if (image->out_length + length > image->out_capacity) {
        size_t capacity = image->out_capacity * 2;
        while (capacity < image->out_length + length) capacity *= 2;
        unsigned char *grown = realloc(image->out, capacity);
        if (grown == NULL) return -1;
        image->out = grown;
        image->out_capacity = capacity;
    }
    memcpy(image->out + image->out_length, buffer, length);
    image->out_length += length;
    return (la_ssize_t)length;
}

static int is_file(const sqfs_inode_generic_t *inode) {
    return inode->base.type == SQFS_INODE_FILE || inode->base.type == SQFS_INODE_EXT_FILE;
}

static uint64_t file_size(const sqfs_inode_generic_t *inode) {
    sqfs_u64 size = 0;
    sqfs_inode_get_file_size(inode, &size);
    return size;
}

/* Pre-order: children before the next sibling; the root itself is no entry. */
static const sqfs_tree_node_t *following(const sqfs_tree_node_t *node) {
    if (node->children != NULL) return node->children;
    while (node != NULL && node->next == NULL) node = node->parent;
    return node == NULL ? NULL : node->next;
}

static void sum_sizes(struct csqfs_tar *image) {
    for (const sqfs_tree_node_t *node = following(image->root); node != NULL; node = following(node)) {
        if (is_file(node->inode)) image->file_bytes += (int64_t)file_size(node->inode);
    }
}

csqfs_tar *csqfs_tar_open(const char *path, uint64_t start, char *message, size_t message_size) {
    struct csqfs_tar *image = calloc(1, sizeof *image);
    if (image == NULL) {
        snprintf(message, message_size, "SquashFS image: out of memory");
        return NULL;
    }
    image->file = open_at(path, start);
    if (image->file == NULL) {
        snprintf(message, message_size, "SquashFS image: cannot open: %s", strerror(errno));
        csqfs_tar_close(image);
        return NULL;
    }
    image->image_size = (int64_t)image->file->get_size(image->file);
    int status = sqfs_super_read(&image->super, image->file);
    if (status != 0) goto failed_super;
    // What the super block says was written must be there: a cut-off copy fails here, before anything
    // is extracted.
    if (image->super.bytes_used > (sqfs_u64)image->image_size) {
        snprintf(message, message_size, "SquashFS image: truncated: %llu of %llu bytes",
                 (unsigned long long)image->image_size, (unsigned long long)image->super.bytes_used);
        csqfs_tar_close(image);
        return NULL;
    }
    sqfs_compressor_config_t config;
    status = sqfs_compressor_config_init(&config, image->super.compression_id, image->super.block_size,
                                         SQFS_COMP_FLAG_UNCOMPRESS);
    if (status == 0) status = sqfs_compressor_create(&config, &image->compressor);
    if (status != 0) {
        const char *name = sqfs_compressor_name_from_id(image->super.compression_id);
        snprintf(message, message_size, "SquashFS image: unsupported compression %s", name ? name : "(unknown)");
        csqfs_tar_close(image);
        return NULL;
    }
    const char *step = "ID table";
    image->ids = sqfs_id_table_create(0);
    status = image->ids == NULL ? SQFS_ERROR_ALLOC : sqfs_id_table_read(image->ids, image->file, &image->super, image->compressor);
    if (status == 0) {
        step = "fragment table";
        image->data = sqfs_data_reader_create(image->file, image->super.block_size, image->compressor, 0);
        status = image->data == NULL ? SQFS_ERROR_ALLOC : sqfs_data_reader_load_fragment_table(image->data, &image->super);
    }
    if (status == 0) {
        step = "directory tree";
        image->dirs = sqfs_dir_reader_create(&image->super, image->compressor, image->file, 0);
        status = image->dirs == NULL ? SQFS_ERROR_ALLOC
                                     : sqfs_dir_reader_get_full_hierarchy(image->dirs, image->ids, NULL, 0, &image->root);
    }
    if (status != 0) {
        fail(message, message_size, step, status);
        csqfs_tar_close(image);
        return NULL;
    }
    image->linked_count = (size_t)image->super.inode_count + 1;
    image->linked = calloc(image->linked_count, sizeof *image->linked);
    image->out_capacity = 2 * CHUNK;
    image->out = malloc(image->out_capacity);
    image->chunk = malloc(CHUNK);
    image->writer = archive_write_new();
    image->entry = archive_entry_new();
    if (image->linked == NULL || image->out == NULL || image->chunk == NULL || image->writer == NULL || image->entry == NULL) {
        snprintf(message, message_size, "SquashFS image: out of memory");
        csqfs_tar_close(image);
        return NULL;
    }
    // Unblocked: each header and each chunk reaches `on_write` as it is written.
    archive_write_set_format_pax_restricted(image->writer);
    archive_write_set_bytes_per_block(image->writer, 0);
    if (archive_write_open(image->writer, image, NULL, on_write, NULL) != ARCHIVE_OK) {
        snprintf(message, message_size, "SquashFS image: %s", archive_error_string(image->writer));
        csqfs_tar_close(image);
        return NULL;
    }
    sum_sizes(image);
    return image;

failed_super:
    fail(message, message_size, "super block", status);
    csqfs_tar_close(image);
    return NULL;
}

static long failed(struct csqfs_tar *image, const char *what, int code) {
    char *path = NULL;
    sqfs_tree_node_get_path(image->node, &path);
    snprintf(image->message, sizeof image->message, "SquashFS image: %s of %s: %s", what, path ? path + 1 : "?", describe(code));
    sqfs_free(path);
    return -1;
}

/* Writes the header of `image->node`. */
static int write_header(struct csqfs_tar *image) {
    const sqfs_tree_node_t *node = image->node;
    const sqfs_inode_generic_t *inode = node->inode;
    char *path = NULL;
    int status = sqfs_tree_node_get_path(node, &path);
    if (status != 0) return status;
    struct archive_entry *entry = image->entry;
    archive_entry_clear(entry);
    // Names are bytes, as the image stores them (not necessarily UTF-8); "/a/b" becomes "a/b".
    archive_entry_copy_pathname(entry, path + 1);
    archive_entry_set_mode(entry, inode->base.mode);
    archive_entry_set_uid(entry, node->uid);
    archive_entry_set_gid(entry, node->gid);
    archive_entry_set_mtime(entry, (time_t)inode->base.mod_time, 0);
    image->offset = 0;
    image->size = 0;
    switch (inode->base.type) {
    case SQFS_INODE_FILE:
    case SQFS_INODE_EXT_FILE: {
        sqfs_u32 links = inode->base.type == SQFS_INODE_EXT_FILE ? inode->data.file_ext.nlink : 1;
        sqfs_u32 number = inode->base.inode_number;
        if (links > 1 && number < image->linked_count && image->linked[number] != NULL) {
            archive_entry_copy_hardlink(entry, image->linked[number]);
            archive_entry_set_size(entry, 0);
        } else {
            if (links > 1 && number < image->linked_count) image->linked[number] = strdup(path + 1);
            image->size = file_size(inode);
            archive_entry_set_size(entry, (la_int64_t)image->size);
        }
        break;
    }
    case SQFS_INODE_SLINK:
    case SQFS_INODE_EXT_SLINK: {
        sqfs_u32 length = inode->base.type == SQFS_INODE_SLINK ? inode->data.slink.target_size : inode->data.slink_ext.target_size;
        if (length > inode->payload_bytes_used) length = inode->payload_bytes_used;
        char *target = malloc((size_t)length + 1);
        if (target == NULL) { sqfs_free(path); return SQFS_ERROR_ALLOC; }
        memcpy(target, inode->extra, length);
        target[length] = '\0';
        archive_entry_copy_symlink(entry, target);
        free(target);
        break;
    }
    case SQFS_INODE_BDEV:
    case SQFS_INODE_CDEV:
        archive_entry_set_rdev(entry, inode->data.dev.devno);
        break;
    case SQFS_INODE_EXT_BDEV:
    case SQFS_INODE_EXT_CDEV:
        archive_entry_set_rdev(entry, inode->data.dev_ext.devno);
        break;
    default:
        break;
    }
    sqfs_free(path);
    int written = archive_write_header(image->writer, entry);
    return written == ARCHIVE_OK || written == ARCHIVE_WARN ? 0 : SQFS_ERROR_INTERNAL;
}

long csqfs_tar_read(csqfs_tar *image, const void **block) {
    image->out_length = 0;
    while (image->out_length == 0) {
        if (image->finished) {
            *block = image->out;
            return 0;
        }
        if (image->offset < image->size) {
            uint64_t left = image->size - image->offset;
            sqfs_u32 want = left < CHUNK ? (sqfs_u32)left : CHUNK;
            sqfs_s32 got = sqfs_data_reader_read(image->data, image->node->inode, image->offset, image->chunk, want);
            if (got < 0) return failed(image, "data", got);
            if (got == 0) return failed(image, "data", SQFS_ERROR_OUT_OF_BOUNDS);
            if (archive_write_data(image->writer, image->chunk, (size_t)got) != got) return failed(image, "data", SQFS_ERROR_INTERNAL);
            image->offset += (uint64_t)got;
            image->handed_out += got;
            continue;
        }
        image->node = following(image->node == NULL ? image->root : image->node);
        if (image->node == NULL) {
            // The end: libarchive writes the two zero blocks.
            if (archive_write_close(image->writer) != ARCHIVE_OK) {
                snprintf(image->message, sizeof image->message, "SquashFS image: %s", archive_error_string(image->writer));
                return -1;
            }
            image->finished = 1;
            continue;
        }
        int status = write_header(image);
        if (status != 0) return failed(image, "entry", status);
    }
    *block = image->out;
    return (long)image->out_length;
}

const char *csqfs_tar_message(const csqfs_tar *image) { return image->message; }

int64_t csqfs_tar_image_size(const csqfs_tar *image) { return image->image_size; }

int64_t csqfs_tar_consumed(const csqfs_tar *image) {
    if (image->finished || image->file_bytes <= 0) return image->finished ? image->image_size : 0;
    return (int64_t)((double)image->handed_out / (double)image->file_bytes * (double)image->image_size);
}

const char *csqfs_tar_compression(const csqfs_tar *image) {
    const char *name = sqfs_compressor_name_from_id(image->super.compression_id);
    return name ? name : "";
}

void csqfs_tar_close(csqfs_tar *image) {
    if (image == NULL) return;
    if (image->writer) archive_write_free(image->writer);
    if (image->entry) archive_entry_free(image->entry);
    if (image->linked) {
        for (size_t i = 0; i < image->linked_count; i++) free(image->linked[i]);
        free(image->linked);
    }
    if (image->root) sqfs_dir_tree_destroy(image->root);
    sqfs_destroy(image->dirs);
    sqfs_destroy(image->data);
    sqfs_destroy(image->ids);
    sqfs_destroy(image->compressor);
    sqfs_destroy(image->file);
    free(image->out);
    free(image->chunk);
    free(image);
}
