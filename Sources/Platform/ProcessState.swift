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
