#include "core/formats/jsontext.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace core {

namespace {

/** nlohmann::json's layout of a double: fixed notation for a decimal point from 10^-4 up to 10^15, else an
 *  exponent (its dtoa_impl::format_buffer, kMinExp −4 and kMaxExp 15). */
constexpr int fixedFromExponent = -4;
constexpr int fixedToDigits = 15;

/** jsonNumber's text into out (at least 32 chars); returns its end. */
char* writeNumber(char* out, double v)
{
    if (!std::isfinite(v)) {
        std::memcpy(out, "null", 4);
        return out + 4;
    }
    if (std::signbit(v)) {
        *out++ = '-';
        v = -v;
    }
    if (v == 0) {
        std::memcpy(out, "0.0", 3);
        return out + 3;
    }
    // The shortest digits that read back to v, as d.ddde±x: GCC's std::to_chars (Ryu), never the locale.
    char sci[32];
    const auto result = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
    const char* e = std::find(sci, result.ptr, 'e');
    char digits[20];
    int k = 0; // the number of significant digits
    for (const char* c = sci; c != e; ++c)
        if (*c != '.')
            digits[k++] = *c;
    int exponent = 0;
    std::from_chars(e + 1 + (e[1] == '+'), result.ptr, exponent);
    const int n = exponent + 1; // where the decimal point stands, counted from the first digit

    if (k <= n && n <= fixedToDigits) { // digits[000].0
        std::memcpy(out, digits, std::size_t(k));
        std::memset(out + k, '0', std::size_t(n - k));
        std::memcpy(out + n, ".0", 2);
        return out + n + 2;
    }
    if (0 < n && n <= fixedToDigits) { // dig.its
        std::memcpy(out, digits, std::size_t(n));
        out[n] = '.';
        std::memcpy(out + n + 1, digits + n, std::size_t(k - n));
        return out + k + 1;
    }
    if (fixedFromExponent < n && n <= 0) { // 0.[000]digits
        std::memcpy(out, "0.", 2);
        std::memset(out + 2, '0', std::size_t(-n));
        std::memcpy(out + 2 - n, digits, std::size_t(k));
        return out + 2 - n + k;
    }
    *out++ = digits[0]; // d[.igits]e±xx
    if (k > 1) {
        *out++ = '.';
        std::memcpy(out, digits + 1, std::size_t(k - 1));
        out += k - 1;
    }
    *out++ = 'e';
    *out++ = exponent < 0 ? '-' : '+';
    const int magnitude = std::abs(exponent);
    if (magnitude < 10)
        *out++ = '0';
    return std::to_chars(out, out + 4, magnitude).ptr;
}

/** A string as nlohmann writes it: quoted, escaped, UTF-8 kept, invalid bytes replaced. */
template <typename Json>
std::string quoted(const Json& string)
{
    return string.dump(-1, ' ', false, Json::error_handler_t::replace);
}

constexpr std::size_t flushBytes = std::size_t(1) << 16;

} // namespace

std::string jsonNumber(double v)
{
    char buf[32];
    return std::string(buf, writeNumber(buf, v));
}

JsonWriter::JsonWriter(TextSink sink, int indent)
    : m_sink(std::move(sink))
    , m_indent(indent)
{
}

void JsonWriter::put(std::string_view text)
{
    m_buffer.append(text);
}

void JsonWriter::flushIfFull()
{
    if (m_buffer.size() >= flushBytes)
        finish();
}

bool JsonWriter::finish()
{
    if (!m_failed && !m_buffer.empty() && !m_sink(m_buffer))
        m_failed = true;
    m_buffer.clear();
    return !m_failed;
}

void JsonWriter::newline(std::size_t depth)
{
    if (m_indent < 0)
        return;
    m_buffer += '\n';
    m_buffer.append(depth * std::size_t(m_indent), ' ');
}

void JsonWriter::beforeValue()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (m_levels.empty())
        return;
    if (!m_levels.back().empty)
        m_buffer += ',';
    m_levels.back().empty = false;
    newline(m_levels.size());
}

void JsonWriter::key(std::string_view name)
{
    beforeValue();
    put(quoted(nlohmann::json(std::string(name))));
    put(m_indent < 0 ? ":" : ": ");
    m_afterKey = true;
}

void JsonWriter::beginObject()
{
    beforeValue();
    m_buffer += '{';
    m_levels.push_back({});
}

void JsonWriter::beginArray()
{
    beforeValue();
    m_buffer += '[';
    m_levels.push_back({});
}

void JsonWriter::close(char bracket)
{
    const bool empty = m_levels.back().empty;
    m_levels.pop_back();
    if (!empty)
        newline(m_levels.size());
    m_buffer += bracket;
    flushIfFull();
}

void JsonWriter::endObject()
{
    close('}');
}

void JsonWriter::endArray()
{
    close(']');
}

void JsonWriter::number(double v)
{
    beforeValue();
    char buf[32];
    m_buffer.append(buf, writeNumber(buf, v));
}

void JsonWriter::matrix(const MatrixCRef& m)
{
    beginArray();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        beginArray();
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            number(m(r, c));
        endArray();
    }
    endArray();
}

template <typename Json>
void JsonWriter::write(const Json& j)
{
    switch (j.type()) {
    case Json::value_t::object:
        beginObject();
        for (auto it = j.begin(); it != j.end(); ++it) {
            key(it.key());
            write(it.value());
        }
        endObject();
        return;
    case Json::value_t::array:
        beginArray();
        for (const Json& element : j)
            write(element);
        endArray();
        return;
    case Json::value_t::number_float:
        number(j.template get<double>());
        return;
    case Json::value_t::string:
        beforeValue();
        put(quoted(j));
        return;
    default: // null, true, false, whole numbers, binary: as nlohmann writes them
        beforeValue();
        put(j.dump(-1, ' ', false, Json::error_handler_t::replace));
        return;
    }
}

void JsonWriter::value(const nlohmann::json& j)
{
    write(j);
}

void JsonWriter::value(const nlohmann::ordered_json& j)
{
    write(j);
}

std::string writtenText(const std::function<void(JsonWriter&)>& write, int indent)
{
    std::string text;
    JsonWriter writer(
        [&text](std::string_view piece) {
            text.append(piece);
            return true;
        },
        indent);
    write(writer);
    writer.finish();
    return text;
}

std::string jsonText(const nlohmann::json& j, int indent)
{
    return writtenText([&j](JsonWriter& writer) { writer.value(j); }, indent);
}

std::string jsonText(const nlohmann::ordered_json& j, int indent)
{
    return writtenText([&j](JsonWriter& writer) { writer.value(j); }, indent);
}

} // namespace core
