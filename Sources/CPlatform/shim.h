#ifndef ARCHIVER_CPLATFORM_SHIM_H
#define ARCHIVER_CPLATFORM_SHIM_H
/* The Linux calls Platform needs that Swift's Glibc module, built without _GNU_SOURCE, does not show. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

/* unshare(CLONE_FS): the calling thread gets a current folder (and umask) of its own, so its chdir moves no
   other thread. */
static inline int cp_unshare_working_folder(void) { return (int)syscall(SYS_unshare, 0x00000200 /* CLONE_FS */); }

/* renameat2 with RENAME_NOREPLACE (glibc 2.28 wraps it under _GNU_SOURCE only): moves `from` to `to` only if
   nothing is there, in one step, for folders too. -1 with EINVAL or ENOSYS where the file system cannot. */
static inline int cp_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1 /* RENAME_NOREPLACE */);
}

/* Glibc's module leaves out malloc.h: gives the free pages inside the heap back to the system (libarchive
   frees a zip's whole central directory, in small blocks between ones still in use). */
static inline void cp_release_free_memory(void) { malloc_trim(0); }

/* glibc 2.34 declares it under _GNU_SOURCE only: the child closes every descriptor from `from` up, as
   g_spawn does, so that it holds nothing of ours that was opened without O_CLOEXEC. */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
static inline int cp_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/* copy_file_range (glibc declares it under _GNU_SOURCE only): copies between files inside the kernel, sharing
   the extents on file systems that can (btrfs, xfs). */
static inline long cp_copy_file_range(int from, long long *fromOffset, int to, long long *toOffset, unsigned long count) {
    return (long)syscall(SYS_copy_file_range, from, (loff_t *)fromOffset, to, (loff_t *)toOffset, count, 0u);
}

/* pidfd_open (Linux 5.3; glibc 2.36 wraps it under _GNU_SOURCE only): a descriptor that becomes readable once
   the process `pid` has ended, whoever's child it is. -1 with ENOSYS on older kernels. */
static inline int cp_pidfd_open(int pid) { return (int)syscall(434 /* SYS_pidfd_open, the same on every architecture */, pid, 0u); }

/* sync_file_range(SYNC_FILE_RANGE_WRITE) (glibc declares it under _GNU_SOURCE only): starts writing the range's
   dirty pages to disk without waiting for them, so that a later fsync has less left to wait for. */
static inline int cp_start_writeback(int descriptor, long long offset, long long count) {
    return (int)syscall(SYS_sync_file_range, descriptor, (loff_t)offset, (loff_t)count, 2u /* SYNC_FILE_RANGE_WRITE */);
}

/* sched_getaffinity through its system call (glibc declares the wrapper and CPU_COUNT under _GNU_SOURCE only):
   how many CPUs the calling thread may run on, as nproc counts them (taskset, cgroup cpusets); 0 when the
   kernel refuses. The kernel copies its own mask size, a multiple of a long. */
static inline int cp_usable_cpus(void) {
    unsigned long mask[128]; /* 8192 CPUs */
    long size = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (size <= 0) return 0;
    int count = 0;
    for (long word = 0; word < size / (long)sizeof mask[0]; word++) count += __builtin_popcountl(mask[word]);
    return count;
}

/* Closes `descriptor`, the last one of a file that was just replaced, in a grandchild process, and returns
   without waiting for it: ext4 frees a file's blocks and page cache in its last close, over a second for a
   1 GB archive on a busy machine, after the new archive is in place. The grandchild keeps nothing else
   open (the caller's pipes see their end), closes only once the caller's copy is closed (so that its close
   is the last), and init reaps it. -1 when it cannot fork: the caller closes it itself. Only calls that
   are safe after fork in a program with threads run in the children. */
static inline int cp_close_detached(int descriptor) {
    int ready[2];
    if (syscall(SYS_pipe2, ready, O_CLOEXEC) != 0) return -1;
    pid_t child = fork();
    if (child < 0) {
        close(ready[0]);
        close(ready[1]);
        return -1;
    }
    if (child == 0) {
        if (fork() == 0) {
            int low = descriptor < ready[0] ? descriptor : ready[0], high = descriptor < ready[0] ? ready[0] : descriptor;
            if (low > 0) syscall(436 /* close_range (Linux 5.9), the same on every architecture */, 0u, (unsigned)low - 1, 0u);
            if (high > low + 1) syscall(436, (unsigned)low + 1, (unsigned)high - 1, 0u);
            syscall(436, (unsigned)high + 1, ~0u, 0u);
            char byte;
            while (read(ready[0], &byte, 1) < 0 && errno == EINTR) {}
            close(descriptor);
        }
        _exit(0);
    }
    close(descriptor);
    close(ready[0]);
    close(ready[1]);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
    return 0;
}
#endif
