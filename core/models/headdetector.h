#pragma once
/** The head detector of the overview (TransformerLens's scores, core::inductionScore and core::duplicateTokenScore)
 *  for every head of a model, measured on a repeated random sequence rather than the user's text: there a head that
 *  copies shows itself whatever was typed. */

#include "core/models/modelpass.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace core {

/** The sequence: the BOS the model's tokenizer puts before a text (if any), then `half` distinct random whole words
 *  of the vocabulary ("Ġcat", "▁cat"; other ordinary tokens, never one written "<…>", when it has too few), drawn
 *  with seed, then the same `half` again; shorter when the model's positions hold fewer. */
std::vector<int> repeatedRandomTokens(const ModelPass& pass, int half = 24, std::uint64_t seed = 1);

/** The scores of every head, layer by layer (index layer · heads + head). */
struct HeadDetection {
    std::vector<double> induction, duplicate;
};
/** The scores of pass's last run on its own tokens. */
HeadDetection detectHeads(const ModelPass& pass);
/** The scores of a new pass over model's checkpoint with model's edits and zeroed heads, on the repeated random
 *  sequence; none when the model's positions cannot hold it. */
std::optional<HeadDetection> detectHeadsAsEdited(const ModelPass& model);

} // namespace core
