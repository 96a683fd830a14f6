// The PDF image pass: find where each image XObject is drawn (content streams, nested forms, the CTM),
// resample the ones drawn above the target resolution with libvips, re-encode them as JPEG when that is
// smaller, drop what no viewer shows (thumbnails, other applications' private data, unused resources,
// streams stored twice), subset the fonts embedded whole (fonts.cpp), and write the file back with qpdf
// (object streams, recompressed Flate, encryption kept). Everything else in the file (text, vectors, links,
// outline, forms) is copied untouched.
#include "pdfshim.h"
#include "fonts.hh"

// qpdf 11: use std::shared_ptr, not its deprecated PointerHolder.
#define POINTERHOLDER_TRANSITION 4

#include <qpdf/Buffer.hh>
#include <qpdf/Pl_Count.hh>
#include <qpdf/Pl_Discard.hh>
#include <qpdf/Pl_Flate.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFExc.hh>
#include <qpdf/QPDFObjectHandle.hh>
#include <qpdf/QPDFPageDocumentHelper.hh>
#include <qpdf/QPDFPageObjectHelper.hh>
#include <qpdf/QPDFSystemError.hh>
#include <qpdf/QPDFWriter.hh>
#include <vips/vips.h>

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

void setMessage(pdfshim_result *result, std::string const &text) {
    std::snprintf(result->message, sizeof(result->message), "%s", text.c_str());
}

void initialise() {
    static std::once_flag once;
    std::call_once(once, [] {
        VIPS_INIT("archiver");
        // Every operation runs once on its own data: a cache would only hold memory.
        vips_cache_set_max(0);
        Pl_Flate::setCompressionLevel(9);
    });
}

struct Cancelled {};

/// An affine matrix in PDF's row-vector convention: [x y 1] × M.
struct Matrix {
    double a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;

    /// `this × then`: apply this first, then `then` (what `cm` does: CTM' = M × CTM).
    Matrix times(Matrix const &then) const {
        return {a * then.a + b * then.c, a * then.b + b * then.d,
                c * then.a + d * then.c, c * then.b + d * then.d,
                e * then.a + f * then.c + then.e, e * then.b + f * then.d + then.f};
    }

    static bool from(std::vector<QPDFObjectHandle> values, size_t first, Matrix &out) {
        if (values.size() < first + 6) return false;
        double v[6];
        for (size_t i = 0; i < 6; i++) {
            if (!values[first + i].getValueAsNumber(v[i])) return false;
        }
        out = {v[0], v[1], v[2], v[3], v[4], v[5]};
        return true;
    }
};

/// The largest size an image is drawn at, in inches, over all its placements.
struct Placement {
    double widthInches = 0;
    double heightInches = 0;
};

/// Follows one content stream's graphics state, recording image placements and descending into forms.
/// `resources` is a chain, innermost first: a name a form's own resources lack is looked up in those of
/// whatever draws it, as poppler and pdf.js do (PDF 1.1 forms have none of their own).
class PlacementFinder : public QPDFObjectHandle::ParserCallbacks {
  public:
    PlacementFinder(std::map<QPDFObjGen, Placement> &placements, std::map<QPDFObjGen, QPDFObjectHandle> &images,
                    std::vector<QPDFObjectHandle> resources, Matrix ctm, std::set<QPDFObjGen> &openForms, int depth)
        : placements(placements), images(images), resources(resources), ctm(ctm), openForms(openForms),
          depth(depth) {}

    void handleObject(QPDFObjectHandle object) override {
        if (!object.isOperator()) {
            operands.push_back(object);
            return;
        }
        std::string const op = object.getOperatorValue();
        if (op == "q") {
            saved.push_back(ctm);
        } else if (op == "Q") {
            if (!saved.empty()) {
                ctm = saved.back();
                saved.pop_back();
            }
        } else if (op == "cm") {
            Matrix m;
            if (Matrix::from(operands, operands.size() >= 6 ? operands.size() - 6 : 0, m)) ctm = m.times(ctm);
        } else if (op == "Do" && !operands.empty() && operands.back().isName()) {
            draw(operands.back().getName());
        } else if (op == "Tj" || op == "TJ" || op == "'" || op == "\"") {
            text++;
        }
        operands.clear();
    }

    void handleEOF() override {}

    /// Text-showing operators met so far, in this stream and the forms it draws: the copy's text is
    /// kept when it shows as many as the input.
    long long textOperators() const { return text; }

  private:
    void draw(std::string const &name) {
        QPDFObjectHandle xobject = QPDFObjectHandle::newNull();
        for (auto &level : resources) {
            QPDFObjectHandle xobjects = level.isDictionary() ? level.getKey("/XObject") : QPDFObjectHandle::newNull();
            if (xobjects.isDictionary() && xobjects.hasKey(name)) {
                xobject = xobjects.getKey(name);
                break;
            }
        }
        if (!xobject.isStream()) return;
        QPDFObjectHandle dict = xobject.getDict();
        QPDFObjectHandle subtype = dict.getKey("/Subtype");
        if (subtype.isNameAndEquals("/Image")) {
            // The unit square's sides, in points: the lengths of the CTM's two axis vectors.
            Placement &placement = placements[xobject.getObjGen()];
            images[xobject.getObjGen()] = xobject;
            placement.widthInches = std::max(placement.widthInches, std::hypot(ctm.a, ctm.b) / 72.0);
            placement.heightInches = std::max(placement.heightInches, std::hypot(ctm.c, ctm.d) / 72.0);
        } else if (subtype.isNameAndEquals("/Form")) {
            form(xobject);
        }
    }

  public:
    /// Follows a form XObject drawn with the current CTM (its own /Matrix applied first).
    void form(QPDFObjectHandle xobject) {
        QPDFObjectHandle dict = xobject.getDict();
        QPDFObjGen const id = xobject.getObjGen();
        // A form that draws itself would never end; 32 levels is far beyond real files.
        if (depth > 32 || openForms.count(id)) return;
        Matrix formMatrix;
        QPDFObjectHandle matrix = dict.getKey("/Matrix");
        if (matrix.isArray() && !Matrix::from(matrix.getArrayAsVector(), 0, formMatrix)) formMatrix = Matrix();
        std::vector<QPDFObjectHandle> formResources = resources;
        QPDFObjectHandle own = dict.getKey("/Resources");
        if (own.isDictionary()) formResources.insert(formResources.begin(), own);
        openForms.insert(id);
        PlacementFinder inner(placements, images, formResources, formMatrix.times(ctm), openForms, depth + 1);
        try {
            xobject.parseAsContents(&inner);
        } catch (...) {
            // A broken form leaves its images unplaced, hence untouched.
        }
        text += inner.text;
        openForms.erase(id);
    }

  private:
    std::map<QPDFObjGen, Placement> &placements;
    std::map<QPDFObjGen, QPDFObjectHandle> &images;
    std::vector<QPDFObjectHandle> resources;
    Matrix ctm;
    std::vector<Matrix> saved;
    std::vector<QPDFObjectHandle> operands;
    std::set<QPDFObjGen> &openForms;
    int depth;
    long long text = 0;
};

/// Four numbers of a PDF array ([llx lly urx ury]), or false.
bool rectangle(QPDFObjectHandle array, double (&box)[4]) {
    if (!array.isArray() || array.getArrayNItems() != 4) return false;
    for (int i = 0; i < 4; i++) {
        if (!array.getArrayItem(i).getValueAsNumber(box[i])) return false;
    }
    return true;
}

/// Records the images an annotation's appearance streams draw (a stamp, a signature). PDF fits the
/// appearance's transformed bounding box into the annotation's rectangle (ISO 32000 12.5.5).
void placeAppearances(QPDFObjectHandle annotation, QPDFObjectHandle resources,
                      std::map<QPDFObjGen, Placement> &placements,
                      std::map<QPDFObjGen, QPDFObjectHandle> &images, std::set<QPDFObjGen> &openForms) {
    double rect[4];
    QPDFObjectHandle appearances = annotation.isDictionary() ? annotation.getKey("/AP") : QPDFObjectHandle::newNull();
    if (!appearances.isDictionary() || !rectangle(annotation.getKey("/Rect"), rect)) return;
    std::vector<QPDFObjectHandle> forms;
    for (auto const &key : appearances.getKeys()) {
        QPDFObjectHandle entry = appearances.getKey(key);
        if (entry.isStream()) forms.push_back(entry);
        if (entry.isDictionary()) {
            for (auto const &state : entry.getKeys()) {
                if (entry.getKey(state).isStream()) forms.push_back(entry.getKey(state));
            }
        }
    }
    for (auto &form : forms) {
        double box[4];
        if (!rectangle(form.getDict().getKey("/BBox"), box)) continue;
        Matrix matrix;
        QPDFObjectHandle values = form.getDict().getKey("/Matrix");
        if (values.isArray() && !Matrix::from(values.getArrayAsVector(), 0, matrix)) matrix = Matrix();
        double xs[4], ys[4];
        double const corners[4][2] = {{box[0], box[1]}, {box[2], box[1]}, {box[0], box[3]}, {box[2], box[3]}};
        for (int i = 0; i < 4; i++) {
            xs[i] = corners[i][0] * matrix.a + corners[i][1] * matrix.c + matrix.e;
            ys[i] = corners[i][0] * matrix.b + corners[i][1] * matrix.d + matrix.f;
        }
        double const left = *std::min_element(xs, xs + 4), right = *std::max_element(xs, xs + 4);
        double const bottom = *std::min_element(ys, ys + 4), top = *std::max_element(ys, ys + 4);
        if (!(right - left > 0) || !(top - bottom > 0)) continue;
        double const sx = std::fabs(rect[2] - rect[0]) / (right - left);
        double const sy = std::fabs(rect[3] - rect[1]) / (top - bottom);
        Matrix const fit{sx, 0, 0, sy, std::min(rect[0], rect[2]) - left * sx,
                         std::min(rect[1], rect[3]) - bottom * sy};
        PlacementFinder finder(placements, images, {resources}, fit, openForms, 0);
        finder.form(form);
    }
}

/// An image drawn somewhere, with its largest placement.
struct PlacedImage {
    QPDFObjectHandle image;
    Placement placement;
    long long width = 0, height = 0;
    int bands = 0;
};

/// Whether an image's filters are ones whose samples the image pass decodes (see `eligibleImages`).
bool decodable(std::vector<std::string> const &names);
bool filters(QPDFObjectHandle dict, std::vector<std::string> &names);
int components(QPDFObjectHandle space);
bool isTrue(QPDFObjectHandle value);
bool integer(QPDFObjectHandle dict, char const *key, long long &value);

/// The images drawn on the pages (content streams, forms, annotation appearances) that the image pass
/// could resample: 8-bit Gray or RGB, decodable filters, not a mask themselves. Fills `pages`,
/// `images_placed` and `text_operators` of `result`.
std::vector<PlacedImage> eligibleImages(QPDF &pdf, pdfshim_result &result) {
    std::map<QPDFObjGen, Placement> placements;
    std::map<QPDFObjGen, QPDFObjectHandle> images;
    std::set<QPDFObjGen> openForms;
    std::vector<QPDFPageObjectHelper> pages = QPDFPageDocumentHelper(pdf).getAllPages();
    result.pages = static_cast<int32_t>(pages.size());
    for (auto &page : pages) {
        QPDFObjectHandle resources = page.getAttribute("/Resources", false);
        PlacementFinder finder(placements, images, {resources}, Matrix(), openForms, 0);
        try {
            page.parseContents(&finder);
        } catch (std::exception const &) {
            // What was found before the damage is still placed correctly; the rest stays untouched.
        }
        result.text_operators += finder.textOperators();
        QPDFObjectHandle annotations = page.getObjectHandle().getKey("/Annots");
        if (!annotations.isArray()) continue;
        for (auto &annotation : annotations.getArrayAsVector()) {
            try {
                placeAppearances(annotation, resources, placements, images, openForms);
            } catch (std::exception const &) {
                // As above: an unreadable appearance leaves its images untouched.
            }
        }
    }
    result.images_placed = static_cast<int32_t>(images.size());

    // Images that serve as another's soft mask are resampled with it, never on their own.
    std::set<QPDFObjGen> masks;
    for (auto &entry : images) {
        QPDFObjectHandle mask = entry.second.getDict().getKey("/SMask");
        if (mask.isStream()) masks.insert(mask.getObjGen());
    }
    std::vector<PlacedImage> eligible;
    for (auto const &entry : images) {
        QPDFObjectHandle image = entry.second;
        QPDFObjectHandle dict = image.getDict();
        long long width = 0, height = 0, depth = 0;
        if (masks.count(entry.first) || isTrue(dict.getKey("/ImageMask")) || !integer(dict, "/Width", width) ||
            !integer(dict, "/Height", height) || width <= 0 || height <= 0 ||
            !integer(dict, "/BitsPerComponent", depth) || depth != 8 || dict.getKey("/Mask").isArray()) {
            continue;
        }
        int const bands = components(dict.getKey("/ColorSpace"));
        std::vector<std::string> names;
        if (bands == 0 || !filters(dict, names) || !decodable(names)) continue;
        // /ColorTransform overrides what the JPEG says of its colours; libjpeg would not know.
        QPDFObjectHandle parameters = dict.getKey("/DecodeParms");
        if (parameters.isDictionary() && parameters.hasKey("/ColorTransform")) continue;
        eligible.push_back({image, placements[entry.first], width, height, bands});
    }
    return eligible;
}

/// A VipsImage reference released on scope exit.
struct Image {
    VipsImage *pointer = nullptr;
    Image() = default;
    explicit Image(VipsImage *pointer) : pointer(pointer) {}
    Image(Image const &) = delete;
    Image &operator=(Image const &) = delete;
    Image(Image &&other) noexcept : pointer(other.pointer) { other.pointer = nullptr; }
    Image &operator=(Image &&other) noexcept {
        std::swap(pointer, other.pointer);
        return *this;
    }
    ~Image() {
        if (pointer) g_object_unref(pointer);
    }
    explicit operator bool() const { return pointer != nullptr; }
};

/// Components of the colour spaces handled: DeviceGray, DeviceRGB, ICCBased with 1 or 3; else 0.
int components(QPDFObjectHandle space) {
    if (space.isNameAndEquals("/DeviceGray")) return 1;
    if (space.isNameAndEquals("/DeviceRGB")) return 3;
    if (space.isArray() && space.getArrayNItems() == 2 && space.getArrayItem(0).isNameAndEquals("/ICCBased")) {
        QPDFObjectHandle profile = space.getArrayItem(1);
        if (!profile.isStream()) return 0;
        QPDFObjectHandle n = profile.getDict().getKey("/N");
        if (n.isInteger() && (n.getIntValue() == 1 || n.getIntValue() == 3)) return static_cast<int>(n.getIntValue());
    }
    return 0;
}

/// The filters of a stream, as names; false when /Filter is something else.
bool filters(QPDFObjectHandle dict, std::vector<std::string> &names) {
    QPDFObjectHandle filter = dict.getKey("/Filter");
    if (filter.isNull()) return true;
    if (filter.isName()) {
        names.push_back(filter.getName());
        return true;
    }
    if (!filter.isArray()) return false;
    for (auto item : filter.getArrayAsVector()) {
        if (!item.isName()) return false;
        names.push_back(item.getName());
    }
    return true;
}

/// Whether the stream's filters are ones qpdf decodes to samples (DCT by libjpeg); not JBIG2, CCITT, JPX.
bool decodable(std::vector<std::string> const &names) {
    static const std::set<std::string> known = {"/FlateDecode", "/Fl", "/LZWDecode", "/LZW", "/ASCII85Decode",
                                                "/A85", "/ASCIIHexDecode", "/AHx", "/RunLengthDecode", "/RL",
                                                "/DCTDecode", "/DCT"};
    return std::all_of(names.begin(), names.end(), [](std::string const &n) { return known.count(n) != 0; });
}

bool isTrue(QPDFObjectHandle value) { return value.isBool() && value.getBoolValue(); }

bool integer(QPDFObjectHandle dict, char const *key, long long &value) {
    QPDFObjectHandle item = dict.getKey(key);
    if (!item.isInteger()) return false;
    value = item.getIntValue();
    return true;
}

/// ASCII85 text → bytes (PDF's ASCII85Decode); false when it is malformed. With `whole` false the text is
/// the start of a longer one: an unfinished last group is left out rather than taken as the end.
bool ascii85(unsigned char const *cursor, size_t size, std::string &bytes, bool whole = true) {
    bytes.clear();
    bytes.reserve(size * 4 / 5 + 4);
    unsigned char const *end = cursor + size;
    uint32_t group = 0;
    int count = 0;
    for (; cursor < end; cursor++) {
        unsigned char const c = *cursor;
        if (c == '~') break;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\0') continue;
        if (c == 'z' && count == 0) {
            bytes.append(4, '\0');
            continue;
        }
        if (c < '!' || c > 'u') return false;
        group = group * 85 + (c - '!');
        if (++count == 5) {
            for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>((group >> shift) & 0xff));
            group = 0;
            count = 0;
        }
    }
    if (!whole) return true;
    if (count == 1) return false;
    if (count > 1) {
        // A final group of n characters is padded with 'u' and gives n - 1 bytes.
        for (int i = count; i < 5; i++) group = group * 85 + 84;
        for (int i = 0; i < count - 1; i++) bytes.push_back(static_cast<char>((group >> (24 - 8 * i)) & 0xff));
    }
    return true;
}

/// A JPEG as a vips image of `bands` 8-bit bands, shrunk on load by `shrink`; empty when it is no JPEG.
/// Damaged data fails (when its pixels are computed) rather than decode to grey blocks: such an image is
/// left as it is, not re-encoded with its damage baked in.
Image loadJPEG(void const *data, size_t size, int bands, int shrink) {
    VipsImage *out = nullptr;
    if (size == 0 ||
        vips_jpegload_buffer(const_cast<void *>(data), size, &out, "shrink", shrink, "fail", TRUE, nullptr) != 0 ||
        !out) {
        vips_error_clear();
        return Image();
    }
    Image image(out);
    if (vips_image_get_bands(out) != bands || vips_image_get_format(out) != VIPS_FORMAT_UCHAR) return Image();
    return image;
}

/// An image's data as read by qpdf, for libvips to decode on another thread: a JPEG (kept as such, so
/// that libjpeg can shrink it while decoding, much faster than decoding it whole) or decoded samples.
struct Samples {
    std::string jpeg;
    std::shared_ptr<Buffer> raw;
    int bands = 0;
    long long width = 0, height = 0;

    /// Reads `stream`; false when its filters are not ones we decode or the samples do not add up.
    bool read(QPDFObjectHandle stream, int bandCount, long long w, long long h) {
        bands = bandCount;
        width = w;
        height = h;
        std::vector<std::string> names;
        if (!filters(stream.getDict(), names) || !decodable(names)) return false;
        auto const isDCT = [](std::string const &name) { return name == "/DCTDecode" || name == "/DCT"; };
        if (names.size() == 1 && isDCT(names[0])) {
            std::shared_ptr<Buffer> data = stream.getRawStreamData();
            jpeg.assign(reinterpret_cast<char const *>(data->getBuffer()), data->getSize());
            return true;
        }
        // ReportLab's default: the JPEG inside ASCII85. Unwrapped here, it still gets the fast shrink.
        if (names.size() == 2 && (names[0] == "/ASCII85Decode" || names[0] == "/A85") && isDCT(names[1])) {
            std::shared_ptr<Buffer> text = stream.getRawStreamData();
            if (ascii85(text->getBuffer(), text->getSize(), jpeg)) return true;
        }
        jpeg.clear();
        // Decoded whole in memory: a gigabyte of samples is more than a desktop job should take.
        if (width * height * bands > (1LL << 30)) return false;
        try {
            raw = stream.getStreamData(qpdf_dl_all);
        } catch (std::exception const &) {
            return false;
        }
        return static_cast<unsigned long long>(raw->getSize()) ==
               static_cast<unsigned long long>(width * height * bands);
    }

    /// The samples as a vips image, shrunk on load by `shrink` when they are a JPEG. It points into this
    /// object, which must outlive it.
    Image load(int shrink) const {
        if (!jpeg.empty()) return loadJPEG(jpeg.data(), jpeg.size(), bands, shrink);
        VipsImage *out = vips_image_new_from_memory(raw->getBuffer(), raw->getSize(), static_cast<int>(width),
                                                    static_cast<int>(height), bands, VIPS_FORMAT_UCHAR);
        if (!out) vips_error_clear();
        return Image(out);
    }
};

/// `image` resampled to exactly `width` × `height`: a box filter for the whole factors, then Lanczos for
/// what remains. vips_resize alone on a large image in memory is 5 times slower (libvips 8.14), for the
/// same look at these reductions.
Image resample(Image const &image, long long width, long long height) {
    // A picture that did not load (a DCT stream that is no JPEG) gives no picture, never a crash.
    if (!image || width <= 0 || height <= 0) return Image();
    VipsImage *source = image.pointer;
    Image boxed;
    int const boxAcross = static_cast<int>(vips_image_get_width(source) / width);
    int const boxDown = static_cast<int>(vips_image_get_height(source) / height);
    if (boxAcross >= 2 && boxDown >= 2) {
        VipsImage *out = nullptr;
        if (vips_shrink(source, &out, static_cast<double>(boxAcross), static_cast<double>(boxDown), nullptr) != 0 ||
            !out) {
            vips_error_clear();
            return Image();
        }
        boxed = Image(out);
        source = out;
    }
    double const across = static_cast<double>(width) / vips_image_get_width(source);
    double const down = static_cast<double>(height) / vips_image_get_height(source);
    VipsImage *out = nullptr;
    if (vips_resize(source, &out, across, "vscale", down, nullptr) != 0 || !out) {
        vips_error_clear();
        return Image();
    }
    Image result(out);
    if (vips_image_get_width(out) != width || vips_image_get_height(out) != height) return Image();
    return result;
}

/// The decoded pixels of a vips image, row after row.
bool pixels(Image const &image, std::string &bytes) {
    if (!image) return false;
    size_t size = 0;
    void *memory = vips_image_write_to_memory(image.pointer, &size);
    if (!memory) {
        vips_error_clear();
        return false;
    }
    bytes.assign(static_cast<char const *>(memory), size);
    g_free(memory);
    return true;
}

/// One image to resample: read by qpdf on the main thread, resampled and encoded by libvips on a worker,
/// written back by qpdf on the main thread (qpdf's objects are not thread-safe; libvips is).
struct Resample {
    QPDFObjectHandle image;
    long long newWidth = 0, newHeight = 0;
    int shrink = 1;
    size_t before = 0;
    Samples samples;
    /// The soft mask, when it is larger than the new size and decodable.
    QPDFObjectHandle mask;
    Samples maskSamples;
    bool hasMask = false;
    int quality = 50;

    /// Filled by `encode()`.
    std::string jpeg;
    std::string maskBytes;
    bool encoded = false;
    bool maskEncoded = false;

    /// The libvips half: no qpdf call here.
    void encode() {
        Image small = resample(samples.load(shrink), newWidth, newHeight);
        if (!small) return;
        void *buffer = nullptr;
        size_t size = 0;
        if (vips_jpegsave_buffer(small.pointer, &buffer, &size, "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
                                 nullptr) != 0 ||
            !buffer) {
            vips_error_clear();
            return;
        }
        jpeg.assign(static_cast<char const *>(buffer), size);
        g_free(buffer);
        // A JPEG that is not smaller than what is there is one more generation of loss for nothing.
        encoded = jpeg.size() < before;
        if (encoded && hasMask) {
            Image smallMask = resample(maskSamples.load(1), newWidth, newHeight);
            maskEncoded = smallMask && pixels(smallMask, maskBytes);
        }
    }
};

/// Runs `Resample::encode` on its own thread, never throwing.
void encodeSafely(Resample *job) {
    try {
        job->encode();
    } catch (...) {
        job->encoded = false;
    }
}

/// The image pass over one open document.
struct ImagePass {
    QPDF &pdf;
    pdfshim_options const &options;
    pdfshim_result &result;
    std::set<QPDFObjGen> resizedMasks;

    /// Reads what the worker needs. False when the image cannot be decoded.
    bool prepare(Resample &job, long long width, long long height, int bands) {
        // The largest power-of-two JPEG shrink that still leaves at least the new size.
        while (job.shrink < 8 && width / (job.shrink * 2) >= job.newWidth &&
               height / (job.shrink * 2) >= job.newHeight) {
            job.shrink *= 2;
        }
        job.quality = options.jpeg_quality;
        QPDFObjectHandle dict = job.image.getDict();
        QPDFObjectHandle length = dict.getKey("/Length");
        job.before = length.isInteger() && length.getIntValue() > 0 ? static_cast<size_t>(length.getIntValue())
                                                                    : job.image.getRawStreamData()->getSize();
        if (!job.samples.read(job.image, bands, width, height)) return false;
        // A mask left at its size is still correct: PDF maps a soft mask onto the image's unit square
        // whatever its dimensions. Resampled with the image, it costs far less.
        QPDFObjectHandle mask = dict.getKey("/SMask");
        long long maskWidth = 0, maskHeight = 0, depth = 0;
        if (mask.isStream() && !resizedMasks.count(mask.getObjGen()) && integer(mask.getDict(), "/Width", maskWidth) &&
            integer(mask.getDict(), "/Height", maskHeight) && integer(mask.getDict(), "/BitsPerComponent", depth) &&
            depth == 8 && maskWidth > job.newWidth && maskHeight > job.newHeight) {
            job.mask = mask;
            job.hasMask = job.maskSamples.read(mask, 1, maskWidth, maskHeight);
        }
        return true;
    }

    /// Writes a resampled image (and mask) back. Returns whether the image was replaced.
    bool apply(Resample &job) {
        if (!job.encoded) return false;
        QPDFObjectHandle dict = job.image.getDict();
        job.image.replaceStreamData(job.jpeg, QPDFObjectHandle::newName("/DCTDecode"), QPDFObjectHandle::newNull());
        dict.replaceKey("/Width", QPDFObjectHandle::newInteger(job.newWidth));
        dict.replaceKey("/Height", QPDFObjectHandle::newInteger(job.newHeight));
        dict.replaceKey("/BitsPerComponent", QPDFObjectHandle::newInteger(8));
        // Two images sharing one mask: the first to finish resizes it, the other leaves it.
        if (job.maskEncoded && !resizedMasks.count(job.mask.getObjGen())) {
            // Left unfiltered here: the writer compresses it with Flate, losslessly, as masks need.
            job.mask.replaceStreamData(job.maskBytes, QPDFObjectHandle::newNull(), QPDFObjectHandle::newNull());
            job.mask.getDict().replaceKey("/Width", QPDFObjectHandle::newInteger(job.newWidth));
            job.mask.getDict().replaceKey("/Height", QPDFObjectHandle::newInteger(job.newHeight));
            resizedMasks.insert(job.mask.getObjGen());
        }
        return true;
    }

    void report(int done, int total) {
        if (options.progress && options.progress(options.context, done, total) != 0) throw Cancelled();
    }

    struct Candidate {
        QPDFObjectHandle image;
        long long width, height, newWidth, newHeight;
        int bands;
    };

    void run() {
        std::vector<Candidate> candidates;
        for (auto &image : eligibleImages(pdf, result)) {
            int64_t newWidth = 0, newHeight = 0;
            if (!pdfshim_plan_resample(image.width, image.height, image.placement.widthInches,
                                       image.placement.heightInches, options.target_dpi, &newWidth, &newHeight)) {
                continue;
            }
            candidates.push_back({image.image, image.width, image.height, newWidth, newHeight, image.bands});
        }
        result.images_candidates = static_cast<int32_t>(candidates.size());
        int const total = static_cast<int>(candidates.size());
        int done = 0;
        report(done, total);

        // While libvips encodes one image on each core, qpdf reads the next: at most that many images'
        // samples are in memory at once.
        unsigned const workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
        std::deque<std::pair<std::unique_ptr<Resample>, std::thread>> running;
        auto finishOldest = [&] {
            auto [job, thread] = std::move(running.front());
            running.pop_front();
            thread.join();
            bool replaced = false;
            try {
                replaced = apply(*job);
            } catch (std::exception const &) {
                replaced = false;
            }
            if (replaced) {
                result.images_replaced++;
            } else {
                result.images_kept++;
            }
            report(++done, total);
        };
        try {
            for (auto &candidate : candidates) {
                auto job = std::make_unique<Resample>();
                job->image = candidate.image;
                job->newWidth = candidate.newWidth;
                job->newHeight = candidate.newHeight;
                bool ready = false;
                try {
                    ready = prepare(*job, candidate.width, candidate.height, candidate.bands);
                } catch (std::exception const &) {
                    ready = false;
                }
                if (!ready) {
                    result.images_kept++;
                    report(++done, total);
                    continue;
                }
                Resample *pointer = job.get();
                running.emplace_back(std::move(job), std::thread(encodeSafely, pointer));
                if (running.size() >= workers) finishOldest();
            }
            while (!running.empty()) finishOldest();
        } catch (...) {
            // Cancelled (or worse): the workers touch only their own data; wait for them, then go.
            for (auto &entry : running) entry.second.join();
            throw;
        }
    }
};

/// Maps a failure while writing to a status: a system error keeps its errno.
pdfshim_status writeFailure(pdfshim_result *result, std::exception const &error) {
    if (auto const *system = dynamic_cast<QPDFSystemError const *>(&error)) {
        result->error_number = system->getErrno();
    }
    setMessage(result, error.what());
    return PDFSHIM_WRITE_FAILED;
}

/// qpdf's writer makes a preserved V4 encryption AES whatever its crypt filters said (QPDFWriter::
/// copyEncryptionParameters assumes V4 means AES). An RC4 one (/CFM /V2) stays RC4: when the owner password
/// is known (it, or the empty one, opened the file), as it was, both passwords and the permissions kept;
/// else as revision 3, whose key, /O and /U are those of revision 4 with the metadata encrypted, so that
/// the copy opens with the same passwords. (With the metadata in the clear and the owner password unknown,
/// the copy is AES, as qpdf makes it: no RC4 dictionary could keep both passwords.)
void keepRC4(QPDF &pdf, QPDFWriter &writer, char const *password) {
    int R = 0, P = 0, V = 0;
    QPDF::encryption_method_e streams = QPDF::e_none, strings = QPDF::e_none, files = QPDF::e_none;
    if (!pdf.isEncrypted(R, P, V, streams, strings, files) || V != 4 || streams != QPDF::e_rc4 ||
        strings != QPDF::e_rc4) {
        return;
    }
    QPDFObjectHandle encrypt = pdf.getTrailer().getKey("/Encrypt");
    QPDFObjectHandle metadata = encrypt.getKey("/EncryptMetadata");
    bool const encryptMetadata = !metadata.isBool() || metadata.getBoolValue();
    if (pdf.ownerPasswordMatched()) {
        std::string const user = pdf.getTrimmedUserPassword();
        qpdf_r3_print_e const print = pdf.allowPrintHighRes()  ? qpdf_r3p_full
                                      : pdf.allowPrintLowRes() ? qpdf_r3p_low
                                                               : qpdf_r3p_none;
        writer.setR4EncryptionParametersInsecure(
            user.c_str(), password ? password : "", pdf.allowAccessibility(), pdf.allowExtractAll(),
            pdf.allowModifyAssembly(), pdf.allowModifyAnnotation(), pdf.allowModifyForm(), pdf.allowModifyOther(),
            print, encryptMetadata, false);
        return;
    }
    if (!encryptMetadata) return;
    // Read by the writer only: the document's own decryption was set up when it was opened.
    QPDFObjectHandle revision3 = encrypt.shallowCopy();
    for (char const *key : {"/CF", "/StmF", "/StrF", "/EFF", "/EncryptMetadata"}) revision3.removeKey(key);
    revision3.replaceKey("/V", QPDFObjectHandle::newInteger(2));
    revision3.replaceKey("/R", QPDFObjectHandle::newInteger(3));
    revision3.replaceKey("/Length", QPDFObjectHandle::newInteger(128));
    pdf.getTrailer().replaceKey("/Encrypt", revision3);
}

/// Writes `pdf` into the open file `descriptor`, from its start; `plain` without object streams. `password`
/// is the one that opened it (NULL: none).
void write(QPDF &pdf, int descriptor, bool plain = false, char const *password = nullptr) {
    if (ftruncate(descriptor, 0) != 0 || lseek(descriptor, 0, SEEK_SET) != 0) {
        throw QPDFSystemError("cannot rewind the output", errno);
    }
    int const copy = dup(descriptor);
    FILE *file = copy < 0 ? nullptr : fdopen(copy, "wb");
    if (!file) {
        int const code = errno;
        if (copy >= 0) close(copy);
        throw QPDFSystemError("cannot open the output", code);
    }
    // Closed here, not by qpdf: it ignores what fclose says, and a full disk often shows only there, when
    // the last buffer is flushed. The copy would be cut short and look complete.
    std::unique_ptr<FILE, int (*)(FILE *)> owner(file, fclose);
    {
        QPDFWriter writer(pdf, "output", file, false);
        writer.setObjectStreamMode(plain ? qpdf_o_disable : qpdf_o_generate);
        // The writer's defaults already compress streams after decoding the generalized filters; setting
        // the decode level explicitly would make it drop the input's encryption.
        writer.setRecompressFlate(true);
        writer.setPreserveEncryption(true);
        keepRC4(pdf, writer, password);
        writer.write();
    }
    bool const flushed = std::fflush(file) == 0 && !std::ferror(file);
    int const code = errno;
    if (std::fclose(owner.release()) != 0 || !flushed) {
        throw QPDFSystemError("cannot write the output", flushed ? errno : code);
    }
}

}  // namespace

extern "C" int32_t pdfshim_plan_resample(int64_t width, int64_t height, double width_inches, double height_inches,
                                         int32_t target_dpi, int64_t *new_width, int64_t *new_height) {
    if (width <= 0 || height <= 0 || target_dpi <= 0 || !(width_inches > 0) || !(height_inches > 0)) return 0;
    // The resolution on its most enlarged axis: both axes keep their proportion, so that one decides.
    double const dpi = std::min(width / width_inches, height / height_inches);
    if (!(dpi > target_dpi * 1.1)) return 0;
    double const scale = target_dpi / dpi;
    *new_width = std::max<int64_t>(1, std::llround(width * scale));
    *new_height = std::max<int64_t>(1, std::llround(height * scale));
    return 1;
}

namespace {
/// Opens `input` into `pdf`, or says why not.
pdfshim_status open(QPDF &pdf, char const *input, char const *password, pdfshim_result *result) {
    pdf.setSuppressWarnings(true);
    try {
        pdf.processFile(input, password);
    } catch (QPDFExc const &error) {
        setMessage(result, error.getMessageDetail());
        return error.getErrorCode() == qpdf_e_password ? PDFSHIM_NEEDS_PASSWORD : PDFSHIM_DAMAGED;
    } catch (std::exception const &error) {
        setMessage(result, error.what());
        return PDFSHIM_DAMAGED;
    }
    result->encrypted = pdf.isEncrypted() ? 1 : 0;
    try {
        QPDFObjectHandle form = pdf.getRoot().getKey("/AcroForm");
        QPDFObjectHandle flags = form.isDictionary() ? form.getKey("/SigFlags") : QPDFObjectHandle::newNull();
        result->signed_document = flags.isInteger() && (flags.getIntValue() & 1) ? 1 : 0;
    } catch (std::exception const &) {
        // A damaged catalog shows up again, and is reported, when the pages are read.
    }
    return PDFSHIM_OK;
}

/// Runs `body` on an open document, turning what it throws into a status: cancelled, damaged (qpdf could
/// not read an object it needed), or failed.
template <class Body> pdfshim_status guarded(pdfshim_result *result, Body body) {
    try {
        body();
    } catch (Cancelled const &) {
        return PDFSHIM_CANCELLED;
    } catch (QPDFExc const &error) {
        setMessage(result, error.getMessageDetail());
        return PDFSHIM_DAMAGED;
    } catch (std::exception const &error) {
        setMessage(result, error.what());
        return PDFSHIM_FAILED;
    }
    return PDFSHIM_OK;
}
}  // namespace

static pdfshim_status countDocumentText(char const *input, char const *password, pdfshim_result *result) {
    std::memset(result, 0, sizeof(*result));
    QPDF pdf;
    pdfshim_status const status = open(pdf, input, password, result);
    if (status != PDFSHIM_OK) return status;
    try {
        eligibleImages(pdf, *result);
    } catch (std::exception const &error) {
        setMessage(result, error.what());
        return PDFSHIM_DAMAGED;
    }
    return PDFSHIM_OK;
}

namespace {
/// Parses content streams for their errors only.
class Discard : public QPDFObjectHandle::ParserCallbacks {
  public:
    void handleObject(QPDFObjectHandle) override {}
    void handleEOF() override {}
};
}  // namespace

namespace {
/// Inline images larger than this (their data, in bytes) are made XObjects by the image pass.
constexpr size_t inlineImageBytes = 16 * 1024;

/// Makes the larger inline images image XObjects; their warnings are dropped (see pdfshim_compress).
void externalizeInlineImages(QPDF &pdf) {
    try {
        for (auto &page : QPDFPageDocumentHelper(pdf).getAllPages()) {
            try {
                page.externalizeInlineImages(inlineImageBytes);
            } catch (std::exception const &) {
            }
        }
    } catch (std::exception const &) {
        // No page tree (no /Root even after repair): said, as damage, when the pass that follows reads it.
        // Thrown out of this C function it ended the process (fuzz-pdf-images found it).
    }
    pdf.getWarnings();
}
}  // namespace

namespace {
/// A stream's identity for merging: its dictionary (without /Length, which the writer sets) and the CRC and
/// size of its data as stored. Equal keys are compared byte for byte before two streams become one.
std::string streamKey(QPDFObjectHandle stream, std::shared_ptr<Buffer> const &data) {
    QPDFObjectHandle dict = stream.getDict().shallowCopy();
    dict.removeKey("/Length");
    uLong const crc = crc32(0, data->getBuffer(), static_cast<uInt>(data->getSize()));
    return dict.unparse() + "#" + std::to_string(data->getSize()) + "#" + std::to_string(crc);
}

/// Points every reference to a merged stream in `object` (its direct parts) at the one kept.
void redirect(QPDFObjectHandle object, std::map<QPDFObjGen, QPDFObjectHandle> const &kept) {
    auto target = [&](QPDFObjectHandle item, QPDFObjectHandle &to) {
        if (!item.isIndirect()) return false;
        auto found = kept.find(item.getObjGen());
        if (found == kept.end()) return false;
        to = found->second;
        return true;
    };
    if (object.isArray()) {
        for (int i = 0, n = object.getArrayNItems(); i < n; i++) {
            QPDFObjectHandle item = object.getArrayItem(i), to;
            if (target(item, to)) {
                object.setArrayItem(i, to);
            } else if (!item.isIndirect()) {
                redirect(item, kept);
            }
        }
    } else if (object.isDictionary() || object.isStream()) {
        QPDFObjectHandle dict = object.isStream() ? object.getDict() : object;
        for (auto const &key : dict.getKeys()) {
            QPDFObjectHandle item = dict.getKey(key), to;
            if (target(item, to)) {
                dict.replaceKey(key, to);
            } else if (!item.isIndirect()) {
                redirect(item, kept);
            }
        }
    }
}

/// Streams stored twice (the same font embedded by every chapter of a joined document, a logo on every page
/// as an image of its own) become one. Rounds repeat while they merge something: two images become equal
/// once their equal soft masks are one.
void mergeEqualStreams(QPDF &pdf) {
    for (int round = 0; round < 3; round++) {
        std::map<std::string, QPDFObjectHandle> first;
        std::map<QPDFObjGen, QPDFObjectHandle> kept;
        std::vector<QPDFObjectHandle> objects = pdf.getAllObjects();
        for (auto &object : objects) {
            if (!object.isStream()) continue;
            QPDFObjectHandle stream = object;
            std::shared_ptr<Buffer> data;
            try {
                data = stream.getRawStreamData();
            } catch (std::exception const &) {
                continue;  // unreadable: left alone, as the writer will leave it
            }
            auto [at, added] = first.try_emplace(streamKey(stream, data), stream);
            if (added) continue;
            std::shared_ptr<Buffer> const other = at->second.getRawStreamData();
            if (other->getSize() == data->getSize() &&
                std::memcmp(other->getBuffer(), data->getBuffer(), data->getSize()) == 0) {
                kept.emplace(stream.getObjGen(), at->second);
            }
        }
        if (kept.empty()) return;
        for (auto &object : objects) redirect(object, kept);
        redirect(pdf.getTrailer(), kept);
    }
}

/// What a viewer never shows and the writer would keep: page thumbnails (viewers draw their own) and other
/// applications' private data (/PieceInfo: Illustrator's and Photoshop's editing state, often larger than
/// the drawing; Acrobat's "discard private data" drops it too); resources no content stream uses (qpdf
/// leaves a page whose content it cannot parse as it is); and streams stored twice.
void dropUnseen(QPDF &pdf) {
    pdf.getRoot().removeKey("/PieceInfo");
    for (auto &page : QPDFPageDocumentHelper(pdf).getAllPages()) {
        QPDFObjectHandle object = page.getObjectHandle();
        object.removeKey("/Thumb");
        object.removeKey("/PieceInfo");
    }
    for (auto &object : pdf.getAllObjects()) {
        if (object.isStream() && object.getDict().getKey("/Subtype").isNameAndEquals("/Form")) {
            object.getDict().removeKey("/PieceInfo");
        }
    }
    try {
        QPDFPageDocumentHelper(pdf).removeUnreferencedResources();
    } catch (std::exception const &) {
    }
    mergeEqualStreams(pdf);
    pdf.getWarnings();
}
}  // namespace

extern "C" int32_t pdfshim_encrypts_attachments_only(char const *input) {
    initialise();
    try {
        // The encryption dictionary itself is never encrypted: any key opens the file far enough to read it.
        QPDF pdf;
        pdf.setSuppressWarnings(true);
        pdf.setPasswordIsHexKey(true);
        pdf.processFile(input, "00");
        QPDFObjectHandle encrypt = pdf.getTrailer().getKey("/Encrypt");
        if (!encrypt.isDictionary() || !encrypt.getKey("/V").isInteger() || encrypt.getKey("/V").getIntValue() < 4) {
            return 0;
        }
        // Absent, /StmF and /StrF mean /Identity (no encryption); /EFF means /StmF's filter.
        auto identity = [&](char const *key) {
            QPDFObjectHandle filter = encrypt.getKey(key);
            return filter.isNull() || filter.isNameAndEquals("/Identity");
        };
        QPDFObjectHandle files = encrypt.getKey("/EFF");
        return identity("/StmF") && identity("/StrF") && files.isName() && !files.isNameAndEquals("/Identity") ? 1 : 0;
    } catch (...) {
        return 0;  // whatever is wrong is found, and said, when the file is opened for the work
    }
}

static pdfshim_status checkDocument(char const *input, char const *password, pdfshim_result *result) {
    std::memset(result, 0, sizeof(*result));
    initialise();
    QPDF pdf;
    if (pdfshim_status const status = open(pdf, input, password, result); status != PDFSHIM_OK) return status;
    int32_t problems = 0;
    std::string first;
    auto complain = [&](std::string const &what) {
        if (problems++ == 0) first = what;
    };
    // What qpdf --check does (QPDFJob::doCheck): a write into nothing decoding every stream it can, without
    // compressing them again, then every page's content parsed.
    try {
        Pl_Discard discard;
        QPDFWriter writer(pdf);
        writer.setOutputPipeline(&discard);
        writer.setDecodeLevel(qpdf_dl_all);
        writer.setCompressStreams(false);
        writer.write();
        Discard contents;
        for (auto &page : QPDFPageDocumentHelper(pdf).getAllPages()) {
            try {
                page.parseContents(&contents);
            } catch (QPDFExc const &error) {
                complain(error.getMessageDetail());
            }
        }
    } catch (QPDFExc const &error) {
        complain(error.getMessageDetail());
    } catch (std::exception const &error) {
        complain(error.what());
    }
    // Their details only: the file named in them is a hidden temporary, which means nothing to anyone.
    for (auto const &warning : pdf.getWarnings()) complain(warning.getMessageDetail());
    try {
        eligibleImages(pdf, *result);
    } catch (std::exception const &error) {
        complain(error.what());
    }
    result->problems = problems;
    setMessage(result, first);
    return PDFSHIM_OK;
}

static pdfshim_status compressDocument(char const *input, int output, pdfshim_options const *options,
                                       pdfshim_result *result) {
    std::memset(result, 0, sizeof(*result));
    initialise();
    QPDF pdf;
    if (pdfshim_status const status = open(pdf, input, options->password, result); status != PDFSHIM_OK) return status;
    // Inline images (BI … ID … EI in a content stream) of some size become image XObjects drawn in their
    // place, as qpdf --externalize-inline-images does, so that the image pass can resample them too; the
    // small ones (icons, rules) stay inline. A page whose content cannot be parsed is left as it is.
    // Its warnings are not the file's faults (qpdf 11.3 cannot "resolve" /DeviceRGB that /RGB abbreviates).
    bool const repairedOnOpen = !pdf.getWarnings().empty();
    externalizeInlineImages(pdf);
    pdfshim_status const passed = guarded(result, [&] {
        dropUnseen(pdf);
        if (!options->keep_fonts) result->fonts_subset = subsetFonts(pdf);
        ImagePass pass{pdf, *options, *result, {}};
        pass.run();
    });
    if (passed != PDFSHIM_OK) return passed;
    try {
        write(pdf, output, options->plain_structure != 0, options->password);
    } catch (QPDFExc const &error) {
        // Reading an object the writer needs can still reveal damage recovery could not mend.
        setMessage(result, error.getMessageDetail());
        return PDFSHIM_DAMAGED;
    } catch (std::exception const &error) {
        return writeFailure(result, error);
    }
    result->repaired = repairedOnOpen || pdf.anyWarnings() ? 1 : 0;
    return PDFSHIM_OK;
}

static pdfshim_status pagesFromJPEGs(char const *const *jpegs, int32_t count, int32_t dpi, int output,
                                     pdfshim_result *result) {
    std::memset(result, 0, sizeof(*result));
    initialise();
    try {
        QPDF pdf;
        pdf.emptyPDF();
        QPDFPageDocumentHelper document(pdf);
        for (int32_t i = 0; i < count; i++) {
            VipsImage *header = vips_image_new_from_file(jpegs[i], nullptr);
            if (!header) {
                vips_error_clear();
                setMessage(result, std::string("cannot read the rendered page ") + jpegs[i]);
                return PDFSHIM_FAILED;
            }
            Image guard(header);
            int const width = vips_image_get_width(header), height = vips_image_get_height(header);
            int const bands = vips_image_get_bands(header);
            std::string bytes;
            {
                FILE *file = std::fopen(jpegs[i], "rb");
                if (!file) {
                    setMessage(result, std::string("cannot read the rendered page ") + jpegs[i]);
                    return PDFSHIM_FAILED;
                }
                char chunk[65536];
                size_t n;
                while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) bytes.append(chunk, n);
                std::fclose(file);
            }
            QPDFObjectHandle image = pdf.newStream(bytes);
            QPDFObjectHandle imageDict = image.getDict();
            imageDict.replaceKey("/Type", QPDFObjectHandle::newName("/XObject"));
            imageDict.replaceKey("/Subtype", QPDFObjectHandle::newName("/Image"));
            imageDict.replaceKey("/Width", QPDFObjectHandle::newInteger(width));
            imageDict.replaceKey("/Height", QPDFObjectHandle::newInteger(height));
            imageDict.replaceKey("/BitsPerComponent", QPDFObjectHandle::newInteger(8));
            imageDict.replaceKey("/ColorSpace", QPDFObjectHandle::newName(bands == 1 ? "/DeviceGray" : "/DeviceRGB"));
            imageDict.replaceKey("/Filter", QPDFObjectHandle::newName("/DCTDecode"));
            double const w = width * 72.0 / dpi, h = height * 72.0 / dpi;
            char content[256];
            std::snprintf(content, sizeof(content), "q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q\n", w, h);
            QPDFObjectHandle page = pdf.makeIndirectObject(QPDFObjectHandle::parse(
                "<< /Type /Page /Resources << /XObject << >> >> /Contents null >>"));
            char box[128];
            std::snprintf(box, sizeof(box), "[0 0 %.4f %.4f]", w, h);
            page.replaceKey("/MediaBox", QPDFObjectHandle::parse(box));
            page.getKey("/Resources").getKey("/XObject").replaceKey("/Im0", image);
            page.replaceKey("/Contents", pdf.newStream(content));
            document.addPage(QPDFPageObjectHelper(page), false);
        }
        write(pdf, output);
    } catch (QPDFExc const &error) {
        setMessage(result, error.getMessageDetail());
        return PDFSHIM_FAILED;
    } catch (std::exception const &error) {
        return writeFailure(result, error);
    }
    result->pages = count;
    return PDFSHIM_OK;
}

// The estimate: what the image pass would make of each image at each level, measured on samples, and
// what the rest of the file takes once rewritten.
namespace {

bool isName(std::string const &name, char const *full, char const *abbreviation) {
    return name == full || name == abbreviation;
}

/// The bytes a stream would take if the writer kept it: DCT (and anything else it cannot decode at the
/// generalized level) is copied as it is; Flate and the like are recompressed, which drops an ASCII85 or
/// hex layer and leaves about the Flate payload.
int64_t keptBytes(QPDFObjectHandle stream) {
    QPDFObjectHandle length = stream.getDict().getKey("/Length");
    int64_t const stored = length.isInteger() && length.getIntValue() > 0
                               ? length.getIntValue()
                               : static_cast<int64_t>(stream.getRawStreamData()->getSize());
    std::vector<std::string> names;
    if (!filters(stream.getDict(), names)) return stored;
    double factor = 1;
    for (auto const &name : names) {
        if (isName(name, "/ASCII85Decode", "/A85")) {
            factor *= 0.8;
        } else if (isName(name, "/ASCIIHexDecode", "/AHx")) {
            factor *= 0.5;
        } else if (!isName(name, "/FlateDecode", "/Fl") && !isName(name, "/LZWDecode", "/LZW") &&
                   !isName(name, "/RunLengthDecode", "/RL")) {
            return stored;  // DCT: the encoding layers stay with it
        }
    }
    return static_cast<int64_t>(std::llround(stored * factor));
}

/// JPEG bytes per pixel of `image` at `quality`, measured on every fourth 16-row band (whole MCU rows, so
/// each is encoded as it would be in the whole picture), or on all of it when small. Bands spread evenly
/// over the height: a few wide ones could all land in a scanned page's margins.
double bytesPerPixel(Image const &image, int quality, int64_t &headerBytes) {
    if (!image) return 0;
    int const width = vips_image_get_width(image.pointer), height = vips_image_get_height(image.pointer);
    Image sample;
    long long rows = height;
    if (static_cast<long long>(width) * height > 300000 && height >= 128) {
        int constexpr band = 16, step = 64;
        std::vector<VipsImage *> bands;
        bool failed = false;
        for (int top = (step - band) / 2 / band * band; top + band <= height; top += step) {
            VipsImage *out = nullptr;
            if (vips_extract_area(image.pointer, &out, 0, top, width, band, nullptr) != 0) {
                failed = true;
                break;
            }
            bands.push_back(out);
        }
        VipsImage *joined = nullptr;
        bool const joinedOK = !failed && !bands.empty() &&
                              vips_arrayjoin(bands.data(), &joined, static_cast<int>(bands.size()), "across", 1,
                                             nullptr) == 0;
        for (auto *item : bands) g_object_unref(item);
        if (!joinedOK) {
            vips_error_clear();
            return 0;
        }
        sample = Image(joined);
        rows = static_cast<long long>(bands.size()) * band;
    }
    VipsImage *source = sample ? sample.pointer : image.pointer;
    void *buffer = nullptr;
    size_t size = 0;
    if (vips_jpegsave_buffer(source, &buffer, &size, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, nullptr) !=
            0 ||
        !buffer) {
        vips_error_clear();
        return 0;
    }
    // The tables before the entropy-coded data come once per picture, whatever its size: counted apart,
    // or a small sample would look far denser than the picture is.
    size_t header = 0;
    unsigned char const *bytes = static_cast<unsigned char const *>(buffer);
    for (size_t at = 2; at + 4 <= size;) {
        if (bytes[at] != 0xff) break;
        size_t const length = (static_cast<size_t>(bytes[at + 2]) << 8) | bytes[at + 3];
        if (bytes[at + 1] == 0xda) {
            header = at + 2 + length;
            break;
        }
        at += 2 + length;
    }
    g_free(buffer);
    headerBytes = static_cast<int64_t>(header + 2);  // and the end marker
    return static_cast<double>(size - std::min(size, header + 2)) / (static_cast<double>(width) * rows);
}

/// Inflates the first `wanted` bytes of a zlib stream from `size` bytes of it; `consumed` is how many that
/// took. 1: done (or the stream ended), 0: the bytes given ran out first, -1: not a zlib stream.
int inflatePrefix(char const *compressed, size_t size, size_t wanted, std::string &out, size_t &consumed) {
    z_stream stream{};
    if (inflateInit(&stream) != Z_OK) return -1;
    out.resize(wanted);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed));
    stream.avail_in = static_cast<uInt>(size);
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = static_cast<uInt>(wanted);
    int code = Z_OK;
    while (stream.avail_out > 0 && code == Z_OK) code = inflate(&stream, Z_NO_FLUSH);
    consumed = size - stream.avail_in;
    size_t const produced = wanted - stream.avail_out;
    inflateEnd(&stream);
    out.resize(produced);
    if (code == Z_STREAM_END || stream.avail_out == 0) return 1;
    return code == Z_BUF_ERROR || code == Z_OK ? 0 : -1;
}

/// One sampled image, measured on a worker thread (no qpdf call there).
struct Trial {
    Samples samples;
    /// A Flate stream (its ASCII85 layer already dropped or not): only a prefix of its rows is inflated.
    std::string flate;
    bool ascii85Layer = false;
    /// The rows inflated from `flate`.
    std::string rows;
    /// A JPEG inside ASCII85 (ReportLab's default), unwrapped into `samples` by the first trial.
    std::string wrappedJPEG;
    std::vector<pdfshim_level> levels;
    pdfshim_image_trial *out = nullptr;
    /// The decoded size a JPEG is shrunk on load to stay under, and where the results go.
    long long pixelCap = 9'000'000;
    pdfshim_level_trial *results = nullptr;
    /// Whether this trial also gets the quick one (the sampled JPEG images do).
    bool alsoQuick = false;

    /// The picture the levels are resampled from (the whole image decoded small, or the first rows of a
    /// Flate one), and `correction`, by which its bytes per pixel are multiplied to stand for the whole image
    /// (1, or for the first rows: their share of the rows over their share of the compressed bytes).
    Image source(double &correction) {
        long long const width = out->width, height = out->height;
        correction = 1;
        if (!flate.empty()) {
            long long const rowBytes = width * samples.bands;
            // About 6 MB of samples, and at least an eighth of the rows: enough to judge, far from all.
            long long rows = std::max<long long>(std::min<long long>(height, 6'000'000 / rowBytes), (height + 7) / 8);
            rows = std::max<long long>(1, std::min(rows, height));
            // Only the start of the stream is read (and unwrapped from ASCII85): twice the rows' share of it,
            // more if that was not enough.
            std::string decoded;
            double share = std::min(1.0, 2.0 * rows / height + 0.01);
            size_t consumed = 0, taken = 0;
            double total = 0;
            while (true) {
                taken = share >= 1 ? flate.size() : static_cast<size_t>(flate.size() * share);
                bool const whole = taken == flate.size();
                char const *data = flate.data();
                size_t size = taken;
                if (ascii85Layer) {
                    if (!ascii85(reinterpret_cast<unsigned char const *>(flate.data()), taken, decoded, whole)) {
                        return Image();
                    }
                    data = decoded.data();
                    size = decoded.size();
                }
                // The whole stream's decoded size, in proportion when only its start was decoded.
                total = static_cast<double>(size) * flate.size() / std::max<size_t>(1, taken);
                int const done = inflatePrefix(data, size, static_cast<size_t>(rows * rowBytes), this->rows, consumed);
                if (done < 0) return Image();
                if (done > 0 || whole) break;
                share = std::min(1.0, share * 2);
            }
            rows = static_cast<long long>(this->rows.size()) / rowBytes;
            if (rows <= 0 || consumed == 0 || total <= 0) return Image();
            // The rows inflated are that share of the compressed data: their JPEG bytes are assumed to be
            // the same share of the whole picture's, as busy rows cost more in both.
            correction = (static_cast<double>(rows) / height) / (static_cast<double>(consumed) / total);
            correction = std::max(0.25, std::min(4.0, correction));
            // Points into `this->rows`, which outlives every picture made from it.
            VipsImage *image = vips_image_new_from_memory(this->rows.data(), rows * rowBytes,
                                                               static_cast<int>(width), static_cast<int>(rows),
                                                               samples.bands, VIPS_FORMAT_UCHAR);
            if (!image) vips_error_clear();
            return Image(image);
        }
        if (!wrappedJPEG.empty()) {
            bool const unwrapped =
                ascii85(reinterpret_cast<unsigned char const *>(wrappedJPEG.data()), wrappedJPEG.size(), samples.jpeg);
            wrappedJPEG.clear();
            if (!unwrapped) return Image();
        }
        // Decoded once, small: the largest JPEG shrink that still covers the largest new size, but no more
        // than 9 megapixels (a 300-dpi A4 scan whole; levels above that are extrapolated from it).
        int64_t largest = 0;
        for (size_t i = 0; i < levels.size(); i++) largest = std::max(largest, out->levels[i].new_width);
        int shrink = 1;
        while (shrink < 8 && width / (shrink * 2) >= largest) shrink *= 2;
        while (shrink < 8 && (width / shrink) * (height / shrink) > pixelCap) shrink *= 2;
        Image loaded = samples.load(samples.jpeg.empty() ? 1 : shrink);
        if (!loaded) return Image();
        VipsImage *copy = vips_image_copy_memory(loaded.pointer);
        if (!copy) vips_error_clear();
        return Image(copy);
    }

    /// Measures into `results`; returns whether it could.
    bool measure() {
        double correction = 1;
        Image picture = source(correction);
        if (!picture) return false;
        int const width = vips_image_get_width(picture.pointer), height = vips_image_get_height(picture.pointer);
        measuredWidth = width;
        // Half the picture, for the levels beyond it: made once, used by each.
        Image half;
        for (size_t i = 0; i < levels.size() && !half; i++) {
            if (out->levels[i].new_width <= 0 || out->levels[i].new_width <= width || skipped(i)) continue;
            Image lazy = resample(picture, std::max(1, width / 2), std::max(1, height / 2));
            VipsImage *copy = lazy ? vips_image_copy_memory(lazy.pointer) : nullptr;
            if (!copy) {
                vips_error_clear();
                return false;
            }
            half = Image(copy);
        }
        for (size_t i = 0; i < levels.size(); i++) {
            pdfshim_level_trial &level = results[i];
            level.new_width = out->levels[i].new_width;
            level.new_height = out->levels[i].new_height;
            if (level.new_width <= 0 || skipped(i)) continue;
            int const quality = levels[i].jpeg_quality;
            if (level.new_width <= width) {
                double const factor = static_cast<double>(level.new_width) / width;
                long long const rows = std::max<long long>(1, std::llround(height * factor));
                level.sample_width[0] = level.new_width;
                level.bytes_per_pixel[0] =
                    bytesPerPixel(resample(picture, level.new_width, rows), quality, level.header_bytes) * correction;
            } else {
                level.sample_width[0] = width;
                level.bytes_per_pixel[0] = bytesPerPixel(picture, quality, level.header_bytes) * correction;
                if (!half) continue;
                level.sample_width[1] = vips_image_get_width(half.pointer);
                int64_t unused = 0;
                level.bytes_per_pixel[1] = bytesPerPixel(half, quality, unused) * correction;
            }
        }
        return true;
    }

    /// The width of the picture the last `measure()` worked from.
    int measuredWidth = 0;
    /// Levels the thorough trial leaves to the quick one, which resampled them from a picture as large.
    long long quickWidth = 0;
    bool skipped(size_t level) const {
        return results == out->levels && out->levels[level].new_width <= quickWidth;
    }

    void run() {
        if (results == out->quick) {
            out->quick_measured = measure() ? 1 : 0;
            return;
        }
        if (alsoQuick) {
            // The quick trial first: the levels it could resample to without extrapolating are measured as
            // the image pass would (a JPEG shrunk on load to no less than the new size), and the thorough
            // one, from a larger picture, would only spend time on them.
            long long const cap = pixelCap;
            results = out->quick;
            pixelCap = quickPixels;
            out->quick_measured = measure() ? 1 : 0;
            if (out->quick_measured) quickWidth = measuredWidth;
            results = out->levels;
            pixelCap = cap;
        }
        bool remaining = false;
        for (size_t i = 0; i < levels.size(); i++) remaining |= out->levels[i].new_width > 0 && !skipped(i);
        out->measured = remaining ? (measure() ? 1 : 0) : out->quick_measured;
        for (size_t i = 0; i < levels.size() && out->measured; i++) {
            if (skipped(i)) out->levels[i] = out->quick[i];
        }
    }

    static constexpr long long quickPixels = 800'000;
};

/// JPEG images given the quick trial at most; the others borrow from them.
constexpr int quickTrials = 24;

void runTrial(Trial *trial) {
    try {
        trial->run();
    } catch (...) {
        trial->out->measured = 0;
        trial->out->quick_measured = 0;
    }
}

/// Writes `pdf` as the image pass would, into nothing, and returns its size.
int64_t writtenSize(QPDF &pdf) {
    Pl_Discard discard;
    Pl_Count count("count", &discard);
    QPDFWriter writer(pdf);
    writer.setOutputPipeline(&count);
    writer.setObjectStreamMode(qpdf_o_generate);
    writer.setRecompressFlate(true);
    writer.setPreserveEncryption(true);
    writer.write();
    return count.getCount();
}

}  // namespace

static pdfshim_status estimateDocument(char const *input, char const *password, pdfshim_level const *levels,
                                       int32_t level_count, int32_t max_measured, pdfshim_trial_callback trial,
                                       void *context, int64_t *rest_bytes, pdfshim_result *result) {
    std::memset(result, 0, sizeof(*result));
    *rest_bytes = 0;
    if (level_count < 1 || level_count > PDFSHIM_MAX_LEVELS) {
        setMessage(result, "bad level count");
        return PDFSHIM_FAILED;
    }
    initialise();
    QPDF pdf;
    if (pdfshim_status const status = open(pdf, input, password, result); status != PDFSHIM_OK) return status;
    // As the image pass does, so that inline images are measured too, and what the copy drops is not counted.
    externalizeInlineImages(pdf);
    pdfshim_status const tidied = guarded(result, [&] {
        dropUnseen(pdf);
        subsetFonts(pdf);
    });
    if (tidied != PDFSHIM_OK) return tidied;
    std::vector<pdfshim_level> const ladder(levels, levels + level_count);
    // The trials run on threads of their own, one per core: libvips' own threads would only compete.
    vips_concurrency_set(1);
    return guarded(result, [&] {
        // Every image some level would resample, with its new size at each.
        std::vector<pdfshim_image_trial> reports;
        std::vector<QPDFObjectHandle> streams;
        for (auto &image : eligibleImages(pdf, *result)) {
            pdfshim_image_trial report;
            std::memset(&report, 0, sizeof(report));
            bool any = false;
            for (int32_t i = 0; i < level_count; i++) {
                any |= pdfshim_plan_resample(image.width, image.height, image.placement.widthInches,
                                             image.placement.heightInches, levels[i].target_dpi,
                                             &report.levels[i].new_width, &report.levels[i].new_height) != 0;
            }
            if (!any) continue;
            report.width = image.width;
            report.height = image.height;
            QPDFObjectHandle dict = image.image.getDict();
            QPDFObjectHandle length = dict.getKey("/Length");
            report.stored_bytes = length.isInteger() && length.getIntValue() > 0
                                      ? length.getIntValue()
                                      : static_cast<int64_t>(image.image.getRawStreamData()->getSize());
            report.kept_bytes = keptBytes(image.image);
            std::vector<std::string> names;
            filters(dict, names);
            report.jpeg = !names.empty() && isName(names.back(), "/DCTDecode", "/DCT") ? 1 : 0;
            QPDFObjectHandle mask = dict.getKey("/SMask");
            long long maskWidth = 0, maskHeight = 0;
            if (mask.isStream() && integer(mask.getDict(), "/Width", maskWidth) &&
                integer(mask.getDict(), "/Height", maskHeight)) {
                report.mask_width = maskWidth;
                report.mask_height = maskHeight;
                report.mask_kept_bytes = keptBytes(mask);
            }
            reports.push_back(report);
            streams.push_back(image.image);
        }
        result->images_candidates = static_cast<int32_t>(reports.size());

        // The sample: JPEG images (which all get the quick trial besides) and the others apart, each spread
        // over the images ordered by how densely they are stored, so that the plainest and the busiest
        // are in it.
        auto density = [&](size_t i) {
            return static_cast<double>(reports[i].stored_bytes) / (reports[i].width * reports[i].height);
        };
        // `count` of `order`, evenly spread.
        auto spread = [](std::vector<size_t> const &order, size_t count, std::vector<bool> &into) {
            count = std::min(order.size(), count);
            for (size_t k = 0; k < count; k++) into[order[(2 * k + 1) * order.size() / (2 * count)]] = true;
        };
        std::vector<bool> sampled(reports.size(), false), quick(reports.size(), false);
        for (int32_t jpeg = 0; jpeg <= 1; jpeg++) {
            std::vector<size_t> order;
            for (size_t i = 0; i < reports.size(); i++) {
                if (reports[i].jpeg == jpeg) order.push_back(i);
            }
            std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return density(a) < density(b); });
            spread(order, static_cast<size_t>(std::max(1, max_measured)), sampled);
            // The quick trial costs about a JPEG decoding: a book of scans gets it on a spread of its pages,
            // the rest borrowing from them.
            if (jpeg) spread(order, static_cast<size_t>(quickTrials), quick);
        }
        std::vector<std::unique_ptr<Trial>> trials;
        for (size_t index = 0; index < reports.size(); index++) {
            auto job = std::make_unique<Trial>();
            job->levels = ladder;
            job->out = &reports[index];
            QPDFObjectHandle stream = streams[index];
            QPDFObjectHandle dict = stream.getDict();
            std::vector<std::string> names;
            filters(dict, names);
            bool const jpeg = reports[index].jpeg != 0;
            // JPEG images get the quick trial (up to `quickTrials` of them); anything else is tried only
            // when sampled.
            if (!sampled[index] && !(jpeg && quick[index])) continue;
            job->results = sampled[index] ? reports[index].levels : reports[index].quick;
            job->alsoQuick = sampled[index] && jpeg;
            if (!sampled[index]) job->pixelCap = Trial::quickPixels;
            job->samples.bands = components(dict.getKey("/ColorSpace"));
            job->samples.width = reports[index].width;
            job->samples.height = reports[index].height;
            QPDFObjectHandle parameters = dict.getKey("/DecodeParms");
            bool const plain = parameters.isNull() || (parameters.isArray() && [&] {
                for (auto &item : parameters.getArrayAsVector()) {
                    if (!item.isNull()) return false;
                }
                return true;
            }());
            bool const flate = plain && !names.empty() && isName(names.back(), "/FlateDecode", "/Fl") &&
                               (names.size() == 1 ||
                                (names.size() == 2 && isName(names[0], "/ASCII85Decode", "/A85")));
            bool const wrappedJPEG = jpeg && names.size() == 2 && isName(names[0], "/ASCII85Decode", "/A85");
            try {
                if (flate || wrappedJPEG) {
                    // Read here (qpdf is not thread-safe), unwrapped on the worker.
                    std::shared_ptr<Buffer> data = stream.getRawStreamData();
                    (flate ? job->flate : job->wrappedJPEG)
                        .assign(reinterpret_cast<char const *>(data->getBuffer()), data->getSize());
                    job->ascii85Layer = flate && names.size() == 2;
                } else if (!job->samples.read(stream, job->samples.bands, reports[index].width,
                                              reports[index].height)) {
                    continue;
                }
            } catch (std::exception const &) {
                continue;
            }
            trials.push_back(std::move(job));
        }
        // The thorough trials first, so that the cores finish together.
        std::partition(trials.begin(), trials.end(), [](auto const &trial) { return trial->results == trial->out->levels; });

        // The trials run on the cores while qpdf writes the rest of the file, on this thread, into nothing.
        std::atomic<size_t> next{0};
        unsigned const workers =
            std::max(1u, std::min({4u, std::thread::hardware_concurrency(), static_cast<unsigned>(trials.size())}));
        std::vector<std::thread> threads;
        for (unsigned w = 0; w < workers && !trials.empty(); w++) {
            threads.emplace_back([&] {
                for (size_t i = next++; i < trials.size(); i = next++) runTrial(trials[i].get());
            });
        }
        try {
            // The images stand in the file as empty streams: the rest is what the writer would write.
            for (auto &stream : streams) {
                QPDFObjectHandle mask = stream.getDict().getKey("/SMask");
                stream.replaceStreamData("", QPDFObjectHandle::newNull(), QPDFObjectHandle::newNull());
                if (mask.isStream()) {
                    mask.replaceStreamData("", QPDFObjectHandle::newNull(), QPDFObjectHandle::newNull());
                }
            }
            *rest_bytes = writtenSize(pdf);
        } catch (...) {
            for (auto &thread : threads) thread.join();
            throw;
        }
        for (auto &thread : threads) thread.join();
        for (auto &report : reports) trial(context, &report);
    });
}

// The entry points. An exception thrown through a C frame into Swift ends the process: each one is shielded,
// whatever escapes the work's own handling becoming a status and a message. (pdfshim_plan_resample is
// arithmetic only; pdfshim_encrypts_attachments_only catches everything itself.)
namespace {
template <class Body> pdfshim_status shielded(pdfshim_result *result, Body body) {
    try {
        return body();
    } catch (QPDFExc const &error) {
        setMessage(result, error.getMessageDetail());
        return PDFSHIM_DAMAGED;
    } catch (std::exception const &error) {
        setMessage(result, error.what());
    } catch (...) {
        setMessage(result, "an unexpected internal error");
    }
    return PDFSHIM_FAILED;
}
}  // namespace

extern "C" pdfshim_status pdfshim_count_text(char const *input, char const *password, pdfshim_result *result) {
    return shielded(result, [&] { return countDocumentText(input, password, result); });
}

extern "C" pdfshim_status pdfshim_check(char const *input, char const *password, pdfshim_result *result) {
    return shielded(result, [&] { return checkDocument(input, password, result); });
}

extern "C" pdfshim_status pdfshim_compress(char const *input, int output, pdfshim_options const *options,
                                           pdfshim_result *result) {
    return shielded(result, [&] { return compressDocument(input, output, options, result); });
}

extern "C" pdfshim_status pdfshim_pages_from_jpegs(char const *const *jpegs, int32_t count, int32_t dpi, int output,
                                                   pdfshim_result *result) {
    return shielded(result, [&] { return pagesFromJPEGs(jpegs, count, dpi, output, result); });
}

extern "C" pdfshim_status pdfshim_estimate(char const *input, char const *password, pdfshim_level const *levels,
                                           int32_t level_count, int32_t max_measured, pdfshim_trial_callback trial,
                                           void *context, int64_t *rest_bytes, pdfshim_result *result) {
    return shielded(result, [&] {
        return estimateDocument(input, password, levels, level_count, max_measured, trial, context, rest_bytes, result);
    });
}
