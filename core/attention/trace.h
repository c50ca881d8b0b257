#pragma once
/** Trace: every step of every head of one computation, as an immutable value. */

#include "core/tensor/matrix.h"
#include "core/attention/model.h"
#include "core/tensor/products.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core {

/** The steps a user can look at, in the order of the maths. */
enum class Step {
    X, Queries, Keys, Values, Scores, ScaledScores, Weights, Outputs, Concat, Output,
    // The model's weights, so that derivations can point at them ("w_q", "w_k", "w_v", "w_o").
    WeightQuery, WeightKey, WeightValue, WeightOutput,
    // With rotary positions (SPEC §6): Q and K before the turn, per head (empty matrices without rotary).
    QueriesUnrotated, KeysUnrotated
};

/** The name the --compute JSON and the command line use ("scores", "scaled_scores", …). */
const char* stepKey(Step step);
std::optional<Step> stepFromKey(const std::string& key);
/** True for the steps that differ per head (Q, K, V, scores, scaled scores, weights, outputs, unrotated Q and K). */
bool isPerHead(Step step);
/** The steps of the computation proper, in order (X … Output, no weight matrices). */
const std::vector<Step>& computedSteps();

struct HeadTrace {
    Matrix queries;  ///< n × d_k, row i = query of token i
    Matrix keys;     ///< n × d_k, row j = key of token j
    Matrix values;   ///< n × d_v, row j = value of token j
    Matrix scores;   ///< n × n, scores(i, j) = q_i · k_j
    Matrix weights;  ///< n × n, softmax of each row of the scaled scores (masked entries exactly 0)
    Matrix outputs;  ///< n × d_v, row i = Σ_j weights(i, j) · v_j
    /// With rotary positions: Q and K as they were before the turn (after qk_norm), n × d_k; else empty.
    /// keys (and values) of heads sharing one K/V head (kv_heads) are that K/V head's.
    Matrix queriesUnrotated, keysUnrotated;
};

/** The largest |entry| of X and of each weight: what decides whether a product may fuse its multiply-adds. */
struct Magnitudes {
    double x = 0, wq = 0, wk = 0, wv = 0, wo = 0;
};

/** W_Q, W_K, W_V and W_O of a trace's model packed for the product kernels (products.h), each once: a later pass of
 *  the same model, or of one in which that weight is unchanged, multiplies by it without Eigen's copy of the
 *  weight on every product. Shared and immutable; null for a weight not packed (a few rows of X, or too large). */
struct PackedWeights {
    std::shared_ptr<const PackedDoubleWeight> wq, wk, wv, wo;
};

struct Trace {
    /// The model this trace was computed from, shared with whoever computed it, never copied: immutable, so
    /// the trace describes exactly that model for as long as it lives (an edit makes a new model and trace).
    std::shared_ptr<const AttentionModel> model;
    Magnitudes magnitudes;         ///< of model's X and weights, found once per model (compute() reuses them)
    PackedWeights packed;          ///< model's weights packed, shared with the traces of the same weights
    Matrix encodedX;               ///< embeddings plus the sinusoidal encoding; empty without it
    std::vector<HeadTrace> heads;  ///< one per head
    Matrix concat;                 ///< n × (h·d_v), the heads' outputs side by side
    Matrix output;                 ///< n × d_out: concat·W_O, or concat when there is no W_O
    double scoreFactor = 1.0;      ///< s / T: what scores are multiplied by before the softmax

    int n() const { return model ? model->n() : 0; }
    int headCount() const { return int(heads.size()); }

    /** X as the computation saw it (n × d_model): the embeddings, plus the sinusoidal encoding when that is on
     *  (the trace keeps no second copy of the embeddings otherwise; rotary positions turn q and k, not X). */
    const Matrix& x() const
    {
        return model->options.positionalEncoding != PositionalEncoding::Sinusoidal ? model->embeddings : encodedX;
    }

    /** scores · s / T (n × n), derived on demand. */
    Matrix scaledScores(int head) const;
    /** Row query of scaledScores(head) (1 × n), without making the whole n × n matrix. */
    Matrix scaledScoresRow(int head, Eigen::Index query) const;
    /** The n rows weights(query, j) · v_j (n × d_v) of one query, computed on demand. */
    Matrix weightedValues(int head, int query) const;
    /** The matrix of any step; head is ignored for steps that are not per head.
     *  W_O is an empty matrix when the model has none. */
    Matrix step(Step step, int head = 0) const;
    /** The same into `into`, in its own storage when it has the size already: a view that shows a
     *  4096 × 4096 step after every edit copies into warm memory instead of faulting in a fresh one. */
    void stepInto(Step step, int head, Matrix& into) const;
    /** Rows and columns of a step's matrix, without building it. */
    std::pair<int, int> stepShape(Step step, int head = 0) const;
    /** One cell of a step's matrix, without building the whole matrix. */
    double value(Step step, int head, int row, int col) const;
    /** The stored matrix of a step that is not per head (X, concat, output, a weight); null for
     *  per-head steps and for W_O when there is none. */
    const Matrix* inputMatrix(Step step) const;
    /** The stored matrix a step is read from, any step: for the scaled scores, the scores they are
     *  scoreFactor times. Null for W_O when there is none. */
    const Matrix* storedMatrix(Step step, int head = 0) const;
    /** The same with what its entries are multiplied by to give the step (scoreFactor for the scaled
     *  scores, else 1). Null also when s / T overflowed: then step() forms each scaled score so that
     *  0 stays 0, which no single factor does. */
    const Matrix* storedMatrix(Step step, int head, double* factor) const;
};

}  // namespace core
