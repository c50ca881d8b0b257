#pragma once
/** A self-contained Python file that reproduces a model's computation with PyTorch (float64). */

#include "core/attention/model.h"

#include <string>

namespace core {

/** Python source that defines the tokens, the embeddings, W_Q, W_K, W_V (and W_O) and the options,
 *  then computes every step of SPEC §1 with torch in float64. It leaves X, Q, K, V, scores,
 *  scaled_scores, weights, weighted_values, Z (lists with one tensor per head when the model has
 *  several heads, else tensors), concat and output, and prints a short summary when run as a
 *  script. Numbers are Python float literals, the shortest that read back to the same double ("0.9",
 *  "1.0"), with a '.' whatever the locale. title, when not empty, names the session in the file's
 *  first lines. The model must pass validate(). */
std::string pytorchCode(const AttentionModel& model, const std::string& title = {});

}  // namespace core
