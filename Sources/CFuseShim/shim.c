#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "CFuseShim.h"

struct cfuse {
    struct fuse_session *session;
    const cfuse_operations *operations;
    void *context;
    double cache_seconds;
};

static struct cfuse *of(fuse_req_t request) { return fuse_req_userdata(request); }

static void on_init(void *data, struct fuse_conn_info *connection) {
    struct cfuse *self = data;
    // Readahead out of order would make a compressed stream restart; one reader per handle reads in order.
    connection->want &= ~FUSE_CAP_ASYNC_READ;
    // Always readdirplus: a listing then brings every entry's attributes, so `find` or a file manager's
    // stat of each entry costs no request (the kernel's adaptive mode asks again for each one).
    connection->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
    if (self->operations->ready) self->operations->ready(self->context);
}

/* The archive never changes under the mount: the kernel may keep names, attributes and pages as long as
   it likes. Inode numbers are the index's node numbers, so nothing is kept per inode here, and `forget`
   has nothing to do. */
static struct fuse_entry_param entry_of(struct cfuse *self, const struct stat *status) {
    struct fuse_entry_param entry;
    memset(&entry, 0, sizeof entry);
    entry.ino = status->st_ino;
    entry.attr = *status;
    entry.attr_timeout = self->cache_seconds;
    entry.entry_timeout = self->cache_seconds;
    return entry;
}

static void on_lookup(fuse_req_t request, fuse_ino_t parent, const char *name) {
    struct cfuse *self = of(request);
    struct stat status;
    memset(&status, 0, sizeof status);
    int result = self->operations->lookup(self->context, parent, name, &status);
    if (result == -ENOENT) status.st_ino = 0;  // a negative entry, kept by the kernel as long as a positive one
    else if (result != 0) {
        fuse_reply_err(request, -result);
        return;
    }
    struct fuse_entry_param entry = entry_of(self, &status);
    fuse_reply_entry(request, &entry);
}

static void on_forget(fuse_req_t request, fuse_ino_t node, uint64_t count) {
    (void)node; (void)count;
    fuse_reply_none(request);
}

static void on_forget_multi(fuse_req_t request, size_t count, struct fuse_forget_data *forgets) {
    (void)count; (void)forgets;
    fuse_reply_none(request);
}

static void on_getattr(fuse_req_t request, fuse_ino_t node, struct fuse_file_info *file) {
    (void)file;
    struct cfuse *self = of(request);
    struct stat status;
    memset(&status, 0, sizeof status);
    int result = self->operations->getattr(self->context, node, &status);
    if (result != 0) fuse_reply_err(request, -result);
    else fuse_reply_attr(request, &status, self->cache_seconds);
}

static void on_readlink(fuse_req_t request, fuse_ino_t node) {
    struct cfuse *self = of(request);
    char target[4097];
    int result = self->operations->readlink(self->context, node, target, sizeof target);
    if (result != 0) fuse_reply_err(request, -result);
    else fuse_reply_readlink(request, target);
}

struct fill_state {
    fuse_req_t request;
    struct cfuse *self;
    char *buffer;
    size_t size, used;
    int plus;
};

/* With readdirplus each entry brings its attributes: a stat after a listing then needs no request. */
static int fill_one(void *state, const char *name, const struct stat *status, int64_t next) {
    struct fill_state *fill = state;
    // "..": the kernel knows the parent itself and ignores what is given here beyond the type.
    struct stat folder = {.st_ino = FUSE_ROOT_ID, .st_mode = S_IFDIR};
    if (!status) status = &folder;
    size_t room = fill->size - fill->used;
    size_t needed;
    if (fill->plus) {
        struct fuse_entry_param entry = entry_of(fill->self, status);
        needed = fuse_add_direntry_plus(fill->request, fill->buffer + fill->used, room, name, &entry, next);
    } else {
        needed = fuse_add_direntry(fill->request, fill->buffer + fill->used, room, name, status, next);
    }
    if (needed > room) return 1;
    fill->used += needed;
    return 0;
}

static void list(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset, int plus) {
    struct cfuse *self = of(request);
    struct fill_state state = {request, self, calloc(1, size), size, 0, plus};
    if (!state.buffer) {
        fuse_reply_err(request, ENOMEM);
        return;
    }
    int result = self->operations->readdir(self->context, node, (int64_t)offset, &state, fill_one);
    if (result != 0) fuse_reply_err(request, -result);
    else fuse_reply_buf(request, state.buffer, state.used);
    free(state.buffer);
}

static void on_readdir(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset, struct fuse_file_info *file) {
    (void)file;
    list(request, node, size, offset, 0);
}

static void on_readdirplus(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset, struct fuse_file_info *file) {
    (void)file;
    list(request, node, size, offset, 1);
}

static int writable(struct cfuse *self) { return self->operations->write != NULL; }

static void on_open(fuse_req_t request, fuse_ino_t node, struct fuse_file_info *file) {
    struct cfuse *self = of(request);
    if ((file->flags & O_ACCMODE) != O_RDONLY && !writable(self)) {
        fuse_reply_err(request, EROFS);
        return;
    }
    uint64_t handle = 0;
    int result = self->operations->open(self->context, node, file->flags, &handle);
    if (result != 0) {
        fuse_reply_err(request, -result);
        return;
    }
    file->fh = handle;
    // A writable folder's files change: the kernel's pages of a file are kept only while nothing can write.
    file->keep_cache = !writable(self);
    if (fuse_reply_open(request, file) != 0) self->operations->release(self->context, handle);
}

static void on_read(fuse_req_t request, fuse_ino_t node, size_t size, off_t offset, struct fuse_file_info *file) {
    (void)node;
    struct cfuse *self = of(request);
    char *buffer = malloc(size ? size : 1);
    if (!buffer) {
        fuse_reply_err(request, ENOMEM);
        return;
    }
    int result = self->operations->read(self->context, file->fh, buffer, size, offset);
    if (result < 0) fuse_reply_err(request, -result);
    else fuse_reply_buf(request, buffer, (size_t)result);
    free(buffer);
}

static void on_release(fuse_req_t request, fuse_ino_t node, struct fuse_file_info *file) {
    (void)node;
    struct cfuse *self = of(request);
    self->operations->release(self->context, file->fh);
    fuse_reply_err(request, 0);
}

static void reply_entry(fuse_req_t request, struct cfuse *self, int result, const struct stat *status) {
    if (result != 0) {
        fuse_reply_err(request, -result);
        return;
    }
    struct fuse_entry_param entry = entry_of(self, status);
    fuse_reply_entry(request, &entry);
}

static void on_create(fuse_req_t request, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *file) {
    struct cfuse *self = of(request);
    struct stat status;
    memset(&status, 0, sizeof status);
    uint64_t handle = 0;
    int result = self->operations->create(self->context, parent, name, mode, file->flags, &status, &handle);
    if (result != 0) {
        fuse_reply_err(request, -result);
        return;
    }
    file->fh = handle;
    struct fuse_entry_param entry = entry_of(self, &status);
    if (fuse_reply_create(request, &entry, file) != 0) self->operations->release(self->context, handle);
}

static void on_write(fuse_req_t request, fuse_ino_t node, const char *buffer, size_t size, off_t offset,
                     struct fuse_file_info *file) {
    (void)node;
    struct cfuse *self = of(request);
    int result = self->operations->write(self->context, file->fh, buffer, size, offset);
    if (result < 0) fuse_reply_err(request, -result);
    else fuse_reply_write(request, (size_t)result);
}

static void on_setattr(fuse_req_t request, fuse_ino_t node, struct stat *wanted, int which, struct fuse_file_info *file) {
    struct cfuse *self = of(request);
    struct stat status;
    memset(&status, 0, sizeof status);
    int result = self->operations->setattr(self->context, node, wanted, which, file ? file->fh : 0, &status);
    if (result != 0) fuse_reply_err(request, -result);
    else fuse_reply_attr(request, &status, self->cache_seconds);
}

static void on_mkdir(fuse_req_t request, fuse_ino_t parent, const char *name, mode_t mode) {
    struct cfuse *self = of(request);
    struct stat status;
    memset(&status, 0, sizeof status);
    reply_entry(request, self, self->operations->mkdir(self->context, parent, name, mode, &status), &status);
}

static void on_symlink(fuse_req_t request, const char *target, fuse_ino_t parent, const char *name) {
    struct cfuse *self = of(request);
    struct stat status;
    memset(&status, 0, sizeof status);
    reply_entry(request, self, self->operations->symlink(self->context, parent, name, target, &status), &status);
}

static void on_unlink(fuse_req_t request, fuse_ino_t parent, const char *name) {
    struct cfuse *self = of(request);
    fuse_reply_err(request, -self->operations->unlink(self->context, parent, name));
}

static void on_rmdir(fuse_req_t request, fuse_ino_t parent, const char *name) {
    struct cfuse *self = of(request);
    fuse_reply_err(request, -self->operations->rmdir(self->context, parent, name));
}

static void on_rename(fuse_req_t request, fuse_ino_t parent, const char *name, fuse_ino_t new_parent, const char *new_name,
                      unsigned int flags) {
    struct cfuse *self = of(request);
    fuse_reply_err(request, -self->operations->rename(self->context, parent, name, new_parent, new_name, flags));
}

/* Data goes to the layer's files as it is written; the commit fsyncs what it writes. */
static void on_flush(fuse_req_t request, fuse_ino_t node, struct fuse_file_info *file) {
    (void)node; (void)file;
    fuse_reply_err(request, 0);
}

static void on_fsync(fuse_req_t request, fuse_ino_t node, int data, struct fuse_file_info *file) {
    (void)node; (void)data; (void)file;
    fuse_reply_err(request, 0);
}

static const struct fuse_lowlevel_ops operations = {
    .init = on_init,
    .lookup = on_lookup,
    .forget = on_forget,
    .forget_multi = on_forget_multi,
    .getattr = on_getattr,
    .readlink = on_readlink,
    .readdir = on_readdir,
    .readdirplus = on_readdirplus,
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
    /* A writable folder answers everything a read-only one does, and the writes besides (the session keeps a
       copy of the table). */
    struct fuse_lowlevel_ops table = operations;
    if (ops->write) {
        table.create = on_create;
        table.write = on_write;
        table.setattr = on_setattr;
        table.mkdir = on_mkdir;
        table.symlink = on_symlink;
        table.unlink = on_unlink;
        table.rmdir = on_rmdir;
        table.rename = on_rename;
        table.flush = on_flush;
        table.fsync = on_fsync;
    }
    self->session = fuse_session_new(&args, &table, sizeof table, self);
    if (!self->session) {
        free(self);
        return NULL;
    }
    if (fuse_session_mount(self->session, mountpoint) != 0) {
        fuse_session_destroy(self->session);
        free(self);
        return NULL;
    }
    return self;
}

int cfuse_serve(cfuse *self, unsigned threads) {
    struct fuse_loop_config *config = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(config, threads);
    int result = fuse_set_signal_handlers(self->session) == 0 ? fuse_session_loop_mt(self->session, config) : -1;
    fuse_loop_cfg_destroy(config);
    fuse_remove_signal_handlers(self->session);
    fuse_session_unmount(self->session);
    fuse_session_destroy(self->session);
    free(self);
    return result;
}

void cfuse_exit(cfuse *self) { fuse_session_exit(self->session); }
