#pragma once
/** GPT-2's tokenizer (tests/data/gpt2-tokenizer) written as a Hugging Face tokenizer.json, for the tests of both
 *  readers of that format. */

#include "testutil.h"

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

namespace testutil {

/** GPT-2's vocabulary and merges as tokenizer.json, the merges as "a b" strings or as pairs, <|endoftext|> given
 *  as an added token instead of a vocabulary entry (as Hugging Face's files may), with GPT-2's ByteLevel
 *  pre-tokenizer, post-processor and decoder. */
inline nlohmann::json gpt2TokenizerJson(const std::string& dataDir, bool pairs)
{
    nlohmann::json merges = nlohmann::json::array();
    std::istringstream lines(readText(dataDir + "/vocab.bpe"));
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty() || line.starts_with("#version"))
            continue;
        const auto space = line.find(' ');
        if (pairs)
            merges.push_back({line.substr(0, space), line.substr(space + 1)});
        else
            merges.push_back(line);
    }
    nlohmann::json vocab = nlohmann::json::parse(readText(dataDir + "/encoder.json"));
    vocab.erase("<|endoftext|>");
    const nlohmann::json byteLevel = {
        {"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
    return {
        {"version", "1.0"},
        {"added_tokens",
         {{{"id", 50256}, {"content", "<|endoftext|>"}, {"single_word", false}, {"lstrip", false}, {"rstrip", false},
           {"normalized", true}, {"special", true}}}},
        {"normalizer", nullptr},
        {"pre_tokenizer", byteLevel},
        {"post_processor", byteLevel},
        {"decoder", byteLevel},
        {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}},
    };
}

} // namespace testutil
