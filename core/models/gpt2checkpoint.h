#pragma once
/** A GPT-2-family checkpoint folder, checked and loaded: the shared, immutable source of a model session.
 *
 *  The folder holds, as Hugging Face distributes it: config.json (gpt2config.h), model.safetensors
 *  (safetensors.h; F32, F16 or BF16) and the tokenizer as vocab.json + merges.txt or tokenizer.json
 *  (bpe.h). The tensors are GPT-2's, named with or without the "transformer." prefix; the attention
 *  mask buffers h.N.attn.bias and h.N.attn.masked_bias of its layers are ignored (never read), and so is lm_head.weight when it is
 *  tied to wte (equal to it), since the logits are h·wteᵀ. Every shape is checked against config.json.
 *
 *  Weights are float32: F32 tensors are read in place from the mapped file when they are aligned,
 *  F16 and BF16 ones are converted exactly, once, when the checkpoint is loaded. Nothing is copied to
 *  float64. Matrices use the Conv1D layout GPT-2 stores: in × out, so that y = x·W + b for rows x.
 *
 *  The four large weights of every layer (c_attn, attn.c_proj, c_fc, mlp.c_proj) are also packed once, at load,
 *  for the products (products.h: packWeight), in blocks of gpt2ColumnBlock columns: the forward pass multiplies
 *  by the packed blocks instead of packing the weights again in every product. Once a weight read in place is
 *  packed, the mapped file's pages of it are given back (MappedFile::releasePages), so that memory holds one
 *  copy; its FloatTensor stays valid and reads the file again where it is touched (the window showing W_Q, an
 *  edit copying a layer, a product of one row).
 *
 *  A loaded checkpoint never changes, so any number of threads may read it (and encode with its
 *  tokenizer) at once; edits belong in an overlay of their own. Its FloatTensor views live as long as it. */

#include "core/text/bpe.h"
#include "core/models/gpt2config.h"
#include "core/tensor/products.h"
#include "core/formats/safetensors.h"
#include "core/tensor/stop.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core {

/** A float32 matrix held by a checkpoint (in its mapped file or in its converted buffer). */
struct FloatTensor {
    const float* data = nullptr;
    Eigen::Index rows = 0;
    Eigen::Index cols = 0;

    /** The values, rows × cols, row-major; valid as long as the checkpoint lives. */
    FloatMatrixMap matrix() const { return {data, rows, cols}; }
};

/** Columns of a packed weight block, and of a product's output per task of the forward pass's pool: 384 divides
 *  GPT-2's widths (768, 2304, 3072) into an even number of blocks (2, 6, 8), so that two threads share every
 *  product evenly (256 gave c_proj and the MLP's projection three blocks, one thread idle for a third of them; 192
 *  repacked the left factor twice as often). A constant, not a function of the cores, so that every machine
 *  rounds the same way. */
inline constexpr Eigen::Index gpt2ColumnBlock = 384;

/** A weight's blocks of gpt2ColumnBlock columns (the last one narrower when they do not divide it), block t its
 *  columns [384·t, 384·t + 384), each packed by productKernels(). */
using PackedColumns = std::vector<PackedWeight>;

/** Column block t of w (rows × cols), packed by productKernels(). */
PackedWeight packColumnBlock(const FloatMatrixMap& w, int t);

/** One transformer block's weights; d = n_embd. Vectors are 1 × k rows. */
struct Gpt2Block {
    FloatTensor ln1Weight, ln1Bias; ///< ln_1: 1 × d each
    FloatTensor attnWeight; ///< attn.c_attn.weight: d × 3d; columns 0…d−1 query, d…2d−1 key, 2d…3d−1 value
    FloatTensor attnBias;   ///< attn.c_attn.bias: 1 × 3d
    FloatTensor attnProjWeight;     ///< attn.c_proj.weight: d × d (W_O)
    FloatTensor attnProjBias;       ///< attn.c_proj.bias: 1 × d
    FloatTensor ln2Weight, ln2Bias; ///< ln_2: 1 × d each
    FloatTensor fcWeight;           ///< mlp.c_fc.weight: d × 4d
    FloatTensor fcBias;             ///< mlp.c_fc.bias: 1 × 4d
    FloatTensor mlpProjWeight;      ///< mlp.c_proj.weight: 4d × d
    FloatTensor mlpProjBias;        ///< mlp.c_proj.bias: 1 × d
    /** attnWeight, attnProjWeight, fcWeight and mlpProjWeight packed in column blocks. */
    PackedColumns attnPacked, attnProjPacked, fcPacked, mlpProjPacked;
};

class Gpt2Checkpoint {
public:
    /** Loads and checks the model folder. Returns nullptr with error naming the file and what is wrong
     *  when the folder is not one, config.json, model.safetensors or the tokenizer is missing, unreadable
     *  or broken (no file is read past its size limit or nesting, and none that is not a regular file), config.json
     *  names an architecture other than GPT-2's, the folder holds only a pickled pytorch_model.bin (the message says
     *  how to convert it) or a sharded checkpoint, n_layer asks for more layers than the file holds (checked before
     *  anything is sized by it), a tensor is missing, unknown (a mask buffer of a layer that does not exist
     *  included), duplicated or of a shape config.json does not allow, a value the pass reads is NaN or infinite
     *  (naming the tensor and its first such entry), lm_head.weight is not tied to wte, or the tokenizer has more
     *  tokens than vocab_size.
     *  stop is asked after config.json, the tokenizer and the weights' header, before each tensor is read or
     *  converted and before each of the four packed weights of every layer is packed; when it says stop, nothing is
     *  returned and error is stoppedMessage. */
    static std::shared_ptr<const Gpt2Checkpoint> load(const std::string& folder, std::string& error,
                                                      const StopCheck& stop = {});

    const std::string& folder() const { return m_folder; }
    const Gpt2Config& config() const { return m_config; }
    const Bpe& tokenizer() const { return *m_tokenizer; }
    /** The weights' file, as mapped. */
    const SafetensorsFile& weights() const { return *m_weights; }

    const FloatTensor& wte() const { return m_wte; }                  ///< token embeddings: vocab_size × d
    const FloatTensor& wpe() const { return m_wpe; }                  ///< position embeddings: n_positions × d
    const std::vector<Gpt2Block>& blocks() const { return m_blocks; } ///< n_layer blocks, first to last
    const FloatTensor& lnFWeight() const { return m_lnFWeight; }      ///< ln_f: 1 × d
    const FloatTensor& lnFBias() const { return m_lnFBias; }          ///< ln_f: 1 × d

private:
    Gpt2Checkpoint() = default;

    std::string m_folder;
    Gpt2Config m_config;
    std::optional<Bpe> m_tokenizer;
    std::shared_ptr<const SafetensorsFile> m_weights;
    std::vector<float> m_converted; ///< the values of every tensor not read in place
    FloatTensor m_wte, m_wpe, m_lnFWeight, m_lnFBias;
    std::vector<Gpt2Block> m_blocks;
};

} // namespace core
