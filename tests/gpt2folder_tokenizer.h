#pragma once
/** A small random GPT-2 checkpoint with GPT-2's real tokenizer (tests/data/gpt2-tokenizer: 50 257 tokens), for
 *  the window's tests and screenshots: real BPE tokens, random weights. */

#include "gpt2folder_random.h"

#include <fstream>
#include <sstream>

namespace testutil {

/** randomGpt2Folder's weights with the real vocabulary: wte grows to 50 257 rows (spread 0.5, its own seed),
 *  vocab.json and merges.txt are GPT-2's. */
inline Folder randomGpt2FolderWithTokenizer(const std::string& tokenizerDir, int layers = 3, int dim = 32,
                                            int heads = 4, int positions = 32, std::uint64_t seed = 11)
{
    Folder f = randomGpt2Folder("F32", "", layers, dim, heads, false, seed);
    const int vocab = 50257;
    f.config["vocab_size"] = vocab;
    f.config["n_positions"] = positions;
    f.vocabText = readText(tokenizerDir + "/encoder.json");
    f.merges = readText(tokenizerDir + "/vocab.bpe");
    std::mt19937_64 random(seed + 1);
    std::normal_distribution<float> normal;
    for (Tensor& t : f.tensors) {
        std::uint64_t rows = 0;
        if (t.name == "wte.weight")
            rows = std::uint64_t(vocab);
        else if (t.name == "wpe.weight")
            rows = std::uint64_t(positions);
        else
            continue;
        std::vector<float> values(std::size_t(rows) * std::size_t(dim));
        for (float& v : values)
            v = 0.5f * normal(random);
        t.shape = {rows, std::uint64_t(dim)};
        t.bytes = encodeValues(values, "F32");
    }
    return f;
}

} // namespace testutil
