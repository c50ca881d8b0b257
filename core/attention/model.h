#pragma once
/** AttentionModel: everything one self-attention computation needs (SPEC §1). */

#include "core/tensor/matrix.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace core {

enum class Mask { None, Causal };
/** Sinusoidal adds PE(pos) to X (SPEC §1); Rotary turns each head's q and k rows by their position (SPEC §6). */
enum class PositionalEncoding { None, Sinusoidal, Rotary };

struct Options {
    int heads = 1;
    int kvHeads = 0;          ///< K/V heads (SPEC §6 kv_heads), dividing heads; 0 means one per query head
    bool scale = true;        ///< divide scores by √d_k
    double temperature = 1.0; ///< > 0; scores are divided by it before the softmax
    Mask mask = Mask::None;
    PositionalEncoding positionalEncoding = PositionalEncoding::None;
    double ropeTheta = 10000;     ///< rotary: the base θ (rope_theta)
    double rotaryFraction = 1.0;  ///< rotary: the share of each head's d_k that turns, d_r = its even part
    bool qkNorm = false;          ///< RMS-normalise each head's q and k rows (with qNorm, kNorm) before the rotation

    bool operator==(const Options&) const = default;
};

/** Sizes the engine accepts; larger inputs are refused with a message, never attempted. */
struct Limits {
    static constexpr int maxTokens = 8192;
    static constexpr int maxDModel = 4096;
    static constexpr int maxWidth = 4096;   ///< columns of W_Q, W_K, W_V, W_O (h·d_k, h·d_v, d_out)
    static constexpr int maxHeads = 64;
    /// Memory the stored trace may take (scores and weights of every head dominate).
    static constexpr std::size_t memoryBudgetBytes = std::size_t(3) << 30;  // 3 GiB
};

struct AttentionModel {
    std::vector<std::string> tokens;  ///< n tokens, UTF-8
    Matrix embeddings;                ///< n × d_model, before positional encoding
    Matrix wq;                        ///< d_model × (h·d_k)
    Matrix wk;                        ///< d_model × (h·d_k)
    Matrix wv;                        ///< d_model × (h·d_v)
    std::optional<Matrix> wo;         ///< (h·d_v) × d_out, optional output projection
    /// Optional biases, each one row (1 × the columns of its weight) added after the product:
    /// Q = X·W_Q + b_Q, K = X·W_K + b_K, V = X·W_V + b_V, output = concat·W_O + b_O (b_O needs W_O).
    /// A model session's shown layer has all four; a plain session has them only when its file gives them.
    std::optional<Matrix> bq, bk, bv, bo;
    /// With qk_norm: the weight vectors (1 × d_k) each normalised q and k row is multiplied by; none means ones.
    std::optional<Matrix> qNorm, kNorm;
    double qkNormEpsilon = 1e-6;  ///< with qk_norm: the ε of √(mean x² + ε)
    /// With rotary: the d_r / 2 frequencies to turn by instead of θ^(−2i/d_r), for a model whose rope_scaling
    /// changes them (a model's shown layer only; session files do not write it).
    std::optional<std::vector<double>> rotaryFrequencies;
    Options options;
    /// For a layer of a real model (SPEC §5): which model and layer it is, for the words the views and
    /// slides show ("X = LayerNorm(residual stream entering layer 3)"). A label only: session files do
    /// not write it and operator== does not compare it.
    struct Origin {
        std::string model;  ///< the checkpoint's folder name, e.g. "gpt2"
        int layer = 1;      ///< 1-based
        int layers = 1;     ///< the model's layer count
        std::string architecture = "GPT2LMHeadModel"; ///< config.json's architectures[0]
        std::string norm = "LayerNorm";               ///< the norm that makes X: "LayerNorm" or "RMSNorm"
    };
    std::optional<Origin> origin;

    int n() const { return int(tokens.size()); }
    int dModel() const { return int(embeddings.cols()); }
    int heads() const { return options.heads; }
    /** K/V heads: options.kvHeads, or heads when it is 0. W_K and W_V have kvHeads·d_k and kvHeads·d_v columns. */
    int kvHeads() const { return options.kvHeads > 0 ? options.kvHeads : options.heads; }
    /** Per-head key width; 0 when heads does not divide the columns. */
    int dK() const { return options.heads > 0 && wq.cols() % options.heads == 0 ? int(wq.cols() / options.heads) : 0; }
    /** Per-head value width (W_V holds kvHeads() of them); 0 when kvHeads() does not divide the columns. */
    int dV() const { return kvHeads() > 0 && wv.cols() % kvHeads() == 0 ? int(wv.cols() / kvHeads()) : 0; }

    /** X as the computation sees it: embeddings plus positional encoding when that option is on. */
    Matrix x() const;
    /** The same into out, in its storage when it has the size already. */
    void xInto(Matrix& out) const;

    bool operator==(const AttentionModel& other) const;
};

/** Checks every shape, number and option against SPEC §2 and Limits.
 *  Returns nothing when the model can be computed, else a message naming the key and the
 *  expected and actual shape, e.g. "weights.key: expected 4 rows (d_model), got 3". */
std::optional<std::string> validate(const AttentionModel& model);

/** validate() without its scan of every number for ±∞ and NaN: shapes, options and the memory budget. Whatever
 *  passes this and has only finite numbers passes validate() (compute() checks the numbers in the pass that
 *  copies them, and asks validate() for the message when one is not finite). */
std::optional<std::string> validateShapes(const AttentionModel& model);

/** Bytes the trace of this model will hold (the n × n matrices of every head and the rest). */
std::size_t estimatedTraceBytes(const AttentionModel& model);

/** With rotary positions: d_r, the width of each head's q and k that turns (the even part of
 *  ⌊rotary_fraction · d_k⌋); 0 without. */
int rotaryWidth(const AttentionModel& model);


/** Readable names of the options, as the session file spells them. */
const char* toString(Mask mask);
const char* toString(PositionalEncoding pe);
std::optional<Mask> maskFromString(const std::string& s);
std::optional<PositionalEncoding> positionalEncodingFromString(const std::string& s);

}  // namespace core
