#pragma once
/** Why divide by √d_k: what random queries and keys do to the dot products and the softmax as d_k grows.
 *
 *  For each sample, a set of `keys` random keys and `queriesPerSample` random queries, every entry
 *  drawn from N(0, 1) (Box–Muller on SplitMix64's uniforms from the seed), with as many dimensions as the largest
 *  d_k. The study for a given d_k uses the first d_k entries of each vector, so one draw serves every
 *  d_k and the curves are smooth. For each query it takes the row of its dot products with the keys,
 *  unscaled and divided by √d_k, and measures the softmax of that row. */

#include <cstdint>
#include <vector>

namespace core {

struct ScalingStudyOptions {
    std::vector<int> dks;           ///< the d_k values; empty means defaultScalingDks(). Sorted and made unique.
    int keys = 64;                  ///< n: keys each softmax runs over
    int samples = 32;               ///< independent draws of a key set
    int queriesPerSample = 16;      ///< queries drawn against each key set
    std::uint64_t seed = 1;
};

/** One entry per d_k in every vector; "unscaled" uses q·k, "scaled" q·k / √d_k. */
struct ScalingStudy {
    std::vector<int> dk;
    std::vector<double> spreadUnscaled;     ///< standard deviation of the dot products (≈ √d_k)
    std::vector<double> spreadScaled;       ///< the same after scaling (≈ 1)
    std::vector<double> maxWeightUnscaled;  ///< mean of the softmax's largest weight (1/n … 1)
    std::vector<double> maxWeightScaled;
    std::vector<double> entropyUnscaled;    ///< mean entropy of the softmax, in nats (0 … ln n)
    std::vector<double> entropyScaled;
    std::vector<double> gradientUnscaled;   ///< mean Frobenius norm of the softmax's Jacobian diag(p) − p pᵀ
    std::vector<double> gradientScaled;
    int keys = 0;                           ///< n
    double maxEntropy = 0;                  ///< ln n: the entropy of the uniform weights
    int rows = 0;                           ///< softmax rows measured per d_k (samples · queriesPerSample)
};

/** 1, 2, 3, 4, 6, 8, 12, … , 384, 512: powers of two and the points halfway between them. */
std::vector<int> defaultScalingDks();

/** Runs the study. Deterministic for a seed. d_k values outside 1 … 4096 are dropped, keys is
 *  clamped to 2 … 4096, samples and queriesPerSample to 1 … 100000. */
ScalingStudy runScalingStudy(const ScalingStudyOptions& options = {});

}  // namespace core
