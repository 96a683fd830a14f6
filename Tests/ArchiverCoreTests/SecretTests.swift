import ArchiverCore
import Foundation
import Testing

struct SecretTests {
    @Test func holdsTheBytesAsACString() {
        let secret = Secret(Array("pässword".utf8))
        #expect(secret.count == 9)
        #expect(secret.withCString { String(cString: $0) } == "pässword")
        #expect(secret.matches(Secret(Array("pässword".utf8))))
        #expect(!secret.matches(Secret(Array("passwort".utf8))))
    }

    @Test func readsOneLineAndLeavesTheRest() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let input = Array("first one\r\nsecond\n".utf8)
        #expect(write(fds[1], input, input.count) == input.count)
        close(fds[1])
        defer { close(fds[0]) }
        #expect(Secret.readLine(from: fds[0])?.withCString { String(cString: $0) } == "first one")
        #expect(Secret.readLine(from: fds[0])?.withCString { String(cString: $0) } == "second")
        #expect(Secret.readLine(from: fds[0]) == nil, "end of input")
    }

    @Test func anEmptyLineIsAnEmptyPassword() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        _ = write(fds[1], "\n", 1)
        close(fds[1])
        defer { close(fds[0]) }
        #expect(Secret.readLine(from: fds[0])?.isEmpty == true)
    }
}
