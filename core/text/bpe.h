#pragma once
/** GPT-2's byte-level byte-pair encoding: text → token ids → text.
 *  1. Pre-tokenize with GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *     (\p{L}, \p{N} and \s from ICU's tables).
 *  2. Write each piece's UTF-8 bytes in the byte-level alphabet (bytesToUnicode(), "Ġ" for the space).
 *  3. Merge adjacent symbols, lowest merge rank first, until no pair has a rank.
 *  decode(encode(t)) == t for any bytes. A typed "<|endoftext|>" is ordinary text, as in GPT-2's own encoder: only
 *  a caller that puts endOfText() among the ids gets that token. Immutable once loaded: safe on several threads. */

#include "core/formats/jsonread.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace core {

/** The largest vocab.json, merges.txt or tokenizer.json read, in bytes (GPT-2's are 1 MB, 456 KB and 1.4 MB, Llama
 *  3's tokenizer.json 9 MB). */
constexpr std::size_t maxTokenizerBytes = std::size_t(32) << 20;
/** The most values read from one (Llama 3's tokenizer.json has some 1.2 million: 128 000 tokens, 280 000 merges of
 *  two), so that nothing small and dense costs gigabytes or minutes to build. */
constexpr std::size_t maxTokenizerValues = std::size_t(4) << 20;

/** How tokenizer files are read as JSON: within the two limits above. */
constexpr JsonLimits tokenizerJsonLimits{.maxBytes = maxTokenizerBytes, .maxValues = maxTokenizerValues};

/** A vocabulary object's entries (token → integer id); false with error naming label when it is not one. */
bool vocabularyEntries(const nlohmann::json& vocab, const std::string& label,
                       std::vector<std::pair<std::string, std::int64_t>>& entries, std::string& error);

/** One entry of tokenizer.json's model.merges, "a b" or ["a", "b"]: its two tokens; none with error naming where. */
std::optional<std::pair<std::string, std::string>> jsonMerge(const nlohmann::json& merge, const std::string& where,
                                                             std::string& error);

/** Merge ranks over token ids and the loop that applies them: what every byte-pair encoding here shares. */
class BpeMerges {
public:
    /** Adds the merge of left and right into result, ranked after those before it. A pair listed twice keeps its
     *  first (lowest) rank, as GPT-2's encoder does. */
    void add(int left, int right, int result);
    /** Merges adjacent symbols in place, the lowest rank first and equal ranks from the left, until no pair has a
     *  rank. */
    void apply(std::vector<int>& symbols) const;
    std::size_t size() const { return m_merges.size(); }

private:
    struct Merge {
        int rank = 0;
        int result = 0;
    };
    std::unordered_map<std::uint64_t, Merge> m_merges; ///< (left id << 32 | right id) → rank and result
};

class Bpe {
public:
    /** From vocab.json (an object token → id) and merges.txt (an optional "#version" line, then one merge
     *  "a b" per line, most frequent first). The ids must be 0 … n−1, each once; every token must be
     *  written in the byte-level alphabet, which must be complete (all 256 single-byte tokens); each
     *  merge's two parts and its result must be tokens. Refuses anything else with error naming the file
     *  (vocabLabel or mergesLabel) and the token, id or line. */
    static std::optional<Bpe> fromVocabAndMerges(std::string_view vocabJson, std::string_view mergesText,
                                                 const std::string& vocabLabel, const std::string& mergesLabel,
                                                 std::string& error);

    /** From a Hugging Face tokenizer.json: model.vocab and model.merges, the merges written either as
     *  "a b" strings or as ["a", "b"] pairs, and added_tokens ({"id", "content"}) joining the vocabulary
     *  when it lacks them. The same checks as fromVocabAndMerges; error names label. */
    static std::optional<Bpe> fromTokenizerJson(std::string_view json, const std::string& label, std::string& error);

    /** Reads vocab.json and merges.txt from disk; error names the file that is missing or wrong. */
    static std::optional<Bpe> loadVocabAndMerges(const std::string& vocabPath, const std::string& mergesPath,
                                                 std::string& error);
    /** Reads tokenizer.json from disk; error names the file. */
    static std::optional<Bpe> loadTokenizerJson(const std::string& path, std::string& error);

    /** The token ids of text. Never fails: every byte has a token. */
    std::vector<int> encode(std::string_view text) const;

    /** The bytes the ids stand for; empty with error naming the first id that is not in the vocabulary. */
    std::optional<std::string> decode(std::span<const int> ids, std::string& error) const;

    /** The vocabulary entry of id as the files write it ("Ġcat"); empty for an id outside 0 … size()−1. */
    std::string token(int id) const;
    /** The id of a vocabulary entry, if there is one. */
    std::optional<int> id(std::string_view token) const;
    /** The number of entries. */
    int size() const { return int(m_tokens.size()); }
    /** The most bytes any entry stands for: a text of b bytes encodes into at least b / longestToken() ids. */
    std::size_t longestToken() const { return m_longest; }
    /** The id of "<|endoftext|>", if the vocabulary has it. */
    std::optional<int> endOfText() const { return id("<|endoftext|>"); }

    /** GPT-2's pre-tokenization of text (step 1 above): the pieces, which concatenate to text. */
    static std::vector<std::string_view> preTokenize(std::string_view text);

    /** GPT-2's bytes_to_unicode(): the character written for each byte, as UTF-8. */
    static const std::vector<std::string>& bytesToUnicode();

private:
    Bpe() = default;

    /** Checks the vocabulary (token, id pairs) and builds the tables; false with error. */
    bool setVocabulary(std::vector<std::pair<std::string, std::int64_t>> entries, const std::string& label,
                       std::string& error);
    /** Adds the merge (a, b) of the given rank; false with error naming where. */
    bool addMerge(const std::string& a, const std::string& b, const std::string& where, std::string& error);
    /** Appends the ids of one pre-tokenized piece. */
    void encodePiece(std::string_view piece, std::vector<int>& ids) const;

    std::vector<std::string> m_tokens;                 ///< id → token as written
    std::vector<std::string> m_bytes;                  ///< id → the bytes it stands for
    std::unordered_map<std::string, int> m_ids;        ///< token as written → id
    int m_byteIds[256] = {};                           ///< byte → id of its single-symbol token
    std::size_t m_longest = 1;                         ///< the most bytes of any entry
    BpeMerges m_merges;
};

} // namespace core
