#pragma once
/** The editable attention weights of a model's layer, as session files name them (SPEC §5, §6), for every family:
 *  GPT-2 has the first eight, Qwen3 the q/k norm vectors too. Row convention of SPEC §1 (x·W + b). */

#include <optional>
#include <string_view>

namespace core {

enum class ModelWeight {
    Query,      ///< d × heads·head_dim
    Key,        ///< d × kv_heads·head_dim
    Value,      ///< d × kv_heads·head_dim
    Output,     ///< heads·head_dim × d
    QueryBias,  ///< 1 × heads·head_dim
    KeyBias,    ///< 1 × kv_heads·head_dim
    ValueBias,  ///< 1 × kv_heads·head_dim
    OutputBias, ///< 1 × d
    QueryNorm,  ///< Qwen3's q_norm: 1 × head_dim
    KeyNorm,    ///< Qwen3's k_norm: 1 × head_dim
};

/** "query", "key", "value", "output", their "_bias" forms, "query_norm", "key_norm". */
const char* modelWeightName(ModelWeight weight);
/** The weight a session file names, if any. */
std::optional<ModelWeight> modelWeightFromName(std::string_view name);
/** True for the weights of one row (biases and norm vectors). */
inline bool isRowWeight(ModelWeight weight) { return weight >= ModelWeight::QueryBias; }
/** "query, key, …, output_bias" (GPT-2's eight) or all ten: what a message says is expected. */
const char* modelWeightNames(bool withNorms);

} // namespace core
