#pragma once
/** The one forward pass of every family of decoderconfig.h (SPEC §6), following the checkpoint's description:
 *  X₀ = embedding[ids]; per layer a = norm₁(X), q, k, v projections (with their biases), each head's q and k
 *  RMS-normalised when the family does (Qwen3), their first rotaryDims turned by their position (rotate-half RoPE),
 *  query head i reading K/V head i / (heads / kv_heads), softmax(causal(q·kᵀ/√head_dim))·v, the output projection;
 *  then the MLP (SwiGLU or GELU) on norm₂ of the stream after attention, or of X itself beside the attention (NeoX's
 *  parallel residual); at the end the final norm and the logits, h·headᵀ.
 *  Weight products in float32 from the weights as stored (a block of rows widened at a time); norm statistics,
 *  rotations, scores, softmax and weights·V in double. Every layer's stream, projections and attention are kept.
 *  Layers and heads count from 0 here. */

#include "core/models/decodercheckpoint.h"
#include "core/models/gpt2forward.h"
#include "core/tensor/matrix.h"
#include "core/tensor/stop.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace core {

class DecoderForward {
public:
    /** Shares the checkpoint; nothing is computed before run(). */
    explicit DecoderForward(std::shared_ptr<const DecoderCheckpoint> checkpoint);

    const DecoderCheckpoint& checkpoint() const { return *m_checkpoint; }
    const DecoderConfig& config() const { return m_checkpoint->config(); }

    /** Sets the token ids. False with error when there are none, more than max_position_embeddings or
     *  Limits::maxTokens, or an id outside the vocabulary. */
    bool setTokens(std::vector<int> ids, std::string& error);
    const std::vector<int>& tokens() const { return m_ids; }
    int n() const { return int(m_ids.size()); }

    /** Zeroes head (0-based) of layer as a whole, or gives it back: its columns of W_O count as 0 (SPEC §5
     *  ablations). The caller checks layer and head. */
    void setAblated(int layer, int head, bool zeroed);
    const std::set<std::pair<int, int>>& ablations() const { return m_ablations; }

    /** Runs the whole pass over the tokens. Requires tokens. stop is asked before each layer and before the logits;
     *  when it says stop, run() returns false and the pass is left to the next run(). */
    bool run(const StopCheck& stop = {});

    /** The residual stream entering layer ℓ (0 … layers; layers is the stream before the final norm): n × d. */
    const FloatMatrix& stream(int layer) const { return m_stream[std::size_t(layer)]; }
    /** Layer ℓ's attention weights of head h: n × n, row i = query i, causal (entries j > i exactly 0). */
    const FloatMatrix& attention(int layer, int head) const
    {
        return m_attention[std::size_t(layer) * std::size_t(config().heads) + std::size_t(head)];
    }
    /** The logits of the token after the last one: 1 × vocab_size. */
    const FloatMatrix& logits() const { return m_logits; }
    /** The logits of the token after position (0 … n−1), computed as the pass computes the last one. */
    FloatMatrix logitsAt(int position) const;
    /** The `count` most probable next tokens, most probable first. */
    std::vector<Gpt2Candidate> topTokens(int count = 10) const { return topCandidates(m_logits, count); }

    /** The attention norm of the stream entering layer: the layer's X (n × d), as the pass uses it. */
    FloatMatrix layerInput(int layer) const;
    /** Layer's queries, n × heads·head_dim (head i in columns i·head_dim …): with their biases and q_norm, turned by
     *  their positions when rotated, as the scores use them. */
    Matrix queries(int layer, bool rotated) const;
    /** The same for the keys, n × kv_heads·head_dim. */
    Matrix keys(int layer, bool rotated) const;
    /** Layer's values, n × kv_heads·head_dim, with their biases. */
    Matrix values(int layer) const;

private:
    /** Head's columns of a layer's projection (query or key), in double, q/k-normed with norm when it is given and
     *  turned when rotated. */
    Matrix headRows(const FloatMatrix& projection, int head, const StoredTensor* norm, bool rotated) const;
    /** Every head of a projection (n × heads·head_dim) through headRows(). */
    Matrix allHeads(const FloatMatrix& projection, const StoredTensor& norm, bool rotated) const;
    void runLayer(int layer);
    FloatMatrix mlp(int layer, const FloatMatrix& x) const;
    FloatMatrix logitsOfRow(Eigen::Index row) const;

    std::shared_ptr<const DecoderCheckpoint> m_checkpoint;
    std::vector<double> m_inverseFrequencies; ///< rotaryDims / 2 rotary frequencies
    std::vector<int> m_ids;
    std::set<std::pair<int, int>> m_ablations;
    std::vector<FloatMatrix> m_stream;    ///< layers + 1 matrices, n × d
    std::vector<FloatMatrix> m_q, m_k, m_v; ///< per layer: n × heads·head_dim, n × kv·head_dim twice, with biases
    std::vector<FloatMatrix> m_attention; ///< layers × heads matrices, n × n
    FloatMatrix m_logits;                 ///< 1 × vocab
};

} // namespace core
