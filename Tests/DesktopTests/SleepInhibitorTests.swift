import ArchiverTestSupport
import Foundation
import Testing

@testable import Desktop

@Suite struct SleepInhibitorTests {
    private static let login1 = ("org.freedesktop.login1", "/org/freedesktop/login1")

    private func inhibitors(_ bus: PrivateBus) throws -> String {
        try bus.call(Self.login1.0, Self.login1.1, "org.freedesktop.login1.Manager.ListInhibitors")
    }

    @Test func takesTheSleepLockFromLogindAndGivesItBack() throws {
        let scratch = try ScratchDirectory()
        let bus = try PrivateBus()
        let log = scratch.sub("logind.log")
        try bus.startMock(owning: Self.login1.0, ["--system", "--template", "logind", "-l", log])

        let inhibitor = try #require(SleepInhibitor(why: "Compressing Photos", busAddress: bus.address))
        let call = #"Inhibit "sleep" "Archiver" "Compressing Photos" "block""#
        #expect(eventually { (try? String(contentsOfFile: log, encoding: .utf8))?.contains(call) == true })
        // The mock keeps the lock until the write end of its pipe, our descriptor, is closed.
        #expect(try inhibitors(bus).contains(#"('sleep', 'Archiver', 'Compressing Photos', 'block'"#))

        inhibitor.release()
        #expect(try eventually { try !inhibitors(bus).contains("Archiver") }, "the lock outlived release()")
        inhibitor.release()
    }

    @Test func deinitGivesTheLockBack() throws {
        let bus = try PrivateBus()
        try bus.startMock(owning: Self.login1.0, ["--system", "--template", "logind"])

        var inhibitor = SleepInhibitor(why: "Extracting", busAddress: bus.address)
        #expect(inhibitor != nil)
        #expect(try inhibitors(bus).contains("Archiver"))
        inhibitor = nil
        #expect(try eventually { try !inhibitors(bus).contains("Archiver") })
    }

    @Test func noBusMeansNoLockQuickly() {
        let start = Date()
        #expect(SleepInhibitor(why: "test", busAddress: "unix:path=/nonexistent/bus") == nil)
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test func aBusWithoutLogindMeansNoLock() throws {
        let bus = try PrivateBus()
        let start = Date()
        #expect(SleepInhibitor(why: "test", busAddress: bus.address) == nil)
        #expect(Date().timeIntervalSince(start) < 3)
    }

    @Test func aSilentBusIsGivenUpOnAfterTheTimeout() throws {
        // A socket that accepts connections but never answers the handshake.
        let path = "/tmp/archiver-silent-\(UUID().uuidString.prefix(8))"
        let listener = try SilentSocket(path: path)
        defer { listener.close() }
        let start = Date()
        #expect(SleepInhibitor(why: "test", busAddress: "unix:path=\(path)", timeout: 1) == nil)
        #expect(Date().timeIntervalSince(start) < 3)
    }
}

/// A listening Unix socket nobody reads from.
private struct SilentSocket {
    let descriptor: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else { throw BusFailure("cannot listen on \(path)") }
    }

    func close() {
        _ = Glibc.close(descriptor)
        unlink(path)
    }
}
