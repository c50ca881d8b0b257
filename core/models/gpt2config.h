#pragma once
/** A GPT-2-family model's config.json, checked. */

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace core {

/** The sizes and constants of a GPT-2 model, as config.json names them. */
struct Gpt2Config {
    int layers = 0;                      ///< n_layer
    int dModel = 0;                      ///< n_embd
    int heads = 0;                       ///< n_head; divides dModel
    int positions = 0;                   ///< n_positions (or n_ctx): the longest text, in tokens
    int vocabSize = 0;                   ///< vocab_size
    double layerNormEpsilon = 1e-5;      ///< layer_norm_epsilon
    std::string activation = "gelu_new"; ///< activation_function: gelu_new or gelu_pytorch_tanh

    /** d_k = dModel / heads. */
    int headSize() const { return heads ? dModel / heads : 0; }
};

/** The largest size accepted for any of the integers (so that products such as vocab × d_model stay far
 *  inside 64 bits). */
constexpr int maxGpt2Size = 1 << 24;

/** An architecture the program reads: config.json's architectures[0] and its model_type. */
struct ArchitectureName {
    const char* architecture;
    const char* modelType;
};

/** The architectures read; any other is refused by name. */
inline constexpr ArchitectureName supportedArchitectures[] = {{"GPT2LMHeadModel", "gpt2"}};

/** The largest config.json read, in bytes (GPT-2's is under 1 KB). */
constexpr std::size_t maxConfigBytes = std::size_t(1) << 20;

/** Reads config.json's text. Requires n_layer, n_embd, n_head, vocab_size and n_positions (n_ctx is taken
 *  when n_positions is absent), each an integer in 1 … maxGpt2Size, and n_head dividing n_embd;
 *  layer_norm_epsilon (default 1e-5, as Hugging Face's GPT2Config) must be a positive finite number,
 *  activation_function (default gelu_new) gelu_new or gelu_pytorch_tanh, which are the same tanh
 *  approximation. architectures[0] and model_type, where given, must name one of supportedArchitectures.
 *  Refuses anything else with error "<label>: <key>: <what is wrong>". */
std::optional<Gpt2Config> parseGpt2Config(std::string_view json, const std::string& label, std::string& error);

/** Reads and checks the config.json at path; error names the path. */
std::optional<Gpt2Config> loadGpt2Config(const std::string& path, std::string& error);

} // namespace core
