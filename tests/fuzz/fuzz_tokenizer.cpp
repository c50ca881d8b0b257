/** Tokenizer and UTF-8 codec: no input crashes them, and their documented promises hold. */

#include "fuzzcheck.h"

#include "core/text/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);

    // decode never drops a byte without a trace, and its output re-encodes to valid UTF-8
    const std::u32string decoded = core::decodeUtf8(bytes);
    FUZZ_CHECK(decoded.size() <= bytes.size(), "%zu code points from %zu bytes", decoded.size(), bytes.size());
    const std::string encoded = core::encodeUtf8(decoded);
    FUZZ_CHECK(core::decodeUtf8(encoded) == decoded, "decode(encode(decode(b))) != decode(b)");
    FUZZ_CHECK(core::encodeUtf8(core::decodeUtf8(encoded)) == encoded, "encode/decode not stable on valid UTF-8");
    if (decoded.find(U'\uFFFD') == std::u32string::npos)
        FUZZ_CHECK(encoded == bytes, "valid UTF-8 changed in a round trip");

    // arbitrary code points: encode replaces surrogates and values past U+10FFFF by U+FFFD, nothing else
    std::u32string points(size / 4, U'\0');
    if (!points.empty())
        std::memcpy(points.data(), data, points.size() * 4);
    const std::u32string back = core::decodeUtf8(core::encodeUtf8(points));
    FUZZ_CHECK(back.size() == points.size(), "%zu code points became %zu", points.size(), back.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        const char32_t c = points[i];
        const bool valid = c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
        FUZZ_CHECK(back[i] == (valid ? c : U'\uFFFD'), "U+%X became U+%X", unsigned(c), unsigned(back[i]));
    }

    // tokens: non-empty, valid UTF-8, no whitespace; together they are the text without its whitespace
    const auto tokens = core::tokenize(bytes);
    std::u32string joined, expected;
    std::string spaced;
    for (const auto& token : tokens) {
        FUZZ_CHECK(!token.empty(), "an empty token");
        const std::u32string t = core::decodeUtf8(token);
        FUZZ_CHECK(core::encodeUtf8(t) == token, "a token is not valid UTF-8");
        for (char32_t c : t)
            FUZZ_CHECK(!core::isSpace(c), "a token holds whitespace U+%X", unsigned(c));
        joined += t;
        spaced += token + ' ';
    }
    for (char32_t c : decoded)
        if (!core::isSpace(c))
            expected.push_back(c);
    FUZZ_CHECK(joined == expected, "the tokens are not the text without its whitespace");

    // the tokens typed back with spaces between them give the same tokens
    FUZZ_CHECK(core::tokenize(spaced) == tokens, "re-tokenizing the tokens changes them");
    return 0;
}
