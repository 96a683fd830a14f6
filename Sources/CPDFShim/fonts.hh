#ifndef ARCHIVER_PDFSHIM_FONTS_HH
#define ARCHIVER_PDFSHIM_FONTS_HH
// The font pass of the PDF shim (fonts.cpp), and the encoding tables it reads (encodings.cpp).
#include <cstddef>
#include <cstdint>

class QPDF;

/// Subsets every TrueType or OpenType font `pdf` embeds whole (no "ABCDEF+" tag) to the glyphs its content
/// streams can draw, keeping glyph ids (no content stream changes), .notdef, the cmap and the glyph names, and
/// tags the font's names as a subset. A font any use of which it cannot account for stays whole; when a
/// content stream cannot be read, they all do. Returns how many font programs were subset. Never throws.
int subsetFonts(QPDF &pdf);

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
