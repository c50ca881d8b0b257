#pragma once
/** UTF-8 decoded and encoded, strictly: what every reader of text checks its bytes with. */

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace core {

/** Decodes UTF-8 into code points; an invalid byte becomes U+FFFD. */
std::u32string decodeUtf8(std::string_view text);
std::string encodeUtf8(std::u32string_view text);

/** The length (1 … 4) of the valid UTF-8 character at text[i], with its code point in c; 0 when the byte there
 *  starts none (a stray continuation byte, a cut sequence, an overlong form, a surrogate, past U+10FFFF). */
std::size_t utf8CharAt(std::string_view text, std::size_t i, char32_t& c);

/** The offset of the first byte of text that is not part of valid UTF-8, if any. */
std::optional<std::size_t> firstInvalidUtf8(std::string_view text);

} // namespace core
