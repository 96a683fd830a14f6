// Type 1 font programs (a PDF's /FontFile) cut down to the glyphs a document draws. Nearly all of such a
// program is encrypted (eexec, then each charstring again), so Flate cannot shrink it: what is not kept is
// what is saved. The glyphs kept are run through a small charstring interpreter to find every Subrs entry
// they call (through callsubr and the hint replacement convention of OtherSubrs 3) and the two glyphs of
// each seac accent; the Subrs left are numbered anew and the numbers that call them rewritten. TeX's
// subsets (pdfTeX, dvips) keep every Subrs entry, an unused one as a stub, which is most of their bytes.
#include "fonts.hh"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\0'; }

bool isDelimiter(char c) { return std::strchr("()<>[]{}/%", c) != nullptr && c != '\0'; }

/// eexec and charstring encryption (Adobe Type 1 Font Format, chapter 7).
std::string decrypt(std::string_view data, unsigned key) {
    std::string plain(data.size(), '\0');
    for (size_t i = 0; i < data.size(); i++) {
        unsigned const c = static_cast<unsigned char>(data[i]);
        plain[i] = static_cast<char>(c ^ (key >> 8));
        key = ((c + key) * 52845u + 22719u) & 0xffffu;
    }
    return plain;
}

std::string encrypt(std::string_view plain, unsigned key) {
    std::string data(plain.size(), '\0');
    for (size_t i = 0; i < plain.size(); i++) {
        unsigned const c = (static_cast<unsigned char>(plain[i]) ^ (key >> 8)) & 0xffu;
        data[i] = static_cast<char>(c);
        key = ((c + key) * 52845u + 22719u) & 0xffffu;
    }
    return data;
}

constexpr unsigned eexecKey = 55665, charstringKey = 4330;

/// How an interpreter tells an encrypted part in hexadecimal from a binary one.
bool startsHexadecimal(std::string const &encrypted) {
    return encrypted.size() >= 4 && std::all_of(encrypted.begin(), encrypted.begin() + 4, [](char c) {
               return std::isxdigit(static_cast<unsigned char>(c)) != 0;
           });
}

/// Reads PostScript tokens of the decrypted private part, and the binary strings RD reads.
struct Scanner {
    std::string_view text;
    size_t at = 0;

    void skip() {
        while (at < text.size()) {
            if (isSpace(text[at])) {
                at++;
            } else if (text[at] == '%') {
                while (at < text.size() && text[at] != '\n' && text[at] != '\r') at++;
            } else {
                break;
            }
        }
    }

    /// The next token (a name keeps its slash), empty at the end.
    std::string_view token() {
        skip();
        size_t const start = at;
        if (at < text.size() && (text[at] == '/' || isDelimiter(text[at]))) at++;
        if (start == at || text[start] == '/') {
            while (at < text.size() && !isSpace(text[at]) && !isDelimiter(text[at])) at++;
        }
        return text.substr(start, at - start);
    }

    std::optional<long> integer() {
        std::string_view const word = token();
        if (word.empty() || word.size() > 9) return std::nullopt;
        long value = 0;
        for (char c : word) {
            if (c < '0' || c > '9') return std::nullopt;
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /// `length` bytes after the single space that ends RD.
    std::optional<std::string_view> binary(long length) {
        if (at >= text.size() || !isSpace(text[at])) return std::nullopt;
        at++;
        if (length < 0 || static_cast<size_t>(length) > text.size() - at) return std::nullopt;
        std::string_view const bytes = text.substr(at, static_cast<size_t>(length));
        at += static_cast<size_t>(length);
        return bytes;
    }
};

/// One charstring as stored (encrypted) and decrypted (without its lenIV bytes).
struct Charstring {
    std::string name;  // a glyph's; empty for a Subrs entry
    long index = -1;   // a Subrs entry's
    std::string_view stored;
    std::string plain;
    std::string lead;  // the decrypted lenIV bytes
    std::string rd, end;
};

/// A number in a charstring: where it is, and what it was used for.
struct Literal {
    size_t charstring, offset, length;
    long value;
    bool index = false, data = false;
};

struct Operand {
    long value = 0;
    long literal = -1;  // which Literal pushed it, -1 when computed or unknown
};

}  // namespace

struct Type1Font::Parts {
    std::string clear, lead, privatePlain, trailer;
    long lenIV = 4;
    /// Where the private part ends: just after "closefile" and its delimiter, in privatePlain.
    size_t privateEnd = 0;
    /// Spans of privatePlain: the Subrs count and entries, the CharStrings count and entries.
    size_t subrsCount = 0, subrsCountEnd = 0, subrsFirst = 0, subrsEnd = 0;
    size_t glyphsCount = 0, glyphsCountEnd = 0, glyphsFirst = 0, glyphsEnd = 0;
    bool hasSubrs = false;
    long subrTotal = 0;
    std::vector<Charstring> charstrings;  // the Subrs entries, then the glyphs
    std::map<long, size_t> subrs;
    std::map<std::string, size_t> glyphs;
    std::array<std::string, 256> builtin;
};

Type1Font::Type1Font() = default;
Type1Font::~Type1Font() = default;

namespace {

/// A glyph name of StandardEncoding, as seac names its base and accent.
std::string standardName(long code) {
    if (code < 0 || code > 255 || !pdfencodings::standard[code]) return "";
    return pdfencodings::standard[code];
}

/// The font's own /Encoding: StandardEncoding, or `dup code /name put` entries.
void readBuiltinEncoding(std::string_view clear, std::array<std::string, 256> &names) {
    size_t const at = clear.find("/Encoding");
    if (at == std::string_view::npos) return;
    Scanner scanner{clear, at + 9};
    std::string_view first = scanner.token();
    if (first == "StandardEncoding") {
        for (int code = 0; code < 256; code++) names[code] = standardName(code);
        return;
    }
    // "256 array 0 1 255 {1 index exch /.notdef put} for", then the entries, then "readonly def" or "def".
    for (int guard = 0; guard < 100000; guard++) {
        std::string_view const word = scanner.token();
        if (word.empty() || word == "def") return;
        if (word != "dup") continue;
        size_t const back = scanner.at;
        std::optional<long> code = scanner.integer();
        std::string_view const name = scanner.token();
        if (!code || *code > 255 || name.size() < 2 || name[0] != '/') {
            scanner.at = back;
            continue;
        }
        names[*code] = std::string(name.substr(1));
    }
}

}  // namespace

bool Type1Font::read(std::string const &data, long long length1, long long length2) {
    auto parts = std::make_unique<Parts>();
    if (length1 <= 0 || length2 <= 4 || length1 > static_cast<long long>(data.size()) ||
        length2 > static_cast<long long>(data.size()) - length1) {
        return false;
    }
    // The clear part ends with "eexec" and white space: the encrypted part must start where /Length1 says.
    std::string_view const clear(data.data(), static_cast<size_t>(length1));
    size_t end = clear.size();
    while (end > 0 && isSpace(clear[end - 1])) end--;
    if (end == clear.size() || end < 5 || clear.substr(end - 5, 5) != "eexec") return false;
    parts->clear = std::string(clear);
    std::string encrypted = data.substr(static_cast<size_t>(length1), static_cast<size_t>(length2));
    parts->trailer = data.substr(static_cast<size_t>(length1 + length2));
    // The encrypted part in hexadecimal (as in a .pfa): read as binary, written as binary.
    bool const hexadecimal = startsHexadecimal(encrypted);
    bool hexadecimalWhole = true;  // every byte of /Length2 read: hexadecimal digits and white space only
    if (hexadecimal) {
        std::string binary;
        int high = -1;
        for (char c : encrypted) {
            if (isSpace(c)) continue;
            if (!std::isxdigit(static_cast<unsigned char>(c))) {
                hexadecimalWhole = false;
                break;
            }
            int const digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
            if (high < 0) {
                high = digit;
            } else {
                binary.push_back(static_cast<char>(high * 16 + digit));
                high = -1;
            }
        }
        if (high >= 0) hexadecimalWhole = false;
        encrypted = binary;
        if (encrypted.size() <= 4) return false;
    }
    std::string const plain = decrypt(encrypted, eexecKey);
    parts->lead = plain.substr(0, 4);
    // Written as binary, the encrypted part must not start with four hexadecimal digits (an interpreter would
    // read it as hexadecimal): a hexadecimal one's first byte is chosen anew where it would.
    for (int first = 0; first < 256 && startsHexadecimal(encrypted); first++) {
        parts->lead[0] = static_cast<char>(first);
        encrypted.replace(0, 4, encrypt(parts->lead, eexecKey));
    }
    parts->privatePlain = plain.substr(4);
    std::string_view const text = parts->privatePlain;

    // Where the Subrs and the CharStrings start (what follows is binary, where any bytes may appear).
    size_t charStringsAt = text.find("/CharStrings");
    if (charStringsAt == std::string_view::npos) return false;
    size_t const subrsAt = text.substr(0, charStringsAt).find("/Subrs");
    if (size_t const at = text.substr(0, std::min(subrsAt, charStringsAt)).find("/lenIV"); at != std::string_view::npos) {
        Scanner scanner{text, at + 6};
        std::string_view const word = scanner.token();
        if (word == "-1") {
            parts->lenIV = -1;
        } else {
            Scanner again{text, at + 6};
            std::optional<long> value = again.integer();
            if (!value || *value > 64) return false;
            parts->lenIV = *value;
        }
    }
    auto charstring = [&](std::string_view stored, Charstring &entry) {
        entry.stored = stored;
        if (parts->lenIV < 0) {
            entry.plain = std::string(stored);
            return true;
        }
        if (stored.size() < static_cast<size_t>(parts->lenIV)) return false;
        std::string const all = decrypt(stored, charstringKey);
        entry.lead = all.substr(0, static_cast<size_t>(parts->lenIV));
        entry.plain = all.substr(static_cast<size_t>(parts->lenIV));
        return true;
    };
    if (subrsAt != std::string_view::npos) {
        // "/Subrs N array", then "dup i n RD <n bytes> NP" N times (NP may be "noaccess put").
        Scanner scanner{text, subrsAt + 6};
        scanner.skip();
        parts->subrsCount = scanner.at;
        std::optional<long> count = scanner.integer();
        parts->subrsCountEnd = scanner.at;
        if (!count || scanner.token() != "array") return false;
        parts->hasSubrs = true;
        parts->subrTotal = *count;
        scanner.skip();
        parts->subrsFirst = scanner.at;
        for (;;) {
            size_t const before = scanner.at;
            if (scanner.token() != "dup") {
                scanner.at = before;
                break;
            }
            std::optional<long> index = scanner.integer(), length = scanner.integer();
            std::string_view const rd = scanner.token();
            if (!index || !length || *index >= *count || rd.empty() || parts->subrs.count(*index)) return false;
            std::optional<std::string_view> bytes = scanner.binary(*length);
            if (!bytes) return false;
            Charstring entry;
            entry.index = *index;
            entry.rd = std::string(rd);
            size_t const close = scanner.at;
            std::string_view const np = scanner.token();
            if (np == "noaccess") {
                if (scanner.token() != "put") return false;
            } else if (np != "NP" && np != "|") {
                return false;
            }
            scanner.skip();
            entry.end = std::string(text.substr(close, scanner.at - close));
            if (!charstring(*bytes, entry)) return false;
            parts->subrs[*index] = parts->charstrings.size();
            parts->charstrings.push_back(std::move(entry));
            parts->subrsEnd = scanner.at;
        }
        if (parts->subrs.empty()) parts->subrsEnd = parts->subrsFirst;
        charStringsAt = text.find("/CharStrings", parts->subrsEnd);
        if (charStringsAt == std::string_view::npos) return false;
        // Between the Subrs and the CharStrings: a /lenIV here (only the one before the Subrs was read) would
        // change how every charstring decrypts, and RD or -| an entry the loop above did not take.
        std::string_view const between = text.substr(parts->subrsEnd, charStringsAt - parts->subrsEnd);
        for (char const *unread : {"/lenIV", "RD", "-|"}) {
            if (between.find(unread) != std::string_view::npos) return false;
        }
    }
    // "/CharStrings N dict dup begin", then "/name n RD <n bytes> ND" (ND may be "noaccess def"), then "end".
    Scanner scanner{text, charStringsAt + 12};
    scanner.skip();
    parts->glyphsCount = scanner.at;
    if (!scanner.integer()) return false;
    parts->glyphsCountEnd = scanner.at;
    if (scanner.token() != "dict") return false;
    // Up to the first name: "dup begin" and the like.
    for (int guard = 0; guard < 8; guard++) {
        scanner.skip();
        if (scanner.at < text.size() && text[scanner.at] == '/') break;
        if (scanner.token().empty()) return false;
    }
    parts->glyphsFirst = scanner.at;
    for (;;) {
        scanner.skip();
        if (scanner.at >= text.size() || text[scanner.at] != '/') break;
        std::string_view const name = scanner.token();
        std::optional<long> length = scanner.integer();
        std::string_view const rd = scanner.token();
        if (name.size() < 2 || !length || rd.empty()) return false;
        std::optional<std::string_view> bytes = scanner.binary(*length);
        if (!bytes) return false;
        Charstring entry;
        entry.name = std::string(name.substr(1));
        entry.rd = std::string(rd);
        size_t const close = scanner.at;
        std::string_view const nd = scanner.token();
        if (nd == "noaccess") {
            if (scanner.token() != "def") return false;
        } else if (nd != "ND" && nd != "|-") {
            return false;
        }
        scanner.skip();
        entry.end = std::string(text.substr(close, scanner.at - close));
        if (!charstring(*bytes, entry)) return false;
        if (!parts->glyphs.emplace(entry.name, parts->charstrings.size()).second) return false;
        parts->charstrings.push_back(std::move(entry));
        parts->glyphsEnd = scanner.at;
    }
    // The CharStrings dictionary ends here, or an entry the loop did not take would be cut with what follows.
    if (scanner.token() != "end") return false;
    if (parts->glyphs.empty() || !parts->glyphs.count(".notdef")) return false;
    // eexec decrypts up to closefile, whatever /Length2 says: a /Length2 that takes in the "0000…cleartomark"
    // trailer (/Length3 0) or stops short of the end must not have the trailer re-encrypted, or old ciphertext
    // left after new. The private part ends just after closefile and the white space that ends the token (what
    // an interpreter decrypts, with the key of the new ciphertext); what followed in the encrypted part is
    // read as it stands, so in binary it goes before the trailer unchanged. Without either, it stays whole.
    size_t const closefile = text.find("closefile", parts->glyphsEnd);
    if (closefile == std::string_view::npos) return false;
    size_t const cut = closefile + 9 + 1;
    if (cut > text.size() || !isSpace(text[cut - 1])) return false;
    if (hexadecimal) {
        // Written as binary, what followed in hexadecimal could not be kept: only white space may.
        if (!hexadecimalWhole || !std::all_of(text.begin() + cut, text.end(), isSpace)) return false;
    } else {
        parts->trailer.insert(0, encrypted, 4 + cut);  // privatePlain[i] is encrypted[4 + i]
    }
    parts->privateEnd = cut;
    readBuiltinEncoding(parts->clear, parts->builtin);
    this->parts = std::move(parts);
    return true;
}

size_t Type1Font::glyphCount() const { return parts ? parts->glyphs.size() : 0; }

long Type1Font::glyph(std::string const &name) const {
    if (!parts) return -1;
    auto const found = parts->glyphs.find(name);
    return found == parts->glyphs.end() ? -1 : static_cast<long>(found->second);
}

std::string const &Type1Font::encoded(unsigned code) const {
    static std::string const none;
    return parts && code < 256 ? parts->builtin[code] : none;
}

namespace {

/// Runs the charstrings a subset keeps, recording the Subrs entries called and the numbers that call them.
class Interpreter {
  public:
    Interpreter(std::vector<Charstring> const &charstrings, std::map<long, size_t> const &subrs)
        : charstrings(charstrings), subrs(subrs) {}

    std::vector<Literal> literals;
    std::map<std::pair<size_t, size_t>, size_t> literalAt;
    std::set<long> called;
    std::vector<std::string> accents;

    /// Runs a charstring from an empty stack; false when a call cannot be followed.
    bool run(size_t charstring) {
        // The step cap counts for one glyph (or Subrs entry) run from the top: shared by the whole font, a
        // large font's many glyphs would exceed it together. The total cap still keeps any input quick.
        total += steps;
        steps = 0;
        if (total > 32'000'000) return false;
        stack.clear();
        transient.clear();
        ended = false;
        return execute(charstring, 0);
    }

  private:
    std::vector<Charstring> const &charstrings;
    std::map<long, size_t> const &subrs;
    std::vector<Operand> stack, transient;
    bool ended = false;
    long steps = 0, total = 0;

    Operand pop() {
        if (stack.empty()) return {};
        Operand top = stack.back();
        stack.pop_back();
        return top;
    }

    void consume(Operand const &operand) {
        if (operand.literal >= 0) literals[static_cast<size_t>(operand.literal)].data = true;
    }

    void clear() {
        for (auto const &operand : stack) consume(operand);
        stack.clear();
    }

    bool execute(size_t id, int depth) {
        // Subrs may nest 10 deep (the specification's limit); the step cap keeps any input quick.
        if (depth > 10) return false;
        std::string const &code = charstrings[id].plain;
        size_t at = 0;
        while (at < code.size() && !ended) {
            if (++steps > 2'000'000) return false;
            size_t const start = at;
            unsigned const v = static_cast<unsigned char>(code[at++]);
            if (v >= 32) {
                long value;
                if (v <= 246) {
                    value = static_cast<long>(v) - 139;
                } else if (v <= 254) {
                    if (at >= code.size()) return false;
                    long const w = static_cast<unsigned char>(code[at++]);
                    value = v <= 250 ? (static_cast<long>(v) - 247) * 256 + w + 108 : -(static_cast<long>(v) - 251) * 256 - w - 108;
                } else {
                    if (at + 4 > code.size()) return false;
                    uint32_t raw = 0;
                    for (int i = 0; i < 4; i++) raw = (raw << 8) | static_cast<unsigned char>(code[at++]);
                    value = static_cast<int32_t>(raw);
                }
                auto [entry, added] = literalAt.try_emplace({id, start}, literals.size());
                if (added) literals.push_back({id, start, at - start, value});
                stack.push_back({value, static_cast<long>(entry->second)});
                continue;
            }
            if (v == 10) {  // callsubr
                Operand const number = pop();
                if (number.literal < 0) return false;
                literals[static_cast<size_t>(number.literal)].index = true;
                auto const subr = subrs.find(number.value);
                if (subr == subrs.end()) return false;
                called.insert(number.value);
                if (!execute(subr->second, depth + 1)) return false;
                continue;
            }
            if (v == 11) return true;  // return
            if (v == 14) {             // endchar
                clear();
                ended = true;
                return true;
            }
            if (v != 12) {
                clear();
                continue;
            }
            if (at >= code.size()) return false;
            unsigned const escape = static_cast<unsigned char>(code[at++]);
            if (escape == 6) {  // seac: asb adx ady bchar achar
                Operand const accent = pop(), base = pop();
                accents.push_back(standardName(base.value));
                accents.push_back(standardName(accent.value));
                consume(accent);
                consume(base);
                clear();
                ended = true;
                return true;
            } else if (escape == 12) {  // div
                consume(pop());
                consume(pop());
                stack.push_back({});
            } else if (escape == 16) {  // callothersubr: args n othersubr#
                Operand const othersubr = pop(), count = pop();
                consume(othersubr);
                consume(count);
                transient.clear();
                for (long i = 0; i < count.value && i < 64; i++) {
                    Operand argument = pop();
                    // Hint replacement ("subr# 1 3 callothersubr pop callsubr") hands its argument back; the
                    // others hand back what they computed.
                    if (othersubr.value != 3 || count.value != 1) {
                        consume(argument);
                        argument = {};
                    }
                    transient.push_back(argument);
                }
            } else if (escape == 17) {  // pop
                if (transient.empty()) {
                    stack.push_back({});
                } else {
                    stack.push_back(transient.front());
                    transient.erase(transient.begin());
                }
            } else {
                clear();
            }
        }
        return true;
    }
};

void appendNumber(std::string &out, long value) {
    if (value >= -107 && value <= 107) {
        out.push_back(static_cast<char>(value + 139));
    } else if (value >= 108 && value <= 1131) {
        out.push_back(static_cast<char>(((value - 108) >> 8) + 247));
        out.push_back(static_cast<char>((value - 108) & 0xff));
    } else if (value <= -108 && value >= -1131) {
        out.push_back(static_cast<char>(((-value - 108) >> 8) + 251));
        out.push_back(static_cast<char>((-value - 108) & 0xff));
    } else {
        out.push_back(static_cast<char>(255));
        for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((static_cast<uint32_t>(value) >> shift) & 0xff));
    }
}

/// The clear part without its `/UniqueID n def` and `/XUID [n …] def` (either may end "readonly def"): an
/// interpreter may take a font it has cached under the same UniqueID for this subset, as pdfTeX's subsets
/// know. Any other use of the names (`/UniqueID known`, `/UniqueID get`) is left as it is.
std::string withoutUniqueIDs(std::string clear) {
    for (std::string_view const key : {"/UniqueID", "/XUID"}) {
        size_t from = 0;
        while ((from = clear.find(key, from)) != std::string::npos) {
            Scanner scanner{clear, from + key.size()};
            bool value = false;
            if (key == "/UniqueID") {
                value = scanner.integer().has_value();
            } else if (scanner.token() == "[") {
                for (int guard = 0; guard < 64 && !value; guard++) {
                    size_t const back = scanner.at;
                    if (scanner.token() == "]") {
                        value = true;
                    } else {
                        scanner.at = back;
                        if (!scanner.integer()) break;
                    }
                }
            }
            std::string_view word = value ? scanner.token() : std::string_view();
            if (word == "readonly") word = scanner.token();
            if (word == "def") {
                clear.erase(from, scanner.at - from);
            } else {
                from += key.size();
            }
        }
    }
    return clear;
}

}  // namespace

std::string Type1Font::subset(std::set<unsigned> const &wanted, std::array<size_t, 3> &lengths) const {
    if (!parts) return "";
    Parts const &p = *parts;
    // The glyphs kept: .notdef, those asked for, and the parts of seac accents.
    std::set<size_t> kept;
    std::vector<size_t> pending{p.glyphs.at(".notdef")};
    for (unsigned id : wanted) {
        if (id < p.charstrings.size() && p.charstrings[id].index < 0) pending.push_back(id);
    }
    Interpreter interpreter(p.charstrings, p.subrs);
    while (!pending.empty()) {
        size_t const id = pending.back();
        pending.pop_back();
        if (!kept.insert(id).second) continue;
        interpreter.accents.clear();
        if (!interpreter.run(id)) return "";
        for (auto const &name : interpreter.accents) {
            auto const found = p.glyphs.find(name);
            if (found == p.glyphs.end()) return "";
            pending.push_back(found->second);
        }
    }
    // Subrs 0 to 3 stay where they are, whatever calls them: flex and hint replacement name them by number.
    std::map<long, long> renumbered;
    for (long index = 0; index < std::min(p.subrTotal, 4L); index++) {
        renumbered[index] = index;
        if (auto const subr = p.subrs.find(index); subr != p.subrs.end()) {
            if (!interpreter.run(subr->second)) return "";
        }
    }
    for (long index : interpreter.called) {
        long const next = static_cast<long>(renumbered.size());
        if (!renumbered.count(index)) renumbered[index] = next;
    }
    // The numbers that name a Subrs entry, rewritten where they are; one that is also a coordinate (no
    // real font has one) cannot be.
    std::map<size_t, std::vector<Literal const *>> rewrites;
    for (auto const &literal : interpreter.literals) {
        if (!literal.index) continue;
        if (literal.data) return "";
        rewrites[literal.charstring].push_back(&literal);
    }
    auto stored = [&](size_t id) -> std::string {
        Charstring const &entry = p.charstrings[id];
        auto const changes = rewrites.find(id);
        if (changes == rewrites.end()) return std::string(entry.stored);
        std::vector<Literal const *> sorted = changes->second;
        std::sort(sorted.begin(), sorted.end(), [](auto a, auto b) { return a->offset < b->offset; });
        std::string plain;
        size_t at = 0;
        for (auto const *literal : sorted) {
            plain.append(entry.plain, at, literal->offset - at);
            appendNumber(plain, renumbered.at(literal->value));
            at = literal->offset + literal->length;
        }
        plain.append(entry.plain, at, std::string::npos);
        return p.lenIV < 0 ? plain : encrypt(entry.lead + plain, charstringKey);
    };

    std::string text = p.privatePlain.substr(0, p.hasSubrs ? p.subrsCount : p.glyphsCount);
    if (p.hasSubrs) {
        text += std::to_string(renumbered.size());
        text.append(p.privatePlain, p.subrsCountEnd, p.subrsFirst - p.subrsCountEnd);
        std::map<long, long> order;  // new number → old
        for (auto const &[old, now] : renumbered) order[now] = old;
        for (auto const &[now, old] : order) {
            auto const subr = p.subrs.find(old);
            if (subr == p.subrs.end()) continue;
            Charstring const &entry = p.charstrings[subr->second];
            std::string const bytes = stored(subr->second);
            text += "dup " + std::to_string(now) + " " + std::to_string(bytes.size()) + " " + entry.rd + " " + bytes +
                    entry.end;
        }
        text.append(p.privatePlain, p.subrsEnd, p.glyphsCount - p.subrsEnd);
    }
    text += std::to_string(kept.size());
    text.append(p.privatePlain, p.glyphsCountEnd, p.glyphsFirst - p.glyphsCountEnd);
    for (size_t id : kept) {
        Charstring const &entry = p.charstrings[id];
        std::string const bytes = stored(id);
        text += "/" + entry.name + " " + std::to_string(bytes.size()) + " " + entry.rd + " " + bytes + entry.end;
    }
    text.append(p.privatePlain, p.glyphsEnd, p.privateEnd - p.glyphsEnd);
    std::string const encrypted = encrypt(p.lead + text, eexecKey);
    std::string const clear = withoutUniqueIDs(p.clear);
    lengths = {clear.size(), encrypted.size(), p.trailer.size()};
    return clear + encrypted + p.trailer;
}
