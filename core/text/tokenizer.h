#pragma once
/** Typed text → tokens.
 *  Whitespace separates tokens and is dropped. Every punctuation mark is a token of its own.
 *  Every CJK ideograph, kana or CJK punctuation mark is a token of its own.
 *  An apostrophe or hyphen between two letters stays inside the word ("didn't", "self-attention").
 *  Invalid UTF-8 bytes are replaced by U+FFFD. */

#include <string>
#include <string_view>
#include <vector>

namespace core {

std::vector<std::string> tokenize(std::string_view utf8Text);

/** Decodes UTF-8 into code points; an invalid byte becomes U+FFFD. */
std::u32string decodeUtf8(std::string_view text);
std::string encodeUtf8(std::u32string_view text);

bool isCjk(char32_t c);
bool isPunctuation(char32_t c);
bool isSpace(char32_t c);

}  // namespace core
