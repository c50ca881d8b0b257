#pragma once
/** The one row softmax of the engine (SPEC §1 step 4), which the toy engine, the model's forward pass and the
 *  √d_k study all call: row maximum subtracted, masked entries exactly 0, no NaN or Inf from finite input. */

#include "core/tensor/matrix.h"

namespace core {

/** What a softmax divided by: the row's largest entry not NaN and the sum of exp((s − max) · factor) (≥ 1). */
struct SoftmaxNorm {
    double max = 0;
    double sum = 1;
};

/** out[0, limit) = softmax(in[0, limit) · factor) and out[limit, cols) = 0; out may be in. NaN counts as −∞;
 *  overflowed rows put all weight on their +∞ entries, or spread it evenly when every entry is −∞ or NaN.
 *  Returns the row's SoftmaxNorm (max +∞ or −∞ for such rows; none when limit is 0). */
SoftmaxNorm softmaxRow(const double* in, double* out, Eigen::Index limit, Eigen::Index cols, double factor);

/** Scaled, masked softmax of the rows of scores into weights (same shape; may be the same matrix): row r is the
 *  query firstQuery + r, which under causal sees the keys j ≤ firstQuery + r and gives the others exactly 0. */
void maskedSoftmaxRows(MatrixCRef scores, Eigen::Ref<Matrix> weights, Eigen::Index firstQuery, bool causal,
                       double factor);

/** Softmax of each row in place, subtracting the row maximum first.
 *  With causal, entry (i, j) with j > i becomes exactly 0 and the rest of the row is renormalised.
 *  No finite input gives NaN or Inf. */
void softmaxRows(Eigen::Ref<Matrix> m, bool causal);

}  // namespace core
