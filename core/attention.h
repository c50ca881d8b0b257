#pragma once
/** compute(model) → Trace: scaled dot-product self-attention as SPEC §1 gives it. */

#include "matrix.h"
#include "model.h"
#include "trace.h"

#include <memory>

namespace core {

/** Runs every step of every head. The model must pass validate(); otherwise this throws
 *  std::invalid_argument carrying validate()'s message. */
Trace compute(const AttentionModel& model);

/** The same, as a shared immutable value for the views. */
std::shared_ptr<const Trace> computeShared(const AttentionModel& model);

/** Softmax of each row in place, subtracting the row maximum first.
 *  With causal, entry (i, j) with j > i becomes exactly 0 and the rest of the row is renormalised.
 *  No finite input gives NaN or Inf. */
void softmaxRows(Eigen::Ref<Matrix> m, bool causal);

}  // namespace core
