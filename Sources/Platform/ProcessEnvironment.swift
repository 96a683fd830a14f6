import ArchiverCore
import Glibc
import SystemPackage

/// The home folder, environment and small files the jobs read, gathered in one place.
package struct ProcessEnvironment {
    package var home: FilePath
    package var variables: [String: String]

    package static var current: ProcessEnvironment {
        var variables: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        let home = BaseFolders(environment: variables, accountHome: BaseFolders.accountHome).home
        return ProcessEnvironment(home: home, variables: variables)
    }

    /// A small text file's contents, or nil when it cannot be read.
    package func readFile(_ path: FilePath) -> String? {
        guard let file = path.withPlatformString({ fopen($0, "r") }) else { return nil }
        defer { fclose(file) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count <= 0 { break }
            data += buffer[..<count]
            if data.count > 1 << 20 { break }
        }
        return String(decoding: data, as: UTF8.self)
    }
}
