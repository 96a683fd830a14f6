import ArchiverCore
import ArchiverTestSupport
import Foundation
import SystemPackage
import Testing

@testable import PhotoEngine

/// What the Compress Photos… filters read with the estimate: EXIF's date and position (the shim), the place
/// in IPTC and XMP, the file's date for a photo without one. Photos made by Pillow and exiftool.
@Suite struct PhotoFactsTests {
    /// An IPTC-IIM dataset `record`:`dataset` holding `bytes`.
    private func dataset(_ dataset: UInt8, _ bytes: [UInt8], record: UInt8 = 2) -> [UInt8] {
        [0x1C, record, dataset, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    /// `iim` as a JPEG's APP13 carries it: Photoshop image resources, a thumbnail resource before it.
    private func photoshop(_ iim: [UInt8]) -> [UInt8] {
        func resource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
            var bytes = Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0]
            let size = UInt32(data.count)
            bytes += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + data
            return data.count % 2 == 1 ? bytes + [0] : bytes
        }
        return Array("Photoshop 3.0\0".utf8) + resource(0x040C, [1, 2, 3]) + resource(0x0404, iim)
    }

    @Test func theIPTCPlaceIsReadInPhotoshopsBlockOrAlone() {
        let iim = dataset(90, [0x1B, 0x25, 0x47], record: 1) + dataset(5, Array("Title".utf8)) + dataset(90, Array("São Paulo".utf8))
            + dataset(95, Array("SP".utf8)) + dataset(101, Array("Brasil ".utf8))
        for block in [iim, photoshop(iim)] {
            let place = PhotoFactsReader.iptcPlace(block)
            #expect(place.city == "São Paulo" && place.state == "SP" && place.country == "Brasil", "\(place)")
        }
        // Without the UTF-8 mark, bytes that are not UTF-8 are Latin-1.
        #expect(PhotoFactsReader.iptcPlace(dataset(90, [0x4D, 0xFC, 0x6E, 0x63, 0x68, 0x65, 0x6E])).city == "München")
        // A cut block gives what came before the cut.
        let cut = Array((dataset(90, Array("Porto".utf8)) + dataset(101, Array("Portugal".utf8))).dropLast(3))
        #expect(PhotoFactsReader.iptcPlace(cut).city == "Porto" && PhotoFactsReader.iptcPlace(cut).country == nil)
        #expect(PhotoFactsReader.iptcPlace(Array("not IPTC".utf8)).city == nil)
        #expect(PhotoFactsReader.iptcPlace([]).city == nil)
    }

    @Test func theXMPPlaceDateAndPositionAsAttributesOrElements() {
        let attributes = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description photoshop:City="Saint-Malo &amp; Dinard"
             photoshop:Country='France' exif:GPSLatitudeRef="N" exif:DateTimeOriginal="2021-07-14T18:02:11+02:00"/></rdf:RDF></x:xmpmeta>
            """
        let facts = PhotoFactsReader.xmpFacts(attributes)
        #expect(facts.city == "Saint-Malo & Dinard" && facts.country == "France" && facts.state == nil)
        #expect(facts.taken?.text == "2021-07-14T18:02:11")
        #expect(!facts.located, "GPSLatitudeRef is not GPSLatitude")
        let elements = """
            <rdf:Description><photoshop:State>Baden-W&#xFC;rttemberg</photoshop:State><xmp:CreateDate>2020-01-02</xmp:CreateDate>
            <exif:GPSLatitude>48,46.8N</exif:GPSLatitude><exif:GPSLongitude>9,10.8E</exif:GPSLongitude></rdf:Description>
            """
        let more = PhotoFactsReader.xmpFacts(elements)
        #expect(more.state == "Baden-Württemberg" && more.taken?.text == "2020-01-02T00:00:00" && more.located)
        #expect(PhotoFactsReader.xmpProperty("<a photoshop:City=\"\"/>", "photoshop:City") == nil, "empty is none")
    }

    @Test func exifComesFirstThenIPTCThenXMP() {
        let facts = PhotoFactsReader.facts(
            exifDate: "2019:05:04 03:02:01", exifLocated: false, iptc: dataset(90, Array("Porto".utf8)),
            xmp: "<r photoshop:City=\"Oporto\" photoshop:Country=\"Portugal\" exif:DateTimeOriginal=\"2001-01-01\"/>")
        #expect(facts == PhotoFacts(taken: PhotoDate(parsing: "2019-05-04T03:02:01"), located: false, city: "Porto", country: "Portugal"))
        #expect(PhotoFactsReader.facts(exifDate: "", exifLocated: true, iptc: [], xmp: nil) == PhotoFacts(located: true))
    }

    /// The shim reads EXIF from a JPEG's block and from a TIFF's own structure; IPTC from APP13 and the TIFF tag.
    @Test func photosTellWhenAndWhere() throws {
        let scratch = try ScratchDirectory()
        let made = try Tool.run([
            "/usr/bin/python3", "-c",
            """
            import sys
            from PIL import Image
            for name in ("a.jpg", "b.jpg", "c.tif", "d.png"):
                Image.new("RGB", (64, 48), (200, 100, 50)).save(sys.argv[1] + "/" + name)
            """, scratch.path,
        ])
        #expect(made.status == 0, "\(made.output)")
        let tagged = [
            ("a.jpg", ["-ExifIFD:DateTimeOriginal=2022:03:04 05:06:07", "-GPS:GPSLatitudeRef=S", "-GPS:GPSLatitude=33.86",
                       "-GPS:GPSLongitudeRef=E", "-GPS:GPSLongitude=151.21", "-IPTC:City=Sydney", "-XMP-photoshop:State=NSW"]),
            // CreateDate only, and a GPS IFD whose position is zeros (a phone without a fix).
            ("b.jpg", ["-ExifIFD:CreateDate=2021:12:31 23:59:59", "-GPS:GPSLatitude=0", "-GPS:GPSLongitude=0"]),
            ("c.tif", ["-ExifIFD:DateTimeOriginal=2018:08:08 08:08:08", "-GPS:GPSLatitudeRef=N", "-GPS:GPSLatitude=60.17",
                       "-GPS:GPSLongitudeRef=E", "-GPS:GPSLongitude=24.94", "-IPTC:Country-PrimaryLocationName=Suomi"]),
        ]
        for (name, tags) in tagged {
            let result = try Tool.run(["/usr/bin/exiftool", "-q", "-overwrite_original"] + tags + [scratch.sub(name)])
            #expect(result.status == 0, "\(name): \(result.output)")
        }
        // d.png has no date of its own: its file's.
        let stamp = Date(timeIntervalSince1970: 1_600_000_000)
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: scratch.sub("d.png"))
        let options = PhotoOptions()
        func facts(_ name: String) -> PhotoFacts? {
            PhotoEstimator.survey(FilePath(scratch.sub(name)), size: 1, options: options).facts
        }
        #expect(facts("a.jpg") == PhotoFacts(taken: PhotoDate(parsing: "2022-03-04T05:06:07"), located: true, city: "Sydney", state: "NSW"))
        #expect(facts("b.jpg") == PhotoFacts(taken: PhotoDate(parsing: "2021-12-31T23:59:59"), located: false))
        #expect(facts("c.tif") == PhotoFacts(taken: PhotoDate(parsing: "2018-08-08T08:08:08"), located: true, country: "Suomi"))
        #expect(facts("d.png") == PhotoFacts(taken: PhotoDate.local(seconds: 1_600_000_000)))
        let unreadable = scratch.sub("e.jpg")
        try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: unreadable))
        #expect(PhotoEstimator.survey(FilePath(unreadable), size: 3, options: options).facts == nil)
    }
}
