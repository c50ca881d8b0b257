/** GPT-2's byte-level BPE: no vocabulary, merges, tokenizer.json or text crashes it; a tokenizer it accepts
 *  encodes any text into ids of its vocabulary that decode to the same bytes.
 *
 *  A refusal names the file in one short line without terminal controls, whatever the input nests or holds.
 *
 *  The first byte picks what the rest is: 0 — vocab.json, NUL, merges.txt, NUL, text; 1 — tokenizer.json,
 *  NUL, text; anything else — text for a small fixed tokenizer (the 256 byte tokens and a few merges). */

#include "fuzzcheck.h"

#include "core/text/bpe.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

const core::Bpe& fixedTokenizer()
{
    static const core::Bpe bpe = [] {
        std::string vocab = "{";
        const auto& chars = core::Bpe::bytesToUnicode();
        for (int b = 0; b < 256; ++b) {
            const std::string& c = chars[std::size_t(b)];
            vocab += "\"" + (c == "\"" || c == "\\" ? "\\" + c : c) + "\": " + std::to_string(b) + ", ";
        }
        vocab += "\"Ġt\": 256, \"he\": 257, \"Ġthe\": 258, \"in\": 259, \"Ġa\": 260, \"ĠĠ\": 261, \"ing\": 262, "
                 "\"<|endoftext|>\": 263}";
        std::string error;
        auto loaded = core::Bpe::fromVocabAndMerges(vocab, "#version: 0.2\nĠ t\nh e\nĠt he\ni n\nĠ a\nĠ Ġ\nin g\n",
                                                    "vocab.json", "merges.txt", error);
        FUZZ_CHECK(loaded, "the fixed tokenizer is refused: %s", error.c_str());
        return std::move(*loaded);
    }();
    return bpe;
}

void checkEncoding(const core::Bpe& bpe, std::string_view text)
{
    std::size_t joined = 0;
    for (const std::string_view piece : core::Bpe::preTokenize(text)) {
        FUZZ_CHECK(!piece.empty(), "an empty piece");
        FUZZ_CHECK(piece.data() == text.data() + joined, "the pieces do not follow one another");
        joined += piece.size();
    }
    FUZZ_CHECK(joined == text.size(), "the pieces cover %zu of %zu bytes", joined, text.size());

    const std::vector<int> ids = bpe.encode(text);
    FUZZ_CHECK(ids.size() <= text.size(), "%zu ids for %zu bytes", ids.size(), text.size());
    for (const int id : ids)
        FUZZ_CHECK(id >= 0 && id < bpe.size(), "id %d outside the vocabulary of %d", id, bpe.size());
    std::string error;
    const auto back = bpe.decode(ids, error);
    FUZZ_CHECK(back, "its own ids do not decode: %s", error.c_str());
    FUZZ_CHECK(*back == text, "decode(encode(text)) differs from the text");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return 0;
    std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::string error;
    if (data[0] == 0) {
        const std::string_view vocab = fuzzcheck::takePart(rest);
        const std::string_view merges = fuzzcheck::takePart(rest);
        const auto bpe = core::Bpe::fromVocabAndMerges(vocab, merges, "vocab.json", "merges.txt", error);
        if (bpe)
            checkEncoding(*bpe, rest);
        else
            fuzzcheck::checkRefusal(error, {"vocab.json", "merges.txt"});
    } else if (data[0] == 1) {
        const std::string_view json = fuzzcheck::takePart(rest);
        const auto bpe = core::Bpe::fromTokenizerJson(json, "tokenizer.json", error);
        if (bpe)
            checkEncoding(*bpe, rest);
        else
            fuzzcheck::checkRefusal(error, {"tokenizer.json"});
    } else {
        checkEncoding(fixedTokenizer(), rest);
    }
    return 0;
}
