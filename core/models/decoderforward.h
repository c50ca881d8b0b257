#pragma once
/** The one forward pass of every family of decoderconfig.h (SPEC §6), following the checkpoint's description:
 *  X₀ = embedding[ids]; per layer a = norm₁(X), q, k, v projections (with their biases), each head's q and k
 *  RMS-normalised when the family does (Qwen3), their first rotaryDims turned by their position (rotate-half RoPE),
 *  query head i reading K/V head i / (heads / kv_heads), softmax(causal(q·kᵀ/√head_dim))·v, the output projection;
 *  then the MLP (SwiGLU or GELU) on norm₂ of the stream after attention, or of X itself beside the attention (NeoX's
 *  parallel residual); at the end the final norm and the logits, h·headᵀ.
 *  Weight products in float32 from the weights as stored (BF16 widened in registers, F16 a block of rows at a
 *  time); norm statistics, rotations, scores, softmax and weights·V in double. Every layer's stream, projections and attention are kept.
 *  Layers and heads count from 0 here. */

#include "core/models/decodercheckpoint.h"
#include "core/models/modelpass.h"
#include "core/text/hftokenizer.h"
#include "core/tensor/matrix.h"
#include "core/tensor/stop.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace core {

/** Nothing when (row, col) is a cell of weight in a model of config, else what is wrong: outside its rows or
 *  columns, or a weight the model does not have ("query_bias: this model's attention has no biases"). */
std::optional<std::string> checkDecoderCell(const DecoderConfig& config, ModelWeight weight, int row, int col);

class DecoderForward final : public ModelPass {
public:
    /** Shares the checkpoint and its tokenizer (null: a pass that reads ids only); nothing is computed before run(). */
    DecoderForward(std::shared_ptr<const DecoderCheckpoint> checkpoint, std::shared_ptr<const HfTokenizer> tokenizer);
    /** Copied only by clone(): a copy of every kept layer is rarely what a caller means. */
    DecoderForward& operator=(const DecoderForward&) = delete;

    const DecoderCheckpoint& checkpoint() const { return *m_checkpoint; }
    const DecoderConfig& config() const { return m_checkpoint->config(); }

    ModelShape shape() const override;
    std::shared_ptr<ModelPass> freshPass() const override;
    std::vector<int> encode(std::string_view text, bool special = true) const override;
    std::string vocabularyToken(int id) const override;
    std::string readable(int id) const override;
    /** No token of these vocabularies is near 256 bytes long. */
    std::size_t longestTokenBytes() const override { return 256; }
    std::optional<std::string> checkCell(ModelWeight weight, int row, int col) const override;

    /** Sets the token ids. False with error when there are none, more than max_position_embeddings or
     *  Limits::maxTokens, or an id outside the vocabulary. */
    bool setTokens(std::vector<int> ids, std::string& error) override;
    const std::vector<int>& tokens() const override { return m_ids; }

    /** Sets one weight cell of layer (0-based) to value; a value equal to the checkpoint's removes the edit. False with
     *  error when the layer or cell is outside the model. The edited layer's attention weights are copied to float32
     *  once; the others stay as stored. */
    bool setEdit(int layer, ModelWeight weight, int row, int col, float value, std::string& error) override;
    void clearEdit(int layer, ModelWeight weight, int row, int col) override;
    void clearEdits() override;
    std::vector<ModelEdit> edits() const override;
    float weightValue(int layer, ModelWeight weight, int row, int col) const override;
    float checkpointValue(int layer, ModelWeight weight, int row, int col) const override;
    /** Zeroes head (0-based) of layer as a whole, or gives it back: its columns of W_O count as 0 (SPEC §5
     *  ablations). The caller checks layer and head. */
    void setAblated(int layer, int head, bool zeroed) override;
    const std::set<std::pair<int, int>>& ablations() const override { return m_ablations; }

    /** Runs the pass from the lowest layer that changed since the last run (from the embedding for new tokens).
     *  Requires tokens. stop is asked before each layer and before the logits; when it says stop, run() returns
     *  false and the rest is left to the next run(). */
    bool run(const StopCheck& stop = {}) override;
    bool upToDate() const override { return m_dirtyFrom == clean; }
    int takeSharedLayers(const ModelPass& other) override;

    std::unique_ptr<ModelPass> clone() const override;
    /** The residual stream entering layer ℓ (0 … layers; layers is the stream before the final norm): n × d. The
     *  last layer's MLP runs for rows before the last only when this asks for them (the logits need the last). */
    const FloatMatrix& stream(int layer) const override
    {
        if (layer == config().layers)
            finishFinalRows();
        return m_stream[std::size_t(layer)];
    }
    const FloatMatrix& headOutputs(int layer) const override { return m_z[std::size_t(layer)]; }
    /** o_proj's (dense's) weight transposed, with the edits. */
    FloatMatrix outputWeight(int layer) const override;
    LayerBiases outputBiases(int layer) const override;
    FinalNormForm finalNormForm() const override;
    FloatMatrix finalNorm(const FloatMatrix& streamRows) const override;
    FloatMatrix unembed(const FloatMatrix& streamRows) const override;
    FloatMatrix unembeddingRow(int id) const override;
    /** The next run() recomputes layer and those after it, every row. */
    void patchStream(int layer, int position, const FloatMatrix& row) override;
    /** The next run() keeps layer's q, k, v and attention and recomputes from its output projection on. */
    void patchHeadOutput(int layer, int head, FloatMatrix z) override;
    void setLogitsWanted(bool wanted) override { m_logitsWanted = wanted; }
    std::string decode(const std::vector<int>& ids) const override;
    /** Layer ℓ's attention weights of head h: n × n, row i = query i, causal (entries j > i exactly 0). */
    const FloatMatrix& attention(int layer, int head) const override
    {
        return m_attention[std::size_t(layer) * std::size_t(config().heads) + std::size_t(head)];
    }
    /** The logits of the token after the last one: 1 × vocab_size. */
    const FloatMatrix& logits() const override { return m_logits; }
    /** The logits of the token after position (0 … n−1), computed as the pass computes the last one. */
    FloatMatrix logitsAt(int position) const override;
    int overflowLayer(int position) const override
    {
        finishFinalRows();
        return firstOverflowLayer(m_stream, position);
    }

    /** The attention norm of the stream entering layer: the layer's X (n × d), as the pass uses it. */
    FloatMatrix layerInput(int layer) const override;
    /** Layer's queries, n × heads·head_dim (head i in columns i·head_dim …): with their biases and q_norm, turned by
     *  their positions when rotated, as the scores use them. */
    Matrix queries(int layer, bool rotated) const;
    /** The same for the keys, n × kv_heads·head_dim. */
    Matrix keys(int layer, bool rotated) const;
    /** Layer's values, n × kv_heads·head_dim, with their biases. */
    Matrix values(int layer) const;
    /** Layer's weight in the row convention of SPEC §1 (Query d × heads·head_dim, a bias 1 × its columns, …), with
     *  the edits, in double; empty when the family has no such weight. */
    Matrix weightMatrix(int layer, ModelWeight weight) const;
    /** Layer (0-based) as an AttentionModel (SPEC §6): tokens as the vocabulary writes them, embeddings the layer's
     *  attention-norm output, W_Q, W_K, W_V, W_O and the biases the family has, with the edits, in double; heads,
     *  kv_heads, scaled by 1/√head_dim, causal, rotary with the model's frequencies when it turns, q/k norm with its
     *  weights when it has them. core::compute of it gives this layer's attention as the pass computes it. */
    AttentionModel layerModel(int layer) const override;
    /** Layer's attention output, n × d: the heads' outputs side by side (a zeroed head's as 0) times W_O, plus its
     *  bias, as the pass adds it to the stream. */
    FloatMatrix attentionOutput(int layer) const override { return m_attended[std::size_t(layer)]; }
    /** The MLP of one row of the stream after attention (of the layer's input with a parallel residual). */
    MlpRow mlpRow(int layer, int position) const override;

private:
    /** A layer whose attention weights were edited: float32 copies of them, and the layer's weights pointing at the
     *  copies instead of the file (a copy of it points at its own copies). */
    struct EditedLayer {
        std::vector<FloatMatrix> copies;
        DecoderLayer weights;

        EditedLayer(std::vector<FloatMatrix> c, const DecoderLayer& w) : copies(std::move(c)), weights(w) {}
        EditedLayer(const EditedLayer& other) : copies(other.copies), weights(other.weights) { pointAtCopies(); }
        EditedLayer& operator=(const EditedLayer&) = delete;
        /** Points each tensor that has a copy at it. */
        void pointAtCopies();
    };
    DecoderForward(const DecoderForward&) = default;
    /** Where a cell lives in the stored tensors (nn.Linear's out × in): which tensor of the layer and where in it. */
    struct Place {
        StoredTensor DecoderLayer::*tensor;
        Eigen::Index row, col;
    };
    Place place(ModelWeight weight, int row, int col) const;
    /** Layer's weights, with the edits. */
    const DecoderLayer& weights(int layer) const;

    /** Head's columns of a layer's projection (query or key), in double, q/k-normed with norm when it is given and
     *  turned when rotated. */
    Matrix headRows(const FloatMatrix& projection, int head, const StoredTensor* norm, bool rotated) const;
    /** Every head of a projection (n × heads·head_dim) through headRows(). */
    Matrix allHeads(const FloatMatrix& projection, const StoredTensor& norm, bool rotated) const;
    /** Layer and everything after it must be computed again. */
    void markDirty(int layer);
    /** Recomputes layer; attentionKept: its q, k, v, attention and z are as they were (a head patch since). */
    void runLayer(int layer, bool attentionKept);
    /** Layer's q, k, v, attention weights and z, from the stream entering it. */
    void runAttention(int layer);
    /** The MLP of each row of x: parts.output only, or every part of mlpRow() when all is true. */
    MlpRow mlp(int layer, const FloatMatrix& x, bool all = false) const;
    /** The rows before the last of the stream leaving the last layer, when run() left them to be asked for. */
    void finishFinalRows() const;
    FloatMatrix logitsOfRow(Eigen::Index row) const;

    std::shared_ptr<const DecoderCheckpoint> m_checkpoint;
    std::shared_ptr<const HfTokenizer> m_tokenizer;
    static constexpr int clean = 1 << 30;
    int m_dirtyFrom = -1; ///< the lowest layer to run again (−1: the embedding too; layers: the logits; clean: none)
    std::vector<double> m_inverseFrequencies; ///< rotaryDims / 2 rotary frequencies
    std::vector<int> m_ids;
    std::set<std::pair<int, int>> m_ablations;
    std::map<std::tuple<int, ModelWeight, int, int>, float> m_edits;
    std::map<int, EditedLayer> m_editedLayers;
    /** Whether rows 0 … n−2 of the stream leaving the last layer are still to compute, and a lock for the reader
     *  that computes them (a copy of the pass takes the flag, not the lock). */
    struct FinalRows {
        bool pending = false;
        std::mutex lock;
        FinalRows() = default;
        FinalRows(const FinalRows& other) : pending(other.pending) {}
        FinalRows& operator=(const FinalRows& other)
        {
            pending = other.pending;
            return *this;
        }
    };
    mutable FinalRows m_finalRows;
    mutable std::vector<FloatMatrix> m_stream;  ///< layers + 1 matrices, n × d
    std::vector<FloatMatrix> m_q, m_k, m_v; ///< per layer: n × heads·head_dim, n × kv·head_dim twice, with biases
    std::vector<FloatMatrix> m_z;         ///< per layer, n × heads·head_dim: the heads' outputs before W_O
    std::vector<FloatMatrix> m_attended;  ///< per layer, n × d: the attention's output before the residual
    std::map<std::pair<int, int>, FloatMatrix> m_headPatches; ///< (layer, head) → z put in place of the computed one
    bool m_attentionKept = false; ///< layer m_dirtyFrom's attention is as it was: only a head patch reached it
    bool m_logitsWanted = true;
    std::vector<FloatMatrix> m_attention; ///< layers × heads matrices, n × n
    FloatMatrix m_logits;                 ///< 1 × vocab
};

} // namespace core
