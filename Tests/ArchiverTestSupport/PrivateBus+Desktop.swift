import Foundation

/// The mock servers our executables talk to, on a test's private session bus (python3-dbusmock).
extension PrivateBus {
    /// The notification daemon template (which logs every call to `log`) with these capabilities.
    public func startNotificationServer(capabilities: String = "body actions body-markup persistence", log: String) throws {
        try startMock(
            owning: "org.freedesktop.Notifications",
            ["--template", "notification_daemon", "-p", "{\"capabilities\": \"\(capabilities)\"}", "-l", log])
    }

    /// A FileManager1 whose ShowItems calls go to `log`.
    public func startFileManager(log: String) throws {
        let path = "/org/freedesktop/FileManager1"
        try startMock(owning: "org.freedesktop.FileManager1", ["org.freedesktop.FileManager1", path, "org.freedesktop.FileManager1", "-l", log])
        try call("org.freedesktop.FileManager1", path, "org.freedesktop.DBus.Mock.AddMethod", "", "ShowItems", "ass", "", "")
    }

    /// A private bus in `scratch` with the notification daemon and a file manager, logging to
    /// `notify.log` and `filemanager.log` there. The caller stops the bus.
    public static func desktop(in scratch: ScratchDirectory) throws -> (bus: PrivateBus, notifications: String, fileManager: String) {
        let bus = try PrivateBus()
        let (notifications, fileManager) = (scratch.sub("notify.log"), scratch.sub("filemanager.log"))
        do {
            try bus.startNotificationServer(log: notifications)
            try bus.startFileManager(log: fileManager)
        } catch {
            bus.stop()
            throw error
        }
        return (bus, notifications, fileManager)
    }

    /// Clicks a notification's button, as the server does.
    public func invokeAction(_ action: String, notification id: UInt32 = 1) throws {
        try call(
            "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock.EmitSignal",
            "org.freedesktop.Notifications", "ActionInvoked", "us", "[<uint32 \(id)>, <'\(action)'>]")
    }
}

/// One Notify call as python3-dbusmock's notification template logs it:
/// `TIME Notify "app" replaces_id "icon" "summary" "body" [actions] {hints} timeout`.
public struct LoggedNotification {
    public var replacesID: Int
    public var summary: String
    public var body: String
    public var actions: [String]
    public var hints: String

    public static func all(in log: String) -> [LoggedNotification] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // Bodies may hold newlines, so split on the timestamps that start each call.
        let calls = text.components(separatedBy: "\n").reduce(into: [String]()) { calls, line in
            if line.range(of: #"^\d+\.\d+ "#, options: .regularExpression) != nil { calls.append(line) } else if !calls.isEmpty {
                calls[calls.count - 1] += "\n" + line
            }
        }
        return calls.compactMap(parse)
    }

    private static func parse(_ call: String) -> LoggedNotification? {
        guard let notify = call.range(of: " Notify ") else { return nil }
        var rest = Substring(call[notify.upperBound...])
        func quoted() -> String? {
            rest = rest.drop(while: { $0 == " " })
            guard rest.first == "\"" else { return nil }
            rest = rest.dropFirst()
            var value = ""
            while let character = rest.first, character != "\"" {
                if character == "\\", let next = rest.dropFirst().first {
                    value.append(next)
                    rest = rest.dropFirst(2)
                } else {
                    value.append(character)
                    rest = rest.dropFirst()
                }
            }
            rest = rest.dropFirst()
            return value
        }
        guard quoted() == "Archiver" else { return nil }
        rest = rest.drop(while: { $0 == " " })
        let id = Int(rest.prefix(while: \.isNumber)) ?? -1
        rest = rest.drop(while: \.isNumber)
        guard quoted() != nil, let summary = quoted(), let body = quoted() else { return nil }
        guard let open = rest.firstIndex(of: "["), let close = rest.firstIndex(of: "]") else { return nil }
        let actions = rest[rest.index(after: open)..<close].split(separator: ",").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        }
        let hints = String(rest[close...])
        return LoggedNotification(replacesID: id, summary: summary, body: body, actions: actions, hints: hints)
    }

    /// The `value` hint, when there is one.
    public var value: Int? {
        guard let range = hints.range(of: #""value": \d+"#, options: .regularExpression) else { return nil }
        return Int(hints[range].split(separator: " ").last ?? "")
    }

    public var urgency: Int? {
        guard let range = hints.range(of: #""urgency": \d"#, options: .regularExpression) else { return nil }
        return Int(hints[range].split(separator: " ").last ?? "")
    }
}
