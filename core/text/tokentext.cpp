#include "core/text/tokentext.h"

#include "core/text/bpe.h"

#include <cstdint>
#include <unordered_map>

namespace core {

namespace {

/** The length of the complete UTF-8 character at the start of s, or 0 when it is not one (a lone
 *  continuation byte, a cut sequence, an overlong form, a surrogate or a value past U+10FFFF). */
std::size_t utf8Length(std::string_view s)
{
    const auto b = [&](std::size_t i) { return std::uint8_t(s[i]); };
    const std::uint8_t lead = b(0);
    if (lead < 0x80)
        return 1;
    std::size_t length = 0;
    std::uint32_t code = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2;
        code = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3;
        code = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4;
        code = lead & 0x07;
    } else {
        return 0;
    }
    if (s.size() < length)
        return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((b(i) & 0xC0) != 0x80)
            return 0;
        code = (code << 6) | (b(i) & 0x3F);
    }
    constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
        return 0;
    return length;
}

} // namespace

std::optional<std::string> tokenBytes(std::string_view vocabToken)
{
    static const std::unordered_map<std::string, char> byteOf = [] {
        std::unordered_map<std::string, char> map;
        const auto& table = Bpe::bytesToUnicode();
        for (std::size_t b = 0; b < table.size(); ++b)
            map.emplace(table[b], char(b));
        return map;
    }();
    std::string out;
    std::size_t i = 0;
    while (i < vocabToken.size()) {
        const std::size_t length = utf8Length(vocabToken.substr(i));
        if (length == 0)
            return std::nullopt;
        const auto it = byteOf.find(std::string(vocabToken.substr(i, length)));
        if (it == byteOf.end())
            return std::nullopt;
        out += it->second;
        i += length;
    }
    return out;
}

std::string readableToken(std::string_view vocabToken)
{
    const auto bytes = tokenBytes(vocabToken);
    return bytes ? readableBytes(*bytes) : std::string(vocabToken);
}

std::string readableBytes(std::string_view s)
{
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    bool inBytes = false; // an open "<…" of raw bytes
    auto closeBytes = [&] {
        if (inBytes)
            out += '>';
        inBytes = false;
    };
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = std::uint8_t(s[i]);
        const std::size_t length = utf8Length(s.substr(i));
        if (length == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
            out += inBytes ? " " : "<";
            inBytes = true;
            out += hex[c >> 4];
            out += hex[c & 0xF];
            ++i;
            continue;
        }
        closeBytes();
        if (c == ' ')
            out += "\u2423"; // ␣
        else if (c == '\n')
            out += "\u21B5"; // ↵
        else if (c == '\t')
            out += "\u21E5"; // ⇥
        else
            out.append(s.substr(i, length));
        i += length;
    }
    closeBytes();
    return out;
}

} // namespace core
