/** Hugging Face's tokenizer.json: no tokenizer.json, tokenizer_config.json or text crashes the reader, hangs it
 *  or makes it allocate without bound; a tokenizer it accepts encodes any text into ids that have entries, each
 *  with its chip's text.
 *
 *  A refusal names the file in one short line without terminal controls.
 *
 *  The input is tokenizer.json, NUL, tokenizer_config.json (none when empty), NUL, the text. The seeds hold small
 *  tokenizers of each kind: SentencePiece-style with byte fallback, byte-level with Llama 3's regex, Metaspace. */

#include "fuzzcheck.h"

#include "core/text/hftokenizer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    const std::string_view json = fuzzcheck::takePart(rest);
    const std::string_view config = fuzzcheck::takePart(rest);
    std::string error;
    const auto tokenizer =
        core::HfTokenizer::fromJson(json, config, "tokenizer.json", "tokenizer_config.json", error);
    if (!tokenizer) {
        fuzzcheck::checkRefusal(error, {"tokenizer.json", "tokenizer_config.json"});
        return 0;
    }
    // Every byte becomes at most its three bytes of U+FFFD, each at most one id, and a piece gains a "▁" or a
    // space at most; the post-processor adds what its template holds.
    const auto ids = tokenizer->encode(rest);
    FUZZ_CHECK(ids.size() <= 6 * rest.size() + 64, "%zu ids for %zu bytes", ids.size(), rest.size());
    for (const int id : ids) {
        FUZZ_CHECK(!tokenizer->token(id).empty(), "id %d has no entry", id);
        (void)tokenizer->readable(id);
    }
    return 0;
}
