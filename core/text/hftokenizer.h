#pragma once
/** A Hugging Face tokenizer.json (with tokenizer_config.json where present) read as the `tokenizers` library
 *  reads it, for the byte-pair encodings of today's open models: text → ids exactly as `tokenizer(text)` gives
 *  them with the library's defaults.
 *  1. The added tokens found in the text (Llama 3's <|begin_of_text|>, Mistral's </s>) become those tokens; the
 *     text between them goes on alone (lstrip, rstrip, single_word and normalized as the library has them).
 *  2. The normalizer: NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace, a Sequence of those, or none.
 *  3. The pre-tokenizer: Split by the file's regex (ICU's engine), ByteLevel, Digits, Metaspace, a Sequence.
 *  4. The model, BPE: each piece's characters (or, past the vocabulary, byte_fallback's <0xNN> tokens, or unk)
 *     merged by rank (BpeMerges, as GPT-2's Bpe); ignore_merges takes a piece that is a token whole.
 *  5. The post-processor: TemplateProcessing's tokens around the text (the BOS), ByteLevel, a Sequence; or what
 *     tokenizer_config.json says where transformers' tokenizer class rebuilds it from add_bos_token.
 *  Anything else (WordPiece, Unigram, an unknown step) is refused by name. Immutable once loaded: safe on several
 *  threads, cheap to copy. */

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

class HfTokenizer {
public:
    /** Reads folder/tokenizer.json and, when it exists, folder/tokenizer_config.json; error names the file and
     *  what is wrong with it. */
    static std::optional<HfTokenizer> loadFolder(const std::string& folder, std::string& error);

    /** From the two files' text (config empty when there is none); labels name them in error. */
    static std::optional<HfTokenizer> fromJson(std::string_view tokenizerJson, std::string_view configJson,
                                               const std::string& tokenizerLabel, const std::string& configLabel,
                                               std::string& error);

    /** The ids of text, with the special tokens the post-processor adds (unless special is false: the library's
     *  add_special_tokens). Bytes that are not UTF-8 count as U+FFFD. Never fails. */
    std::vector<int> encode(std::string_view text, bool special = true) const;
    /** The bytes ids stand for, joined: an added token as written, a byte-level entry as its bytes, SentencePiece's
     *  ▁ as a space and <0xNN> as its byte, without the space a prepending normalizer or Metaspace put before the
     *  text and without the tokens the post-processor puts around it. */
    std::string decode(const std::vector<int>& ids) const;

    /** The vocabulary entry of id as the file writes it ("Ġcat", "▁cat", "<0x0A>", "<s>"); empty for an id
     *  without one. */
    std::string token(int id) const;
    /** The id of an entry, if there is one (added tokens included). */
    std::optional<int> id(std::string_view token) const;
    /** The entry as a chip shows it (tokentext's readableBytes): "␣cat", "↵", "<E4>"; an added token as written. */
    std::string readable(int id) const;
    /** The id encode() puts before every text (Llama's <s>, <|begin_of_text|>), if it puts one. */
    std::optional<int> bosId() const;
    /** One more than the largest id. */
    int size() const;

    struct Impl;

private:
    explicit HfTokenizer(std::shared_ptr<const Impl> impl) : m(std::move(impl)) {}
    std::shared_ptr<const Impl> m;
};

} // namespace core
