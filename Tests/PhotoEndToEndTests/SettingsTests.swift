import ArchiverTestSupport
import Foundation
import Testing

/// The photo-* settings, stored by the real `gsettings` in a keyfile, and flags that override them.
@Suite struct PhotoSettingsEndToEndTests {
    @Test func storedDefaultsApplyAndFlagsWin() throws {
        let scratch = try ScratchDirectory()
        let settings = ["GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": scratch.sub("config")]
        for (key, value) in [("photo-max-size", "300"), ("photo-format", "'webp'"), ("photo-strip-location", "true")] {
            let set = try Tool.run(["/usr/bin/env", "GSETTINGS_SCHEMA_DIR=\(Photos.schemaFolder)", "GSETTINGS_BACKEND=keyfile",
                                    "XDG_CONFIG_HOME=\(scratch.sub("config"))", "/usr/bin/gsettings", "set", "io.github.archiver", key, value])
            #expect(set.status == 0, "gsettings set \(key): \(set.output)")
        }
        let photo = scratch.sub("IMG_1.jpg")
        try Photos.makeJPEG(photo, width: 1200, height: 900)
        try Photos.writeCameraMetadata(photo, orientation: 1, scratch: scratch)

        let stored = try Photos.run([photo], in: scratch, environment: settings)
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(stored.stderr.isEmpty, "no warning with the schema installed: \(stored.stderr)")
        let copy = scratch.sub("IMG_1 (compressed).webp")
        #expect(try Photos.header(copy, "width") == "300")
        #expect(try Photos.tags(copy).keys.filter { $0.contains("GPS") }.isEmpty)

        let flagged = try Photos.run(["--format", "jpeg", "--max-size", "400", "--no-strip-location", photo], in: scratch, environment: settings)
        #expect(flagged.status == 0, "\(flagged.stderr)")
        let second = scratch.sub("IMG_1 (compressed).jpg")
        #expect(try Photos.header(second, "width") == "400")
        #expect(try Photos.tags(second)["GPS:GPSLatitude"] != nil)
    }
}
