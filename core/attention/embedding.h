#pragma once
/** Deterministic token embeddings, positional encoding and weight initialisers.
 *
 *  The rule for a token's row (documented in README, stable across machines and versions):
 *  seed = FNV-1a 64-bit hash of the token's UTF-8 bytes; a SplitMix64 stream from that seed gives
 *  one 64-bit word per column; its top 53 bits u ∈ [0, 1) become 2u − 1, rounded to one decimal.
 *  So every entry is one of −1.0, −0.9, …, 1.0 and the same text always gives the same row. */

#include "core/tensor/matrix.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core {

/** SplitMix64: a tiny, portable generator whose stream is the same on every platform. */
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next();
    /** Uniform in [0, 1) from the top 53 bits. */
    double uniform();
    /** Standard normal by Box–Muller (two uniforms per value; portable, unlike std::normal_distribution). */
    double normal();

private:
    std::uint64_t m_state;
};

std::uint64_t fnv1a64(std::string_view bytes);

/** The derived embedding row of one token (1 × dModel). */
RowVector tokenEmbedding(std::string_view token, int dModel);
/** Rows for every token (n × dModel). */
Matrix tokenEmbeddings(const std::vector<std::string>& tokens, int dModel);

/** Sinusoidal positional encoding (n × dModel), positions from 0:
 *  PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)). */
Matrix sinusoidalEncoding(int n, int dModel);

enum class Init { Zeros, Identity, Uniform, Normal };

/** A rows × cols weight matrix.
 *  Zeros; Identity (ones on the main diagonal of the rectangle);
 *  Uniform: Glorot/Xavier, U(−a, a) with a = √(6 / (rows + cols));
 *  Normal: N(0, 1/rows), so that x·W keeps unit variance for unit-variance x.
 *  The random ones take their numbers from SplitMix64(seed). */
Matrix initWeights(int rows, int cols, Init init, std::uint64_t seed = 0);

}  // namespace core
