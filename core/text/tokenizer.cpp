#include "core/text/tokenizer.h"

namespace core {


bool isSpace(char32_t c)
{
    return c == U' ' || (c >= U'\t' && c <= U'\r') || c == 0x85 || c == 0xA0 || c == 0x1680
        || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F
        || c == 0x3000 || c == 0xFEFF;
}

bool isCjk(char32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF)      // CJK Unified Ideographs
        || (c >= 0x3400 && c <= 0x4DBF)      // Extension A
        || (c >= 0x20000 && c <= 0x2FA1F)    // Extensions B–F, compatibility supplement
        || (c >= 0xF900 && c <= 0xFAFF)      // Compatibility Ideographs
        || (c >= 0x3040 && c <= 0x30FF)      // Hiragana, Katakana
        || (c >= 0x31F0 && c <= 0x31FF)      // Katakana phonetic extensions
        || (c >= 0x3100 && c <= 0x312F);     // Bopomofo
}

bool isPunctuation(char32_t c)
{
    if (c < 0x80)
        return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60)
            || (c >= 0x7B && c <= 0x7E);
    return (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9
            && c != 0xBA && c != 0xBC && c != 0xBD && c != 0xBE)
        || c == 0xD7 || c == 0xF7
        || (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E)  // General Punctuation
        || (c >= 0x3001 && c <= 0x3003) || (c >= 0x3008 && c <= 0x3011)  // CJK Symbols and Punctuation
        || (c >= 0x3014 && c <= 0x301F) || c == 0x30FB
        || (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20)  // Fullwidth forms
        || (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65)
        || (c >= 0xFE10 && c <= 0xFE19) || (c >= 0xFE30 && c <= 0xFE4F);
}

namespace {

bool joinsWord(char32_t c)
{
    return c == U'\'' || c == U'-' || c == 0x2019;  // apostrophe, hyphen, right single quote
}

bool isWordChar(char32_t c)
{
    return !isSpace(c) && !isPunctuation(c) && !isCjk(c);
}

}  // namespace

std::vector<std::string> tokenize(std::string_view utf8Text)
{
    const std::u32string text = decodeUtf8(utf8Text);
    std::vector<std::string> tokens;
    std::u32string word;
    auto flush = [&] {
        if (!word.empty()) {
            tokens.push_back(encodeUtf8(word));
            word.clear();
        }
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char32_t c = text[i];
        if (isSpace(c)) {
            flush();
        } else if (isCjk(c)) {
            flush();
            tokens.push_back(encodeUtf8(std::u32string_view(&text[i], 1)));
        } else if (isPunctuation(c)) {
            const bool inner = joinsWord(c) && !word.empty() && i + 1 < text.size() && isWordChar(text[i + 1]);
            if (inner) {
                word.push_back(c);
            } else {
                flush();
                tokens.push_back(encodeUtf8(std::u32string_view(&text[i], 1)));
            }
        } else {
            word.push_back(c);
        }
    }
    flush();
    return tokens;
}

}  // namespace core
