#pragma once
/** What one attention head does, measured from its weights: where its weight goes and how spread it is.
 *  The overview shows these beside each head, and labels the head by the documented thresholds below. */

#include "core/tensor/matrix.h"

#include <string>
#include <vector>

namespace core {

/** The kinds of head the label tells apart. */
enum class HeadPattern {
    PreviousToken,  ///< most weight on the token before the query
    FirstToken,     ///< most weight on the first token (an "attention sink")
    Diagonal,       ///< most weight on the query itself
    Broad,          ///< weight spread over the keys, close to uniform
    Mixed,          ///< none of these
};

/** "previous_token", "first_token", "diagonal", "broad", "mixed". */
const char* headPatternKey(HeadPattern pattern);

/** The thresholds of the label (README, "What a head does"). */
inline constexpr double patternShareThreshold = 0.5;    ///< a share this large names the head by it
inline constexpr double broadEntropyThreshold = 0.8;    ///< normalised row entropy this large: broad

struct HeadDescriptors {
    /** Mean over the queries 2 … n of the weight on the token just before the query, w(i, i−1). */
    double previousToken = 0.0;
    /** Mean over the queries 2 … n of the weight on the first token, w(i, 1) (query 1 can see only
     *  itself under a causal mask, so it is left out of both). */
    double firstToken = 0.0;
    /** Mean over every query of the weight on itself, w(i, i). */
    double diagonal = 0.0;
    /** Mean over the queries of the row entropy −Σ_j w log w, in nats. */
    double meanEntropy = 0.0;
    /** Mean over the queries that see more than one key of entropy / log(keys seen): 1 is uniform. */
    double normalisedEntropy = 0.0;
    /** The label: the largest of the three shares when it reaches patternShareThreshold, else Broad
     *  when normalisedEntropy reaches broadEntropyThreshold, else Mixed. */
    HeadPattern pattern = HeadPattern::Mixed;
};

/** The descriptors of an n × n weight matrix (rows sum to 1). causal: query i sees keys 1 … i (for the
 *  entropy's normalisation; the weights after it are 0 anyway). */
HeadDescriptors describeHead(MatrixCRef weights, bool causal);
/** The same for a float matrix (a real model's attention), without a double copy. */
HeadDescriptors describeHead(const Eigen::Ref<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& weights,
                             bool causal);

/** The scores of TransformerLens's head detector (error measure "mul", nothing excluded): Σ_ij w_ij·P_ij / Σ_ij w_ij
 *  for the n × n weights of a head over tokens (n ids), with P the detection pattern of the tokens. Duplicate token:
 *  P_ij = 1 when j < i and token j is token i. Induction: P_ij = 1 when 1 ≤ j ≤ i and token j − 1 is token i (the
 *  token after an earlier copy). On a random sequence said twice a perfect induction head scores about one half: the
 *  first copy's queries have nothing to find. 0 when the weights sum to 0. */
double duplicateTokenScore(const Eigen::Ref<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& weights,
                           const std::vector<int>& tokens);
double inductionScore(const Eigen::Ref<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& weights,
                      const std::vector<int>& tokens);

}  // namespace core
