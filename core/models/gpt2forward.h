#pragma once
/** GPT-2's forward pass on a loaded checkpoint (SPEC §5), with a sparse overlay of edited weight cells.
 *  X₀ = wte[ids] + wpe; per layer a = ln_1(X), per head softmax(causal(q·kᵀ/√d_k))·v, m = X + concat·c_proj,
 *  X' = m + MLP(ln_2(m)); logits = ln_f(h)·wteᵀ for the last position. Weight products in float32, LayerNorm
 *  statistics, scores, softmax and weights·V in double (SPEC §6).
 *  Each layer's stream, q, k, v, head outputs and weights are kept: an edit recomputes from its layer on, new
 *  tokens from the first that changed, through the same kernels as a whole pass, so results match it bit for bit.
 *  Layers count from 0 here, from 1 in session files (modelsession.h). */

#include "core/models/gpt2checkpoint.h"
#include "core/models/modelpass.h"
#include "core/attention/model.h"
#include "core/tensor/stop.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace core {

/** Nothing when (row, col) is a cell of weight in a model of config's width, else what is wrong:
 *  "row 3 is outside 0 … 0 (query_bias has one row)". */
std::optional<std::string> checkGpt2Cell(const Gpt2Config& config, ModelWeight weight, int row, int col);

/** The cell's value in checkpoint, without edits (the caller checks the cell). */
float gpt2CheckpointValue(const Gpt2Checkpoint& checkpoint, int layer, ModelWeight weight, int row, int col);

class Gpt2Forward final : public ModelPass {
public:
    /** Shares the checkpoint; nothing is computed before run(). */
    explicit Gpt2Forward(std::shared_ptr<const Gpt2Checkpoint> checkpoint);

    const Gpt2Checkpoint& checkpoint() const { return *m_checkpoint; }
    const std::shared_ptr<const Gpt2Checkpoint>& sharedCheckpoint() const { return m_checkpoint; }
    const Gpt2Config& config() const { return m_checkpoint->config(); }

    ModelShape shape() const override;
    std::shared_ptr<ModelPass> freshPass() const override;
    std::vector<int> encode(std::string_view text, bool special = true) const override;
    std::string vocabularyToken(int id) const override;
    std::string readable(int id) const override;
    std::size_t longestTokenBytes() const override;
    std::optional<std::string> checkCell(ModelWeight weight, int row, int col) const override;

    /** Sets the token ids: the rows from the first id that differs from the last ones are dirty in every layer.
     *  False with error when there are none, more than n_positions or Limits::maxTokens, or an id outside the vocabulary. */
    bool setTokens(std::vector<int> ids, std::string& error) override;
    const std::vector<int>& tokens() const override { return m_ids; }

    /** Sets one weight cell of layer (0-based) to value; a value equal to the checkpoint's removes the edit.
     *  False with error when the layer or cell is outside the model. Marks layer … L dirty. */
    bool setEdit(int layer, ModelWeight weight, int row, int col, float value, std::string& error) override;
    /** Gives the cell back its checkpoint value (nothing when it was not edited). */
    void clearEdit(int layer, ModelWeight weight, int row, int col) override;
    /** Removes every edit. */
    void clearEdits() override;
    /** The edits, ordered by layer, weight, row and column. */
    std::vector<ModelEdit> edits() const override;
    /** The cell's value with the edits (the caller checks the cell). */
    float weightValue(int layer, ModelWeight weight, int row, int col) const override;
    /** Zeroes head (0-based) of layer as a whole, or gives it back: its rows of W_O count as 0 while the edits of
     *  those rows are kept. Marks layer … L dirty when it changes. The caller checks layer and head. */
    void setAblated(int layer, int head, bool zeroed) override;
    /** The heads zeroed, as (layer, head), ordered. */
    const std::set<std::pair<int, int>>& ablations() const override { return m_ablations; }
    /** The cell's value in the checkpoint, without the edits (the caller checks the cell). */
    float checkpointValue(int layer, ModelWeight weight, int row, int col) const override
    {
        return originalValue(layer, weight, row, col);
    }

    /** Recomputes what the tokens or edits changed since the last run, from the lowest dirty layer.
     *  Requires tokens. stop is asked before each layer and before the logits: when it says stop, run() returns
     *  false there, and what is left stays dirty for the next run(). */
    bool run(const StopCheck& stop = {}) override;
    /** True when run() has nothing to do. */
    bool upToDate() const override { return m_dirtyFrom == clean; }
    /** Before a run(): takes from other, an up-to-date pass over the same checkpoint and tokens, every layer below
     *  the lowest one either pass edits, when this pass would compute them again (new tokens, say): computed from
     *  the same weights and tokens, they are the same bit for bit. A pass with edits takes them from the pass
     *  without, or the other way round. Returns how many layers it took (0 when it took none). */
    int takeSharedLayers(const ModelPass& other) override;

    std::unique_ptr<ModelPass> clone() const override;
    /** The residual stream entering layer ℓ (0 … layers; layers is the stream before ln_f): n × d. */
    const FloatMatrix& stream(int layer) const override { return m_stream[std::size_t(layer)]; }
    /** Layer ℓ's attention weights of head h: n × n, row i = query i, causal (entries j > i exactly 0). */
    const FloatMatrix& attention(int layer, int head) const override
    {
        return m_attention[std::size_t(layer) * std::size_t(config().heads) + std::size_t(head)];
    }
    /** The logits of the token after the last one: 1 × vocab_size. */
    const FloatMatrix& logits() const override { return m_logits; }

    /** ln_1 of the stream entering layer: the shown layer's X (n × d), as the forward pass uses it. */
    FloatMatrix layerInput(int layer) const override;
    /** concat · c_proj + b (zeroed heads' columns as 0), recomputed from the kept head outputs. */
    FloatMatrix attentionOutput(int layer) const override;
    MlpRow mlpRow(int layer, int position) const override;
    /** The second half of layer: given m = X_ℓ + attention output (n × d), returns
     *  m + MLP(ln_2(m)), the stream entering layer + 1, as run() computes it. */
    FloatMatrix finishLayer(int layer, const FloatMatrix& afterAttention) const;

    /** Layer (0-based) as an AttentionModel (SPEC §5): tokens as the vocabulary writes them, embeddings the
     *  layer's ln_1 output, W_Q, W_K, W_V, W_O and the four biases with the edits, in double; n_head heads,
     *  scaled, temperature 1, causal, no positional encoding. core::compute of it gives this layer's
     *  attention, and its output plus stream(layer) is what finishLayer() takes. */
    AttentionModel layerModel(int layer) const override;

    /** The logits of the token after position (0 … n−1; n−1 gives logits()): ln_f of that row of the stream
     *  before ln_f, times wteᵀ, computed as the pass computes the last one. 1 × vocab_size. The pass must have
     *  run. */
    FloatMatrix logitsAt(int position) const override;
    /** ln_f of each row of a stream (rows × d), as the pass applies it before the logits. */
    FloatMatrix finalNorm(const FloatMatrix& streamRows) const override;
    /** ln_f(rows)·wteᵀ: the logits each row of a stream would give (rows × vocab_size), the product in the blocks
     *  the pass takes for its own logits. */
    FloatMatrix unembed(const FloatMatrix& streamRows) const override;
    FloatMatrix unembeddingRow(int id) const override;
    FinalNormForm finalNormForm() const override;
    /** Layer ℓ's head outputs z side by side (n × d, head h in columns h·d_k …), before W_O. */
    const FloatMatrix& headOutputs(int layer) const override { return m_concat[std::size_t(layer)]; }
    /** Layer ℓ's W_O (d × d) as the pass multiplies it, with the edits (a zeroed head's rows are not zero here: the
     *  pass zeroes its z instead); b_O and the MLP's c_proj bias. */
    FloatMatrix outputWeight(int layer) const override;
    LayerBiases outputBiases(int layer) const override;

    /** Activation patching (SPEC §8). Replaces row position of the stream entering layer with row (1 × d):
     *  the next run() recomputes that row and the later ones (earlier rows cannot see it) from that layer on. */
    void patchStream(int layer, int position, const FloatMatrix& row) override;
    /** Replaces head's output z in layer (n × d_k, every position) for every run until clearHeadPatches(). */
    void patchHeadOutput(int layer, int head, FloatMatrix z) override;
    void clearHeadPatches();
    /** Whether run() computes logits() (the default); patching runs that read only the stream skip the product. */
    void setLogitsWanted(bool wanted) override { m_logitsWanted = wanted; }
    std::string decode(const std::vector<int>& ids) const override;

    /** Where float32 overflowed on the way to the logits after position (0 … n−1), for logits that
     *  topCandidates() cannot rank: the first layer (0-based) whose output is not all finite in the rows
     *  0 … position (those the position attends to), or config().layers when every layer's is and only ln_f and the
     *  logits overflowed. It reads those rows of each kept stream. The pass must have run. */
    int overflowLayer(int position) const override;

private:
    /** The layer's c_attn and attention c_proj as the pass uses them: the checkpoint's or the edited copy, and
     *  the column blocks of attn and proj packed (the checkpoint's, or those repacked from the copy; valid once
     *  repackEdited() has run for the layer). */
    struct LayerWeights {
        FloatMatrixMap attn, attnBias, proj, projBias;
        std::vector<const PackedWeight*> attnPacked, projPacked;
    };
    struct EditedLayer {
        FloatMatrix attn, attnBias, proj, projBias; ///< copies of the checkpoint's, with the edits written in
        /** The column blocks of attn and proj that edits reached, packed from the copies: they stand for the
         *  checkpoint's packed blocks; those in attnStale and projStale were edited since, and are repacked before
         *  the layer runs. */
        std::map<int, PackedWeight> attnBlocks, projBlocks;
        std::set<int> attnStale, projStale;
    };
    using Cell = ModelCell;
    friend float gpt2CheckpointValue(const Gpt2Checkpoint&, int, ModelWeight, int, int);

    LayerWeights weights(int layer) const;
    /** Packs again the column blocks of layer's edited copy that edits reached since they were last packed. */
    void repackEdited(int layer);
    /** Where a cell lives: which of the four tensors of LayerWeights (0 attn, 1 attnBias, 2 proj, 3 projBias)
     *  and its row and column there. */
    using Index = Eigen::Index;
    struct Place {
        int tensor;
        Index row, col;
    };
    static Place place(ModelWeight weight, int row, int col, int dModel);
    float originalValue(int layer, ModelWeight weight, int row, int col) const;
    /** Layer and everything after it must be recomputed in full. */
    void markDirty(int layer);
    /** Layer's weight cell at place p changed: what reaches only that cell, when nothing before it is dirty. */
    void markEdited(int layer, const Place& p);
    /** The first row a run recomputes in layer (−1: the embedding). */
    Index firstDirtyRow(int layer) const;
    /** The embedding's rows from first on. */
    void embed(Index first);
    /** Recomputes layer's rows from first on; columns, when given, are the only c_attn columns that changed since
     *  the last run (and the stream entering layer did not; first is then 0). */
    void runLayer(int layer, const std::vector<Index>* columns, Index first);
    void runHead(int layer, int head, Index first);
    /** Rows [first, first + rows) of layer's attention output: its kept concat, a zeroed head's columns as 0, times
     *  c_proj, plus its bias. */
    FloatMatrix projectHeads(int layer, Index first, Index rows) const;
    void runFinal();

    std::shared_ptr<const Gpt2Checkpoint> m_checkpoint;
    std::vector<int> m_ids;
    std::map<Cell, float> m_edits;
    std::set<std::pair<int, int>> m_ablations;
    std::map<int, EditedLayer> m_editedLayers;
    std::map<std::pair<int, int>, FloatMatrix> m_headPatches; ///< (layer, head) → z put in place of the computed one
    bool m_logitsWanted = true;
    std::vector<FloatMatrix> m_stream;    ///< layers + 1 matrices, n × d
    std::vector<FloatMatrix> m_qkv;       ///< layers matrices, n × 3d: ln_1(stream)·c_attn + b
    std::vector<FloatMatrix> m_concat;    ///< layers matrices, n × d: the heads' outputs side by side
    std::vector<FloatMatrix> m_attention; ///< layers × heads matrices, n × n
    FloatMatrix m_logits;                 ///< 1 × vocab
    static constexpr int clean = 1 << 30;
    int m_dirtyFrom = -1; ///< the lowest layer to recompute (−1: the embedding too); clean when nothing is
    /** When set, layer m_dirtyFrom's input is unchanged and only these of its c_attn columns (ascending, none for
     *  an edit of c_proj alone) changed since the last run. */
    std::optional<std::vector<Index>> m_dirtyColumns;
    /** When above 0, new tokens left rows 0 … m_dirtyRowsFrom − 1 as they were: the layers from m_dirtyFrom up
     *  to m_wholeFrom − 1 recompute only the rows from there on, and the layers from m_wholeFrom on every row. */
    int m_dirtyRowsFrom = 0;
    int m_wholeFrom = clean;
};

} // namespace core
