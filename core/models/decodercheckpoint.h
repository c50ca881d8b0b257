#pragma once
/** A checkpoint folder of one of the families of decoderconfig.h, checked and loaded: config.json and its weights
 *  (model.safetensors or its shards), every tensor's shape checked against config.json before anything is sized by
 *  it, every value checked finite. The tokenizer is read elsewhere.
 *
 *  Weights stay as stored (F32, F16 or BF16) in the mapped files: nothing is widened at load. The forward pass
 *  reads BF16 and F32 rows as stored, widening them in registers (products.h: rowsProduct), and widens F16 a block
 *  of rows at a time (StoredTensor::rowsAsFloat), so a model of BF16 weights costs its 2 bytes per weight in memory. Matrices are nn.Linear's: out × in, so that y = x·Wᵀ + b for rows x.
 *
 *  A loaded checkpoint never changes: any number of threads may read it at once. */

#include "core/models/checkpointfiles.h"
#include "core/models/decoderconfig.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core {

/** A tensor as its file stores it; absent when bytes is null (a bias the family does not have). Vectors are 1 × k. */
struct StoredTensor {
    const char* bytes = nullptr;
    Dtype dtype = Dtype::F32;
    Eigen::Index rows = 0;
    Eigen::Index cols = 0;

    bool present() const { return bytes != nullptr; }
    /** Rows [first, first + count) as float32: in place when they are stored so (F32, aligned), else widened exactly
     *  into buffer (grown to count × cols values when it is smaller). Valid while the checkpoint and buffer live. */
    const float* rowsAsFloat(Eigen::Index first, Eigen::Index count, std::vector<float>& buffer) const;
    /** The whole tensor as a float32 matrix (a copy), for vectors and small weights. */
    FloatMatrix toFloat() const;
};

/** One decoder layer's weights; which are present follows DecoderConfig. d = hidden_size, q = heads·head_dim,
 *  kv = kv_heads·head_dim. */
struct DecoderLayer {
    StoredTensor attnNorm, attnNormBias;   ///< input_layernorm: 1 × d (the bias LayerNorm's only)
    StoredTensor qkv, qkvBias;             ///< NeoX's query_key_value: 3q × d, rows [head][q, k, v][head_dim]
    StoredTensor query, queryBias;         ///< q_proj: q × d
    StoredTensor key, keyBias;             ///< k_proj: kv × d
    StoredTensor value, valueBias;         ///< v_proj: kv × d
    StoredTensor output, outputBias;       ///< o_proj or dense: d × q
    StoredTensor queryNorm, keyNorm;       ///< Qwen3's q_norm, k_norm: 1 × head_dim
    StoredTensor mlpNorm, mlpNormBias;     ///< post_attention_layernorm: 1 × d
    StoredTensor gate, gateBias;           ///< gate_proj: intermediate × d (SwiGLU only)
    StoredTensor up, upBias;               ///< up_proj or dense_h_to_4h: intermediate × d
    StoredTensor down, downBias;           ///< down_proj or dense_4h_to_h: d × intermediate
};

class DecoderCheckpoint {
public:
    /** Loads and checks the folder. Returns nullptr with error naming the file and what is wrong when the folder is
     *  not one, config.json is missing, broken or names another architecture (parseDecoderConfig), the weights are
     *  missing or broken (CheckpointTensors::open), num_hidden_layers asks for more layers than the weights hold
     *  (checked before anything is sized by it), a tensor is missing, unknown, there twice (with and without the
     *  prefix) or of a shape config.json does not allow, or a value is NaN or infinite (naming file, tensor and
     *  entry). stop is asked between the steps and before each tensor's values are checked. */
    static std::shared_ptr<const DecoderCheckpoint> load(const std::string& folder, std::string& error,
                                                         const StopCheck& stop = {});

    const std::string& folder() const { return m_folder; }
    const DecoderConfig& config() const { return m_config; }
    const StoredTensor& embedding() const { return m_embedding; }      ///< vocab_size × d
    const std::vector<DecoderLayer>& layers() const { return m_layers; } ///< first to last
    const StoredTensor& finalNorm() const { return m_finalNorm; }      ///< 1 × d
    const StoredTensor& finalNormBias() const { return m_finalNormBias; } ///< 1 × d, LayerNorm only
    /** The output head, vocab_size × d: lm_head (embed_out), or the embedding when tied. */
    const StoredTensor& head() const { return m_config.tiedHead ? m_embedding : m_head; }

private:
    DecoderCheckpoint() = default;

    std::string m_folder;
    DecoderConfig m_config;
    std::optional<CheckpointTensors> m_tensors;
    StoredTensor m_embedding, m_finalNorm, m_finalNormBias, m_head;
    std::vector<DecoderLayer> m_layers;
};

} // namespace core
