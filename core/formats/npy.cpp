#include "core/formats/npy.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace core {

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
constexpr std::size_t kMaxHeaderBytes = std::size_t(1) << 20;
constexpr std::size_t kAlign = 64;

/** A value of the header dict: a string, a boolean or a tuple of non-negative integers. */
struct HeaderValue {
    enum class Kind { String, Bool, Tuple } kind = Kind::String;
    std::string text;
    bool flag = false;
    std::vector<std::uint64_t> tuple;
};

struct HeaderEntry {
    std::string key;
    HeaderValue value;
};

/** A reader of the Python literal the header holds; every failure sets error and returns false. */
class HeaderParser {
public:
    HeaderParser(std::string_view text, std::string& error) : m_text(text), m_error(error) {}

    bool parseDict(std::vector<HeaderEntry>& entries)
    {
        skipSpace();
        if (!take('{'))
            return fail("the header is not a dict: it does not start with '{'");
        for (;;) {
            skipSpace();
            if (take('}'))
                break;
            HeaderEntry entry;
            if (!parseString(entry.key))
                return fail("the header is not a dict of quoted keys" + where());
            skipSpace();
            if (!take(':'))
                return fail("the header is not a dict: ':' expected after '" + entry.key + "'" + where());
            skipSpace();
            if (!parseValue(entry.value, entry.key))
                return false;
            entries.push_back(std::move(entry));
            skipSpace();
            if (take(','))
                continue;
            if (take('}'))
                break;
            return fail("the header is not a dict: ',' or '}' expected" + where());
        }
        skipSpace();
        if (m_pos != m_text.size())
            return fail("the header is not a dict: text after its closing '}'" + where());
        return true;
    }

private:
    bool fail(const std::string& message)
    {
        m_error = message;
        return false;
    }
    std::string where() const { return " (at header byte " + std::to_string(m_pos) + ")"; }
    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }
    bool take(char c)
    {
        if (peek() != c || atEnd())
            return false;
        ++m_pos;
        return true;
    }
    bool takeWord(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return false;
        m_pos += word.size();
        return true;
    }
    void skipSpace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++m_pos;
    }

    bool parseString(std::string& out)
    {
        const char quote = peek();
        if (quote != '\'' && quote != '"')
            return false;
        ++m_pos;
        while (!atEnd() && peek() != quote) {
            if (peek() == '\\' || peek() == '\n')
                return false;
            out += m_text[m_pos++];
        }
        return take(quote);
    }

    bool parseValue(HeaderValue& value, const std::string& key)
    {
        if (peek() == '\'' || peek() == '"') {
            value.kind = HeaderValue::Kind::String;
            if (!parseString(value.text))
                return fail("'" + key + "': unterminated string" + where());
            return true;
        }
        if (takeWord("True") || takeWord("False")) {
            value.kind = HeaderValue::Kind::Bool;
            value.flag = m_text.substr(0, m_pos).ends_with("True");
            return true;
        }
        if (take('(')) {
            value.kind = HeaderValue::Kind::Tuple;
            for (;;) {
                skipSpace();
                if (take(')'))
                    return true;
                std::uint64_t number = 0;
                if (!parseInteger(number, key))
                    return false;
                value.tuple.push_back(number);
                if (value.tuple.size() > 32)
                    return fail("'" + key + "': more than 32 dimensions");
                skipSpace();
                if (take(','))
                    continue;
                if (take(')'))
                    return true;
                return fail("'" + key + "': ',' or ')' expected in the tuple" + where());
            }
        }
        return fail("'" + key + "': expected a string, True, False or a tuple" + where());
    }

    bool parseInteger(std::uint64_t& number, const std::string& key)
    {
        if (peek() < '0' || peek() > '9')
            return fail("'" + key + "': expected a non-negative integer" + where());
        while (peek() >= '0' && peek() <= '9' && !atEnd()) {
            const unsigned digit = unsigned(peek() - '0');
            if (number > (std::uint64_t(1) << 60))
                return fail("'" + key + "': a dimension is absurdly large" + where());
            number = number * 10 + digit;
            ++m_pos;
        }
        take('L');  // Python 2 long literals, as old files have them
        return true;
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    std::string& m_error;
};

std::uint32_t readLittle(std::string_view bytes, std::size_t at, int width)
{
    std::uint32_t v = 0;
    for (int i = width - 1; i >= 0; --i)
        v = (v << 8) | static_cast<unsigned char>(bytes[at + std::size_t(i)]);
    return v;
}

bool parseDescr(const std::string& descr, NpyLayout& layout)
{
    if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '>') || descr[1] != 'f')
        return false;
    if (descr[2] != '8' && descr[2] != '4')
        return false;
    layout.bigEndian = descr[0] == '>';
    layout.dtype = descr[2] == '8' ? NpyDtype::Float64 : NpyDtype::Float32;
    return true;
}

/** Entry k of the raw data as a double. */
double entryAt(const char* data, std::size_t k, const NpyLayout& layout)
{
    const bool swap = layout.bigEndian != (std::endian::native == std::endian::big);
    if (layout.dtype == NpyDtype::Float64) {
        std::uint64_t bits;
        std::memcpy(&bits, data + k * 8, 8);
        if (swap)
            bits = __builtin_bswap64(bits);
        return std::bit_cast<double>(bits);
    }
    std::uint32_t bits;
    std::memcpy(&bits, data + k * 4, 4);
    if (swap)
        bits = __builtin_bswap32(bits);
    return double(std::bit_cast<float>(bits));
}

/** The nearest float; beyond the float range an infinity of the same sign, without undefined behaviour. */
float toFloat(double v)
{
    if (std::fabs(v) > double(std::numeric_limits<float>::max()))
        return v > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
    return float(v);
}

std::string describeNonFinite(double v)
{
    return std::isnan(v) ? "NaN" : (v > 0 ? "+infinity" : "-infinity");
}

}  // namespace

std::optional<NpyArray> decodeNpy(std::string_view bytes, std::string& error, bool allowNonFinite)
{
    if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
        error = "not an .npy file: bad magic (it must start with \\x93NUMPY)";
        return std::nullopt;
    }
    if (bytes.size() < 8) {
        error = "truncated .npy file: no version after the magic";
        return std::nullopt;
    }
    const int major = static_cast<unsigned char>(bytes[6]);
    const int minor = static_cast<unsigned char>(bytes[7]);
    if (major < 1 || major > 3 || minor != 0) {
        error = "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor)
            + " (1.0, 2.0 and 3.0 are read)";
        return std::nullopt;
    }
    const int lengthWidth = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + std::size_t(lengthWidth)) {
        error = "truncated .npy file: no header length";
        return std::nullopt;
    }
    const std::size_t headerLength = readLittle(bytes, 8, lengthWidth);
    const std::size_t headerStart = 8 + std::size_t(lengthWidth);
    if (headerLength > kMaxHeaderBytes) {
        error = "the .npy header is absurdly long (" + std::to_string(headerLength) + " bytes)";
        return std::nullopt;
    }
    if (bytes.size() - headerStart < headerLength) {
        error = "truncated .npy file: the header says it has " + std::to_string(headerLength) + " bytes, the file has "
            + std::to_string(bytes.size() - headerStart) + " after the header length";
        return std::nullopt;
    }
    const std::string_view header = bytes.substr(headerStart, headerLength);

    std::vector<HeaderEntry> entries;
    if (!HeaderParser(header, error).parseDict(entries))
        return std::nullopt;

    const HeaderValue* descr = nullptr;
    const HeaderValue* fortran = nullptr;
    const HeaderValue* shape = nullptr;
    for (const HeaderEntry& e : entries) {
        const HeaderValue** slot = e.key == "descr" ? &descr
            : e.key == "fortran_order"              ? &fortran
            : e.key == "shape"                      ? &shape
                                                    : nullptr;
        if (!slot) {
            error = "the header has an unexpected key '" + e.key + "' (only descr, fortran_order and shape belong there)";
            return std::nullopt;
        }
        if (*slot) {
            error = "the header has the key '" + e.key + "' twice";
            return std::nullopt;
        }
        *slot = &e.value;
    }
    for (const auto& [value, key] : {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"},
                                     std::pair{shape, "shape"}}) {
        if (!value) {
            error = std::string("the header is missing the key '") + key + "'";
            return std::nullopt;
        }
    }

    NpyArray array;
    if (descr->kind != HeaderValue::Kind::String || !parseDescr(descr->text, array.layout)) {
        error = "unsupported dtype " + (descr->kind == HeaderValue::Kind::String ? "'" + descr->text + "'" : "(not a string)")
            + ": only float64 and float32 ('<f8', '>f8', '<f4', '>f4') are read";
        return std::nullopt;
    }
    if (fortran->kind != HeaderValue::Kind::Bool) {
        error = "fortran_order must be True or False";
        return std::nullopt;
    }
    array.layout.fortranOrder = fortran->flag;
    if (shape->kind != HeaderValue::Kind::Tuple) {
        error = "shape must be a tuple of integers";
        return std::nullopt;
    }
    const std::vector<std::uint64_t>& dims = shape->tuple;
    if (dims.size() != 1 && dims.size() != 2) {
        error = "shape has " + std::to_string(dims.size()) + " dimensions; only 1-D or 2-D arrays are read";
        return std::nullopt;
    }
    array.dimensions = int(dims.size());
    const std::uint64_t rows = dims.size() == 2 ? dims[0] : 1;
    const std::uint64_t cols = dims.back();
    if (rows == 0 || cols == 0) {
        error = "the array is empty (shape has a 0)";
        return std::nullopt;
    }
    if (rows > maxNpyEntries || cols > maxNpyEntries || rows * cols > maxNpyEntries) {
        error = "the array is too large (" + std::to_string(rows) + " × " + std::to_string(cols) + "; at most "
            + std::to_string(maxNpyEntries) + " entries are read)";
        return std::nullopt;
    }

    const std::size_t count = std::size_t(rows * cols);
    const std::size_t itemSize = array.layout.dtype == NpyDtype::Float64 ? 8 : 4;
    const std::size_t dataStart = headerStart + headerLength;
    const std::size_t available = bytes.size() - dataStart;
    if (available != count * itemSize) {
        error = std::string("the data is ") + (available < count * itemSize ? "shorter" : "longer")
            + " than the shape says: " + std::to_string(count) + " entries need " + std::to_string(count * itemSize)
            + " bytes, the file has " + std::to_string(available);
        return std::nullopt;
    }

    array.values.resize(Eigen::Index(rows), Eigen::Index(cols));
    const char* data = bytes.data() + dataStart;
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t r = array.layout.fortranOrder ? k % rows : k / cols;
        const std::size_t c = array.layout.fortranOrder ? k / rows : k % cols;
        const double v = entryAt(data, k, array.layout);
        if (!allowNonFinite && !std::isfinite(v)) {
            error = "entry (" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ") is " + describeNonFinite(v)
                + "; a weight must be a finite number";
            return std::nullopt;
        }
        array.values(Eigen::Index(r), Eigen::Index(c)) = v;
    }
    return array;
}

std::string encodeNpy(const MatrixCRef& m, const NpyLayout& layout)
{
    const bool f64 = layout.dtype == NpyDtype::Float64;
    std::string dict = std::string("{'descr': '") + (layout.bigEndian ? '>' : '<') + (f64 ? "f8" : "f4")
        + "', 'fortran_order': " + (layout.fortranOrder ? "True" : "False") + ", 'shape': ("
        + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "), }";
    const std::size_t unpadded = kMagic.size() + 2 + 2 + dict.size() + 1;
    dict.append(kAlign - unpadded % kAlign, ' ');
    dict += '\n';

    std::string out;
    const std::size_t itemSize = f64 ? 8 : 4;
    out.reserve(10 + dict.size() + std::size_t(m.size()) * itemSize);
    out += kMagic;
    out += '\x01';
    out += '\x00';
    out += char(dict.size() & 0xff);
    out += char((dict.size() >> 8) & 0xff);
    out += dict;

    const bool swap = layout.bigEndian != (std::endian::native == std::endian::big);
    const Eigen::Index rows = m.rows(), cols = m.cols();
    const Eigen::Index outer = layout.fortranOrder ? cols : rows;
    const Eigen::Index inner = layout.fortranOrder ? rows : cols;
    for (Eigen::Index a = 0; a < outer; ++a) {
        for (Eigen::Index b = 0; b < inner; ++b) {
            const double v = layout.fortranOrder ? m(b, a) : m(a, b);
            char buf[8];
            if (f64) {
                std::uint64_t bits = std::bit_cast<std::uint64_t>(v);
                if (swap)
                    bits = __builtin_bswap64(bits);
                std::memcpy(buf, &bits, 8);
            } else {
                std::uint32_t bits = std::bit_cast<std::uint32_t>(toFloat(v));
                if (swap)
                    bits = __builtin_bswap32(bits);
                std::memcpy(buf, &bits, 4);
            }
            out.append(buf, itemSize);
        }
    }
    return out;
}

}  // namespace core
