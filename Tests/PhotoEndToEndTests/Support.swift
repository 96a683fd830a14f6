import ArchiverTestSupport
import Foundation
import Testing

/// Runs the built `compress-photos-with-archiver` and builds test photos with other people's tools
/// (Pillow through Debian's Python, exiftool, heif-enc, vips), so that what is checked was never made by us.
enum Photos {
    static let executableName = "compress-photos-with-archiver"

    static let executable: String? = BuiltProducts.executable(executableName)

    /// The settings schema from this checkout, compiled once, held in memory (the built-in defaults).
    static var schemaFolder: String { BuiltProducts.schemaFolder }

    /// Runs the executable with no locale, no desktop session and no notification server, its Recent list
    /// and trash under `scratch`; its output also in `scratch` (stdout.log, stderr.log).
    static func run(_ arguments: [String], in scratch: ScratchDirectory, environment extra: [String: String] = [:])
        throws -> Outcome
    {
        try start(arguments, in: scratch, environment: extra, output: scratch.sub("stdout.log"), errors: scratch.sub("stderr.log"))
            .wait(timeout: 3600)
    }

    /// Starts the executable as `run` does, in the background; its output in `output` and `errors`, or
    /// files of their own.
    static func start(
        _ arguments: [String], in scratch: ScratchDirectory, environment extra: [String: String] = [:],
        output: String? = nil, errors: String? = nil
    ) throws -> Running {
        guard let executable else {
            Issue.record("Cannot find the built \(executableName): build it first (swift build) or set ARCHIVER_BIN_DIR.")
            throw CocoaError(.fileNoSuchFile)
        }
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("LC_") || key.hasPrefix("XDG_") { env[key] = nil }
        for key in ["LANG", "LANGUAGE"] { env[key] = nil }
        env["HOME"] = scratch.sub("home")
        // GIO's trash gives up when HOME does not exist.
        try FileManager.default.createDirectory(atPath: scratch.sub("home"), withIntermediateDirectories: true)
        env["XDG_DATA_HOME"] = scratch.sub("data")
        env["GSETTINGS_SCHEMA_DIR"] = schemaFolder
        env["GSETTINGS_BACKEND"] = "memory"
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/archiver-tests"
        env["DISPLAY"] = ""
        env["WAYLAND_DISPLAY"] = ""
        env.merge(extra) { $1 }
        return try Tool.start([executable] + arguments, in: scratch.path, environment: env, output: output, errors: errors)
    }

    // MARK: Making photos

    /// Runs Debian's Python (where Pillow is) on `script` with `arguments`.
    static func python(_ script: String, _ arguments: [String] = []) throws {
        let result = try Tool.run(["/usr/bin/python3", "-c", script] + arguments)
        guard result.status == 0 else { throw Failure("python failed: \(result.output)") }
    }

    /// A photo as a phone stores it: `width`×`height` stored pixels of noise and a gradient, a red block in
    /// the stored top-left corner (to see where rotation puts it), JPEG q92 with an sRGB ICC profile.
    static func makeJPEG(_ path: String, width: Int, height: Int, quality: Int = 92) throws {
        try python(
            """
            import sys
            from PIL import Image, ImageCms, ImageDraw
            w, h, q = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
            noise = Image.effect_noise((w, h), 40).convert('L')
            im = Image.merge('RGB', (noise, Image.linear_gradient('L').resize((w, h)), noise.transpose(Image.FLIP_LEFT_RIGHT)))
            ImageDraw.Draw(im).rectangle((0, 0, w // 4, h // 4), fill=(255, 0, 0))
            icc = ImageCms.ImageCmsProfile(ImageCms.createProfile('sRGB')).tobytes()
            im.save(sys.argv[1], 'JPEG', quality=q, icc_profile=icc)
            """, [path, String(width), String(height), String(quality)])
    }

    /// Camera EXIF as a phone writes it, by exiftool: make, model, lens, exposure, dates, GPS, an IFD1
    /// thumbnail, XMP, and `orientation`.
    static func writeCameraMetadata(_ path: String, orientation: Int, scratch: ScratchDirectory) throws {
        let thumbnail = scratch.sub("thumb-\(UUID().uuidString.prefix(6)).jpg")
        try python(
            "from PIL import Image; Image.new('RGB', (160, 120), (0, 0, 255)).save(__import__('sys').argv[1], 'JPEG')",
            [thumbnail])
        let result = try Tool.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original",
            "-IFD0:Make=Google", "-IFD0:Model=Pixel 5", "-IFD0:Orientation#=\(orientation)",
            "-IFD0:ModifyDate=2024:04:21 08:03:44", "-ExifIFD:DateTimeOriginal=2024:04:21 08:03:44",
            "-ExifIFD:CreateDate=2024:04:21 08:03:44", "-ExifIFD:OffsetTimeOriginal=+02:00",
            "-ExifIFD:SubSecTimeOriginal=274", "-ExifIFD:ExposureTime=1/1000", "-ExifIFD:FNumber=1.73",
            "-ExifIFD:ISO=120", "-ExifIFD:FocalLength=4.38", "-ExifIFD:LensModel=Pixel 5 back camera 4.38mm f/1.73",
            "-ExifIFD:ExifImageWidth=9999", "-ExifIFD:ExifImageHeight=9999",
            "-GPS:GPSLatitudeRef=N", "-GPS:GPSLatitude=52.5145", "-GPS:GPSLongitudeRef=E", "-GPS:GPSLongitude=13.3501",
            "-GPS:GPSAltitudeRef#=0", "-GPS:GPSAltitude=35.6",
            "-XMP-dc:Title=Tiergarten", "-XMP-xmp:Rating=4", "-XMP-tiff:Orientation#=\(orientation)",
            "-XMP-exif:GPSLatitude=52.5145 N", "-XMP-exif:GPSLongitude=13.3501 E", "-XMP-exif:ExifImageWidth=9999",
            "-IFD1:Compression#=6", "-IFD1:XResolution=72", "-IFD1:YResolution=72", "-IFD1:ResolutionUnit#=2",
            "-ThumbnailImage<=\(thumbnail)", path,
        ])
        guard result.status == 0 else { throw Failure("exiftool failed: \(result.output)") }
    }

    /// A PNG `width`×`height`: a photo-like left half, a fully transparent right half.
    static func makeTransparentPNG(_ path: String, width: Int, height: Int) throws {
        try python(
            """
            import sys
            from PIL import Image
            w, h = int(sys.argv[2]), int(sys.argv[3])
            noise = Image.effect_noise((w, h), 40).convert('L')
            im = Image.merge('RGB', (noise, noise, Image.linear_gradient('L').resize((w, h)))).convert('RGBA')
            alpha = Image.new('L', (w, h), 255)
            alpha.paste(0, (w // 2, 0, w, h))
            im.putalpha(alpha)
            im.save(sys.argv[1])
            """, [path, String(width), String(height)])
    }

    /// A folder `Many` of 40 photos of 3000×2000, for batches that run long enough to be stopped.
    static func manyPhotos(_ scratch: ScratchDirectory) throws -> String {
        let folder = scratch.sub("Many")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try makeJPEG(folder + "/p00.jpg", width: 3000, height: 2000)
        for index in 1..<40 {
            try FileManager.default.copyItem(atPath: folder + "/p00.jpg", toPath: folder + String(format: "/p%02d.jpg", index))
        }
        return folder
    }

    // MARK: Reading results

    /// Every tag exiftool reads, as `Group:Tag` → value (`-n`: numbers, not prose).
    static func tags(_ path: String) throws -> [String: String] {
        let result = try Tool.run(["/usr/bin/exiftool", "-s", "-G1", "-a", "-n", path], mergingErrors: false)
        var tags: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            // "[IFD0]          Make                            : Google"
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]"), let colon = line.range(of: ": ") else { continue }
            let group = line[line.index(after: line.startIndex)..<close]
            let name = line[line.index(after: close)..<colon.lowerBound].trimmingCharacters(in: .whitespaces)
            tags["\(group):\(name)"] = String(line[colon.upperBound...])
        }
        return tags
    }

    /// `vipsheader -f FIELD`.
    static func header(_ path: String, _ field: String) throws -> String {
        try Tool.run(["/usr/bin/vipsheader", "-f", field, path], mergingErrors: false).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pixel at (x, y) as its band values, by `vips getpoint`.
    static func pixel(_ path: String, x: Int, y: Int) throws -> [Double] {
        try Tool.run(["/usr/bin/vips", "getpoint", path, String(x), String(y)], mergingErrors: false).output
            .split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    static func modificationTime(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    static func setModificationTime(_ path: String, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }

    /// Every file under `folder`, relative, sorted; hidden temporaries included so that leftovers show.
    static func files(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + next, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(next)
            }
        }
        return files.sorted()
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
