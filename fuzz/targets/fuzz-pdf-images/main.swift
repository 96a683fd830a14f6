import ArchiverCore
import FuzzSupport
import Glibc
import PDFEngine
import Platform
import SystemPackage

/// A PDF of any bytes through Compress PDF: qpdf's reading and repair, the image pass (placements, soft
/// masks, inline images, libvips decoding and resampling every image stream the fuzzer mutates), what the
/// copy drops, the writer and the copy's check. Whatever the input, the run ends in a result or an error,
/// never a crash (no image may take the process down), and the folder then holds the input and at most the
/// published copy: no hidden temporary, no copy under its final name after a failure. Byte 0 picks the
/// quality, the rest is the PDF.
runFuzzer { data, size in
    let bytes = fuzzInput(data, size)
    guard bytes.count > 1 else { return 0 }
    let input = Scratch.root.appending("in.pdf")
    writeFile(Array(bytes.dropFirst()), to: input.string)
    let qualities = PDFQuality.allCases
    let options = PDFCompressor.Options(quality: qualities[Int(bytes[0]) % qualities.count], output: Scratch.root.appending("out.pdf"))
    let never = PasswordAsker(attempts: 0) { name, _ throws(ArchiverError) in
        throw ArchiverError(.password, .verbatim("no password for \(name)"))
    }
    let outcome = Result { () throws(ArchiverError) in
        try PDFCompressor.run(input: input, options: options, control: JobControl(), passwords: never)
    }
    let names = ((try? FileSystem.entries(of: Scratch.root)) ?? []).map { String(decoding: $0, as: UTF8.self) }.sorted()
    switch outcome {
    case .success(let result) where result.output != nil:
        require(names == ["in.pdf", "out.pdf"], "a copy was made, and the folder holds \(names)")
    case .success:
        require(names == ["in.pdf"], "already optimal, yet the folder holds \(names)")
    case .failure(let error):
        require(names == ["in.pdf"], "failed (\(error.message.english)), yet the folder holds \(names)")
    }
    unlink(Scratch.root.appending("out.pdf").string)
    return 0
}

enum Scratch {
    static let root = FilePath(makeScratchFolder(holding: []))
}
