#pragma once
/** The models the benchmarks compute: n tokens, d_model 512, d_k = d_v = 64 per head. */

#include "core/attention/model.h"

#include <cmath>
#include <random>
#include <string>

namespace bench {

constexpr int dModel = 512;
constexpr int dHead = 64;  ///< d_k = d_v

/** rows × cols, uniform entries with standard deviation sd, from a fixed seed. */
inline core::Matrix randomMatrix(int rows, int cols, double sd, unsigned seed)
{
    std::mt19937_64 rng(seed);
    const double a = sd * std::sqrt(3.0);
    std::uniform_real_distribution<double> u(-a, a);
    core::Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = u(rng);
    return m;
}

/** n tokens and h heads; W_O (h·64 × 512) with several heads, as torch.nn.MultiheadAttention has.
 *  Scaled scores spread about 1, so the softmax is neither flat nor one-hot. */
inline core::AttentionModel model(int n, int heads)
{
    core::AttentionModel m;
    for (int i = 0; i < n; ++i)
        m.tokens.push_back(std::to_string(i));
    const double w = 1.0 / std::sqrt(double(dModel));
    m.embeddings = randomMatrix(n, dModel, 1.0, 1);
    m.wq = randomMatrix(dModel, heads * dHead, w, 2);
    m.wk = randomMatrix(dModel, heads * dHead, w, 3);
    m.wv = randomMatrix(dModel, heads * dHead, w, 4);
    if (heads > 1)
        m.wo = randomMatrix(heads * dHead, dModel, w, 5);
    m.options.heads = heads;
    return m;
}

/** 2 × the multiply-adds of the engine's products: projections, Q·Kᵀ, weights·V and W_O. */
inline double flops(const core::AttentionModel& m)
{
    const double n = m.n(), d = m.dModel(), hk = double(m.wq.cols()), hv = double(m.wv.cols());
    const double out = m.wo ? double(m.wo->cols()) : 0.0;
    return 2 * n * d * (2 * hk + hv) + 2 * n * n * (hk + hv) + 2 * n * hv * out;
}

/** The same for model(n, heads), without building it. */
inline double flops(int n, int heads)
{
    const double hd = double(heads) * dHead, out = heads > 1 ? dModel : 0;
    return 2.0 * n * dModel * 3 * hd + 2.0 * n * n * 2 * hd + 2.0 * n * hd * out;
}

}  // namespace bench
