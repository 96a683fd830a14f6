import ArchiverTestSupport
import Foundation
import Glibc
import Testing

@testable import Platform

/// The compressors start one worker for each CPU the process may run on: under `taskset -c 0` (or a
/// container's cpuset) one, however many the machine has.
@Suite struct ProcessorCountTests {
    @Test func theCountIsTheOneNprocGives() throws {
        // nproc counts the CPUs of sched_getaffinity as well, which is how taskset and cpusets show.
        let said = try Tool.run(["/usr/bin/nproc"], mergingErrors: false)
        #expect(ProcessState.usableProcessors == Int(said.output.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test func aThreadThatTasksetPinsToOneCPUCountsOne() throws {
        // taskset on a thread id changes that thread alone, as `taskset -c 0 PROGRAM` does to the program's
        // first thread, whose set every thread it starts inherits.
        final class Said: @unchecked Sendable {
            var status: Int32 = -1
            var count = 0
        }
        let said = Said()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            var link = [CChar](repeating: 0, count: 64)
            let length = readlink("/proc/thread-self", &link, link.count - 1)
            let tid = String(decoding: link[..<max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .split(separator: "/").last.map(String.init) ?? ""
            said.status = (try? Tool.run(["/usr/bin/taskset", "-p", "-c", "0", tid]).status) ?? -1
            said.count = ProcessState.usableProcessors
            finished.signal()
        }
        thread.start()
        try #require(finished.wait(timeout: .now() + 60) == .success)
        let (status, count) = (said.status, said.count)
        #expect(status == 0)
        #expect(count == 1)
    }
}
