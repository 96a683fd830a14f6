import ArchiverTestSupport
import Foundation
import Testing

/// Each metadata promise of Compress Photos, checked with exiftool, vipsheader and vips on photos whose
/// metadata exiftool wrote.
@Suite struct PhotoMetadataTests {
    /// A 1200×900 phone shot stored landscape with Orientation 6 (portrait when shown), full camera EXIF.
    private func cameraPhoto(_ scratch: ScratchDirectory, name: String = "IMG_1.jpg") throws -> String {
        let path = scratch.sub(name)
        try Photos.makeJPEG(path, width: 1200, height: 900)
        try Photos.writeCameraMetadata(path, orientation: 6, scratch: scratch)
        try Photos.setModificationTime(path, Date(timeIntervalSince1970: 1_713_679_424))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    /// The formats a copy can be written in: each carries EXIF and XMP (JPEG in APP1 segments, WebP in
    /// chunks, AVIF and HEIC as HEIF items).
    static let formats = ["jpeg", "webp", "avif", "heic"]

    /// The copy Compress Photos writes of `stem` in `format`.
    private func copy(_ scratch: ScratchDirectory, _ stem: String, _ format: String) -> String {
        scratch.sub("\(stem) (compressed).\(format == "jpeg" ? "jpg" : format)")
    }

    @Test func uprightResizedAndEveryFieldKept() throws {
        let scratch = try ScratchDirectory()
        let original = try cameraPhoto(scratch)
        let before = try Photos.tags(original)
        #expect(before["IFD1:ThumbnailLength"] != nil, "the test photo must carry an IFD1 thumbnail")
        let result = try Photos.run(["--max-size", "600", original], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("IMG_1 (compressed).jpg")
        let after = try Photos.tags(copy)

        // Upright: the stored landscape 1200×900 with Orientation 6 is a 450×600 portrait, tag 1.
        #expect(try Photos.header(copy, "width") == "450")
        #expect(try Photos.header(copy, "height") == "600")
        #expect(after["IFD0:Orientation"] == "1")
        #expect(after["XMP-tiff:Orientation"] == "1", "XMP must not contradict the EXIF")
        #expect(after["XMP-exif:ExifImageWidth"] == "450")
        #expect(after["ExifIFD:ExifImageWidth"] == "450")
        #expect(after["ExifIFD:ExifImageHeight"] == "600")
        // The red block of the stored top-left corner is now top-right, as Orientation 6 means.
        let topRight = try Photos.pixel(copy, x: 440, y: 10)
        let topLeft = try Photos.pixel(copy, x: 10, y: 10)
        #expect(topRight.count == 3 && topRight[0] > 200 && topRight[1] < 60 && topRight[2] < 60, "\(topRight)")
        #expect(!(topLeft[0] > 200 && topLeft[1] < 60), "\(topLeft)")

        // Camera, lens, exposure, dates, GPS, ICC, XMP: as in the original.
        for tag in [
            "IFD0:Make", "IFD0:Model", "IFD0:ModifyDate", "ExifIFD:DateTimeOriginal", "ExifIFD:CreateDate",
            "ExifIFD:OffsetTimeOriginal", "ExifIFD:SubSecTimeOriginal", "ExifIFD:ExposureTime", "ExifIFD:FNumber",
            "ExifIFD:ISO", "ExifIFD:FocalLength", "ExifIFD:LensModel", "GPS:GPSLatitude", "GPS:GPSLongitude",
            "GPS:GPSLatitudeRef", "GPS:GPSLongitudeRef", "GPS:GPSAltitude", "XMP-dc:Title", "XMP-xmp:Rating",
            "XMP-exif:GPSLatitude", "XMP-exif:GPSLongitude",
            "ICC-header:ProfileClass", "ICC-header:ColorSpaceData",
        ] {
            #expect(before[tag] != nil, "the test photo lacks \(tag)")
            #expect(after[tag] == before[tag], "\(tag): \(after[tag] ?? "missing") instead of \(before[tag] ?? "")")
        }
        // The stale thumbnail (the unrotated full frame) is gone: no IFD1 at all.
        #expect(after.keys.filter { $0.hasPrefix("IFD1:") }.isEmpty, "\(after.keys.filter { $0.hasPrefix("IFD1:") })")
        #expect(after["ExifTool:Warning"] == nil, "\(after["ExifTool:Warning"] ?? "")")
        let validate = try Tool.run(["/usr/bin/exiftool", "-validate", "-warning", "-a", "-s3", copy], mergingErrors: false)
        #expect(validate.output.hasPrefix("OK"), "\(validate.output)")

        // The file keeps the original's modification time and permissions; the original is untouched.
        #expect(Photos.modificationTime(copy) == Photos.modificationTime(original))
        let mode = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int }
        #expect(mode(copy) == 0o600)
        #expect(try Photos.tags(original)["IFD0:Orientation"] == "6")
        #expect(Photos.size(copy) < Photos.size(original))
    }

    @Test func ultraHDRPhotoCompressesToItsPrimaryPicture() throws {
        let scratch = try ScratchDirectory()
        // An UltraHDR JPEG as recent Android phones write it: the primary picture announcing a gain map in
        // its XMP (hdrgm), an MPF index in APP2, and the gain map (a quarter-size grey JPEG) after it.
        try Photos.python(
            #"""
            import io, struct, sys
            from PIL import Image
            w, h = 2000, 1500
            noise = Image.effect_noise((w, h), 40).convert('L')
            picture = Image.merge('RGB', (noise, Image.linear_gradient('L').resize((w, h)), noise))
            def jpeg(im):
                b = io.BytesIO(); im.save(b, 'JPEG', quality=90); return b.getvalue()
            def app(data, marker, payload):
                return data[:2] + bytes([0xff, marker]) + struct.pack('>H', len(payload) + 2) + payload + data[2:]
            def xmp(body):
                return (b'http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF'
                        b' xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""'
                        b' xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"'
                        b' ' + body + b'/></rdf:RDF></x:xmpmeta>')
            gain = app(jpeg(Image.linear_gradient('L').resize((w // 4, h // 4))), 0xE1,
                       xmp(b'hdrgm:Version="1.0" hdrgm:GainMapMax="2.0" hdrgm:HDRCapacityMax="2.0"'))
            base = app(jpeg(picture), 0xE1, xmp(b'hdrgm:Version="1.0" dc:format="image/jpeg"'))
            def mpf(size, offset, gain_size):
                entries = struct.pack('>IIIHH', 0x20030000, size, 0, 0, 0) + struct.pack('>IIIHH', 0, gain_size, offset, 0, 0)
                ifd = struct.pack('>H', 3) + struct.pack('>HHI4s', 0xB000, 7, 4, b'0100')
                ifd += struct.pack('>HHII', 0xB001, 4, 1, 2) + struct.pack('>HHII', 0xB002, 7, 32, 8 + 2 + 36 + 4)
                return b'MPF\x00MM\x00\x2a' + struct.pack('>I', 8) + ifd + struct.pack('>I', 0) + entries
            size = len(base) + len(mpf(0, 0, 0)) + 4
            primary = app(base, 0xE2, mpf(size, size - 10, len(gain)))
            open(sys.argv[1], 'wb').write(primary + gain)
            """#, [scratch.sub("PXL_hdr.jpg")])
        let before = try Photos.tags(scratch.sub("PXL_hdr.jpg"))
        try #require(before["MPF0:NumberOfImages"] == "2" && before["XMP-hdrgm:Version"] == "1.0", "\(before)")
        let result = try Photos.run(["--max-size", "1000", scratch.sub("PXL_hdr.jpg")], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("PXL_hdr (compressed).jpg")
        #expect(try Photos.header(copy, "width") == "1000" && Photos.header(copy, "bands") == "3")
        let after = try Photos.tags(copy)
        // The primary picture, with its other XMP; nothing left that announces the gain map it lacks.
        #expect(after["XMP-dc:Format"] == "image/jpeg", "\(after)")
        #expect(!after.keys.contains { $0.hasPrefix("XMP-hdrgm:") || $0.hasPrefix("MPF") }, "\(after)")
    }

    @Test func utf16XMPIsKeptAndAnOldCreatorToolReplaced() throws {
        let scratch = try ScratchDirectory()
        try Photos.makeJPEG(scratch.sub("plain.jpg"), width: 1600, height: 1200)
        // Photoshop 7's way: the xmp namespace as xap:, CreatorTool an element; and the packet in UTF-16.
        try Photos.python(
            #"""
            import struct, sys
            packet = ('\ufeff<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>'
                      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                      '<rdf:Description rdf:about="" xmlns:xap="http://ns.adobe.com/xap/1.0/"'
                      ' xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">'
                      '<xap:CreatorTool>Adobe Photoshop 7.0</xap:CreatorTool>'
                      '<photoshop:City>Zürich</photoshop:City></rdf:Description>'
                      '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>').encode('utf-16-be')
            payload = b'http://ns.adobe.com/xap/1.0/\x00' + packet
            data = open(sys.argv[1], 'rb').read()
            open(sys.argv[2], 'wb').write(data[:2] + b'\xff\xe1' + struct.pack('>H', len(payload) + 2) + payload + data[2:])
            """#, [scratch.sub("plain.jpg"), scratch.sub("old.jpg")])
        let before = try Photos.tags(scratch.sub("old.jpg"))
        try #require(before["XMP-photoshop:City"] == "Zürich", "\(before)")
        let result = try Photos.run(["--max-size", "800", scratch.sub("old.jpg")], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("old (compressed).jpg")
        let after = try Photos.tags(copy)
        #expect(after["XMP-photoshop:City"] == "Zürich", "\(after)")
        #expect(after["XMP-xmp:CreatorTool"] == "Archiver (io.github.archiver)", "\(after)")
        // One CreatorTool, ours: the old one replaced, not left beside it.
        let packet = try Tool.run(["/usr/bin/exiftool", "-b", "-XMP", copy], mergingErrors: false).output
        #expect(!packet.contains("Photoshop 7.0"), "\(packet)")
    }

    /// A JPEG whose XMP goes on past JPEG's 64 kB, as Google's camera and Photoshop write it: the main packet
    /// names the rest by its MD5 (GUID), and the rest follows in APP1 segments of its own. With `location`,
    /// the rest holds a GPS position.
    private func longXMPPhoto(_ scratch: ScratchDirectory, location: Bool = false) throws -> String {
        try Photos.makeJPEG(scratch.sub("plain.jpg"), width: 1600, height: 1200)
        try Photos.python(
            #"""
            import hashlib, random, struct, sys
            random.seed(7)
            words = ' '.join(random.choice(['Ähre', 'field', 'sun', 'rye', 'wind']) for _ in range(30000))
            gps = ' xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="46,57.0N"' if sys.argv[3] == '1' else ''
            rest = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                    '<rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"' + gps + '>'
                    '<photoshop:Instructions>' + words + '</photoshop:Instructions>'
                    '</rdf:Description></rdf:RDF></x:xmpmeta>').encode()
            guid = hashlib.md5(rest).hexdigest().upper().encode()
            main = (b'http://ns.adobe.com/xap/1.0/\x00<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>'
                    b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
                    b'<rdf:Description rdf:about="" xmlns:xmpNote="http://ns.adobe.com/xmp/note/"'
                    b' xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmpNote:HasExtendedXMP="' + guid + b'"'
                    b' photoshop:City="Bern"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')
            def app1(payload):
                return b'\xff\xe1' + struct.pack('>H', len(payload) + 2) + payload
            segments = app1(main)
            for offset in range(0, len(rest), 65000):
                segments += app1(b'http://ns.adobe.com/xmp/extension/\x00' + guid
                                 + struct.pack('>II', len(rest), offset) + rest[offset:offset + 65000])
            data = open(sys.argv[1], 'rb').read()
            open(sys.argv[2], 'wb').write(data[:2] + segments + data[2:])
            """#, [scratch.sub("plain.jpg"), scratch.sub("long.jpg"), location ? "1" : "0"])
        return scratch.sub("long.jpg")
    }

    /// A JPEG copy carries the segments; WebP, AVIF and HEIC, which hold a packet of any size and know no
    /// Extended XMP, carry its properties in their one packet.
    @Test(arguments: formats) func extendedXMPIsKept(format: String) throws {
        let scratch = try ScratchDirectory()
        let photo = try longXMPPhoto(scratch)
        let before = try Photos.tags(photo)
        let instructions = try #require(before["XMP-photoshop:Instructions"])
        try #require(instructions.utf8.count > 100_000 && before["XMP-photoshop:City"] == "Bern", "\(before.keys)")
        let result = try Photos.run(["--format", format, "--max-size", "800", photo], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Photos.tags(copy(scratch, "long", format))
        #expect(after["XMP-photoshop:Instructions"] == instructions, "\(after["XMP-photoshop:Instructions"]?.prefix(80) ?? "missing")")
        #expect(after["XMP-photoshop:City"] == "Bern" && after["XMP-xmp:CreatorTool"] == "Archiver (io.github.archiver)", "\(after)")
        #expect(after["ExifTool:Warning"] == nil, "\(after["ExifTool:Warning"] ?? "")")
        // In one packet, nothing names a rest that is not there.
        if format != "jpeg" { #expect(after["XMP-xmpNote:HasExtendedXMP"] == nil, "\(after)") }
    }

    @Test(arguments: ["jpeg", "webp"]) func extendedXMPHoldingALocationGoesWithStripLocation(format: String) throws {
        let scratch = try ScratchDirectory()
        let photo = try longXMPPhoto(scratch, location: true)
        try #require(try Photos.tags(photo)["XMP-exif:GPSLatitude"] != nil)
        let result = try Photos.run(["--strip-location", "--format", format, "--max-size", "800", photo], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Photos.tags(copy(scratch, "long", format))
        #expect(after["XMP-exif:GPSLatitude"] == nil && after["XMP-photoshop:Instructions"] == nil, "\(after.keys)")
        #expect(after["XMP-photoshop:City"] == "Bern", "\(after)")
    }

    @Test func photoshopThumbnailGoesAndIPTCStays() throws {
        let scratch = try ScratchDirectory()
        try Photos.makeJPEG(scratch.sub("edited.jpg"), width: 1600, height: 1200)
        // Photoshop's APP13: IPTC beside a thumbnail of another picture (a blue square), as after an edit.
        try Photos.python(
            "from PIL import Image; import sys; Image.new('RGB', (160, 120), (0, 0, 255)).save(sys.argv[1])",
            [scratch.sub("thumb.jpg")])
        let written = try Tool.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-PhotoshopThumbnail<=" + scratch.sub("thumb.jpg"),
            "-IPTC:City=Bern", "-IPTC:Keywords=harvest", scratch.sub("edited.jpg"),
        ])
        try #require(written.status == 0, "\(written.output)")
        try #require(try Photos.tags(scratch.sub("edited.jpg"))["Photoshop:PhotoshopThumbnail"] != nil)
        let result = try Photos.run(["--max-size", "800", scratch.sub("edited.jpg")], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Photos.tags(scratch.sub("edited (compressed).jpg"))
        #expect(after["Photoshop:PhotoshopThumbnail"] == nil, "\(after)")
        #expect(after["IPTC:City"] == "Bern" && after["IPTC:Keywords"] == "harvest", "\(after)")
    }

    @Test func heicXMPIsKept() throws {
        let scratch = try ScratchDirectory()
        try Photos.makeJPEG(scratch.sub("source.jpg"), width: 1600, height: 1200)
        let tagged = try Tool.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-XMP-dc:Title=Ährenfeld", "-XMP-photoshop:City=Bern",
            scratch.sub("source.jpg"),
        ])
        try #require(tagged.status == 0, "\(tagged.output)")
        // heif-enc carries the XMP into the HEIC, which libvips 8.14's loader does not read.
        let made = try Tool.run(["/usr/bin/heif-enc", "-q", "60", scratch.sub("source.jpg"), "-o", scratch.sub("IMG_7.heic")])
        try #require(made.status == 0, "\(made.output)")
        try #require(try Photos.tags(scratch.sub("IMG_7.heic"))["XMP-photoshop:City"] == "Bern")
        let result = try Photos.run(["--max-size", "800", scratch.sub("IMG_7.heic")], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Photos.tags(scratch.sub("IMG_7 (compressed).jpg"))
        #expect(after["XMP-dc:Title"] == "Ährenfeld" && after["XMP-photoshop:City"] == "Bern", "\(after)")
        #expect(after["XMP-xmp:CreatorTool"] == "Archiver (io.github.archiver)", "\(after)")
    }

    @Test func tiffKeepsItsEXIFAndGPS() throws {
        let scratch = try ScratchDirectory()
        let tiff = scratch.sub("scan.tif")
        try Photos.python(
            """
            import sys
            from PIL import Image
            noise = Image.effect_noise((1600, 1200), 40).convert('L')
            Image.merge('RGB', (noise, Image.linear_gradient('L').resize((1600, 1200)), noise)).save(sys.argv[1])
            """, [tiff])
        // As a camera or a scanner writes a TIFF: the EXIF in IFD0 and its Exif and GPS IFDs, no APP1.
        let written = try Tool.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-IFD0:Make=Nikon", "-IFD0:Model=D750",
            "-IFD0:Artist=Ann Meier", "-IFD0:Copyright=(c) Ann Meier", "-IFD0:ModifyDate=2024:05:01 10:00:00",
            "-ExifIFD:DateTimeOriginal=2024:04:21 08:03:44", "-ExifIFD:CreateDate=2024:04:21 08:03:45",
            "-ExifIFD:ExposureTime=1/250", "-ExifIFD:FNumber=8", "-GPS:GPSLatitudeRef=S", "-GPS:GPSLatitude=33.8568",
            "-GPS:GPSLongitudeRef=E", "-GPS:GPSLongitude=151.2153", "-GPS:GPSAltitude=12", tiff,
        ])
        try #require(written.status == 0, "\(written.output)")
        let before = try Photos.tags(tiff)
        let result = try Photos.run(["--max-size", "800", tiff], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Photos.tags(scratch.sub("scan (compressed).jpg"))
        for tag in [
            "IFD0:Make", "IFD0:Model", "IFD0:Artist", "IFD0:Copyright", "IFD0:ModifyDate", "ExifIFD:DateTimeOriginal",
            "ExifIFD:CreateDate", "ExifIFD:ExposureTime", "ExifIFD:FNumber", "GPS:GPSLatitudeRef", "GPS:GPSLatitude",
            "GPS:GPSLongitudeRef", "GPS:GPSLongitude", "GPS:GPSAltitude",
        ] {
            #expect(before[tag] != nil, "the test TIFF lacks \(tag)")
            #expect(after[tag] == before[tag], "\(tag): \(after[tag] ?? "missing") instead of \(before[tag] ?? "")")
        }
        // The TIFF's own pixel tags describe it, not the copy.
        #expect(after["ExifIFD:ExifImageWidth"] == "800" && after["IFD0:Orientation"] == "1", "\(after)")
        #expect(after["IFD0:StripOffsets"] == nil && after["IFD0:BitsPerSample"] == nil, "\(after)")
        let validate = try Tool.run(["/usr/bin/exiftool", "-validate", "-warning", "-a", "-s3", scratch.sub("scan (compressed).jpg")], mergingErrors: false)
        #expect(validate.output.hasPrefix("OK"), "\(validate.output)")
    }

    @Test(arguments: formats) func exifTextThatIsNotUTF8KeepsItsBytes(format: String) throws {
        let scratch = try ScratchDirectory()
        let photo = scratch.sub("old-camera.jpg")
        try Photos.makeJPEG(photo, width: 1600, height: 1200)
        // A Latin-1 "®" and "é", as older cameras and editors wrote them (EXIF says ASCII; they wrote bytes).
        let written = try Tool.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-charset", "exif=latin", "-IFD0:Make=Acme®",
            "-IFD0:ImageDescription=Café du Nord", "-ExifIFD:DateTimeOriginal=2024:04:21 08:03:44", photo,
        ])
        try #require(written.status == 0, "\(written.output)")
        let result = try Photos.run(["--format", format, "--max-size", "800", photo], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = self.copy(scratch, "old-camera", format)
        let read = { (tag: String) in
            try Tool.run(["/usr/bin/exiftool", "-charset", "exif=latin", "-s3", "-" + tag, copy], mergingErrors: false)
                .output.trimmingCharacters(in: .newlines)
        }
        #expect(try read("IFD0:Make") == "Acme®")
        #expect(try read("IFD0:ImageDescription") == "Café du Nord")
        #expect(try read("ExifIFD:DateTimeOriginal") == "2024:04:21 08:03:44")
        // The very bytes: "Acme" 0xAE NUL, not UTF-8's C2 AE.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy)))
        #expect(bytes.firstRange(of: Array("Acme".utf8) + [0xAE, 0]) != nil)
    }

    @Test(arguments: formats) func appleMakerNoteIsKept(format: String) throws {
        let scratch = try ScratchDirectory()
        try Photos.makeJPEG(scratch.sub("plain.jpg"), width: 1600, height: 1200)
        // An iPhone's EXIF, its maker note as Apple writes it ("Apple iOS", then an IFD whose offsets count
        // from the note's start), made by hand: exiftool writes no new maker note.
        try Photos.python(
            #"""
            import struct, sys
            note_ifd = (struct.pack('>H', 2) + struct.pack('>HHIi', 1, 9, 1, 14)
                        + struct.pack('>HHII', 8, 10, 3, 14 + 2 + 24 + 4) + struct.pack('>I', 0))
            note = b'Apple iOS\x00\x00\x01MM' + note_ifd + struct.pack('>6i', 1, 2, -3, 4, 5, 6)
            def ifd(entries, data_at):
                out, data = struct.pack('>H', len(entries)), b''
                for tag, kind, count, value in entries:
                    if len(value) <= 4:
                        out += struct.pack('>HHI', tag, kind, count) + value.ljust(4, b'\x00')
                    else:
                        out += struct.pack('>HHII', tag, kind, count, data_at + len(data))
                        data += value + b'\x00' * (len(value) % 2)
                return out + struct.pack('>I', 0), data
            make, model, taken = b'Apple\x00', b'iPhone 12\x00', b'2024:04:21 08:03:44\x00'
            ifd0_data_at = 8 + 2 + 12 * 3 + 4
            _, ifd0_data = ifd([(271, 2, 6, make), (272, 2, 10, model), (34665, 4, 1, b'')], ifd0_data_at)
            exif_at = ifd0_data_at + len(ifd0_data)
            ifd0, ifd0_data = ifd([(271, 2, 6, make), (272, 2, 10, model), (34665, 4, 1, struct.pack('>I', exif_at))], ifd0_data_at)
            exif, exif_data = ifd([(36867, 2, 20, taken), (37500, 7, len(note), note)], exif_at + 2 + 12 * 2 + 4)
            payload = b'Exif\x00\x00MM\x00*' + struct.pack('>I', 8) + ifd0 + ifd0_data + exif + exif_data
            data = open(sys.argv[1], 'rb').read()
            open(sys.argv[2], 'wb').write(data[:2] + b'\xff\xe1' + struct.pack('>H', len(payload) + 2) + payload + data[2:])
            """#, [scratch.sub("plain.jpg"), scratch.sub("IMG_0042.jpg")])
        let before = try Photos.tags(scratch.sub("IMG_0042.jpg"))
        try #require(before["Apple:MakerNoteVersion"] == "14" && before["Apple:AccelerationVector"] != nil, "\(before)")
        let result = try Photos.run(["--format", format, "--max-size", "800", scratch.sub("IMG_0042.jpg")], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Photos.tags(copy(scratch, "IMG_0042", format))
        for tag in ["Apple:MakerNoteVersion", "Apple:AccelerationVector", "IFD0:Model", "ExifIFD:DateTimeOriginal"] {
            #expect(after[tag] == before[tag], "\(tag): \(after[tag] ?? "missing") instead of \(before[tag] ?? "")")
        }
    }

    @Test func stripLocationRemovesOnlyGPS() throws {
        let scratch = try ScratchDirectory()
        let original = try cameraPhoto(scratch)
        let result = try Photos.run(["--strip-location", "--max-size", "600", original], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let after = try Photos.tags(scratch.sub("IMG_1 (compressed).jpg"))
        #expect(after.keys.filter { $0.hasPrefix("GPS:") || $0.contains("GPS") }.isEmpty, "\(after.keys.filter { $0.contains("GPS") })")
        #expect(after["IFD0:Make"] == "Google")
        #expect(after["ExifIFD:DateTimeOriginal"] == "2024:04:21 08:03:44")
        #expect(after["XMP-dc:Title"] == "Tiergarten")
    }

    @Test func transparentPNGFlattensOntoWhiteForJPEG() throws {
        let scratch = try ScratchDirectory()
        let png = scratch.sub("cut-out.png")
        try Photos.makeTransparentPNG(png, width: 800, height: 400)
        let result = try Photos.run([png], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("cut-out (compressed).jpg")
        #expect(try Photos.header(copy, "bands") == "3")
        #expect(try Photos.header(copy, "width") == "800", "a small photo is never enlarged")
        let transparent = try Photos.pixel(copy, x: 700, y: 200)
        #expect(transparent.allSatisfy { $0 > 245 }, "the transparent half must be white, not \(transparent)")
    }

    @Test func heicBecomesJPEGWithItsMetadata() throws {
        let scratch = try ScratchDirectory()
        let source = try cameraPhoto(scratch, name: "src.jpg")
        // heif-enc carries the EXIF; an upright source, as heif-enc 1.15 writes no irot box.
        _ = try Tool.run(["/usr/bin/exiftool", "-q", "-overwrite_original", "-IFD0:Orientation#=1", source])
        let heic = scratch.sub("IMG_2.HEIC")
        let encoded = try Tool.run(["/usr/bin/heif-enc", "-q", "60", source, "-o", heic])
        #expect(encoded.status == 0, "\(encoded.output)")
        let result = try Photos.run(["--max-size", "300", heic], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("IMG_2 (compressed).jpg")
        let after = try Photos.tags(copy)
        #expect(after["File:FileType"] == "JPEG")
        #expect(try Photos.header(copy, "width") == "300")
        #expect(try Photos.header(copy, "height") == "225")
        #expect(after["IFD0:Orientation"] == "1")
        #expect(after["IFD0:Model"] == "Pixel 5")
        #expect(after["ExifIFD:DateTimeOriginal"] == "2024:04:21 08:03:44")
        #expect(after["GPS:GPSLatitude"] != nil)
        #expect(after["ExifIFD:ExifImageWidth"] == "300")
    }

    /// A phone's HEIC: landscape pixels, the rotation in the container (irot) and, as iPhones write it,
    /// the same rotation again in EXIF. The container's rotation counts, once.
    @Test func heicContainerRotationIsHonouredOnce() throws {
        let scratch = try ScratchDirectory()
        let source = try cameraPhoto(scratch, name: "src.jpg")  // 1200×900 stored, red block top-left, EXIF 6
        let heic = scratch.sub("IMG_5.HEIC")
        let encoded = try Tool.run(["/usr/bin/heif-enc", "-q", "80", source, "-o", heic])
        #expect(encoded.status == 0, "\(encoded.output)")
        try Photos.addContainerRotation(heic, quarterTurns: 3)  // 270° anticlockwise = 90° clockwise, as EXIF 6
        #expect(try Photos.header(heic, "height") == "1200", "libheif applies the irot box the test wrote")
        #expect(try Photos.tags(heic)["IFD0:Orientation"] == "6")

        let result = try Photos.run(["--max-size", "600", heic], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("IMG_5 (compressed).jpg")
        #expect(try Photos.header(copy, "width") == "450")
        #expect(try Photos.header(copy, "height") == "600")
        #expect(try Photos.tags(copy)["IFD0:Orientation"] == "1", "no second rotation by a viewer")
        // Turned a quarter clockwise once: the red block of the stored top-left is now top-right.
        let topRight = try Photos.pixel(copy, x: 440, y: 10)
        #expect(topRight[0] > 200 && topRight[1] < 60 && topRight[2] < 60, "\(topRight)")
        #expect(try Photos.tags(copy)["ExifIFD:DateTimeOriginal"] == "2024:04:21 08:03:44")
    }

    @Test(arguments: [("webp", "image/webp"), ("avif", "image/avif")])
    func otherFormatsKeepTheMetadata(format: String, mimeType: String) throws {
        let scratch = try ScratchDirectory()
        let original = try cameraPhoto(scratch)
        let result = try Photos.run(["--format", format, "--max-size", "400", original], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let copy = scratch.sub("IMG_1 (compressed).\(format)")
        let after = try Photos.tags(copy)
        #expect(after["File:MIMEType"] == mimeType)
        #expect(try Photos.header(copy, "width") == "300")
        #expect(after["IFD0:Orientation"] == "1")
        #expect(after["ExifIFD:DateTimeOriginal"] == "2024:04:21 08:03:44")
        #expect(after["GPS:GPSLongitude"] != nil)
        #expect(after.keys.filter { $0.hasPrefix("IFD1:") }.isEmpty)
        // WebP's EXIF chunk starts with the TIFF header, without JPEG's "Exif\0\0" (libvips 8.14 writes it).
        #expect(after["ExifTool:Warning"] == nil, "\(after["ExifTool:Warning"] ?? "")")
    }
}
