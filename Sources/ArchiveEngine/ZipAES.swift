internal import CNettle
import ArchiverCore
import Glibc
import Platform

/// WinZip's AES encryption of one zip member's data (https://www.winzip.com/en/support/aes-encryption/),
/// with nettle's AES, HMAC and PBKDF2. The member's data becomes its salt, a 2-byte password verifier, its
/// compressed bytes encrypted with AES-256 in counter mode, and the first 10 bytes of an HMAC-SHA1 over
/// those encrypted bytes. Keys come from the password and the member's own salt (PBKDF2-HMAC-SHA1, 1000
/// rounds), so no two members share a key stream.
///
/// AE-2, as 7-Zip writes it for every member: the header's CRC is 0, because the CRC of the plain bytes
/// would let anyone confirm a guess of a small file's content; the authentication code checks the data.
final class ZipAES {
    static let saltSize = 16
    private static let verifierSize = 2
    private static let codeSize = 10
    /// What the encryption adds to a member's data: salt and verifier before, authentication code after.
    static let overhead = Int64(saltSize + verifierSize + codeSize)
    /// APPNOTE's version 5.1, where AES encryption begins (7-Zip writes it too).
    static let versionNeeded: UInt16 = 51
    /// The method in the headers of an AES member; the real one is in its extra field.
    static let method: UInt16 = 99

    /// The extra field (0x9901) of an AES member: AE-2, vendor "AE", strength 3 (AES-256), the real method.
    static func extraField(method: UInt16) -> (id: Int, data: [UInt8]) {
        (0x9901, ZipBytes.u16(2) + [UInt8(ascii: "A"), UInt8(ascii: "E"), 3] + ZipBytes.u16(method))
    }

    /// The salt and the password verifier: the first bytes of the member's data.
    let header: [UInt8]
    private let cipher: UnsafeMutablePointer<aes256_ctx>
    private let mac: UnsafeMutablePointer<hmac_sha1_ctx>
    /// The number of the last counter block used (the first is 1, little-endian as WinZip counts).
    private var counter: UInt64 = 0
    /// Counter blocks and their key stream, a batch at a time; what a call did not use of the key stream
    /// (`unused` bytes from `keyStart`) is kept for the next.
    private let counters: UnsafeMutableRawBufferPointer
    private let stream: UnsafeMutableRawBufferPointer
    private var keyStart = 0
    private var unused = 0
    /// Encrypted copies of read-only bytes (`encrypt(_:emit:)`).
    private var scratch: UnsafeMutableRawBufferPointer?
    private static let batch = 4096

    /// Derives the member's keys from `password` and `salt` (`saltSize` bytes, `Salts`).
    init(password: Secret, salt: [UInt8]) {
        precondition(salt.count == Self.saltSize)
        let keyLength = 32
        var keys = [UInt8](repeating: 0, count: 2 * keyLength + Self.verifierSize)
        password.withBytes { bytes in
            nettle_pbkdf2_hmac_sha1(
                bytes.count, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), 1000, salt.count, salt, keys.count, &keys)
        }
        let (cipher, mac) = (UnsafeMutablePointer<aes256_ctx>.allocate(capacity: 1), UnsafeMutablePointer<hmac_sha1_ctx>.allocate(capacity: 1))
        keys.withUnsafeBufferPointer { keys in
            nettle_aes256_set_encrypt_key(cipher, keys.baseAddress!)
            nettle_hmac_sha1_set_key(mac, keyLength, keys.baseAddress! + keyLength)
        }
        (self.cipher, self.mac) = (cipher, mac)
        header = salt + keys[(2 * keyLength)...]
        explicit_bzero(&keys, keys.count)
        counters = .allocate(byteCount: Self.batch, alignment: 16)
        stream = .allocate(byteCount: Self.batch, alignment: 16)
        counters.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        explicit_bzero(cipher, MemoryLayout<aes256_ctx>.size)
        explicit_bzero(mac, MemoryLayout<hmac_sha1_ctx>.size)
        explicit_bzero(stream.baseAddress!, stream.count)
        cipher.deallocate()
        mac.deallocate()
        counters.deallocate()
        stream.deallocate()
        scratch?.deallocate()
    }

    /// Encrypts `bytes` in place, going on where the last call stopped, and adds them to the
    /// authentication code.
    func encrypt(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let key = stream.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var done = 0
        while done < bytes.count {
            if unused == 0 {
                // Enough blocks for what is left, a batch at most.
                let blocks = min((bytes.count - done + 15) / 16, Self.batch / 16)
                for block in 0..<blocks {
                    counter += 1
                    counters.storeBytes(of: counter.littleEndian, toByteOffset: block * 16, as: UInt64.self)
                }
                nettle_aes256_encrypt(cipher, blocks * 16, key, counters.baseAddress!.assumingMemoryBound(to: UInt8.self))
                (keyStart, unused) = (0, blocks * 16)
            }
            let count = min(unused, bytes.count - done)
            nettle_memxor(base + done, key + keyStart, count)
            keyStart += count
            unused -= count
            done += count
        }
        nettle_hmac_sha1_update(mac, bytes.count, base)
    }

    /// Encrypts a copy of `bytes` (read-only, as a deflate block's output is) and hands it to `emit`, in
    /// pieces; false as soon as `emit` is.
    func encrypt(_ bytes: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        let room = scratch ?? .allocate(byteCount: 1 << 16, alignment: 16)
        scratch = room
        var done = 0
        while done < bytes.count {
            let count = min(room.count, bytes.count - done)
            let piece = UnsafeMutableRawBufferPointer(rebasing: room[..<count])
            piece.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[done..<(done + count)]))
            encrypt(piece)
            guard emit(UnsafeRawBufferPointer(piece)) else { return false }
            done += count
        }
        return true
    }

    /// Encrypts the `count` bytes at `offset` of a file where they lie (a member's data just written
    /// there), read through `source` and written through `file` (a write-only descriptor cannot read);
    /// false when reading or writing failed, `errno` saying why.
    func encrypt(file: Int32, readingFrom source: Int32, at offset: Int64, count: Int64) -> Bool {
        let room = scratch ?? .allocate(byteCount: 1 << 16, alignment: 16)
        scratch = room
        var done: Int64 = 0
        while done < count {
            let length = Int(min(Int64(room.count), count - done))
            guard FileSystem.readFully(source, into: room.baseAddress!, count: length, at: offset + done) == length else { return false }
            encrypt(UnsafeMutableRawBufferPointer(rebasing: room[..<length]))
            var written = 0
            while written < length {
                let got = pwrite(file, room.baseAddress! + written, length - written, off_t(offset + done + Int64(written)))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                written += got
            }
            done += Int64(length)
        }
        return true
    }

    /// The authentication code of everything encrypted: the member's last bytes.
    func authenticationCode() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        nettle_hmac_sha1_digest(mac, digest.count, &digest)
        return Array(digest.prefix(Self.codeSize))
    }

    /// A zip's member salts, one after another: random (getrandom), or in a debug build with
    /// `ARCHIVER_TEST_SALT` set, numbered from 1 so that a test can compare two archives byte for byte.
    struct Salts {
        private var numbered: UInt64?

        init() {
            #if ARCHIVER_TEST_HOOKS
            if getenv("ARCHIVER_TEST_SALT") != nil { numbered = 0 }
            #endif
        }

        mutating func next() -> [UInt8] {
            var salt = [UInt8](repeating: 0, count: ZipAES.saltSize)
            if let number = numbered {
                numbered = number + 1
                salt.replaceSubrange(0..<8, with: ZipBytes.u64(Int64(number + 1)))
                return salt
            }
            // The system's generator: getrandom(2) on Linux, cryptographically secure.
            var random = SystemRandomNumberGenerator()
            return (0..<ZipAES.saltSize).map { _ -> UInt8 in random.next() }
        }
    }
}
