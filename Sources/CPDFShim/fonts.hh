#ifndef ARCHIVER_PDFSHIM_FONTS_HH
#define ARCHIVER_PDFSHIM_FONTS_HH
// The font pass of the PDF shim (fonts.cpp), and the encoding tables it reads (encodings.cpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

class QPDF;

/// Subsets every TrueType or OpenType font `pdf` embeds whole (no "ABCDEF+" tag) to the glyphs its content
/// streams can draw, keeping glyph ids (no content stream changes), .notdef, the cmap and the glyph names, and
/// tags the font's names as a subset; and every Type 1 font, whole or a subset already, to the glyphs drawn
/// (by name) and the Subrs they call. A font any use of which it cannot account for stays whole; when a
/// content stream cannot be read, they all do. Returns how many font programs were subset. Never throws.
int subsetFonts(QPDF &pdf);

/// An embedded Type 1 font program (a /FontFile stream; type1.cpp), read to be cut down to some of its glyphs.
class Type1Font {
  public:
    Type1Font();
    ~Type1Font();
    Type1Font(Type1Font const &) = delete;
    Type1Font &operator=(Type1Font const &) = delete;

    /// Reads a /FontFile stream's decoded bytes, given its /Length1 and /Length2; false when it is no Type 1
    /// program this can take apart (then nothing else may be asked of it).
    bool read(std::string const &data, long long length1, long long length2);
    size_t glyphCount() const;
    /// The glyph called `name`, -1 when the font has none.
    long glyph(std::string const &name) const;
    /// The name the font's own encoding gives `code`, empty when none.
    std::string const &encoded(unsigned code) const;
    /// The program with only the glyphs `glyphs` (from glyph()), .notdef and the parts of their seac accents,
    /// and the Subrs entries they call (renumbered, 0 to 3 kept), or empty when a call cannot be followed.
    /// `lengths` gets the new /Length1, /Length2 and /Length3.
    std::string subset(std::set<unsigned> const &glyphs, std::array<size_t, 3> &lengths) const;

  private:
    struct Parts;
    std::unique_ptr<Parts> parts;
};

namespace pdfencodings {
struct GlyphUnicode {
    char const *name;
    uint32_t unicode;
};
/// PDF's base encodings (ISO 32000 Annex D): glyph names by code, nullptr where a code has none.
extern char const *const winAnsi[256];
extern char const *const macRoman[256];
extern char const *const standard[256];
/// The Unicode value of every name in those encodings (Adobe's glyph list), sorted by name.
extern GlyphUnicode const glyphUnicodes[];
extern size_t const glyphUnicodeCount;
}  // namespace pdfencodings

#endif
