import ArchiverCore
import Testing

@testable import ArchiveEngine

/// WinZip AES's key stream and authentication code, apart from any zip: 7-Zip and bsdtar reading our
/// archives (ParallelZipTests, ArchiveEditorTests) prove the format; this proves that the pieces a member's
/// bytes come in, which depend on deflate's blocks, change nothing.
@Suite struct ZipAESTests {
    static let salt = [UInt8](repeating: 7, count: ZipAES.saltSize)

    @Test func piecesOfAnySizeAreEncryptedAsOneWhole() {
        let plain = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        let whole = ZipAES(password: Secret(Array("pw".utf8)), salt: Self.salt)
        var once = plain
        once.withUnsafeMutableBytes { whole.encrypt($0) }

        let pieces = ZipAES(password: Secret(Array("pw".utf8)), salt: Self.salt)
        var inPieces = plain
        var at = 0
        // Within a counter block, across blocks, and across the 4 KiB batches of key stream.
        for size in [1, 15, 16, 17, 4095, 4097, 33, 5000].cycled(until: plain.count) {
            let end = min(plain.count, at + size)
            inPieces[at..<end].withUnsafeMutableBytes { pieces.encrypt($0) }
            at = end
        }
        #expect(inPieces == once)
        #expect(pieces.authenticationCode() == whole.authenticationCode())
        #expect(once != plain && zip(once, plain).filter { $0 == $1 }.count < plain.count / 100)
        #expect(whole.header.count == ZipAES.saltSize + 2 && Array(whole.header.prefix(ZipAES.saltSize)) == Self.salt)
    }

    @Test func anotherPasswordOrSaltGivesOtherKeys() {
        let bytes = [UInt8](repeating: 0, count: 64)
        func sealed(_ password: String, _ salt: [UInt8]) -> ([UInt8], [UInt8], [UInt8]) {
            let aes = ZipAES(password: Secret(Array(password.utf8)), salt: salt)
            var copy = bytes
            copy.withUnsafeMutableBytes { aes.encrypt($0) }
            return (aes.header, copy, aes.authenticationCode())
        }
        let first = sealed("pw", Self.salt)
        let other = sealed("px", Self.salt)
        var salts = ZipAES.Salts()
        let random = sealed("pw", salts.next())
        #expect(first.1 != other.1 && first.2 != other.2)
        #expect(first.1 != random.1 && first.0 != random.0)
        #expect(salts.next() != salts.next())
    }
}

extension Array {
    /// The elements again and again, until their sum reaches `total`.
    fileprivate func cycled(until total: Int) -> [Element] where Element == Int {
        var result: [Int] = []
        var sum = 0
        while sum < total {
            for size in self where sum < total {
                result.append(size)
                sum += size
            }
        }
        return result
    }
}
