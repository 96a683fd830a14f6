internal import CPlatform
import Glibc

/// What the engines change about the process beyond files: a thread's current folder, the heap.
package enum ProcessState {
    /// Gives the calling thread a current folder (and umask) of its own, so that its `chdir` moves no other
    /// thread; false where the kernel refuses. The corresponding C call is `unshare(CLONE_FS)`.
    package static func takeOwnWorkingFolder() -> Bool { cp_unshare_working_folder() == 0 }

    /// Gives the free pages inside the heap back to the system. The corresponding C function is
    /// `malloc_trim`.
    package static func releaseFreeMemory() { cp_release_free_memory() }

    /// Returns once the process `pid` (anyone's, not only a child) has ended, its files closed; without a
    /// pidfd (kernels before 5.3) it is asked after every second. The corresponding C call is `pidfd_open`.
    package static func waitForEnd(of pid: Int32) {
        let descriptor = cp_pidfd_open(pid)
        guard descriptor >= 0 else {
            while kill(pid, 0) == 0 || errno == EPERM { sleep(1) }
            return
        }
        defer { close(descriptor) }
        var wanted = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&wanted, 1, -1) < 0, errno == EINTR {}
    }

    /// How many CPUs the calling thread may run on: fewer than the machine has under `taskset` or a
    /// container's cpuset, where more workers would only take turns. New threads inherit the set, so this is
    /// the process's own count unless a thread changed its set. The corresponding C function is
    /// `sched_getaffinity`.
    package static var usableProcessors: Int {
        let count = Int(cp_usable_cpus())
        return count > 0 ? count : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}

/// Adds to `actions` the closing of every descriptor above the standard three in the child. The
/// corresponding C function is `posix_spawn_file_actions_addclosefrom_np`.
func closeOthers(_ actions: inout posix_spawn_file_actions_t) {
    _ = cp_spawn_close_from(&actions, 3)
}
