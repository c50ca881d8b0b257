#pragma once
/** compute(model) → Trace: scaled dot-product self-attention as SPEC §1 gives it, with the model's biases
 *  when it has them (Q = X·W_Q + b_Q, …, output = concat·W_O + b_O). */

#include "core/tensor/matrix.h"
#include "core/attention/model.h"
#include "core/tensor/softmax.h"
#include "core/attention/trace.h"

#include <memory>

namespace core {

/** Runs every step of every head; throws std::invalid_argument with validate()'s message for an invalid model.
 *  previous (an earlier trace of the same tokens, shapes, mask and encoding) limits the work to what the edits
 *  reach, recomputed exactly as a full pass would, so nothing drifts; recycle (a spent trace of its own model)
 *  lends its storage, and its values when it is as near as previous. */
Trace compute(const AttentionModel& model, const Trace* previous = nullptr, Trace* recycle = nullptr);

/** The same of a shared, immutable model, which the trace shares instead of copying its weights. */
Trace compute(std::shared_ptr<const AttentionModel> model, const Trace* previous = nullptr, Trace* recycle = nullptr);

/** The same as a shared value for the views (not const, so that its owner can recycle it once no view holds it). */
std::shared_ptr<Trace> computeShared(std::shared_ptr<const AttentionModel> model, const Trace* previous = nullptr,
                                     Trace* recycle = nullptr);

}  // namespace core
