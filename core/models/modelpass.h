#pragma once
/** ModelPass: the forward pass of a loaded checkpoint of any family (GPT-2, SPEC §5; Llama, Qwen, NeoX, SPEC §6)
 *  as the sessions, the window and the command line use it: the text's tokens, a sparse overlay of edited weight
 *  cells and zeroed heads, every layer's attention, the logits, and the shown layer as an AttentionModel. Each
 *  family implements it once (gpt2forward.h, decoderforward.h); nothing above this asks which family it is.
 *  Layers and heads count from 0. */

#include "core/attention/model.h"
#include "core/formats/safetensors.h"
#include "core/models/modelweight.h"
#include "core/tensor/matrix.h"
#include "core/tensor/stop.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace core {

/** A weight cell of a checkpoint: layer counted from 0, row and col in the row convention of SPEC §1. */
using ModelCell = std::tuple<int, ModelWeight, int, int>;
/** Edited cells and their values, ordered by layer, weight, row and column. */
using ModelEdits = std::map<ModelCell, float>;

/** One edited cell; layer counted from 0. */
struct ModelEdit {
    int layer = 0;
    ModelWeight weight = ModelWeight::Query;
    int row = 0;
    int col = 0;
    float value = 0;

    bool operator==(const ModelEdit&) const = default;
};

/** The next token's most probable candidates. */
struct TokenCandidate {
    int id = 0;
    double probability = 0; ///< softmax over the whole vocabulary
};

/** What a model is, in the counts the views and messages need. */
struct ModelShape {
    std::string architecture; ///< config.json's architectures[0], e.g. "GPT2LMHeadModel", "LlamaForCausalLM"
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;       ///< heads when every query head has its own K and V
    int dModel = 0;
    int headDim = 0;
    int positions = 0;     ///< the longest text, in tokens
    int vocabSize = 0;
    /// The config.json keys of the layers, heads and positions ("n_layer", "n_head", "n_positions" for GPT-2)
    std::string layersKey, headsKey, positionsKey;
    std::string norm;         ///< the norm before attention: "LayerNorm" or "RMSNorm"
    int rotaryDims = 0;       ///< the dims of each head that rotary positions turn (0: the model has none)
    double ropeTheta = 0;     ///< their base θ
    std::string mlp;          ///< the MLP: "GELU" (up, GELU, down) or "SwiGLU" (down(silu(gate) · up))
    bool parallelResidual = false; ///< NeoX's x + attn(norm₁(x)) + mlp(norm₂(x)): the MLP reads the layer's input
};

/** The count most probable entries of logits (1 × vocab), most probable first, ties by the lower id; the
 *  probabilities are the softmax over every entry, in double. None when an entry is NaN or +∞ (the pass overflowed
 *  float32): such logits have no probabilities and no order. */
std::vector<TokenCandidate> topCandidates(const FloatMatrix& logits, int count = 10);
/** The softmax probability of id among every entry of logits (1 × vocab), in double. */
double candidateProbability(const FloatMatrix& logits, int id);
/** The same for each of ids (0 for one outside the vocabulary, NaN for all when topCandidates() has none), the
 *  softmax taken once. */
std::vector<double> candidateProbabilities(const FloatMatrix& logits, const std::vector<int>& ids);

/** The final norm as a frozen, linear map needs it (SPEC §8's attribution): LayerNorm subtracts each row's mean before
 *  dividing by √(variance + ε), RMSNorm divides by √(mean square + ε); then the weight, then the bias. */
struct FinalNormForm {
    bool centred = true;  ///< LayerNorm; false for RMSNorm
    double epsilon = 1e-5;
    FloatMatrix weight;   ///< 1 × d
    FloatMatrix bias;     ///< 1 × d, zero when the norm has none
};

/** What a layer adds to the stream besides its heads' z·W_O and its MLP's weights: 1 × d each, zero when absent. */
struct LayerBiases {
    FloatMatrix attention; ///< the output projection's bias
    FloatMatrix mlp;       ///< the MLP's last projection's bias
};

/** One position's MLP in a layer, recomputed from the kept stream as the pass computes it: 1 × d or 1 × neurons. */
struct MlpRow {
    FloatMatrix input;      ///< what its norm reads: the stream after attention, or entering the layer (parallel)
    FloatMatrix normed;     ///< the norm's output
    FloatMatrix gate;       ///< SwiGLU's gate(x) before silu; empty for a GELU MLP
    FloatMatrix up;         ///< up(x) (GPT-2's c_fc) before the activation
    FloatMatrix activation; ///< the neurons: silu(gate) · up, or GELU(up)
    FloatMatrix output;     ///< down(activation) + its bias: what the MLP adds to the stream
};

class ModelPass {
public:
    virtual ~ModelPass() = default;

    virtual ModelShape shape() const = 0;
    /** A new pass over the same checkpoint and tokenizer, without tokens, edits or zeroed heads. */
    virtual std::shared_ptr<ModelPass> freshPass() const = 0;

    /** The text's token ids as the model's tokenizer gives them (with the BOS it adds, unless special is false). */
    virtual std::vector<int> encode(std::string_view text, bool special = true) const = 0;
    /** The vocabulary entry of id as the tokenizer writes it ("Ġcat", "▁cat", "<0x0A>"). */
    virtual std::string vocabularyToken(int id) const = 0;
    /** The same as people read it on a chip ("␣cat", "↵"). */
    virtual std::string readable(int id) const = 0;
    /** The length in bytes that no token's text reaches: a longer text than maxTokens of these is refused unread. */
    virtual std::size_t longestTokenBytes() const = 0;

    /** Nothing when ids can run through this model, else what is wrong (tokenIdsProblem): none, more than the
     *  model's positions or Limits::maxTokens, more than its kept attention fits in the memory budget, an id
     *  outside the vocabulary. */
    std::optional<std::string> tokensProblem(const std::vector<int>& ids) const;
    /** Sets the token ids. False with error (tokensProblem) when they cannot run. */
    virtual bool setTokens(std::vector<int> ids, std::string& error) = 0;
    virtual const std::vector<int>& tokens() const = 0;
    int n() const { return int(tokens().size()); }

    /** Nothing when (row, col) is a cell of weight in this model, else what is wrong. */
    virtual std::optional<std::string> checkCell(ModelWeight weight, int row, int col) const = 0;
    /** Sets one weight cell of layer to value; a value equal to the checkpoint's removes the edit. False with error
     *  when the layer or cell is outside the model. */
    virtual bool setEdit(int layer, ModelWeight weight, int row, int col, float value, std::string& error) = 0;
    /** Gives the cell back its checkpoint value (nothing when it was not edited). */
    virtual void clearEdit(int layer, ModelWeight weight, int row, int col) = 0;
    virtual void clearEdits() = 0;
    /** The edits, ordered by layer, weight, row and column. */
    virtual std::vector<ModelEdit> edits() const = 0;
    /** The cell's value with the edits, and in the checkpoint (the caller checks the cell). */
    virtual float weightValue(int layer, ModelWeight weight, int row, int col) const = 0;
    virtual float checkpointValue(int layer, ModelWeight weight, int row, int col) const = 0;
    /** Zeroes head of layer as a whole, or gives it back: its rows of W_O count as 0 while their edits are kept. */
    virtual void setAblated(int layer, int head, bool zeroed) = 0;
    virtual const std::set<std::pair<int, int>>& ablations() const = 0;

    /** Computes what changed since the last run. Requires tokens. stop is asked between layers; when it says stop,
     *  run() returns false and what is left stays for the next run(). */
    virtual bool run(const StopCheck& stop = {}) = 0;
    /** True when run() has nothing to do. */
    virtual bool upToDate() const = 0;
    /** Before a run(): takes from other (an up-to-date pass over the same checkpoint and tokens) the layers below
     *  the lowest one either pass edits, when they are the same bit for bit; how many it took (0 when none, or when
     *  the family recomputes everything anyway). */
    virtual int takeSharedLayers(const ModelPass& other) = 0;

    /** Layer ℓ's attention weights of head h: n × n, causal. */
    virtual const FloatMatrix& attention(int layer, int head) const = 0;
    /** The logits of the token after the last one (1 × vocab), and after position (0 … n−1). */
    virtual const FloatMatrix& logits() const = 0;
    virtual FloatMatrix logitsAt(int position) const = 0;
    /** The `count` most probable next tokens after the last one, most probable first (topCandidates). */
    std::vector<TokenCandidate> topTokens(int count = 10) const;
    /** Where float32 overflowed on the way to the logits after position: the first layer whose output is not all
     *  finite in rows 0 … position, or the layer count when only the final norm and the logits did. */
    virtual int overflowLayer(int position) const = 0;
    /** Layer as an AttentionModel (SPEC §5, §6) with the edits and zeroed heads, tokens as the vocabulary writes
     *  them: core::compute of it gives the layer's attention as the pass computes it. */
    virtual AttentionModel layerModel(int layer) const = 0;

    // What the instruments of SPEC §8 read and change (instruments.h), the same for every family. The pass must
    // have run; layers count from 0.

    /** A copy of this pass, edits, zeroed heads and every kept layer with it: a patched run of it recomputes only
     *  what the patch reaches. */
    virtual std::unique_ptr<ModelPass> clone() const = 0;
    /** The residual stream entering layer ℓ (0 … layers; 0 the embeddings, layers the stream before the final
     *  norm): n × d. */
    virtual const FloatMatrix& stream(int layer) const = 0;
    /** Layer ℓ's head outputs z side by side, before W_O (n × heads·head_dim, head h in columns h·head_dim …): a
     *  zeroed head's as computed (its rows of W_O count as 0 instead), a patched head's as patched. */
    virtual const FloatMatrix& headOutputs(int layer) const = 0;
    /** Layer ℓ's W_O with the edits in the row convention of SPEC §1 (heads·head_dim × d): head h writes
     *  z_h · rows h·head_dim … of it. A zeroed head's rows are not zero here. */
    virtual FloatMatrix outputWeight(int layer) const = 0;
    virtual LayerBiases outputBiases(int layer) const = 0;
    virtual FinalNormForm finalNormForm() const = 0;
    /** The final norm of each row of a stream (rows × d), as the pass applies it before the logits. */
    virtual FloatMatrix finalNorm(const FloatMatrix& streamRows) const = 0;
    /** The logits each row of a stream would give (rows × vocab): the final norm, then the output head. */
    virtual FloatMatrix unembed(const FloatMatrix& streamRows) const = 0;
    /** The output head's row of id (1 × d): lm_head's, or the token embedding's when the head is tied to it. */
    virtual FloatMatrix unembeddingRow(int id) const = 0;
    /** Replaces row position of the stream entering layer with row (1 × d); the next run() recomputes from there. */
    virtual void patchStream(int layer, int position, const FloatMatrix& row) = 0;
    /** Puts z (n × head_dim) in place of head's output in layer at every position, for every run after. */
    virtual void patchHeadOutput(int layer, int head, FloatMatrix z) = 0;
    /** Whether run() computes logits() (the default): patching runs read the stream and skip the product. */
    virtual void setLogitsWanted(bool wanted) = 0;
    /** The text ids stand for, as bytes (a character a token cuts in two stays cut); the tokens the tokenizer puts
     *  around every text are left out. */
    virtual std::string decode(const std::vector<int>& ids) const = 0;

    // What the Block view reads (blockview.h): one layer in the order of the maths. The pass must have run.

    /** The first norm of the stream entering layer: its attention's input (n × d), as the pass uses it. */
    virtual FloatMatrix layerInput(int layer) const = 0;
    /** What layer's attention adds to the stream (n × d): the heads' z (zeroed heads as 0, patches in) times W_O with
     *  the edits, plus its bias. */
    virtual FloatMatrix attentionOutput(int layer) const = 0;
    /** Layer's MLP at position, recomputed for that row alone. */
    virtual MlpRow mlpRow(int layer, int position) const = 0;
};

/** The first layer (0-based) of streams (the stream entering each layer, then the one after the last) whose output
 *  is not all finite in rows 0 … position, or the layer count when every one is: ModelPass::overflowLayer. */
int firstOverflowLayer(const std::vector<FloatMatrix>& streams, int position);

/** The heads (layer, head) whose attention or output an edit changes: a W_Q or query bias column its query head's, a
 *  W_K/W_V or key/value bias column every query head that shares its K/V head, a W_O row its head's, a q/k norm
 *  weight every head of the layer; the output bias belongs to no head. */
std::set<std::pair<int, int>> editedHeads(const ModelShape& shape, const std::vector<ModelEdit>& edits);

} // namespace core
