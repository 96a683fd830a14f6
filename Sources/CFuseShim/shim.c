#define FUSE_USE_VERSION 314
#include <fuse.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "CFuseShim.h"

struct cfuse {
    struct fuse *fuse;
    const cfuse_operations *operations;
    void *context;
    double cache_seconds;
};

static struct cfuse *current(void) { return fuse_get_context()->private_data; }

static void *on_init(struct fuse_conn_info *connection, struct fuse_config *config) {
    struct cfuse *self = current();
    // The archive never changes under the mount: let the kernel keep names, attributes and pages.
    config->kernel_cache = 1;
    config->entry_timeout = self->cache_seconds;
    config->attr_timeout = self->cache_seconds;
    config->negative_timeout = self->cache_seconds;
    // Readahead out of order would make a compressed stream restart; one reader per handle reads in order.
    connection->want &= ~FUSE_CAP_ASYNC_READ;
    // Always readdirplus: a listing then brings every entry's attributes, so `find` or a file manager's
    // stat of each entry costs no request (the kernel's adaptive mode asks again for each one).
    connection->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
    if (self->operations->ready) self->operations->ready(self->context);
    return self;
}

static int on_getattr(const char *path, struct stat *status, struct fuse_file_info *file) {
    (void)file;
    return current()->operations->getattr(current()->context, path, status);
}

static int on_readlink(const char *path, char *target, size_t size) {
    return current()->operations->readlink(current()->context, path, target, size);
}

struct fill_state { void *buffer; fuse_fill_dir_t filler; };

/* With offsets, libfuse instantiates each entry from its attributes (readdirplus): a stat after a listing
   then needs no request. libfuse 3.14 drops the attributes of entries given without offsets. */
static int fill_one(void *state, const char *name, const struct stat *status, int64_t next) {
    struct fill_state *fill = state;
    return fill->filler(fill->buffer, name, status, (off_t)next, FUSE_FILL_DIR_PLUS);
}

static int on_readdir(const char *path, void *buffer, fuse_fill_dir_t filler, off_t offset,
                      struct fuse_file_info *file, enum fuse_readdir_flags flags) {
    (void)file; (void)flags;
    struct fill_state state = {buffer, filler};
    return current()->operations->readdir(current()->context, path, (int64_t)offset, &state, fill_one);
}

static int on_open(const char *path, struct fuse_file_info *file) {
    if ((file->flags & O_ACCMODE) != O_RDONLY) return -EROFS;
    uint64_t handle = 0;
    int result = current()->operations->open(current()->context, path, file->flags, &handle);
    if (result == 0) {
        file->fh = handle;
        file->keep_cache = 1;
    }
    return result;
}

static int on_read(const char *path, char *buffer, size_t size, off_t offset, struct fuse_file_info *file) {
    (void)path;
    return current()->operations->read(current()->context, file->fh, buffer, size, offset);
}

static int on_release(const char *path, struct fuse_file_info *file) {
    (void)path;
    return current()->operations->release(current()->context, file->fh);
}

static const struct fuse_operations operations = {
    .init = on_init,
    .getattr = on_getattr,
    .readlink = on_readlink,
    .readdir = on_readdir,
    .open = on_open,
    .read = on_read,
    .release = on_release,
};

cfuse *cfuse_mount(const char *mountpoint, const char *options, const cfuse_operations *ops, void *context,
                   double cache_seconds) {
    struct cfuse *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->operations = ops;
    self->context = context;
    self->cache_seconds = cache_seconds;
    char *argv[] = {"archiver", "-o", (char *)options, NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, argv);
    self->fuse = fuse_new(&args, &operations, sizeof operations, self);
    if (!self->fuse) {
        free(self);
        return NULL;
    }
    if (fuse_mount(self->fuse, mountpoint) != 0) {
        fuse_destroy(self->fuse);
        free(self);
        return NULL;
    }
    return self;
}

int cfuse_serve(cfuse *self, unsigned threads) {
    struct fuse_loop_config *config = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(config, threads);
    int result = fuse_set_signal_handlers(fuse_get_session(self->fuse)) == 0 ? fuse_loop_mt(self->fuse, config) : -1;
    fuse_loop_cfg_destroy(config);
    fuse_remove_signal_handlers(fuse_get_session(self->fuse));
    fuse_unmount(self->fuse);
    fuse_destroy(self->fuse);
    free(self);
    return result;
}

void cfuse_exit(cfuse *self) { fuse_exit(self->fuse); }
