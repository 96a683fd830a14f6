import Foundation

/// A D-Bus daemon of the test's own (session-bus.conf beside this file: nothing can be activated on it), plus
/// the mock services started on it.
/// Everything is stopped when the value goes away, whether the test passed or not.
public final class PrivateBus {
    public let address: String
    private let daemon: Process
    private var services: [Process] = []

    public init() throws {
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("session-bus.conf").path
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(config)", "--nofork", "--print-address"]
        let output = Pipe()
        daemon.standardOutput = output
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else {
            kill(daemon.processIdentifier, SIGKILL)
            throw BusFailure("dbus-daemon printed no address")
        }
    }

    /// The daemon's and the services' process ids (while they run).
    public var processIdentifiers: [pid_t] { ([daemon] + services).filter(\.isRunning).map(\.processIdentifier) }

    /// The environment a child process needs to use this bus as its session bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    deinit { stop() }

    /// Kills the daemon and its services. Swift may end an object's life after its last use, before the end
    /// of the scope, so a test whose children use the bus calls this in a `defer`.
    public func stop() {
        // SIGKILL: children of the test runner inherit a signal mask that blocks SIGTERM, and dbus-daemon
        // never unblocks it.
        for process in services + [daemon] where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for process in services + [daemon] where process.processIdentifier > 0 { process.waitUntilExit() }
        // A killed daemon leaves its socket behind.
        if let path = address.split(separator: ",").first?.split(separator: "=", maxSplits: 1).last, path.hasPrefix("/")
        {
            unlink(String(path))
        }
        services = []
    }

    /// Starts a python3-dbusmock service and waits until it owns `name`.
    /// - Parameter arguments: dbusmock's own arguments (template or name, path, interface; `-l LOG`).
    public func startMock(owning name: String, _ arguments: [String]) throws {
        let mock = Process()
        // Debian's Python: the one on PATH has no python3-dbusmock.
        mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mock.arguments = ["-m", "dbusmock"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        mock.environment = environment
        mock.standardOutput = FileHandle.nullDevice
        mock.standardError = FileHandle.nullDevice
        try mock.run()
        services.append(mock)
        let waited = try gdbus(["wait", "--address", address, "--timeout", "5", name])
        guard waited.status == 0 else { throw BusFailure("\(name) did not appear on the private bus") }
    }

    /// Calls a method with `gdbus call` and returns what it printed.
    @discardableResult
    public func call(_ destination: String, _ path: String, _ method: String, _ arguments: String...) throws -> String {
        let result = try gdbus(["call", "--address", address, "-d", destination, "-o", path, "-m", method] + arguments)
        guard result.status == 0 else { throw BusFailure("gdbus call \(method) failed") }
        return result.output
    }

    private func gdbus(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Tool.run(["/usr/bin/gdbus"] + arguments, mergingErrors: false)
    }
}

public struct BusFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` until it holds or `seconds` pass; for things other processes do on their own time.
public func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if try condition() { return true }
        usleep(50_000)
    } while Date() < deadline
    return false
}
