#pragma once
/** Typed text → tokens.
 *  Whitespace separates tokens and is dropped. Every punctuation mark is a token of its own.
 *  Every CJK ideograph, kana or CJK punctuation mark is a token of its own.
 *  An apostrophe or hyphen between two letters stays inside the word ("didn't", "self-attention").
 *  Invalid UTF-8 bytes are replaced by U+FFFD. */

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

std::vector<std::string> tokenize(std::string_view utf8Text);

/** Decodes UTF-8 into code points; an invalid byte becomes U+FFFD. */
std::u32string decodeUtf8(std::string_view text);
std::string encodeUtf8(std::u32string_view text);

/** The length (1 … 4) of the valid UTF-8 character at text[i], with its code point in c; 0 when the byte there
 *  starts none (a stray continuation byte, a cut sequence, an overlong form, a surrogate, past U+10FFFF). */
std::size_t utf8CharAt(std::string_view text, std::size_t i, char32_t& c);

/** The offset of the first byte of text that is not part of valid UTF-8, if any. */
std::optional<std::size_t> firstInvalidUtf8(std::string_view text);

bool isCjk(char32_t c);
bool isPunctuation(char32_t c);
bool isSpace(char32_t c);

}  // namespace core
