// The font pass: TrueType and OpenType fonts embedded whole (an office suite's or an old driver's habit; often
// most of a text PDF's bytes) are cut down to the glyphs the document draws, with HarfBuzz's subsetter, and
// Type 1 fonts, whole or TeX's subsets, to those glyphs and the Subrs they call (type1.cpp).
// Glyph ids are kept (HB_SUBSET_FLAGS_RETAIN_GIDS), so that no content stream changes; the cmap is kept as
// it was, so that every way a viewer maps a code to a glyph still finds the same one. The glyphs drawn are
// found by following every content stream that can show text (pages, forms, annotation appearances,
// patterns, soft masks, Type 3 glyph procedures), and for simple fonts every glyph any of those ways could
// pick is kept. Whatever cannot be accounted for leaves fonts whole.
#include "fonts.hh"

// qpdf 11: use std::shared_ptr, not its deprecated PointerHolder.
#define POINTERHOLDER_TRANSITION 4

#include <qpdf/Buffer.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFObjectHandle.hh>
#include <qpdf/QPDFPageDocumentHelper.hh>
#include <qpdf/QPDFPageObjectHelper.hh>

#include <harfbuzz/hb-subset.h>
#include <harfbuzz/hb.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

/// Thrown when some use of a font cannot be accounted for: every font stays whole.
struct Unaccounted {};

unsigned be16(std::string const &data, size_t at) {
    if (at + 2 > data.size()) return 0;
    return (static_cast<unsigned char>(data[at]) << 8) | static_cast<unsigned char>(data[at + 1]);
}

uint32_t be32(std::string const &data, size_t at) {
    return (static_cast<uint32_t>(be16(data, at)) << 16) | be16(data, at + 2);
}

/// One subtable of a TrueType 'cmap' (formats 0, 4, 6, 12): a viewer picks one by platform and encoding,
/// which HarfBuzz's own lookup does not let us choose.
class CharacterMap {
  public:
    CharacterMap(std::string const &table, unsigned platform, unsigned encoding) : table(table) {
        unsigned const count = be16(table, 2);
        for (unsigned i = 0; i < count; i++) {
            size_t const record = 4 + 8 * static_cast<size_t>(i);
            if (be16(table, record) == platform && be16(table, record + 2) == encoding) {
                start = be32(table, record + 4);
                present = start + 4 <= table.size();
                return;
            }
        }
    }

    bool present = false;

    /// The glyph of `code`, 0 when it maps to none.
    unsigned glyph(uint32_t code) const {
        if (!present) return 0;
        switch (be16(table, start)) {
        case 0:
            return code < 256 && start + 6 + code < table.size() ? static_cast<unsigned char>(table[start + 6 + code])
                                                                  : 0;
        case 4: {
            size_t const segments = be16(table, start + 6) / 2;
            size_t const ends = start + 14, starts = ends + 2 * segments + 2, deltas = starts + 2 * segments,
                         offsets = deltas + 2 * segments;
            for (size_t i = 0; i < segments; i++) {
                if (code > be16(table, ends + 2 * i)) continue;
                unsigned const first = be16(table, starts + 2 * i);
                if (code < first) return 0;
                unsigned const delta = be16(table, deltas + 2 * i), offset = be16(table, offsets + 2 * i);
                if (offset == 0) return (code + delta) & 0xffff;
                unsigned const glyph = be16(table, offsets + 2 * i + offset + 2 * (code - first));
                return glyph ? (glyph + delta) & 0xffff : 0;
            }
            return 0;
        }
        case 6: {
            unsigned const first = be16(table, start + 6), count = be16(table, start + 8);
            return code >= first && code < first + count ? be16(table, start + 10 + 2 * (code - first)) : 0;
        }
        case 12: {
            uint32_t const groups = be32(table, start + 12);
            for (uint32_t i = 0; i < groups && start + 16 + 12 * (i + 1) <= table.size(); i++) {
                size_t const group = start + 16 + 12 * static_cast<size_t>(i);
                if (code >= be32(table, group) && code <= be32(table, group + 4)) {
                    return be32(table, group + 8) + (code - be32(table, group));
                }
            }
            return 0;
        }
        default:
            return 0;
        }
    }

  private:
    std::string const &table;
    size_t start = 0;
};

/// One embedded font program (a /FontFile2, /FontFile3 /OpenType or /FontFile stream) and what is drawn with it.
struct Program {
    QPDFObjectHandle stream;
    /// A Type 1 program (/FontFile): its glyphs are its charstrings, by their place in it (Type1Font::glyph).
    bool type1 = false;
    std::unique_ptr<Type1Font> type1Font;
    std::array<size_t, 3> type1Lengths{};
    /// Some use of it cannot be accounted for, or it is a subset already: left as it is.
    bool whole = false;
    std::set<hb_codepoint_t> glyphs;
    /// The font dictionaries (/BaseFont) and descriptors (/FontName) that name it, for the subset tag.
    std::vector<QPDFObjectHandle> named;

    std::string data, cmap;
    hb_blob_t *blob = nullptr;
    hb_face_t *face = nullptr;
    hb_font_t *font = nullptr;
    unsigned glyphCount = 0;
    std::unique_ptr<CharacterMap> unicode, symbol, mac;
    bool opened = false;

    Program() = default;
    Program(Program const &) = delete;
    Program &operator=(Program const &) = delete;
    ~Program() {
        if (font) hb_font_destroy(font);
        if (face) hb_face_destroy(face);
        if (blob) hb_blob_destroy(blob);
    }

    /// Decodes the program and opens it with HarfBuzz, or reads it as Type 1 (once); false when it is no font
    /// that can be read.
    bool open() {
        if (opened) return glyphCount > 0;
        opened = true;
        std::shared_ptr<Buffer> decoded = stream.getStreamData(qpdf_dl_all);
        data.assign(reinterpret_cast<char const *>(decoded->getBuffer()), decoded->getSize());
        if (type1) {
            QPDFObjectHandle dict = stream.getDict();
            auto length = [&](char const *key) {
                QPDFObjectHandle value = dict.getKey(key);
                return value.isInteger() ? value.getIntValue() : -1;
            };
            type1Font = std::make_unique<Type1Font>();
            if (type1Font->read(data, length("/Length1"), length("/Length2"))) glyphCount = type1Font->glyphCount();
            return glyphCount > 0;
        }
        blob = hb_blob_create(data.data(), static_cast<unsigned>(data.size()), HB_MEMORY_MODE_READONLY, nullptr,
                              nullptr);
        face = hb_face_create(blob, 0);
        font = hb_font_create(face);
        glyphCount = hb_face_get_glyph_count(face);
        hb_blob_t *table = hb_face_reference_table(face, HB_TAG('c', 'm', 'a', 'p'));
        unsigned length = 0;
        char const *bytes = hb_blob_get_data(table, &length);
        if (bytes) cmap.assign(bytes, length);
        hb_blob_destroy(table);
        unicode = std::make_unique<CharacterMap>(cmap, 3, 1);
        symbol = std::make_unique<CharacterMap>(cmap, 3, 0);
        mac = std::make_unique<CharacterMap>(cmap, 1, 0);
        return glyphCount > 0;
    }
};

/// How one font dictionary turns the bytes of a string into glyphs of its program.
struct Font {
    /// Null: a font the pass does not subset (not embedded, bare CFF) or a Type 3 font.
    Program *program = nullptr;
    QPDFObjectHandle type3 = QPDFObjectHandle::newNull();
    /// A Type 0 font: two-byte codes (Identity-H or -V) are CIDs, mapped by /CIDToGIDMap (`cidToGid`, or
    /// the identity when `cidIdentity`).
    bool cid = false;
    bool cidIdentity = true;
    std::string cidToGid;
    /// A simple font: every glyph a code may be drawn with, and the codes whose glyph cannot be told.
    bool mapped = false;
    std::array<std::vector<hb_codepoint_t>, 256> codes;
    std::bitset<256> unknown;
};

bool hasSubsetTag(QPDFObjectHandle name) {
    if (!name.isName()) return false;
    std::string const text = name.getName();  // with its leading slash
    if (text.size() < 8 || text[7] != '+') return false;
    return std::all_of(text.begin() + 1, text.begin() + 7, [](char c) { return c >= 'A' && c <= 'Z'; });
}

/// The dictionary whose descriptor holds the program: a Type 0 font's descendant, or the font itself.
QPDFObjectHandle descendant(QPDFObjectHandle font) {
    if (!font.getKey("/Subtype").isNameAndEquals("/Type0")) return font;
    QPDFObjectHandle kids = font.getKey("/DescendantFonts");
    return kids.isArray() && kids.getArrayNItems() == 1 ? kids.getArrayItem(0) : QPDFObjectHandle::newNull();
}

/// The embedded program this pass could subset: TrueType (/FontFile2), OpenType (/FontFile3 /OpenType) or
/// Type 1 (/FontFile; `type1` says which).
QPDFObjectHandle programOf(QPDFObjectHandle font, bool *type1 = nullptr) {
    QPDFObjectHandle base = descendant(font);
    QPDFObjectHandle descriptor = base.isDictionary() ? base.getKey("/FontDescriptor") : QPDFObjectHandle::newNull();
    if (!descriptor.isDictionary()) return QPDFObjectHandle::newNull();
    if (type1) *type1 = false;
    if (descriptor.getKey("/FontFile").isStream()) {
        if (type1) *type1 = true;
        return descriptor.getKey("/FontFile");
    }
    QPDFObjectHandle file = descriptor.getKey("/FontFile2");
    if (file.isStream()) return file;
    file = descriptor.getKey("/FontFile3");
    if (file.isStream() && file.getDict().getKey("/Subtype").isNameAndEquals("/OpenType")) return file;
    return QPDFObjectHandle::newNull();
}

/// The Unicode value of a glyph name: Adobe's glyph list for the names of the base encodings, "uniXXXX" and
/// "uXXXX[XX]"; 0 when unknown.
uint32_t unicodeOf(std::string const &name) {
    using pdfencodings::glyphUnicodes;
    auto const end = glyphUnicodes + pdfencodings::glyphUnicodeCount;
    auto const found = std::lower_bound(glyphUnicodes, end, name, [](pdfencodings::GlyphUnicode const &entry,
                                                                     std::string const &key) {
        return std::strcmp(entry.name, key.c_str()) < 0;
    });
    if (found != end && name == found->name) return found->unicode;
    auto const hex = [](std::string const &digits) -> uint32_t {
        if (digits.empty() || digits.size() > 6) return 0;
        uint32_t value = 0;
        for (char c : digits) {
            int const digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (digit < 0) return 0;
            value = value * 16 + static_cast<uint32_t>(digit);
        }
        return value;
    };
    if (name.size() == 7 && name.compare(0, 3, "uni") == 0) return hex(name.substr(3));
    if (name.size() >= 5 && name.size() <= 7 && name[0] == 'u') return hex(name.substr(1));
    return 0;
}

/// A base encoding by name, or nullptr.
char const *const *baseEncoding(QPDFObjectHandle name) {
    if (name.isNameAndEquals("/WinAnsiEncoding")) return pdfencodings::winAnsi;
    if (name.isNameAndEquals("/MacRomanEncoding")) return pdfencodings::macRoman;
    if (name.isNameAndEquals("/StandardEncoding")) return pdfencodings::standard;
    return nullptr;
}

/// Identity of a font dictionary or resources, for caching: its object number, or its text when direct.
std::string identity(QPDFObjectHandle object) {
    if (object.isIndirect()) return object.getObjGen().unparse(',');
    return object.isNull() ? "-" : object.unparse();
}

/// Every indirect object the writer will write: those reachable from the trailer (it drops the rest, so
/// what only they draw does not count).
std::vector<QPDFObjectHandle> reachable(QPDF &pdf) {
    std::vector<QPDFObjectHandle> found, stack{pdf.getTrailer()};
    std::set<QPDFObjGen> seen;
    while (!stack.empty()) {
        QPDFObjectHandle object = stack.back();
        stack.pop_back();
        if (object.isIndirect()) {
            if (!seen.insert(object.getObjGen()).second) continue;
            found.push_back(object);
        }
        if (object.isArray()) {
            for (auto &item : object.getArrayAsVector()) stack.push_back(item);
        } else if (object.isDictionary() || object.isStream()) {
            QPDFObjectHandle dict = object.isStream() ? object.getDict() : object;
            for (auto const &key : dict.getKeys()) stack.push_back(dict.getKey(key));
        }
    }
    return found;
}

class Walker;

/// The pass over one document.
class Fonts {
  public:
    explicit Fonts(QPDF &pdf) : pdf(pdf) {}

    /// Finds the font programs and marks those that must stay whole; false when there is none to subset.
    bool survey() {
        objects = reachable(pdf);
        for (auto &object : objects) survey(object, 0);
        return std::any_of(programs.begin(), programs.end(), [](auto const &entry) { return !entry.second->whole; });
    }

    /// Follows every content stream, recording the glyphs drawn; throws Unaccounted.
    void follow();

    /// Subsets what can be; returns how many programs were.
    int apply();

    /// A string shown with `font` (a dictionary) in a stream whose resources are `resources`.
    void show(QPDFObjectHandle font, std::string const &bytes, std::vector<QPDFObjectHandle> const &resources);

    /// Follows a content stream drawn with `resources` (its own first), the text font `font` current.
    void walk(QPDFObjectHandle stream, std::vector<QPDFObjectHandle> resources, QPDFObjectHandle font, int depth);

  private:
    QPDF &pdf;
    std::vector<QPDFObjectHandle> objects;
    std::map<QPDFObjGen, std::unique_ptr<Program>> programs;
    std::map<std::string, Font> fonts;
    std::set<std::string> walked;
    std::set<QPDFObjGen> walkedStreams;
    std::set<std::string> type3Walked;
    std::vector<QPDFObjectHandle> type3Fonts;

    Program &program(QPDFObjectHandle stream, bool type1 = false) {
        auto &entry = programs[stream.getObjGen()];
        if (!entry) {
            entry = std::make_unique<Program>();
            entry->stream = stream;
            entry->type1 = type1;
        } else if (entry->type1 != type1) {
            // One stream taken for two kinds of font: neither can be trusted.
            entry->whole = true;
        }
        return *entry;
    }

    void leaveWhole(QPDFObjectHandle font) {
        bool type1 = false;
        QPDFObjectHandle file = programOf(font, &type1);
        if (file.isStream()) program(file, type1).whole = true;
    }

    void survey(QPDFObjectHandle object, int depth);
    void surveyFont(QPDFObjectHandle font);
    Font &analysed(QPDFObjectHandle font);
    void mapSimple(QPDFObjectHandle dict, Program &program, Font &font);
    void mapType1(QPDFObjectHandle dict, Program &program, Font &font);
    void walkType3(QPDFObjectHandle font, std::vector<QPDFObjectHandle> const &resources);
};

/// Follows one content stream's text font (Tf, gs, q/Q) and what it shows, and the streams it draws.
class Walker : public QPDFObjectHandle::ParserCallbacks {
  public:
    Walker(Fonts &fonts, std::vector<QPDFObjectHandle> resources, QPDFObjectHandle font, int depth)
        : fonts(fonts), resources(std::move(resources)), font(font), depth(depth) {}

    void handleObject(QPDFObjectHandle object) override {
        if (!object.isOperator()) {
            operands.push_back(object);
            return;
        }
        std::string const op = object.getOperatorValue();
        QPDFObjectHandle last = operands.empty() ? QPDFObjectHandle::newNull() : operands.back();
        if (op == "q") {
            saved.push_back(font);
        } else if (op == "Q") {
            if (!saved.empty()) {
                font = saved.back();
                saved.pop_back();
            }
        } else if (op == "Tf") {
            QPDFObjectHandle name = operands.size() >= 2 ? operands[operands.size() - 2] : last;
            font = name.isName() ? lookup("/Font", name.getName()) : QPDFObjectHandle::newNull();
        } else if (op == "gs" && last.isName()) {
            QPDFObjectHandle state = lookup("/ExtGState", last.getName());
            if (state.isDictionary()) {
                QPDFObjectHandle setting = state.getKey("/Font");
                if (setting.isArray() && setting.getArrayNItems() >= 1) font = setting.getArrayItem(0);
                QPDFObjectHandle mask = state.getKey("/SMask");
                if (mask.isDictionary() && mask.getKey("/G").isStream()) {
                    fonts.walk(mask.getKey("/G"), resources, font, depth + 1);
                }
            }
        } else if ((op == "Tj" || op == "'" || op == "\"") && last.isString()) {
            show(last.getStringValue());
        } else if (op == "TJ" && last.isArray()) {
            for (auto &item : last.getArrayAsVector()) {
                if (item.isString()) show(item.getStringValue());
            }
        } else if (op == "Do" && last.isName()) {
            QPDFObjectHandle xobject = lookup("/XObject", last.getName());
            if (xobject.isStream() && xobject.getDict().getKey("/Subtype").isNameAndEquals("/Form")) {
                fonts.walk(xobject, resources, font, depth + 1);
            }
        } else if ((op == "scn" || op == "SCN") && last.isName()) {
            QPDFObjectHandle pattern = lookup("/Pattern", last.getName());
            if (pattern.isStream()) fonts.walk(pattern, resources, QPDFObjectHandle::newNull(), depth + 1);
        }
        operands.clear();
    }

    void handleEOF() override {}

  private:
    void show(std::string const &bytes) {
        if (bytes.empty()) return;
        // Text in no font we know: its glyphs could be any font's.
        if (!font.isDictionary()) throw Unaccounted();
        fonts.show(font, bytes, resources);
    }

    /// A resource by category and name, looked up as viewers do: the stream's own, then its drawer's.
    QPDFObjectHandle lookup(char const *category, std::string const &name) {
        for (auto &level : resources) {
            QPDFObjectHandle entries = level.isDictionary() ? level.getKey(category) : QPDFObjectHandle::newNull();
            if (entries.isDictionary() && entries.hasKey(name)) return entries.getKey(name);
        }
        return QPDFObjectHandle::newNull();
    }

    Fonts &fonts;
    std::vector<QPDFObjectHandle> resources;
    QPDFObjectHandle font;
    std::vector<QPDFObjectHandle> saved;
    std::vector<QPDFObjectHandle> operands;
    int depth;
};

void Fonts::survey(QPDFObjectHandle object, int depth) {
    // Direct objects only: indirect ones are surveyed on their own. 32 levels is far beyond real files.
    if (depth > 32) return;
    if (object.isArray()) {
        for (auto &item : object.getArrayAsVector()) {
            if (!item.isIndirect()) survey(item, depth + 1);
        }
        return;
    }
    if (!object.isDictionary() && !object.isStream()) return;
    QPDFObjectHandle dict = object.isStream() ? object.getDict() : object;
    if (!object.isStream() && (dict.hasKey("/FontDescriptor") || dict.hasKey("/DescendantFonts"))) surveyFont(dict);
    if (!object.isStream() && dict.getKey("/Subtype").isNameAndEquals("/Type3")) type3Fonts.push_back(object);
    // A form's default resources (/DR): a viewer fills in fields with their fonts, any glyph of them.
    QPDFObjectHandle defaults = dict.getKey("/DR");
    QPDFObjectHandle formFonts = defaults.isDictionary() ? defaults.getKey("/Font") : QPDFObjectHandle::newNull();
    if (formFonts.isDictionary()) {
        for (auto const &key : formFonts.getKeys()) leaveWhole(formFonts.getKey(key));
    }
    for (auto const &key : dict.getKeys()) {
        QPDFObjectHandle item = dict.getKey(key);
        if (!item.isIndirect()) survey(item, depth + 1);
    }
}

void Fonts::surveyFont(QPDFObjectHandle font) {
    bool type1 = false;
    QPDFObjectHandle file = programOf(font, &type1);
    if (!file.isStream()) return;
    Program &entry = program(file, type1);
    QPDFObjectHandle base = descendant(font);
    QPDFObjectHandle descriptor = base.getKey("/FontDescriptor");
    entry.named.push_back(font);
    if (font.hasKey("/FontDescriptor")) entry.named.push_back(descriptor);
    // A subset already is left as it is, but for Type 1: TeX's subsets keep every Subrs entry (those no glyph
    // calls as stubs), which is most of their bytes. Cut further, such a subset gets a new tag (apply).
    bool const tagged = hasSubsetTag(font.getKey("/BaseFont")) || hasSubsetTag(descriptor.getKey("/FontName"));
    if (tagged && !type1) entry.whole = true;
    QPDFObjectHandle subtype = font.getKey("/Subtype");
    if (type1 && !subtype.isNameAndEquals("/Type1")) {
        // A Type 1 program under another kind of font (or a multiple master one): how viewers take it is not known.
        entry.whole = true;
    } else if (subtype.isNameAndEquals("/Type0")) {
        // Two-byte identity codes over TrueType outlines: a CID-keyed CFF's own CID map, or another CMap, is not followed.
        QPDFObjectHandle encoding = font.getKey("/Encoding");
        QPDFObjectHandle map = base.getKey("/CIDToGIDMap");
        bool const identity = encoding.isNameAndEquals("/Identity-H") || encoding.isNameAndEquals("/Identity-V");
        bool const mapped = map.isNull() || map.isNameAndEquals("/Identity") || map.isStream();
        if (!identity || !base.getKey("/Subtype").isNameAndEquals("/CIDFontType2") || !mapped) entry.whole = true;
    } else if (subtype.isNameAndEquals("/CIDFontType2")) {
        // Surveyed with its Type 0 parent.
    } else if (!subtype.isNameAndEquals("/TrueType") && !subtype.isNameAndEquals("/Type1")) {
        entry.whole = true;
    }
}

Font &Fonts::analysed(QPDFObjectHandle dict) {
    auto [at, added] = fonts.try_emplace(identity(dict));
    Font &font = at->second;
    if (!added) return font;
    if (dict.getKey("/Subtype").isNameAndEquals("/Type3")) {
        font.type3 = dict;
        return font;
    }
    bool type1 = false;
    QPDFObjectHandle file = programOf(dict, &type1);
    if (!file.isStream()) return font;
    // A font the survey did not meet (it would have named it): nothing about it is known.
    bool const known = programs.count(file.getObjGen()) != 0;
    Program &program = this->program(file, type1);
    font.program = &program;
    if (!known) program.whole = true;
    if (program.whole) return font;
    if (!program.open()) {
        program.whole = true;
        return font;
    }
    if (dict.getKey("/Subtype").isNameAndEquals("/Type0")) {
        font.cid = true;
        QPDFObjectHandle map = descendant(dict).getKey("/CIDToGIDMap");
        if (map.isStream()) {
            std::shared_ptr<Buffer> data = map.getStreamData(qpdf_dl_all);
            font.cidToGid.assign(reinterpret_cast<char const *>(data->getBuffer()), data->getSize());
            font.cidIdentity = false;
        }
    }
    return font;
}

/// The glyph names an /Encoding dictionary's /Differences give, over `names`.
void applyDifferences(QPDFObjectHandle encoding, std::array<std::string, 256> &names) {
    QPDFObjectHandle differences = encoding.isDictionary() ? encoding.getKey("/Differences") : QPDFObjectHandle::newNull();
    if (!differences.isArray()) return;
    long long code = 0;
    for (auto &item : differences.getArrayAsVector()) {
        if (item.isInteger()) {
            code = item.getIntValue();
        } else if (item.isName()) {
            if (code >= 0 && code < 256) names[code] = item.getName().substr(1);
            code++;
        }
    }
}

/// Every glyph a viewer could draw for each code of a simple font (ISO 32000 9.6.6.4, and what poppler,
/// pdf.js and MuPDF do beyond it): the (3,0) cmap at the code and at F000, F100, F200 + code; the (1,0)
/// cmap at the code; through the code's glyph name, the (3,1) cmap at its Unicode value, the (1,0) cmap at
/// its Mac OS Roman code and the font's own glyph names; the (3,1) cmap at the code itself; and the code
/// as a glyph id when there is no cmap. A glyph name none of these knows makes its code unknown.
void Fonts::mapSimple(QPDFObjectHandle dict, Program &program, Font &font) {
    font.mapped = true;
    std::array<std::string, 256> names;
    QPDFObjectHandle encoding = dict.getKey("/Encoding");
    QPDFObjectHandle descriptor = dict.getKey("/FontDescriptor");
    QPDFObjectHandle flags = descriptor.getKey("/Flags");
    bool const symbolic = flags.isInteger() && (flags.getIntValue() & 4) != 0;
    QPDFObjectHandle baseName = encoding.isDictionary() ? encoding.getKey("/BaseEncoding") : encoding;
    char const *const *base = baseEncoding(baseName);
    if (!base && !baseName.isNull()) {
        // MacExpertEncoding or something unknown: no code can be told.
        font.unknown.set();
        return;
    }
    if (!base && !symbolic) base = pdfencodings::standard;
    for (int code = 0; code < 256 && base; code++) {
        if (base[code]) names[code] = base[code];
    }
    applyDifferences(encoding, names);
    std::map<std::string, unsigned> macCodes;
    for (unsigned code = 0; code < 256; code++) {
        if (pdfencodings::macRoman[code]) macCodes.emplace(pdfencodings::macRoman[code], code);
    }
    bool const anyCmap = program.unicode->present || program.symbol->present || program.mac->present;
    for (unsigned code = 0; code < 256; code++) {
        std::vector<hb_codepoint_t> &glyphs = font.codes[code];
        for (unsigned offset : {0u, 0xf000u, 0xf100u, 0xf200u}) glyphs.push_back(program.symbol->glyph(offset + code));
        glyphs.push_back(program.mac->glyph(code));
        glyphs.push_back(program.unicode->glyph(code));
        if (!anyCmap) glyphs.push_back(code);
        hb_codepoint_t nominal = 0;
        if (hb_font_get_nominal_glyph(program.font, code, &nominal)) glyphs.push_back(nominal);
        std::string const &name = names[code];
        if (!name.empty()) {
            bool known = false;
            if (uint32_t const value = unicodeOf(name)) {
                known = true;
                glyphs.push_back(program.unicode->glyph(value));
                if (hb_font_get_nominal_glyph(program.font, value, &nominal)) glyphs.push_back(nominal);
            }
            if (auto const mac = macCodes.find(name); mac != macCodes.end()) {
                known = true;
                glyphs.push_back(program.mac->glyph(mac->second));
            }
            hb_codepoint_t named = 0;
            if (hb_font_get_glyph_from_name(program.font, name.c_str(), static_cast<int>(name.size()), &named)) {
                known = true;
                glyphs.push_back(named);
            }
            if (!known) font.unknown.set(code);
        }
    }
}

/// Every glyph a viewer could draw for each code of a Type 1 font: the one the font dictionary's /Encoding
/// names (its /Differences over its base encoding, else over the font's own encoding: ISO 32000 9.6.6.2), and
/// those the font's own encoding and StandardEncoding name, which viewers fall back to in ways of their own.
/// A code whose glyph the font lacks (a viewer may then look for another by a name of its own) is unknown.
void Fonts::mapType1(QPDFObjectHandle dict, Program &program, Font &font) {
    font.mapped = true;
    Type1Font const &type1 = *program.type1Font;
    QPDFObjectHandle encoding = dict.getKey("/Encoding");
    QPDFObjectHandle baseName = encoding.isDictionary() ? encoding.getKey("/BaseEncoding") : encoding;
    char const *const *base = baseEncoding(baseName);
    if (!base && !baseName.isNull()) {
        font.unknown.set();
        return;
    }
    std::array<std::string, 256> names;
    for (unsigned code = 0; code < 256; code++) {
        names[code] = base ? (base[code] ? base[code] : "") : type1.encoded(code);
    }
    applyDifferences(encoding, names);
    for (unsigned code = 0; code < 256; code++) {
        long const named = names[code].empty() ? -1 : type1.glyph(names[code]);
        if (named < 0) {
            font.unknown.set(code);
            continue;
        }
        std::vector<hb_codepoint_t> &glyphs = font.codes[code];
        glyphs.push_back(static_cast<hb_codepoint_t>(named));
        for (char const *other : {type1.encoded(code).c_str(), pdfencodings::standard[code]}) {
            long const glyph = other && *other ? type1.glyph(other) : -1;
            if (glyph >= 0) glyphs.push_back(static_cast<hb_codepoint_t>(glyph));
        }
    }
}

void Fonts::show(QPDFObjectHandle dict, std::string const &bytes, std::vector<QPDFObjectHandle> const &resources) {
    Font &font = analysed(dict);
    if (font.type3.isDictionary()) walkType3(dict, resources);
    Program *program = font.program;
    if (!program || program->whole) return;
    if (font.cid) {
        if (bytes.size() % 2 != 0) {
            program->whole = true;
            return;
        }
        for (size_t i = 0; i < bytes.size(); i += 2) {
            unsigned const cid = be16(bytes, i);
            program->glyphs.insert(font.cidIdentity ? cid : be16(font.cidToGid, 2 * static_cast<size_t>(cid)));
        }
        return;
    }
    if (!font.mapped && program->type1) mapType1(dict, *program, font);
    if (!font.mapped) mapSimple(dict, *program, font);
    for (unsigned char code : bytes) {
        if (font.unknown.test(code)) {
            program->whole = true;
            return;
        }
        program->glyphs.insert(font.codes[code].begin(), font.codes[code].end());
    }
}

void Fonts::walkType3(QPDFObjectHandle font, std::vector<QPDFObjectHandle> const &resources) {
    if (!type3Walked.insert(identity(font)).second) return;
    // A Type 3 glyph is a content stream: its own resources, else (PDF 1.1) those of what shows it.
    QPDFObjectHandle procedures = font.getKey("/CharProcs");
    if (!procedures.isDictionary()) return;
    for (auto const &key : procedures.getKeys()) {
        QPDFObjectHandle procedure = procedures.getKey(key);
        if (!procedure.isStream()) continue;
        std::vector<QPDFObjectHandle> chain = resources;
        QPDFObjectHandle own = font.getKey("/Resources");
        if (own.isDictionary()) chain.insert(chain.begin(), own);
        walk(procedure, chain, QPDFObjectHandle::newNull(), 1);
    }
}

void Fonts::walk(QPDFObjectHandle stream, std::vector<QPDFObjectHandle> resources, QPDFObjectHandle font,
                 int depth) {
    if (depth > 32) throw Unaccounted();
    QPDFObjectHandle own = stream.getDict().getKey("/Resources");
    std::string const inherited = own.isDictionary() || resources.empty() ? "" : identity(resources.front());
    // Once per stream, inherited font and resources: also what ends a form that draws itself.
    if (!walked.insert(identity(stream) + "|" + identity(font) + "|" + inherited).second) return;
    walkedStreams.insert(stream.getObjGen());
    if (own.isDictionary()) resources.insert(resources.begin(), own);
    Walker walker(*this, resources, font, depth);
    stream.parseAsContents(&walker);
}

void Fonts::follow() {
    for (auto &page : QPDFPageDocumentHelper(pdf).getAllPages()) {
        QPDFObjectHandle resources = page.getAttribute("/Resources", false);
        Walker walker(*this, {resources}, QPDFObjectHandle::newNull(), 0);
        page.parseContents(&walker);
        QPDFObjectHandle annotations = page.getObjectHandle().getKey("/Annots");
        if (!annotations.isArray()) continue;
        for (auto &annotation : annotations.getArrayAsVector()) {
            QPDFObjectHandle appearances =
                annotation.isDictionary() ? annotation.getKey("/AP") : QPDFObjectHandle::newNull();
            if (!appearances.isDictionary()) continue;
            for (auto const &key : appearances.getKeys()) {
                QPDFObjectHandle entry = appearances.getKey(key);
                std::vector<QPDFObjectHandle> streams;
                if (entry.isStream()) streams.push_back(entry);
                if (entry.isDictionary()) {
                    for (auto const &state : entry.getKeys()) {
                        if (entry.getKey(state).isStream()) streams.push_back(entry.getKey(state));
                    }
                }
                for (auto &stream : streams) walk(stream, {resources}, QPDFObjectHandle::newNull(), 1);
            }
        }
    }
    // Whatever else could draw text and was not reached (a form only some other application draws, a
    // pattern named in an odd way): followed on its own; text in it with no font of its own is unaccounted.
    for (auto &object : objects) {
        if (!object.isStream() || walkedStreams.count(object.getObjGen())) continue;
        QPDFObjectHandle dict = object.getDict();
        QPDFObjectHandle patternType = dict.getKey("/PatternType");
        if (dict.getKey("/Subtype").isNameAndEquals("/Form") ||
            (patternType.isInteger() && patternType.getIntValue() == 1)) {
            walk(object, {}, QPDFObjectHandle::newNull(), 1);
        }
    }
    for (auto &font : type3Fonts) walkType3(font, {});
}

/// Six capitals from the glyphs kept and the font's name, as the PDF specification asks of a subset's tag.
std::string tagFor(Program const &program) {
    uint64_t hash = 1469598103934665603ull;
    auto mix = [&](uint64_t value) {
        hash ^= value;
        hash *= 1099511628211ull;
    };
    for (hb_codepoint_t glyph : program.glyphs) mix(glyph);
    for (char c : program.data.substr(0, 64)) mix(static_cast<unsigned char>(c));
    std::string tag;
    for (int i = 0; i < 6; i++) {
        tag.push_back(static_cast<char>('A' + hash % 26));
        hash /= 26;
    }
    return tag;
}

/// The program cut down to `program.glyphs` (and .notdef), glyph ids kept; empty when HarfBuzz cannot.
std::string subsetOf(Program &program) {
    hb_subset_input_t *input = hb_subset_input_create_or_fail();
    if (!input) return "";
    hb_set_t *glyphs = hb_subset_input_glyph_set(input);
    // .notdef, and the last glyph, so that the font keeps its glyph count and every cmap entry stays valid.
    hb_set_add(glyphs, 0);
    hb_set_add(glyphs, program.glyphCount - 1);
    for (hb_codepoint_t glyph : program.glyphs) {
        if (glyph < program.glyphCount) hb_set_add(glyphs, glyph);
    }
    hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_RETAIN_GIDS | HB_SUBSET_FLAGS_NOTDEF_OUTLINE |
                                         HB_SUBSET_FLAGS_GLYPH_NAMES | HB_SUBSET_FLAGS_NAME_LEGACY);
    // The cmap as it was: a viewer may map codes through any of its subtables, which the subsetter would
    // rebuild from Unicode values alone.
    hb_set_add(hb_subset_input_set(input, HB_SUBSET_SETS_NO_SUBSET_TABLE_TAG), HB_TAG('c', 'm', 'a', 'p'));
    // Shaping tables: a PDF positions its glyphs itself, and their closure would keep glyphs never drawn.
    hb_set_t *dropped = hb_subset_input_set(input, HB_SUBSET_SETS_DROP_TABLE_TAG);
    for (hb_tag_t tag : {HB_TAG('G', 'S', 'U', 'B'), HB_TAG('G', 'P', 'O', 'S'), HB_TAG('G', 'D', 'E', 'F'),
                         HB_TAG('B', 'A', 'S', 'E'), HB_TAG('J', 'S', 'T', 'F'), HB_TAG('M', 'A', 'T', 'H'),
                         HB_TAG('k', 'e', 'r', 'n')}) {
        hb_set_add(dropped, tag);
    }
    hb_face_t *subset = hb_subset_or_fail(program.face, input);
    hb_subset_input_destroy(input);
    if (!subset) return "";
    hb_blob_t *blob = hb_face_reference_blob(subset);
    unsigned length = 0;
    char const *data = hb_blob_get_data(blob, &length);
    std::string result = data ? std::string(data, length) : std::string();
    hb_blob_destroy(blob);
    // What it made must read back with every glyph kept at its id.
    hb_blob_t *check = hb_blob_create(result.data(), static_cast<unsigned>(result.size()), HB_MEMORY_MODE_READONLY,
                                      nullptr, nullptr);
    hb_face_t *face = hb_face_create(check, 0);
    if (hb_face_get_glyph_count(face) != program.glyphCount) result.clear();
    hb_face_destroy(face);
    hb_blob_destroy(check);
    hb_face_destroy(subset);
    return result;
}

int Fonts::apply() {
    std::vector<std::pair<Program *, std::string>> subsets;
    for (auto &entry : programs) {
        Program &program = *entry.second;
        // Unused (the survey found it, no content draws it): nothing tells what it is for; left alone.
        if (program.whole || program.glyphs.empty() || !program.open()) continue;
        std::string smaller;
        if (program.type1) {
            std::set<unsigned> const glyphs(program.glyphs.begin(), program.glyphs.end());
            smaller = program.type1Font->subset(glyphs, program.type1Lengths);
        } else {
            smaller = subsetOf(program);
        }
        // Worth a new name only when it saves something real.
        if (!smaller.empty() && smaller.size() + 1024 < program.data.size()) {
            subsets.emplace_back(&program, std::move(smaller));
        }
    }
    for (auto &[program, bytes] : subsets) {
        std::string const tag = tagFor(*program) + "+";
        QPDFObjectHandle dict = program->stream.getDict();
        bool const trueType = !program->type1 && !dict.getKey("/Subtype").isNameAndEquals("/OpenType");
        program->stream.replaceStreamData(bytes, QPDFObjectHandle::newNull(), QPDFObjectHandle::newNull());
        if (trueType) dict.replaceKey("/Length1", QPDFObjectHandle::newInteger(static_cast<long long>(bytes.size())));
        if (program->type1) {
            char const *const keys[] = {"/Length1", "/Length2", "/Length3"};
            for (size_t i = 0; i < 3; i++) {
                dict.replaceKey(keys[i], QPDFObjectHandle::newInteger(static_cast<long long>(program->type1Lengths[i])));
            }
        }
        for (auto &named : program->named) {
            for (char const *key : {"/BaseFont", "/FontName"}) {
                QPDFObjectHandle name = named.getKey(key);
                if (!name.isName()) continue;
                // A Type 1 subset cut further gets a new tag for its old one: two different subsets of one
                // font (or this and the subset it was) must not share a name. (Other tagged fonts stay whole.)
                std::string const untagged = name.getName().substr(hasSubsetTag(name) ? 8 : 1);
                if (!hasSubsetTag(name) || program->type1) {
                    named.replaceKey(key, QPDFObjectHandle::newName("/" + tag + untagged));
                }
            }
        }
    }
    return static_cast<int>(subsets.size());
}

}  // namespace

int subsetFonts(QPDF &pdf) {
    try {
        Fonts fonts(pdf);
        if (!fonts.survey()) return 0;
        fonts.follow();
        return fonts.apply();
    } catch (...) {
        // Unaccounted, damage, anything: the fonts stay as they were.
        return 0;
    }
}
