import ArchiverCore
import Testing

@testable import PhotoEngine

@Suite struct PhotoNamingTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func photosAreKnownByExtensionWhateverTheCase() {
        for name in ["IMG_1.JPG", "a.jpeg", "b.heic", "c.HEIF", "d.png", "e.webp", "f.tif", "g.TIFF", "h.avif"] {
            #expect(PhotoNaming.isPhoto(bytes(name)), "\(name)")
        }
        for name in ["notes.txt", "clip.mov", "IMG_1", ".hidden.jpg", "._IMG_1.jpg", "archive.jpg.zip", "anim.gif"] {
            #expect(!PhotoNaming.isPhoto(bytes(name)), "\(name)")
        }
    }

    @Test func aVideoIsACompanionOnlyBesideAPhotoOfItsStem() {
        let names = ["IMG_1.HEIC", "IMG_1.MOV", "img_2.jpg", "IMG_2.mp4", "IMG_3.MOV", "notes.txt", ".IMG_1.MOV"].map(bytes)
        #expect(PhotoNaming.classify(names) == [.photo, .companion, .photo, .companion, .other, .other, .other])
    }

    @Test func copiesAreNamedForTheirPlace() {
        #expect(PhotoNaming.copyName(bytes("IMG_1.HEIC"), format: .jpeg) == bytes("IMG_1.jpg"))
        #expect(PhotoNaming.copyName(bytes("scan.tiff"), format: .webp) == bytes("scan.webp"))
        #expect(PhotoNaming.copyName(bytes("holiday.2024.png"), format: .avif) == bytes("holiday.2024.avif"))
        #expect(PhotoNaming.besideName(bytes("IMG_1.jpg"), format: .jpeg) == bytes("IMG_1 (compressed).jpg"))
        #expect(PhotoNaming.keptName(bytes("IMG_1.HEIC"), beside: true) == bytes("IMG_1 (compressed).HEIC"))
        #expect(PhotoNaming.keptName(bytes("IMG_1.HEIC"), beside: false) == bytes("IMG_1.HEIC"))
        #expect(PhotoNaming.mirrorFolderName(bytes("Album")) == bytes("Compressed - Album"))
        // Names that are not UTF-8 keep their bytes.
        let latin1: [UInt8] = [0x43, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67]  // "Café.jpg" in Latin-1
        #expect(PhotoNaming.copyName(latin1, format: .webp) == [0x43, 0x61, 0x66, 0xE9] + bytes(".webp"))
    }

    @Test func theResultSaysWhatWasSaved() {
        #expect(PhotoSummary.line(photos: 48, inputBytes: 212_000_000, outputBytes: 31_000_000).english
            == "48 photos, 212 MB → 31.0 MB (85 % smaller)")
        #expect(PhotoSummary.line(photos: 1, inputBytes: 1000, outputBytes: 1000).english == "1 photo, 1.0 kB → 1.0 kB")
        #expect(PhotoSummary.line(photos: 4, inputBytes: 37_200_000, outputBytes: 38_400).english == "4 photos, 37.2 MB → 38.4 kB (99 % smaller)")
    }
}

@Suite struct PhotoOptionsTests {
    @Test func qualityIsOnJPEGsScaleForEveryFormat() {
        #expect(PhotoOptions(quality: 75, format: .jpeg).encoderQuality == 75)
        #expect(PhotoOptions(quality: 75, format: .webp).encoderQuality == 75)
        #expect(PhotoOptions(quality: 75, format: .avif).encoderQuality == 50)
        #expect(PhotoOptions(quality: 90, format: .heic).encoderQuality == 65)
        #expect(PhotoOptions(quality: 10, format: .heic).encoderQuality == 1)
    }
}

@Suite struct PhotoSettingsTests {
    @Test func storedValuesApplyWithinTheirRanges() {
        var settings = PhotoSettings()
        #expect(settings.maxSize == 1500 && settings.quality == 75 && settings.format == .jpeg && !settings.stripLocation)
        let accepted: [(PhotoSettings.Key, ArchiverSettings.Value)] = [
            (.maxSize, .number(2048)), (.maxSize, .number(0)), (.quality, .number(82)), (.format, .string("avif")),
            (.stripLocation, .bool(true)),
        ]
        for (key, value) in accepted {
            let applied = settings.apply(key, value)
            #expect(applied, "\(key) \(value)")
        }
        #expect(settings.maxSize == 0 && settings.quality == 82 && settings.format == .avif && settings.stripLocation)
        let refused: [(PhotoSettings.Key, ArchiverSettings.Value)] = [
            (.maxSize, .number(3)), (.quality, .number(0)), (.quality, .number(101)), (.format, .string("gif")),
            (.stripLocation, .string("yes")), (.maxSize, .number(1.5)),
        ]
        for (key, value) in refused {
            let applied = settings.apply(key, value)
            #expect(!applied, "\(key) \(value)")
        }
        #expect(settings.maxSize == 0 && settings.quality == 82 && settings.format == .avif, "refused values change nothing")
    }
}

@Suite struct PhotoCodecTextTests {
    @Test func xmpElementsAndAttributesFollowTheCopy() {
        let xmp = """
            <rdf:Description rdf:about='' xmlns:tiff='http://ns.adobe.com/tiff/1.0/' tiff:Orientation="6" \
            exif:PixelXDimension='4032' exif:GPSLatitude="52,30.87N" exif:ExposureTime="1/100">
             <tiff:ImageWidth>4032</tiff:ImageWidth>
             <exif:GPSLongitude>13,21.006E</exif:GPSLongitude>
             <exif:PixelYDimension>3024</exif:PixelYDimension>
             <exif:Orientation>8</exif:Orientation>
            </rdf:Description>
            """
        let kept = PhotoCodec.editXMP(xmp, stripLocation: false, width: 1125, height: 1500)
        #expect(kept.contains(#"tiff:Orientation="1""#))
        #expect(kept.contains("exif:PixelXDimension='1125'"))
        #expect(kept.contains("<tiff:ImageWidth>1125</tiff:ImageWidth>"))
        #expect(kept.contains("<exif:PixelYDimension>1500</exif:PixelYDimension>"))
        #expect(kept.contains("<exif:Orientation>1</exif:Orientation>"))
        #expect(kept.contains(#"exif:GPSLatitude="52,30.87N""#))
        #expect(kept.contains("<exif:GPSLongitude>13,21.006E</exif:GPSLongitude>"))
        #expect(kept.contains(#"exif:ExposureTime="1/100""#))

        let stripped = PhotoCodec.editXMP(xmp, stripLocation: true, width: 1125, height: 1500)
        #expect(!stripped.contains("GPS"), "\(stripped)")
        #expect(stripped.contains(#"exif:ExposureTime="1/100">"#))
        #expect(stripped.contains("<tiff:ImageWidth>1125</tiff:ImageWidth>"))
        // Nothing else moves.
        #expect(PhotoCodec.editXMP("<x:xmpmeta>plain</x:xmpmeta>", stripLocation: true, width: 1, height: 1)
            == "<x:xmpmeta>plain</x:xmpmeta>")
    }

    @Test func libvipsReasonsReadAsSentences() {
        let path = "/p/Album/broken.jpg"
        #expect(PhotoCodec.plainReason(#"VipsForeignLoad: "/p/Album/broken.jpg" is not a known file format"#, path: path).english
            == "it is not an image, or it is damaged")
        #expect(PhotoCodec.plainReason("VipsJpeg: Premature end of input file", path: path).english == "it is damaged or cut short")
        #expect(PhotoCodec.plainReason("VipsForeignSaveHeif: out of memory\nVipsImage: unable to write\n", path: path).english == "out of memory")
    }
}

@Suite struct PhotoSettingsTableTests {
    @Test func photoSettingsStartFromTheTablesDefaults() {
        let defaults = PhotoSettings()
        for key in PhotoSettings.Key.allCases {
            var settings = defaults
            let applied = settings.apply(key, key.setting.defaultValue)
            #expect(applied, "\(key.rawValue)'s default is usable")
            #expect(settings == defaults, "PhotoSettings() holds \(key.rawValue)'s default")
        }
        #expect(defaults.maxSize == 1500 && defaults.quality == 75 && defaults.format == .jpeg && !defaults.stripLocation)
    }

    @Test func theJobsAndThePhotosReadEveryKeyButTheWindowsLook() {
        let read = ArchiverSettings.Key.allCases.map(\.setting) + PhotoSettings.Key.allCases.map(\.setting)
        #expect(Set(read.map(\.name)) == Set(SettingKey.all.map(\.name)).subtracting([Setting.colorScheme.name]))
        #expect(read.count == Set(read.map(\.name)).count, "no key read twice")
    }
}
