#include "core/text/bpe.h"

#include "core/formats/jsonread.h"
#include "core/formats/mappedfile.h"

#include <nlohmann/json.hpp>
#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <functional>
#include <queue>
#include <tuple>

namespace core {

namespace {

/** One code point of UTF-8 text: its value (or −1 for a byte that is not valid UTF-8) and its length. */
struct CodePoint {
    char32_t value = 0;
    bool valid = false;
    std::size_t length = 1;
};

/** The code point starting at text[pos] (pos < size). Overlong forms, surrogates, values past U+10FFFF
 *  and truncated sequences are invalid, one byte at a time. */
CodePoint codePointAt(std::string_view text, std::size_t pos)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(pos);
    if (lead < 0x80)
        return {lead, true, 1};
    std::size_t length;
    char32_t value, min;
    if ((lead & 0xe0) == 0xc0) {
        length = 2, value = lead & 0x1f, min = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3, value = lead & 0x0f, min = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4, value = lead & 0x07, min = 0x10000;
    } else {
        return {};
    }
    if (text.size() - pos < length)
        return {};
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(pos + i) & 0xc0) != 0x80)
            return {};
        value = (value << 6) | (byte(pos + i) & 0x3f);
    }
    if (value < min || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))
        return {};
    return {value, true, length};
}

/** The classes the pre-tokenizer's pattern tells apart. A byte that is not valid UTF-8 is Other. */
enum class CharClass { Letter, Number, Space, Other };

CharClass classOf(const CodePoint& c)
{
    if (!c.valid)
        return CharClass::Other;
    const auto mask = U_GET_GC_MASK(UChar32(c.value));
    if (mask & U_GC_L_MASK)
        return CharClass::Letter;
    if (mask & U_GC_N_MASK)
        return CharClass::Number;
    if (u_isUWhiteSpace(UChar32(c.value)))
        return CharClass::Space;
    return CharClass::Other;
}

/** Every byte-level character's byte: code point → byte, −1 where none (the characters are ≤ U+0143). */
const std::array<int, 324>& unicodeToByte()
{
    static const std::array<int, 324> table = [] {
        std::array<int, 324> t;
        t.fill(-1);
        const auto& chars = Bpe::bytesToUnicode();
        for (int b = 0; b < 256; ++b)
            t[std::size_t(codePointAt(chars[std::size_t(b)], 0).value)] = b;
        return t;
    }();
    return table;
}

std::string utf8(char32_t c)
{
    std::string out;
    if (c < 0x80) {
        out += char(c);
    } else if (c < 0x800) {
        out += char(0xc0 | (c >> 6));
        out += char(0x80 | (c & 0x3f));
    } else {
        out += char(0xe0 | (c >> 12));
        out += char(0x80 | ((c >> 6) & 0x3f));
        out += char(0x80 | (c & 0x3f));
    }
    return out;
}

std::string quoteToken(const std::string& token)
{
    return jsonExcerpt(nlohmann::json(token));
}

std::uint64_t pairKey(int left, int right)
{
    return (std::uint64_t(std::uint32_t(left)) << 32) | std::uint32_t(right);
}

/** "a b", a merge as merges.txt and tokenizer.json write it: its two tokens; none unless one space parts two
 *  non-empty tokens. */
std::optional<std::pair<std::string, std::string>> mergeTokens(std::string_view line)
{
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
        return std::nullopt;
    return std::pair{std::string(line.substr(0, space)), std::string(line.substr(space + 1))};
}

/** Appends tokenizer.json's added_tokens missing from vocab to entries; false with error when one is malformed or
 *  contradicts vocab's id for it. */
bool addedTokenEntries(const nlohmann::json& added, const nlohmann::json& vocab, const std::string& label,
                       std::vector<std::pair<std::string, std::int64_t>>& entries, std::string& error)
{
    for (const auto& token : added) {
        const auto id = token.is_object() ? token.find("id") : token.end();
        const auto content = token.is_object() ? token.find("content") : token.end();
        if (id == token.end() || content == token.end() || !id->is_number_integer() || !content->is_string()) {
            error = label + ": added_tokens: " + jsonExcerpt(token) +
                    " is not an object with an integer \"id\" and a string \"content\"";
            return false;
        }
        const auto known = vocab.find(content->get<std::string>());
        if (known == vocab.end())
            entries.emplace_back(content->get<std::string>(), id->get<std::int64_t>());
        else if (*known != *id) {
            error = label + ": added_tokens: " + quoteToken(content->get<std::string>()) + " has id " + jsonExcerpt(*id) +
                    " but model.vocab gives it " + jsonExcerpt(*known);
            return false;
        }
    }
    return true;
}

} // namespace

bool vocabularyEntries(const nlohmann::json& vocab, const std::string& label,
                       std::vector<std::pair<std::string, std::int64_t>>& entries, std::string& error)
{
    if (!vocab.is_object()) {
        error = label + ": the vocabulary is not a JSON object of token → id";
        return false;
    }
    for (const auto& [token, id] : vocab.items()) {
        if (!id.is_number_integer()) {
            error = label + ": token " + quoteToken(token) + " has id " + jsonExcerpt(id) + ", not an integer";
            return false;
        }
        entries.emplace_back(token, id.get<std::int64_t>());
    }
    return true;
}

std::optional<std::pair<std::string, std::string>> jsonMerge(const nlohmann::json& merge, const std::string& where,
                                                             std::string& error)
{
    if (merge.is_string()) {
        auto tokens = mergeTokens(merge.get_ref<const std::string&>());
        if (!tokens)
            error = where + ": expected two tokens separated by one space";
        return tokens;
    }
    if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string())
        return std::pair{merge[0].get<std::string>(), merge[1].get<std::string>()};
    error = where + ": expected \"a b\" or [\"a\", \"b\"]";
    return std::nullopt;
}

const std::vector<std::string>& Bpe::bytesToUnicode()
{
    static const std::vector<std::string> table = [] {
        // The printable bytes stand for themselves; the others, in order, for U+0100, U+0101, …
        std::vector<std::string> t(256);
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
            t[std::size_t(b)] = utf8(printable ? char32_t(b) : next++);
        }
        return t;
    }();
    return table;
}

std::vector<std::string_view> Bpe::preTokenize(std::string_view text)
{
    std::vector<std::string_view> pieces;
    const std::size_t n = text.size();
    const auto classAt = [&](std::size_t pos) { return classOf(codePointAt(text, pos)); };
    // The end of the run of characters of class c starting at pos.
    const auto runEnd = [&](std::size_t pos, CharClass c) {
        while (pos < n) {
            const CodePoint cp = codePointAt(text, pos);
            if (classOf(cp) != c)
                break;
            pos += cp.length;
        }
        return pos;
    };
    static constexpr std::string_view contractions[] = {"s", "t", "re", "ve", "m", "ll", "d"};

    std::size_t pos = 0;
    while (pos < n) {
        std::size_t end = pos;
        // 's|'t|'re|'ve|'m|'ll|'d
        if (text[pos] == '\'') {
            for (const std::string_view c : contractions)
                if (text.substr(pos + 1, c.size()) == c) {
                    end = pos + 1 + c.size();
                    break;
                }
        }
        if (end == pos) {
            // ' ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+': a space joins the run that follows it.
            const std::size_t start =
                text[pos] == ' ' && pos + 1 < n && classAt(pos + 1) != CharClass::Space ? pos + 1 : pos;
            const CharClass c = classAt(start);
            if (c != CharClass::Space) {
                end = runEnd(start, c);
            } else {
                // \s+(?!\S)|\s+: a run of spaces, without its last one when a non-space follows,
                // so that the last one can join the word after it.
                end = runEnd(pos, CharClass::Space);
                if (end < n) {
                    std::size_t last = pos, p = pos;
                    while (p < end) {
                        last = p;
                        p += codePointAt(text, p).length;
                    }
                    if (last > pos)
                        end = last;
                }
            }
        }
        pieces.push_back(text.substr(pos, end - pos));
        pos = end;
    }
    return pieces;
}

bool Bpe::setVocabulary(std::vector<std::pair<std::string, std::int64_t>> entries, const std::string& label,
                        std::string& error)
{
    const auto n = std::int64_t(entries.size());
    if (n == 0) {
        error = label + ": the vocabulary is empty";
        return false;
    }
    m_tokens.assign(std::size_t(n), {});
    m_bytes.assign(std::size_t(n), {});
    std::vector<bool> taken(std::size_t(n), false);
    const auto& toByte = unicodeToByte();
    for (auto& [token, id] : entries) {
        if (id < 0 || id >= n) {
            error = label + ": token " + quoteToken(token) + " has id " + std::to_string(id) + ", outside 0 … " +
                    std::to_string(n - 1) + " (the ids must number the " + std::to_string(n) + " entries)";
            return false;
        }
        if (taken[std::size_t(id)]) {
            error = label + ": id " + std::to_string(id) + " is given to both " +
                    quoteToken(m_tokens[std::size_t(id)]) + " and " + quoteToken(token);
            return false;
        }
        if (token.empty()) {
            error = label + ": id " + std::to_string(id) + " is an empty token";
            return false;
        }
        std::string bytes;
        for (std::size_t p = 0; p < token.size();) {
            const CodePoint c = codePointAt(token, p);
            const int b = c.valid && c.value < toByte.size() ? toByte[c.value] : -1;
            if (b < 0) {
                error = label + ": token " + quoteToken(token) + " (id " + std::to_string(id) +
                        ") is not written in GPT-2's byte-level alphabet";
                return false;
            }
            bytes += char(b);
            p += c.length;
        }
        taken[std::size_t(id)] = true;
        m_longest = std::max(m_longest, bytes.size());
        m_bytes[std::size_t(id)] = std::move(bytes);
        m_tokens[std::size_t(id)] = token;
        m_ids.emplace(std::move(token), int(id));
    }
    const auto& chars = bytesToUnicode();
    for (int b = 0; b < 256; ++b) {
        const auto it = m_ids.find(chars[std::size_t(b)]);
        if (it == m_ids.end()) {
            error = label + ": the vocabulary lacks the token " + quoteToken(chars[std::size_t(b)]) + " of byte " +
                    std::to_string(b) + " (a byte-level vocabulary has all 256)";
            return false;
        }
        m_byteIds[b] = it->second;
    }
    return true;
}

bool Bpe::addMerge(const std::string& a, const std::string& b, const std::string& where, std::string& error)
{
    const auto left = m_ids.find(a), right = m_ids.find(b), result = m_ids.find(a + b);
    const std::string* missing = left == m_ids.end() ? &a : right == m_ids.end() ? &b : nullptr;
    if (missing || result == m_ids.end()) {
        error = where + ": merge " + quoteToken(a) + " + " + quoteToken(b) + (missing ? " uses " : " makes ") +
                quoteToken(missing ? *missing : a + b) + ", which the vocabulary lacks";
        return false;
    }
    m_merges.add(left->second, right->second, result->second);
    return true;
}

std::optional<Bpe> Bpe::fromVocabAndMerges(std::string_view vocabJson, std::string_view mergesText,
                                           const std::string& vocabLabel, const std::string& mergesLabel,
                                           std::string& error)
{
    if (mergesText.size() > maxTokenizerBytes) { // GPT-2's is 456 KB; each line is a lookup and a string or two
        error = mergesLabel + ": " + std::to_string(mergesText.size()) + " bytes, more than the " +
                std::to_string(maxTokenizerBytes) + " this file may have";
        return std::nullopt;
    }
    const auto vocab = readJson(vocabJson, vocabLabel, tokenizerJsonLimits, error);
    if (!vocab)
        return std::nullopt;
    std::vector<std::pair<std::string, std::int64_t>> entries;
    Bpe bpe;
    if (!vocabularyEntries(*vocab, vocabLabel, entries, error) ||
        !bpe.setVocabulary(std::move(entries), vocabLabel, error))
        return std::nullopt;

    std::size_t lineNumber = 0;
    for (std::size_t pos = 0; pos < mergesText.size();) {
        std::size_t end = mergesText.find('\n', pos);
        if (end == std::string_view::npos)
            end = mergesText.size();
        std::string_view line = mergesText.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty() || (lineNumber == 1 && line.starts_with("#version")))
            continue;
        const std::string where = mergesLabel + ": line " + std::to_string(lineNumber);
        const auto tokens = mergeTokens(line);
        if (!tokens) {
            error = where + ": expected two tokens separated by one space";
            return std::nullopt;
        }
        if (!bpe.addMerge(tokens->first, tokens->second, where + " (to " + vocabLabel + ")", error))
            return std::nullopt;
    }
    return bpe;
}

std::optional<Bpe> Bpe::fromTokenizerJson(std::string_view text, const std::string& label, std::string& error)
{
    const auto read = readJsonObject(text, label, tokenizerJsonLimits, error);
    if (!read)
        return std::nullopt;
    const nlohmann::json& json = *read;
    const auto model = json.find("model");
    if (model == json.end() || !model->is_object()) {
        error = label + ": \"model\" is missing or not an object";
        return std::nullopt;
    }
    if (const auto type = model->find("type"); type != model->end() && *type != "BPE") {
        error = label + ": model.type is " + jsonExcerpt(*type) + ", not \"BPE\"";
        return std::nullopt;
    }
    const auto vocab = model->find("vocab");
    const auto merges = model->find("merges");
    if (vocab == model->end() || merges == model->end() || !merges->is_array()) {
        error = label + ": model.vocab or model.merges is missing (or the merges are not an array)";
        return std::nullopt;
    }
    std::vector<std::pair<std::string, std::int64_t>> entries;
    if (!vocabularyEntries(*vocab, label + ": model.vocab", entries, error))
        return std::nullopt;
    const auto added = json.find("added_tokens");
    if (added != json.end() && added->is_array() && !addedTokenEntries(*added, *vocab, label, entries, error))
        return std::nullopt;
    Bpe bpe;
    if (!bpe.setVocabulary(std::move(entries), label, error))
        return std::nullopt;
    for (std::size_t i = 0; i < merges->size(); ++i) {
        const std::string where = label + ": model.merges[" + std::to_string(i) + "]";
        const auto tokens = jsonMerge((*merges)[i], where, error);
        if (!tokens || !bpe.addMerge(tokens->first, tokens->second, where, error))
            return std::nullopt;
    }
    return bpe;
}

std::optional<Bpe> Bpe::loadVocabAndMerges(const std::string& vocabPath, const std::string& mergesPath,
                                           std::string& error)
{
    const auto vocab = MappedFile::open(vocabPath, error);
    const auto merges = vocab ? MappedFile::open(mergesPath, error) : nullptr;
    if (!merges)
        return std::nullopt;
    return fromVocabAndMerges(vocab->bytes(), merges->bytes(), vocabPath, mergesPath, error);
}

std::optional<Bpe> Bpe::loadTokenizerJson(const std::string& path, std::string& error)
{
    const auto file = MappedFile::open(path, error);
    if (!file)
        return std::nullopt;
    return fromTokenizerJson(file->bytes(), path, error);
}

void BpeMerges::add(int left, int right, int result)
{
    m_merges.try_emplace(pairKey(left, right), Merge{int(m_merges.size()), result});
}

void BpeMerges::apply(std::vector<int>& symbols) const
{
    // The symbols as a linked list; a heap of candidate merges by (rank, position), so that the lowest rank
    // merges first and equal ranks from left to right. An entry whose symbols have changed since it was pushed
    // is skipped.
    const int n = int(symbols.size());
    std::vector<int> symbol = symbols, prev(symbols.size()), next(symbols.size());
    for (int i = 0; i < n; ++i) {
        prev[std::size_t(i)] = i - 1;
        next[std::size_t(i)] = i + 1 < n ? i + 1 : -1;
    }
    using Candidate = std::tuple<int, int, int, int>; // rank, left position, left id, right id
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
    const auto consider = [&](int left) {
        if (left < 0 || next[std::size_t(left)] < 0)
            return;
        const int a = symbol[std::size_t(left)], b = symbol[std::size_t(next[std::size_t(left)])];
        if (const auto it = m_merges.find(pairKey(a, b)); it != m_merges.end())
            heap.emplace(it->second.rank, left, a, b);
    };
    for (int i = 0; i + 1 < n; ++i)
        consider(i);
    while (!heap.empty()) {
        const auto [rank, left, a, b] = heap.top();
        heap.pop();
        const int right = next[std::size_t(left)];
        if (symbol[std::size_t(left)] != a || right < 0 || symbol[std::size_t(right)] != b)
            continue;
        symbol[std::size_t(left)] = m_merges.at(pairKey(a, b)).result;
        symbol[std::size_t(right)] = -1;
        next[std::size_t(left)] = next[std::size_t(right)];
        if (next[std::size_t(right)] >= 0)
            prev[std::size_t(next[std::size_t(right)])] = left;
        consider(prev[std::size_t(left)]);
        consider(left);
    }
    symbols.clear();
    for (int i = 0; i >= 0 && i < n; i = next[std::size_t(i)])
        symbols.push_back(symbol[std::size_t(i)]);
}

void Bpe::encodePiece(std::string_view piece, std::vector<int>& ids) const
{
    std::vector<int> symbols(piece.size());
    for (std::size_t i = 0; i < piece.size(); ++i)
        symbols[i] = m_byteIds[static_cast<unsigned char>(piece[i])];
    m_merges.apply(symbols);
    ids.insert(ids.end(), symbols.begin(), symbols.end());
}

std::vector<int> Bpe::encode(std::string_view text) const
{
    std::vector<int> ids;
    for (const std::string_view piece : preTokenize(text))
        encodePiece(piece, ids);
    return ids;
}

std::optional<std::string> Bpe::decode(std::span<const int> ids, std::string& error) const
{
    std::string text;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= size()) {
            error = "token " + std::to_string(i) + ": id " + std::to_string(ids[i]) +
                    " is not in the vocabulary (0 … " + std::to_string(size() - 1) + ")";
            return std::nullopt;
        }
        text += m_bytes[std::size_t(ids[i])];
    }
    return text;
}

std::string Bpe::token(int id) const
{
    return id >= 0 && id < size() ? m_tokens[std::size_t(id)] : std::string();
}

std::optional<int> Bpe::id(std::string_view token) const
{
    const auto it = m_ids.find(std::string(token));
    if (it == m_ids.end())
        return std::nullopt;
    return it->second;
}

} // namespace core
