import ArchiverTestSupport
import Foundation
import Glibc
import Testing

@testable import ArchiveEngine

/// A rar's archive comment found in its headers (archives made header by header: no rar writer exists
/// here): a stored one read, a compressed one or one of the old kind left to unrar, a damaged one not shown.
@Suite struct RarCommentTests {
    private func found(_ path: String) -> RarComment.Found {
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        return RarComment.find(descriptor)
    }

    @Test func storedCommentsAreReadAndOthersLeftToUnrar() throws {
        let s = try ScratchDirectory()
        let made = try Tool.run(["/usr/bin/python3", "-c", PythonHelpers.prelude + """
            from handmade_rar import rar4, rar5
            d = sys.argv[1] + '/'
            rar5(d + 'stored5.rar', 'a.txt', b'a', 'Grüße\\nzweite Zeile')
            rar4(d + 'stored4.rar', 'a.txt', b'a', 'Q1 figures')
            rar5(d + 'packed5.rar', 'a.txt', b'a', 'looks stored', comment_method=3)
            rar4(d + 'old4.rar', 'a.txt', b'a', 'before 2.9', old_style=True)
            rar5(d + 'none5.rar', 'a.txt', b'a', None)
            rar4(d + 'none4.rar', 'a.txt', b'a', None)
            data = bytearray(open(d + 'stored5.rar', 'rb').read())
            data[data.find('Grüße'.encode())] ^= 1
            open(d + 'flipped5.rar', 'wb').write(data)
            import struct, zlib
            from handmade_rar import vint
            body = vint(1) + vint(0x0002) + vint((1 << 63) - 1) + vint(0)  # a main header claiming 2^63 - 1 bytes of data
            sized = vint(len(body)) + body
            open(d + 'hostile5.rar', 'wb').write(b'Rar!\\x1a\\x07\\x01\\x00' + struct.pack('<I', zlib.crc32(sized)) + sized)
            """, s.path])
        #expect(made.status == 0, "\(made.output)")
        #expect(found(s.sub("stored5.rar")) == .text("Grüße\nzweite Zeile"))
        #expect(found(s.sub("stored4.rar")) == .text("Q1 figures"))
        #expect(found(s.sub("packed5.rar")) == .compressed, "only unrar unpacks it")
        #expect(found(s.sub("old4.rar")) == .compressed)
        #expect(found(s.sub("none5.rar")) == .none && found(s.sub("none4.rar")) == .none)
        #expect(found(s.sub("flipped5.rar")) == .none, "its CRC-32 no longer matches: nothing rather than the wrong text")
        #expect(found(s.sub("hostile5.rar")) == .none, "a data size near Int64.max is refused, not added up until it traps")
        try Data("PK\u{5}\u{6}".utf8).write(to: URL(fileURLWithPath: s.sub("not.rar")))
        #expect(found(s.sub("not.rar")) == .none)
    }
}
