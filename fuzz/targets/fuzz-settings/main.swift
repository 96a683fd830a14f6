import ArchiverCore
import FuzzSupport
import SystemPackage

/// Settings values and the environment, as a person or another program may have written them: byte 0
/// picks the key, byte 1 the value's type, the rest is the value (text, or a number's 8 bytes).
runFuzzer { data, size in
    let input = fuzzInput(data, size)
    guard input.count >= 2 else { return 0 }
    let key = ArchiverSettings.Key.allCases[Int(input[0]) % ArchiverSettings.Key.allCases.count]
    let rest = Array(input[2...])
    let text = String(decoding: rest, as: UTF8.self)
    let value: ArchiverSettings.Value
    switch input[1] % 3 {
    case 0: value = .string(text)
    case 1: value = .bool(rest.first.map { $0 & 1 == 1 } ?? false)
    default:
        let bits = rest.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        value = .number(Double(bitPattern: bits))
    }

    let defaults = ArchiverSettings()
    var settings = defaults
    if settings.apply(key, value) {
        checkApplied(key, value, settings)
    } else {
        require(settings == defaults, "an unusable \(key) value changed the settings")
    }
    _ = JobControl(budget: settings.budget(flag: nil))

    if let bytes = PartSize.parse(text) {
        require(bytes >= PartSize.minimum && PartSize.parse(String(bytes)) == bytes, "\(text) → \(bytes) does not read back")
    }
    checkEnvironment(text)
    return 0
}

/// An accepted value is the one now in effect.
private func checkApplied(_ key: ArchiverSettings.Key, _ value: ArchiverSettings.Value, _ settings: ArchiverSettings) {
    switch (key, value) {
    case (.defaultFormat, .string(let nick)):
        require(settings.defaultFormat.rawValue == nick && !settings.defaultFormat.isSingleStream, "format \(nick)")
    case (.compressionLevel, .string(let nick)): require(settings.compressionLevel.rawValue == nick, "level \(nick)")
    case (.lastFormat, .string(let nick)): require(settings.windowFormat.rawValue == nick, "last format \(nick)")
    case (.lastLevel, .string(let nick)): require(settings.windowLevel.rawValue == nick, "last level \(nick)")
    case (.timeBudget, .number(let seconds)):
        require(seconds.isFinite && seconds >= 0 && (settings.budget(flag: nil) == nil) == (seconds == 0), "budget \(seconds)")
    case (.splitSize, .string(let text)):
        require(settings.splitSize == (text.isEmpty ? nil : PartSize.parse(text)), "split size \(text)")
    case (.pdfQuality, .string(let nick)): require(settings.pdfQuality.rawValue == nick, "PDF quality \(nick)")
    case (.mountIdleTimeout, .number(let seconds)):
        require(seconds.isFinite && seconds >= 0 && settings.mountIdleTimeout == seconds, "mount idle timeout \(seconds)")
    case (.mountCommitDelay, .number(let seconds)):
        require(seconds.isFinite && seconds >= 0 && settings.mountCommitDelay == seconds, "mount commit delay \(seconds)")
    case (.excludeNodeModules, .bool(let flag)):
        require(LeaveOutChoice.make(settings: settings).rules.contains(.nodeModules) == flag, "exclude-node-modules \(flag)")
    case (_, .string), (_, .bool): break
    case (_, .number): require(false, "\(key) took a number")
    }
}

/// The environment as `KEY=VALUE` lines: the password method and the temporary places decided from it.
private func checkEnvironment(_ text: String) {
    var environment: [String: String] = [:]
    for line in text.split(separator: "\n") {
        guard let equals = line.firstIndex(of: "=") else { continue }
        environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
    }
    let installed = text.count % 2 == 0
    let method = PasswordChain.method(environment: environment, stdinIsTerminal: false) { _ in installed }
    if let program = environment["ARCHIVER_ASKPASS"], !program.isEmpty {
        require(method == .askpass(program: program), "ARCHIVER_ASKPASS ignored")
    } else if case .askpass(let program) = method {
        require(program == environment["SSH_ASKPASS"], "an askpass program from nowhere: \(program)")
    } else {
        require((method != nil) == installed, "a method without a program, or none with one")
    }
    require(PasswordChain.method(environment: environment, stdinIsTerminal: true) { _ in installed } == .terminal, "no terminal")

    let places = ExtractDestination(home: FilePath(environment["HOME"] ?? "/home/x"), environment: environment)
    require(places.isTemporary(FilePath("/var/tmp/x")), "/var/tmp is not temporary")
    // /tmp is the temporary folder unless $TMPDIR names another (then /tmp is a folder like any other).
    if environment["TMPDIR"].map({ !$0.hasPrefix("/") }) ?? true {
        require(places.isTemporary(FilePath("/tmp/x")), "/tmp is not temporary")
    }
    _ = places.isTemporary(FilePath(text))
}
