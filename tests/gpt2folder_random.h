#pragma once
/** Small GPT-2 checkpoint folders with random weights, for the tests of the forward pass and model sessions. */

#include "gpt2folder.h"

#include <bit>
#include <random>

namespace testutil {

/** values (float32) as the raw bytes of dtype: F32 as they are, F16 rounded to nearest, BF16 truncated. */
inline std::string encodeValues(const std::vector<float>& values, const std::string& dtype)
{
    std::string bytes;
    for (float v : values) {
        if (dtype == "F32") {
            const auto bits = std::bit_cast<std::uint32_t>(v);
            for (int b = 0; b < 4; ++b)
                bytes += char((bits >> (8 * b)) & 0xff);
            continue;
        }
        const std::uint16_t bits = dtype == "F16" ? std::bit_cast<std::uint16_t>(static_cast<_Float16>(v))
                                                  : std::uint16_t(std::bit_cast<std::uint32_t>(v) >> 16);
        bytes += char(bits & 0xff);
        bytes += char(bits >> 8);
    }
    return bytes;
}

/** A tiny GPT-2 (layers, n_embd dim, heads, 32 positions unless asked, the 257 byte tokens) with seeded random weights that
 *  make the attention far from uniform: LayerNorm gains near 1, biases of spread 0.2 (0 with zeroAttentionBias
 *  for c_attn and attn.c_proj), weights of spread 2/√fan-in, embeddings of spread 0.5. */
inline Folder randomGpt2Folder(const std::string& dtype = "F32", const std::string& prefix = "", int layers = 3,
                               int dim = 32, int heads = 4, bool zeroAttentionBias = false, std::uint64_t seed = 7,
                               int positions = 32)
{
    Folder f;
    f.config = gpt2Config(layers, dim, heads, positions, 257);
    f.vocab = byteVocab();
    std::mt19937_64 random(seed);
    std::normal_distribution<float> normal;
    for (const auto& [name, shape] : gpt2Shapes(f.config)) {
        std::size_t count = 1;
        for (auto s : shape)
            count *= s;
        const bool isBias = name.ends_with(".bias") && !name.starts_with("ln_f") && name.find("ln_") == std::string::npos;
        const bool isGain = name.find("ln_") != std::string::npos && name.ends_with(".weight");
        const bool isLnBias = name.find("ln_") != std::string::npos && name.ends_with(".bias");
        const bool attentionBias = name.ends_with("attn.c_attn.bias") || name.ends_with("attn.c_proj.bias");
        std::vector<float> values(count);
        for (float& v : values) {
            const float z = normal(random);
            if (isGain)
                v = 1.0f + 0.1f * z;
            else if (isLnBias || isBias)
                v = zeroAttentionBias && attentionBias ? 0.0f : 0.2f * z;
            else if (shape.size() == 2 && (name == "wte.weight" || name == "wpe.weight"))
                v = 0.5f * z;
            else
                v = 2.0f / std::sqrt(float(shape[0])) * z;
        }
        Tensor t{prefix + name, dtype, shape, 0, encodeValues(values, dtype)};
        f.tensors.push_back(std::move(t));
    }
    return f;
}

} // namespace testutil
