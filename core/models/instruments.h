#pragma once
/** The instruments of SPEC §8 on a model's forward pass of any family, with its edits: the logit lens, direct logit
 *  attribution, activation patching and generation. Layers and positions count from 0 here (from 1 in SPEC's
 *  words); every figure is computed in double from the pass's float32 streams. */

#include "core/attention/embedding.h"
#include "core/models/modelpass.h"
#include "core/tensor/stop.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

/** One cell of the lens: the most probable next token if the model stopped there. */
struct LensCell {
    int id = -1;                    ///< −1 when the logits there are not finite
    double probability = 0;         ///< of id, softmax over the whole vocabulary
    double targetProbability = 0;   ///< of the target token, when one was given
    int targetRank = 0;             ///< the target's place by probability there (1: the most probable), when given
};

/** What logitLens keeps of its last result so that the next one unembeds only the stream rows that changed (an
 *  edit leaves the layers below it as they were, a new token the positions before it). One memo serves one model. */
struct LensMemo {
    std::vector<FloatMatrix> streams;  ///< [ℓ]: the stream rows the cells were computed from
    std::optional<int> target;
    std::vector<std::vector<LensCell>> lens;
};

/** lens[ℓ][p]: the final norm and the output head applied to the stream after block ℓ (ℓ = 0: the embeddings) at
 *  position p; the row ℓ = L is the model's own prediction. The pass must have run. With memo, the cells whose
 *  stream row and target are those of memo's last call are taken from it (bit for bit what they would be), and
 *  memo then holds this result. */
std::vector<std::vector<LensCell>> logitLens(const ModelPass& pass, std::optional<int> target = {},
                                             LensMemo* memo = nullptr);

/** Direct logit attribution of target at position (SPEC §8): each component's output there, through the final
 *  norm with its scale frozen at the full stream's (its mean subtracted for LayerNorm), dotted with target's
 *  unembedding row. The parts sum to logit. */
struct Attribution {
    int target = 0;
    int position = 0;
    double logit = 0;
    double embeddings = 0;                   ///< the token's embedding (and GPT-2's position's)
    std::vector<std::vector<double>> heads;  ///< [layer][head]: z·W_O of that head (0 for a zeroed head)
    std::vector<double> mlps;                ///< [layer]: the MLP's output without its output bias
    double bias = 0;                         ///< the final norm's bias and every output bias the family has
};
Attribution directLogitAttribution(const ModelPass& pass, int target, int position);

/** Activation patching (SPEC §8): metric = logit(answer) − logit(wrong) at the last position. */
struct Patching {
    double clean = 0;
    double corrupt = 0;
    std::vector<std::vector<double>> residual;  ///< [layer][position]: the stream entering it restored there
    std::vector<std::vector<double>> heads;     ///< [layer][head]: that head's z restored at every position
};
/** Runs the corrupted text through a copy of clean (an up-to-date pass, whose edits both runs keep) and every
 *  patched run of it. Nothing, with error, when the texts' lengths differ or stop said stop; progress, when given,
 *  hears (runs done, runs in all) after each run. */
std::optional<Patching> activationPatching(const ModelPass& clean, const std::vector<int>& corruptIds, int answer,
                                           int wrong, std::string& error, const StopCheck& stop = {},
                                           const std::function<void(int, int)>& progress = {});

/** How the next token is chosen (SPEC §8's --generate): temperature 0 takes the most probable (ties: the lower
 *  id); otherwise the logits are divided by the temperature, cut to the top k (0: all), then to the smallest
 *  set whose probability reaches top p, and one is drawn with a generator seeded by seed. */
struct Sampling {
    double temperature = 0;
    int topK = 0;
    double topP = 1;
    std::uint64_t seed = 0;
};
/** The tokens one generation chooses, one after another, as Sampling says: generate() is its loop, and a caller that
 *  runs the passes itself (the window's Append) takes the same tokens. Each sampled token takes one number of the
 *  seed's stream; a greedy one takes none. */
class TokenSampler {
public:
    /** A generation from sampling's seed of which drawn tokens were chosen already. */
    explicit TokenSampler(const Sampling& sampling, std::uint64_t drawn = 0);
    /** The next token from logits (1 × vocab, after the last position). Nothing when they cannot be ranked (a
     *  float32 overflow); then the stream does not move. */
    std::optional<int> next(const FloatMatrix& logits);
    /** The tokens chosen so far, counting the drawn ones given at the start. */
    std::uint64_t drawn() const { return m_drawn; }

private:
    Sampling m_sampling;
    SplitMix64 m_rng;
    std::uint64_t m_drawn;
};

/** Appends count tokens to pass (which must have run), each from the logits after the last; false with error when
 *  the text would outgrow the model's positions or a pass cannot rank its logits (float32 overflow). */
bool generate(ModelPass& pass, int count, const Sampling& sampling, std::string& error);

/** The id a token argument names: "#ID", or a text that encodes to exactly one token. Nothing, with error saying
 *  why (the ids it gives, or the vocabulary's range), otherwise. */
std::optional<int> singleToken(const ModelPass& pass, std::string_view text, std::string& error);

/** The text of ids as valid UTF-8: a byte sequence a token cut in two becomes U+FFFD. */
std::string decodedText(const ModelPass& pass, const std::vector<int>& ids);

} // namespace core
