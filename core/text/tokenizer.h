#pragma once
/** Typed text → tokens.
 *  Whitespace separates tokens and is dropped. Every punctuation mark is a token of its own.
 *  Every CJK ideograph, kana or CJK punctuation mark is a token of its own.
 *  An apostrophe or hyphen between two letters stays inside the word ("didn't", "self-attention").
 *  Invalid UTF-8 bytes are replaced by U+FFFD. */

#include "core/formats/utf8.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

std::vector<std::string> tokenize(std::string_view utf8Text);


bool isCjk(char32_t c);
bool isPunctuation(char32_t c);
bool isSpace(char32_t c);

}  // namespace core
