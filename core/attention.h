#pragma once
/** compute(model) → Trace: scaled dot-product self-attention as SPEC §1 gives it, with the model's biases
 *  when it has them (Q = X·W_Q + b_Q, …, output = concat·W_O + b_O). */

#include "matrix.h"
#include "model.h"
#include "softmax.h"
#include "trace.h"

#include <memory>

namespace core {

/** Runs every step of every head. The model must pass validate(); otherwise this throws
 *  std::invalid_argument carrying validate()'s message.
 *
 *  With previous, a trace of an earlier state of the same model (same tokens, shapes, mask and
 *  positional encoding), only what the differences reach is computed again: an edited row of X redoes
 *  that row of Q, K and V and that row and column of the scores; an edited column of W_Q, W_K or W_V,
 *  or that column's entry of b_Q, b_K or b_V, redoes that column of the projection; a changed scale or temperature starts at the softmax; an
 *  edit of W_V alone redoes only those columns of the outputs. What is redone is computed exactly as
 *  the full computation would (the results agree to rounding), never by updating old values, so
 *  nothing drifts over many edits. Otherwise previous is ignored.
 *
 *  With recycle, a trace nobody needs any more (not previous), its matrices' storage is reused for
 *  the new trace (recycle is left without its matrices): the n × n matrices are then written into
 *  memory that is already faulted in instead of fresh pages the kernel must zero first. recycle must be
 *  a trace compute() made of its own model, unchanged since: with a previous, when recycle's state is as
 *  near the new one as previous's (the trace before previous, after a few edits), its values are updated
 *  in place instead of what is kept being copied from previous. */
Trace compute(const AttentionModel& model, const Trace* previous = nullptr, Trace* recycle = nullptr);

/** The same of a shared, immutable model, which the trace then shares instead of copying: no pass copies the
 *  weights, and one checks and measures them only when neither previous nor recycle was computed from this
 *  very model object. */
Trace compute(std::shared_ptr<const AttentionModel> model, const Trace* previous = nullptr, Trace* recycle = nullptr);

/** The same, as a shared value for the views (not const itself, so that its owner can recycle it once
 *  no view holds it). */
std::shared_ptr<Trace> computeShared(std::shared_ptr<const AttentionModel> model, const Trace* previous = nullptr,
                                     Trace* recycle = nullptr);

}  // namespace core
