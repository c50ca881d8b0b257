#include "core/text/hftokenizer.h"

#include "core/formats/jsonread.h"
#include "core/formats/mappedfile.h"
#include "core/formats/utf8.h"
#include "core/text/bpe.h"
#include "core/text/tokentext.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/regex.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utext.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <filesystem>
#include <unordered_map>

namespace core {

namespace {

/** A piece of text on its way through the pipeline; start: it begins the typed text (Metaspace's "first"). */
struct Piece {
    std::string text;
    bool start = false;
};

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>; // [start, end) byte offsets

/** A tokenizer.json pattern, {"String": …} matched literally or {"Regex": …} by ICU, on UTF-8 by byte offsets. */
class Pattern {
public:
    Pattern() = default;

    /** From the file's {"String": s} or {"Regex": r}; nothing with error naming where. */
    static std::shared_ptr<const Pattern> read(const nlohmann::json& json, const std::string& where, std::string& error)
    {
        auto pattern = std::make_shared<Pattern>();
        const auto literal = json.is_object() ? json.find("String") : json.end();
        const auto regex = json.is_object() ? json.find("Regex") : json.end();
        if (json.is_object() && json.size() == 1 && literal != json.end() && literal->is_string() &&
            !literal->get_ref<const std::string&>().empty()) {
            pattern->m_literal = literal->get<std::string>();
            return pattern;
        }
        if (!json.is_object() || json.size() != 1 || regex == json.end() || !regex->is_string()) {
            error = where + ": " + jsonExcerpt(json) + " is not {\"String\": a non-empty string} or {\"Regex\": a string}";
            return nullptr;
        }
        UErrorCode status = U_ZERO_ERROR;
        UParseError parse{};
        pattern->m_regex.reset(icu::RegexPattern::compile(
            icu::UnicodeString::fromUTF8(regex->get_ref<const std::string&>()), 0, parse, status));
        if (U_FAILURE(status)) {
            error = where + ": the regex " + jsonExcerpt(*regex) + " does not compile (" + u_errorName(status) +
                    " at character " + std::to_string(parse.offset) + ")";
            return nullptr;
        }
        return pattern;
    }

    /** The non-overlapping matches in text (valid UTF-8), left to right. A regex that runs past ICU's time limit
     *  (a pattern that backtracks without end) stops matching there. */
    Ranges matches(std::string_view text) const
    {
        Ranges out;
        if (!m_regex) {
            for (std::size_t at = text.find(m_literal); at != std::string_view::npos;
                 at = text.find(m_literal, at + m_literal.size()))
                out.emplace_back(at, at + m_literal.size());
            return out;
        }
        UErrorCode status = U_ZERO_ERROR;
        UText* utext = utext_openUTF8(nullptr, text.data(), std::int64_t(text.size()), &status);
        std::unique_ptr<icu::RegexMatcher> matcher(m_regex->matcher(status));
        if (U_SUCCESS(status)) {
            matcher->reset(utext);
            matcher->setTimeLimit(5000, status); // some 5 s of matching steps at most
        }
        while (U_SUCCESS(status) && matcher->find(status)) {
            const auto start = std::size_t(matcher->start64(status)), end = std::size_t(matcher->end64(status));
            if (U_SUCCESS(status))
                out.emplace_back(start, end);
        }
        utext_close(utext);
        return out;
    }

private:
    std::string m_literal;
    std::unique_ptr<icu::RegexPattern> m_regex;
};

/** How Split keeps its matches, as the library names them. */
enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

/** Splits piece at ranges (the matches, in order) as behavior says; empty pieces are dropped. */
void splitPiece(const Piece& piece, const Ranges& ranges, Behavior behavior, bool invert, std::vector<Piece>& out)
{
    // The whole text as (range, is a match), then merged as the behavior says.
    struct Part {
        std::size_t start, end;
        bool match;
    };
    std::vector<Part> parts;
    std::size_t previous = 0;
    for (const auto& [start, end] : ranges) {
        if (previous != start)
            parts.push_back({previous, start, invert});
        parts.push_back({start, end, !invert});
        previous = end;
    }
    if (previous != piece.text.size())
        parts.push_back({previous, piece.text.size(), invert});

    std::vector<Part> merged;
    bool previousMatch = false;
    switch (behavior) {
    case Behavior::Removed:
        for (const Part& p : parts)
            if (!p.match)
                merged.push_back(p);
        break;
    case Behavior::Isolated:
        merged = parts;
        break;
    case Behavior::MergedWithPrevious: // a match joins the piece before it
        for (const Part& p : parts) {
            if (p.match && !previousMatch && !merged.empty())
                merged.back().end = p.end;
            else
                merged.push_back(p);
            previousMatch = p.match;
        }
        break;
    case Behavior::MergedWithNext: // a match joins the piece after it
        for (auto p = parts.rbegin(); p != parts.rend(); ++p) {
            if (p->match && !previousMatch && !merged.empty())
                merged.back().start = p->start;
            else
                merged.push_back(*p);
            previousMatch = p->match;
        }
        std::reverse(merged.begin(), merged.end());
        break;
    case Behavior::Contiguous: // consecutive matches become one piece
        for (const Part& p : parts) {
            if (p.match && previousMatch && !merged.empty())
                merged.back().end = p.end;
            else
                merged.push_back(p);
            previousMatch = p.match;
        }
        break;
    }
    for (const Part& p : merged)
        if (p.end > p.start)
            out.push_back({piece.text.substr(p.start, p.end - p.start), piece.start && p.start == 0});
}

bool isWhiteSpace(char32_t c)
{
    return u_isUWhiteSpace(UChar32(c));
}

/** Rust's char::is_alphanumeric or '_', what the library's single_word calls a word's character. */
bool isWordCharacter(char32_t c)
{
    return c == U'_' || u_hasBinaryProperty(UChar32(c), UCHAR_ALPHABETIC) || (U_GET_GC_MASK(UChar32(c)) & U_GC_N_MASK);
}

/** The code point that ends text[0, end) (valid UTF-8, end > 0) and where it starts. */
char32_t lastCharacter(std::string_view text, std::size_t end, std::size_t* start = nullptr)
{
    std::size_t i = end - 1;
    while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
        --i;
    char32_t c = 0;
    utf8CharAt(text, i, c);
    if (start)
        *start = i;
    return c;
}

/** text with every byte that is not UTF-8 as U+FFFD, as a Python str would hold it. */
std::string validUtf8(std::string_view text)
{
    return firstInvalidUtf8(text) ? encodeUtf8(decodeUtf8(text)) : std::string(text);
}

struct AddedToken {
    std::string content;
    std::string match; ///< what the text is searched for: the content, normalized when the token is
    int id = 0;
    bool lstrip = false, rstrip = false, singleWord = false, normalized = false, special = false;
};

/** One normalizer step. */
struct NormalizerStep {
    enum Kind { Unicode, Lowercase, Prepend, Replace } kind = Unicode;
    const icu::Normalizer2* form = nullptr; ///< Unicode: NFC, NFD, NFKC or NFKD
    std::string text;                       ///< Prepend's text, Replace's content
    std::shared_ptr<const Pattern> pattern; ///< Replace's pattern
};

/** One pre-tokenizer step. */
struct PreTokenizerStep {
    enum Kind { Split, ByteLevel, Digits, Metaspace } kind = Split;
    std::shared_ptr<const Pattern> pattern; ///< Split
    Behavior behavior = Behavior::Isolated; ///< Split
    bool invert = false;                    ///< Split
    bool addPrefixSpace = false;            ///< ByteLevel
    bool useRegex = true;                   ///< ByteLevel: GPT-2's pattern
    bool individualDigits = false;          ///< Digits
    std::string replacement = "\u2581";     ///< Metaspace
    enum Prepend { Always, First, Never } prepend = Always; ///< Metaspace
    bool split = true;                      ///< Metaspace
};

/** object[key] when it is a string, else empty: nlohmann's value() would throw on another type. */
std::string stringAt(const nlohmann::json& object, const char* key)
{
    const auto it = object.is_object() ? object.find(key) : object.end();
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string utf8Of(const icu::UnicodeString& s)
{
    std::string out;
    s.toUTF8String(out);
    return out;
}

} // namespace

struct HfTokenizer::Impl {
    std::vector<std::string> tokens;                   ///< id → entry as written (empty where there is none)
    std::unordered_map<std::string, int> modelIds;     ///< model.vocab: entry → id
    std::unordered_map<std::string, int> addedIds;     ///< added_tokens: content → id
    BpeMerges merges;
    std::array<int, 256> byteFallback{};               ///< byte → id of "<0xNN>", −1 where none
    bool useByteFallback = false, fuseUnk = false, ignoreMerges = false;
    std::optional<int> unk;
    std::vector<AddedToken> added;
    std::bitset<256> addedStarts;                      ///< the first bytes of the added tokens
    std::vector<NormalizerStep> normalizer;
    std::vector<PreTokenizerStep> preTokenizer;
    bool byteLevel = false;                            ///< the entries are written in GPT-2's byte-level alphabet
    std::vector<int> before, after;                    ///< the ids the post-processor puts around the text

    /** The text's pieces and the added tokens in it: an id ≥ 0 is a token, −1 text still to encode. Only the tokens
     *  whose normalized flag is normalized are looked for. */
    std::vector<std::pair<int, Piece>> splitAdded(const Piece& piece, bool normalized) const;
    std::string normalize(std::string text) const;
    std::vector<Piece> preTokenize(Piece piece) const;
    void encodeWord(const std::string& word, std::vector<int>& ids) const;
    /** The bytes id stands for; nothing for an added token or an id without an entry (written as it is). */
    std::optional<std::string> bytesOf(int id) const;
};

std::vector<std::pair<int, Piece>> HfTokenizer::Impl::splitAdded(const Piece& piece, bool normalized) const
{
    // The library's leftmost-longest match over the tokens, then each token's stripping of white space.
    const std::string_view text = piece.text;
    std::vector<std::pair<int, Piece>> out;
    std::size_t done = 0; // the end of the last token taken
    const auto addText = [&](std::size_t from, std::size_t to) {
        if (to > from)
            out.push_back({-1, Piece{std::string(text.substr(from, to - from)), piece.start && from == 0}});
    };
    for (std::size_t pos = 0; pos < text.size();) {
        const AddedToken* best = nullptr;
        if (!addedStarts.test(static_cast<unsigned char>(text[pos]))) {
            ++pos;
            continue;
        }
        for (const AddedToken& token : added)
            if (token.normalized == normalized && !token.match.empty() && text.substr(pos).starts_with(token.match) &&
                (!best || token.match.size() > best->match.size()))
                best = &token;
        if (!best) {
            ++pos;
            continue;
        }
        std::size_t start = pos, stop = pos + best->match.size();
        pos = stop;
        if (best->singleWord) {
            char32_t after = 0;
            const bool wordBefore = start > 0 && isWordCharacter(lastCharacter(text, start));
            const bool wordAfter = stop < text.size() && utf8CharAt(text, stop, after) && isWordCharacter(after);
            if (wordBefore || wordAfter)
                continue;
        }
        if (best->lstrip) {
            std::size_t s = start, c = 0;
            while (s > done && isWhiteSpace(lastCharacter(text, s, &c)))
                s = c;
            start = s;
        }
        if (best->rstrip) {
            char32_t c = 0;
            for (std::size_t n; stop < text.size() && (n = utf8CharAt(text, stop, c)) && isWhiteSpace(c);)
                stop += n;
            pos = stop;
        }
        addText(done, start);
        out.push_back({best->id, Piece{}});
        done = stop;
    }
    addText(done, text.size());
    return out;
}

std::string HfTokenizer::Impl::normalize(std::string text) const
{
    for (const NormalizerStep& step : normalizer) {
        switch (step.kind) {
        case NormalizerStep::Unicode: {
            UErrorCode status = U_ZERO_ERROR;
            const icu::UnicodeString normal = step.form->normalize(icu::UnicodeString::fromUTF8(text), status);
            if (U_SUCCESS(status))
                text = utf8Of(normal);
            break;
        }
        case NormalizerStep::Lowercase:
            text = utf8Of(icu::UnicodeString::fromUTF8(text).toLower(icu::Locale::getRoot()));
            break;
        case NormalizerStep::Prepend:
            if (!text.empty())
                text = step.text + text;
            break;
        case NormalizerStep::Replace: {
            std::string out;
            std::size_t previous = 0;
            for (const auto& [start, end] : step.pattern->matches(text)) {
                out.append(text, previous, start - previous);
                out += step.text;
                previous = end;
            }
            out.append(text, previous);
            text = std::move(out);
            break;
        }
        }
    }
    return text;
}

std::vector<Piece> HfTokenizer::Impl::preTokenize(Piece piece) const
{
    std::vector<Piece> pieces{std::move(piece)};
    for (const PreTokenizerStep& step : preTokenizer) {
        std::vector<Piece> next;
        for (Piece& p : pieces) {
            switch (step.kind) {
            case PreTokenizerStep::Split:
                splitPiece(p, step.pattern->matches(p.text), step.behavior, step.invert, next);
                break;
            case PreTokenizerStep::Digits: {
                Ranges digits;
                char32_t c = 0;
                for (std::size_t i = 0, n; i < p.text.size(); i += n) {
                    n = std::max<std::size_t>(1, utf8CharAt(p.text, i, c));
                    if (U_GET_GC_MASK(UChar32(c)) & U_GC_N_MASK)
                        digits.emplace_back(i, i + n);
                }
                splitPiece(p, digits, step.individualDigits ? Behavior::Isolated : Behavior::Contiguous, false, next);
                break;
            }
            case PreTokenizerStep::Metaspace: {
                std::string text;
                for (const char c : p.text)
                    text += c == ' ' ? step.replacement : std::string(1, c);
                const bool prepend = step.prepend == PreTokenizerStep::Always ||
                                     (step.prepend == PreTokenizerStep::First && p.start);
                if (prepend && !text.starts_with(step.replacement))
                    text = step.replacement + text;
                Piece replaced{std::move(text), p.start};
                if (!step.split) {
                    next.push_back(std::move(replaced));
                    break;
                }
                Ranges marks;
                for (std::size_t at = replaced.text.find(step.replacement); at != std::string::npos;
                     at = replaced.text.find(step.replacement, at + step.replacement.size()))
                    marks.emplace_back(at, at + step.replacement.size());
                splitPiece(replaced, marks, Behavior::MergedWithNext, false, next);
                break;
            }
            case PreTokenizerStep::ByteLevel: {
                if (step.addPrefixSpace && !p.text.starts_with(' '))
                    p.text.insert(0, 1, ' ');
                std::vector<std::string> parts;
                if (step.useRegex)
                    for (const std::string_view part : Bpe::preTokenize(p.text))
                        parts.emplace_back(part);
                else
                    parts.push_back(p.text);
                const auto& alphabet = Bpe::bytesToUnicode();
                for (std::size_t k = 0; k < parts.size(); ++k) {
                    std::string written;
                    for (const char b : parts[k])
                        written += alphabet[static_cast<unsigned char>(b)];
                    if (!written.empty())
                        next.push_back({std::move(written), p.start && k == 0});
                }
                break;
            }
            }
        }
        pieces = std::move(next);
    }
    return pieces;
}

void HfTokenizer::Impl::encodeWord(const std::string& word, std::vector<int>& ids) const
{
    if (ignoreMerges)
        if (const auto whole = modelIds.find(word); whole != modelIds.end()) {
            ids.push_back(whole->second);
            return;
        }
    // Each character its entry, else its bytes' <0xNN> entries, else unk (one for a run of them with fuse_unk),
    // else nothing, as the library's BPE starts a word.
    std::vector<int> symbols;
    bool previousUnk = false;
    char32_t c = 0;
    for (std::size_t i = 0, n; i < word.size(); i += n) {
        n = std::max<std::size_t>(1, utf8CharAt(word, i, c));
        if (const auto it = modelIds.find(word.substr(i, n)); it != modelIds.end()) {
            symbols.push_back(it->second);
            previousUnk = false;
            continue;
        }
        if (useByteFallback &&
            std::all_of(word.begin() + std::ptrdiff_t(i), word.begin() + std::ptrdiff_t(i + n),
                        [&](char b) { return byteFallback[static_cast<unsigned char>(b)] >= 0; })) {
            for (std::size_t k = i; k < i + n; ++k)
                symbols.push_back(byteFallback[static_cast<unsigned char>(word[k])]);
            previousUnk = false;
            continue;
        }
        if (unk && !(fuseUnk && previousUnk))
            symbols.push_back(*unk);
        previousUnk = unk.has_value();
    }
    merges.apply(symbols);
    ids.insert(ids.end(), symbols.begin(), symbols.end());
}

namespace {

/** The reading of the two files into an Impl, each part's faults named with the file. */
class Reader {
public:
    Reader(HfTokenizer::Impl& impl, std::string label, std::string& error)
        : m(impl), m_label(std::move(label)), m_error(error) {}

    bool fail(const std::string& what)
    {
        m_error = m_label + ": " + what;
        return false;
    }

    /** A flag that is absent, null or a boolean; false with error otherwise. */
    bool flag(const nlohmann::json& object, const char* key, bool& value, const std::string& where)
    {
        const auto it = object.find(key);
        if (it == object.end() || it->is_null())
            return true;
        if (!it->is_boolean())
            return fail((where.empty() ? "" : where + ".") + key + " is " + jsonExcerpt(*it) + ", not true or false");
        value = it->get<bool>();
        return true;
    }

    static std::string typeOf(const nlohmann::json& step) { return stringAt(step, "type"); }

    /** A step of type Sequence: each of step[key] read by read, in order. */
    bool sequence(const nlohmann::json& step, const char* key, const std::string& where,
                  bool (Reader::*read)(const nlohmann::json&, const std::string&))
    {
        const auto list = step.find(key);
        if (list == step.end() || !list->is_array())
            return fail(where + "." + key + " is not an array");
        for (std::size_t i = 0; i < list->size(); ++i)
            if (!(this->*read)((*list)[i], where + "." + key + "[" + std::to_string(i) + "]"))
                return false;
        return true;
    }

    bool refuse(const std::string& where, const nlohmann::json& step, const char* known)
    {
        const auto type = step.is_object() ? step.find("type") : step.end();
        return fail(where + " of type " + (type != step.end() ? jsonExcerpt(*type) : std::string("(none)")) +
                    " is not read here (only " + known + ")");
    }

    bool vocabulary(const nlohmann::json& json)
    {
        const auto model = json.find("model");
        if (model == json.end() || !model->is_object())
            return fail("\"model\" is missing or not an object");
        const std::string type = typeOf(*model);
        if (!type.empty() && type != "BPE")
            return fail("model.type is \"" + type + "\", a kind of tokenizer not read here (only BPE: byte-level or "
                        "SentencePiece-style)");
        const auto vocab = model->find("vocab");
        const auto merges = model->find("merges");
        if (vocab == model->end() || merges == model->end() || !merges->is_array())
            return fail("model.vocab or model.merges is missing (or the merges are not an array)");
        for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
            if (const auto it = model->find(key); it != model->end() && !it->is_null() && *it != "")
                return fail(std::string("model.") + key + " is " + jsonExcerpt(*it) + ", which is not read here");
        if (const auto it = model->find("dropout"); it != model->end() && !it->is_null() && *it != 0)
            return fail("model.dropout is " + jsonExcerpt(*it) + ": a tokenizer that drops merges at random is not "
                        "read here");
        if (!flag(*model, "byte_fallback", m.useByteFallback, "model") ||
            !flag(*model, "fuse_unk", m.fuseUnk, "model") || !flag(*model, "ignore_merges", m.ignoreMerges, "model"))
            return false;

        std::vector<std::pair<std::string, std::int64_t>> entries;
        if (!vocabularyEntries(*vocab, m_label + ": model.vocab", entries, m_error))
            return false;
        // Ids may leave gaps, as the library allows, but not so many that a small file fills the memory.
        const auto added = json.find("added_tokens");
        m_idLimit = 2 * (entries.size() + (added != json.end() ? added->size() : 0)) + 1024;
        for (auto& [token, id] : entries) {
            if (!setToken(token, id, "model.vocab"))
                return false;
            m.modelIds.emplace(std::move(token), int(id));
        }
        if (added != json.end() && !added->is_null()) {
            if (!added->is_array())
                return fail("added_tokens is not an array");
            for (const auto& token : *added)
                if (!addedToken(token))
                    return false;
        }
        if (const auto unk = model->find("unk_token"); unk != model->end() && !unk->is_null()) {
            const auto it = unk->is_string() ? m.modelIds.find(unk->get<std::string>()) : m.modelIds.end();
            if (it == m.modelIds.end())
                return fail("model.unk_token " + jsonExcerpt(*unk) + " is not an entry of model.vocab");
            m.unk = it->second;
        }
        static const char* hex = "0123456789ABCDEF";
        for (int b = 0; b < 256; ++b) {
            const auto it = m.modelIds.find(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
            m.byteFallback[std::size_t(b)] = it == m.modelIds.end() ? -1 : it->second;
        }
        for (std::size_t i = 0; i < merges->size(); ++i) {
            const std::string where = m_label + ": model.merges[" + std::to_string(i) + "]";
            const auto pair = jsonMerge((*merges)[i], where, m_error);
            if (!pair)
                return false;
            const auto left = m.modelIds.find(pair->first), right = m.modelIds.find(pair->second),
                       result = m.modelIds.find(pair->first + pair->second);
            if (left == m.modelIds.end() || right == m.modelIds.end() || result == m.modelIds.end()) {
                m_error = where + ": merge " + jsonExcerpt(pair->first) + " + " + jsonExcerpt(pair->second) +
                          " uses or makes a token that model.vocab lacks";
                return false;
            }
            m.merges.add(left->second, right->second, result->second);
        }
        return true;
    }

    bool setToken(const std::string& token, std::int64_t id, const char* where)
    {
        if (id < 0 || std::size_t(id) >= m_idLimit)
            return fail(std::string(where) + ": " + jsonExcerpt(token) + " has id " + std::to_string(id) +
                        ", outside 0 … " + std::to_string(m_idLimit - 1) + " (twice the entries, and 1024)");
        if (m.tokens.size() <= std::size_t(id))
            m.tokens.resize(std::size_t(id) + 1);
        std::string& slot = m.tokens[std::size_t(id)];
        if (!slot.empty() && slot != token)
            return fail(std::string(where) + ": id " + std::to_string(id) + " is given to both " + jsonExcerpt(slot) +
                        " and " + jsonExcerpt(token));
        if (token.empty())
            return fail(std::string(where) + ": id " + std::to_string(id) + " is an empty token");
        slot = token;
        return true;
    }

    bool addedToken(const nlohmann::json& json)
    {
        const auto id = json.is_object() ? json.find("id") : json.end();
        const auto content = json.is_object() ? json.find("content") : json.end();
        if (id == json.end() || content == json.end() || !id->is_number_integer() || !content->is_string() ||
            content->get_ref<const std::string&>().empty())
            return fail("added_tokens: " + jsonExcerpt(json) +
                        " is not an object with an integer \"id\" and a non-empty string \"content\"");
        AddedToken token;
        token.content = content->get<std::string>();
        const auto known = m.modelIds.find(token.content);
        if (known != m.modelIds.end() && *id != known->second)
            return fail("added_tokens: " + jsonExcerpt(*content) + " has id " + jsonExcerpt(*id) +
                        " but model.vocab gives it " + std::to_string(known->second));
        if (!flag(json, "special", token.special, "added_tokens"))
            return false;
        token.normalized = !token.special; // the library's default for a token without the flag
        if (!setToken(token.content, id->get<std::int64_t>(), "added_tokens") ||
            !flag(json, "lstrip", token.lstrip, "added_tokens") || !flag(json, "rstrip", token.rstrip, "added_tokens") ||
            !flag(json, "single_word", token.singleWord, "added_tokens") ||
            !flag(json, "normalized", token.normalized, "added_tokens"))
            return false;
        token.id = int(id->get<std::int64_t>());
        m.addedIds[token.content] = token.id;
        m.added.push_back(std::move(token));
        return true;
    }

    bool normalizer(const nlohmann::json& step, const std::string& where)
    {
        if (step.is_null())
            return true;
        const std::string type = typeOf(step);
        UErrorCode status = U_ZERO_ERROR;
        NormalizerStep out;
        if (type == "Sequence")
            return sequence(step, "normalizers", where, &Reader::normalizer);
        if (type == "NFC")
            out.form = icu::Normalizer2::getNFCInstance(status);
        else if (type == "NFD")
            out.form = icu::Normalizer2::getNFDInstance(status);
        else if (type == "NFKC")
            out.form = icu::Normalizer2::getNFKCInstance(status);
        else if (type == "NFKD")
            out.form = icu::Normalizer2::getNFKDInstance(status);
        else if (type == "Lowercase")
            out.kind = NormalizerStep::Lowercase;
        else if (type == "Prepend" && step.contains("prepend") && step["prepend"].is_string())
            out = {NormalizerStep::Prepend, nullptr, step["prepend"].get<std::string>(), nullptr};
        else if (type == "Replace" && step.contains("content") && step["content"].is_string()) {
            out = {NormalizerStep::Replace, nullptr, step["content"].get<std::string>(), nullptr};
            out.pattern = Pattern::read(step.value("pattern", nlohmann::json()), m_label + ": " + where + ".pattern",
                                        m_error);
            if (!out.pattern)
                return false;
        } else
            return refuse(where, step, "NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace and Sequence");
        if (U_FAILURE(status))
            return fail(where + ": ICU has no " + type + " normalizer (" + u_errorName(status) + ")");
        m.normalizer.push_back(std::move(out));
        return true;
    }

    bool preTokenizer(const nlohmann::json& step, const std::string& where)
    {
        if (step.is_null())
            return true;
        const std::string type = typeOf(step);
        PreTokenizerStep out;
        if (type == "Sequence")
            return sequence(step, "pretokenizers", where, &Reader::preTokenizer);
        if (type == "Split") {
            static const std::pair<const char*, Behavior> behaviors[] = {
                {"Removed", Behavior::Removed},
                {"Isolated", Behavior::Isolated},
                {"MergedWithPrevious", Behavior::MergedWithPrevious},
                {"MergedWithNext", Behavior::MergedWithNext},
                {"Contiguous", Behavior::Contiguous}};
            const auto behavior = std::find_if(std::begin(behaviors), std::end(behaviors),
                                               [&](const auto& b) { return stringAt(step, "behavior") == b.first; });
            if (behavior == std::end(behaviors))
                return fail(where + ".behavior is " + jsonExcerpt(step.value("behavior", nlohmann::json())) +
                            ", not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
            out.behavior = behavior->second;
            out.pattern = Pattern::read(step.value("pattern", nlohmann::json()), m_label + ": " + where + ".pattern",
                                        m_error);
            if (!out.pattern || !flag(step, "invert", out.invert, where))
                return false;
        } else if (type == "ByteLevel") {
            out.kind = PreTokenizerStep::ByteLevel;
            m.byteLevel = true;
            if (!flag(step, "add_prefix_space", out.addPrefixSpace, where) ||
                !flag(step, "use_regex", out.useRegex, where))
                return false;
        } else if (type == "Digits") {
            out.kind = PreTokenizerStep::Digits;
            if (!flag(step, "individual_digits", out.individualDigits, where))
                return false;
        } else if (type == "Metaspace") {
            out.kind = PreTokenizerStep::Metaspace;
            const auto replacement = step.find("replacement");
            if (replacement != step.end() && (!replacement->is_string() || replacement->get<std::string>().empty()))
                return fail(where + ".replacement is " + jsonExcerpt(*replacement) + ", not a character");
            if (replacement != step.end())
                out.replacement = replacement->get<std::string>();
            bool addPrefixSpace = true; // older files say add_prefix_space instead of prepend_scheme
            if (!flag(step, "add_prefix_space", addPrefixSpace, where) || !flag(step, "split", out.split, where))
                return false;
            const std::string scheme = step.contains("prepend_scheme") ? stringAt(step, "prepend_scheme")
                                       : addPrefixSpace                 ? "always"
                                                                        : "never";
            if (scheme != "always" && scheme != "first" && scheme != "never")
                return fail(where + ".prepend_scheme is \"" + scheme + "\", not always, first or never");
            out.prepend = scheme == "always" ? PreTokenizerStep::Always
                          : scheme == "first" ? PreTokenizerStep::First
                                              : PreTokenizerStep::Never;
        } else {
            return refuse(where, step, "Split, ByteLevel, Digits, Metaspace and Sequence");
        }
        m.preTokenizer.push_back(std::move(out));
        return true;
    }

    /** The ids of one of TemplateProcessing's special tokens. */
    bool templateIds(const nlohmann::json& step, const std::string& name, std::vector<int>& ids, const std::string& where)
    {
        // Pointers rather than iterators: nlohmann's iterators of different objects cannot be compared.
        const auto member = [](const nlohmann::json* object, const std::string& key) -> const nlohmann::json* {
            if (!object || !object->is_object())
                return nullptr;
            const auto it = object->find(key);
            return it == object->end() ? nullptr : &*it;
        };
        const nlohmann::json* list = member(member(member(&step, "special_tokens"), name), "ids");
        if (!list || !list->is_array())
            return fail(where + ": special token " + jsonExcerpt(name) + " has no \"ids\" in special_tokens");
        for (const auto& id : *list) {
            if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
                id.get<std::int64_t>() >= std::int64_t(m.tokens.size()) || m.tokens[id.get<std::size_t>()].empty())
                return fail(where + ": special token " + jsonExcerpt(name) + " has id " + jsonExcerpt(id) +
                            ", which is not in the vocabulary");
            ids.push_back(id.get<int>());
        }
        return true;
    }

    bool postProcessor(const nlohmann::json& step, const std::string& where)
    {
        if (step.is_null())
            return true;
        const std::string type = typeOf(step);
        if (type == "ByteLevel") // offsets only
            return true;
        if (type == "Sequence")
            return sequence(step, "processors", where, &Reader::postProcessor);
        if (type != "TemplateProcessing")
            return refuse(where, step, "TemplateProcessing, ByteLevel and Sequence");
        const auto single = step.find("single");
        if (single == step.end() || !single->is_array())
            return fail(where + ".single is not an array");
        std::vector<int> before, after;
        bool sequence = false;
        for (const auto& item : *single) {
            const auto special = item.is_object() ? item.find("SpecialToken") : item.end();
            const auto text = item.is_object() ? item.find("Sequence") : item.end();
            if (text != item.end() && stringAt(*text, "id") == "A" && !sequence) {
                sequence = true;
            } else if (special != item.end() && special->is_object() && special->contains("id") &&
                       (*special)["id"].is_string()) {
                if (!templateIds(step, (*special)["id"].get<std::string>(), sequence ? after : before, where))
                    return false;
            } else {
                return fail(where + ".single: " + jsonExcerpt(item) +
                            " is neither the sequence A (once) nor a SpecialToken");
            }
        }
        if (!sequence)
            return fail(where + ".single lacks the sequence A");
        // A later processor of a sequence wraps what the earlier ones made.
        m.before.insert(m.before.begin(), before.begin(), before.end());
        m.after.insert(m.after.end(), after.begin(), after.end());
        return true;
    }

    /** tokenizer_config.json's say over the special tokens around the text: transformers' Llama and Gemma tokenizers
     *  rebuild the post-processor from add_bos_token (default true) and add_eos_token (default false); the others do
     *  so where the file names either flag and its post-processor is a template, a sequence or none. */
    bool config(const nlohmann::json& config, const nlohmann::json& filePostProcessor)
    {
        const std::string tokenizerClass = stringAt(config, "tokenizer_class");
        static const char* rebuilding[] = {"LlamaTokenizer", "CodeLlamaTokenizer", "GemmaTokenizer"};
        const bool llama = std::any_of(std::begin(rebuilding), std::end(rebuilding), [&](const char* name) {
            return tokenizerClass == name || tokenizerClass == std::string(name) + "Fast";
        });
        const auto addBos = config.find("add_bos_token"), addEos = config.find("add_eos_token");
        const bool named = (addBos != config.end() && !addBos->is_null()) || (addEos != config.end() && !addEos->is_null());
        const std::string fileType = typeOf(filePostProcessor);
        if (!llama && !(named && (filePostProcessor.is_null() || fileType == "TemplateProcessing" || fileType == "Sequence")))
            return true;
        bool bos = llama, eos = false;
        if (!flag(config, "add_bos_token", bos, "") || !flag(config, "add_eos_token", eos, ""))
            return false;
        m.before.clear();
        m.after.clear();
        const auto specialId = [&](const char* key, std::vector<int>& ids) {
            const auto value = config.find(key);
            const nlohmann::json* content = value == config.end() ? nullptr : &*value;
            if (content && content->is_object() && content->contains("content"))
                content = &(*content)["content"]; // the older form {"__type": "AddedToken", "content": …}
            const auto it = content && content->is_string() ? m.addedIds.find(content->get<std::string>()) : m.addedIds.end();
            const auto inModel = content && content->is_string() ? m.modelIds.find(content->get<std::string>()) : m.modelIds.end();
            if (it == m.addedIds.end() && inModel == m.modelIds.end())
                return fail(std::string(key == std::string("bos_token") ? "add_bos_token" : "add_eos_token") +
                            " is true but " + key + " " + (content ? jsonExcerpt(*content) : std::string("(none)")) +
                            " is not a token of the tokenizer");
            ids.push_back(it != m.addedIds.end() ? it->second : inModel->second);
            return true;
        };
        return (!bos || specialId("bos_token", m.before)) && (!eos || specialId("eos_token", m.after));
    }

private:
    HfTokenizer::Impl& m;
    std::size_t m_idLimit = 0; ///< no id reaches it
    std::string m_label;
    std::string& m_error;
};

} // namespace

std::optional<HfTokenizer> HfTokenizer::fromJson(std::string_view tokenizerJson, std::string_view configJson,
                                                 const std::string& tokenizerLabel, const std::string& configLabel,
                                                 std::string& error)
{
    const auto json = readJsonObject(tokenizerJson, tokenizerLabel, tokenizerJsonLimits, error);
    if (!json)
        return std::nullopt;
    auto impl = std::make_shared<Impl>();
    Reader reader(*impl, tokenizerLabel, error);
    const auto part = [&](const char* key) { return json->value(key, nlohmann::json()); };
    if (!reader.vocabulary(*json) || !reader.normalizer(part("normalizer"), "normalizer") ||
        !reader.preTokenizer(part("pre_tokenizer"), "pre_tokenizer") ||
        !reader.postProcessor(part("post_processor"), "post_processor"))
        return std::nullopt;
    // A token marked normalized is looked for as the normalizer writes it (with Llama 2's, "▁" before it).
    for (AddedToken& token : impl->added) {
        token.match = token.normalized ? impl->normalize(token.content) : token.content;
        if (!token.match.empty())
            impl->addedStarts.set(static_cast<unsigned char>(token.match[0]));
    }
    if (!configJson.empty()) {
        const auto config = readJsonObject(configJson, configLabel, tokenizerJsonLimits, error);
        Reader configReader(*impl, configLabel, error);
        if (!config || !configReader.config(*config, part("post_processor")))
            return std::nullopt;
    }
    return HfTokenizer(std::move(impl));
}

std::optional<HfTokenizer> HfTokenizer::loadFolder(const std::string& folder, std::string& error)
{
    const std::string tokenizerPath = (std::filesystem::path(folder) / "tokenizer.json").string();
    const std::string configPath = (std::filesystem::path(folder) / "tokenizer_config.json").string();
    const auto tokenizer = MappedFile::open(tokenizerPath, error);
    if (!tokenizer)
        return std::nullopt;
    std::error_code ec;
    std::shared_ptr<const MappedFile> config;
    if (std::filesystem::exists(configPath, ec)) {
        config = MappedFile::open(configPath, error);
        if (!config)
            return std::nullopt;
    }
    return fromJson(tokenizer->bytes(), config ? config->bytes() : std::string_view(), tokenizerPath, configPath,
                    error);
}

std::vector<int> HfTokenizer::encode(std::string_view text, bool special) const
{
    std::vector<int> ids = special ? m->before : std::vector<int>();
    // Tokens matched in the typed text, then in the normalized rest; what remains is pre-tokenized and merged.
    for (const auto& [raw, rawPiece] : m->splitAdded(Piece{validUtf8(text), true}, false)) {
        if (raw >= 0) {
            ids.push_back(raw);
            continue;
        }
        Piece normal{m->normalize(rawPiece.text), rawPiece.start};
        if (normal.text.empty())
            continue;
        for (const auto& [token, piece] : m->splitAdded(normal, true)) {
            if (token >= 0) {
                ids.push_back(token);
                continue;
            }
            for (const Piece& word : m->preTokenize(piece))
                m->encodeWord(word.text, ids);
        }
    }
    if (special)
        ids.insert(ids.end(), m->after.begin(), m->after.end());
    return ids;
}

std::string HfTokenizer::token(int id) const
{
    return id >= 0 && std::size_t(id) < m->tokens.size() ? m->tokens[std::size_t(id)] : std::string();
}

std::optional<int> HfTokenizer::id(std::string_view token) const
{
    const std::string key(token);
    if (const auto it = m->addedIds.find(key); it != m->addedIds.end())
        return it->second;
    if (const auto it = m->modelIds.find(key); it != m->modelIds.end())
        return it->second;
    return std::nullopt;
}

std::optional<std::string> HfTokenizer::Impl::bytesOf(int id) const
{
    const std::string entry = id >= 0 && std::size_t(id) < tokens.size() ? tokens[std::size_t(id)] : std::string();
    if (entry.empty() || addedIds.contains(entry))
        return std::nullopt;
    if (byteLevel)
        return tokenBytes(entry);
    // SentencePiece-style: a byte_fallback entry is its byte, "▁" a space.
    const auto byte = std::find(byteFallback.begin(), byteFallback.end(), id);
    if (byte != byteFallback.end())
        return std::string(1, char(byte - byteFallback.begin()));
    std::string bytes;
    for (std::size_t i = 0; i < entry.size();) {
        if (entry.compare(i, 3, "\u2581") == 0) {
            bytes += ' ';
            i += 3;
        } else {
            bytes += entry[i++];
        }
    }
    return bytes;
}

std::string HfTokenizer::readable(int id) const
{
    if (m->byteLevel && !m->addedIds.contains(token(id)))
        return readableToken(token(id));
    const auto bytes = m->bytesOf(id);
    return bytes ? readableBytes(*bytes) : token(id);
}

std::string HfTokenizer::decode(const std::vector<int>& ids) const
{
    auto first = ids.begin(), last = ids.end();
    if (std::size_t(last - first) >= m->before.size() && std::equal(m->before.begin(), m->before.end(), first))
        first += std::ptrdiff_t(m->before.size());
    if (std::size_t(last - first) >= m->after.size() && std::equal(m->after.rbegin(), m->after.rend(), ids.rbegin()))
        last -= std::ptrdiff_t(m->after.size());
    std::string out;
    for (auto it = first; it != last; ++it)
        out += m->bytesOf(*it).value_or(token(*it));
    // the space a SentencePiece-style tokenizer put before the text is not the text's
    const bool prepends =
        std::any_of(m->normalizer.begin(), m->normalizer.end(),
                    [](const NormalizerStep& s) { return s.kind == NormalizerStep::Prepend; }) ||
        std::any_of(m->preTokenizer.begin(), m->preTokenizer.end(), [](const PreTokenizerStep& s) {
            return s.kind == PreTokenizerStep::Metaspace && s.prepend != PreTokenizerStep::Never;
        });
    if (prepends && !m->byteLevel && out.starts_with(' '))
        out.erase(0, 1);
    return out;
}

std::optional<int> HfTokenizer::bosId() const
{
    return m->before.empty() ? std::nullopt : std::optional<int>(m->before.front());
}

int HfTokenizer::size() const
{
    return int(m->tokens.size());
}

} // namespace core
