#include "core/attention/scalingstudy.h"

#include "core/attention/embedding.h"
#include "core/tensor/softmax.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace core {

namespace {

/** Standard normals from SplitMix64's uniforms by Box–Muller, using both the cosine and the sine of each
 *  pair: half the logarithms of SplitMix64::normal(), and just as portable. */
class NormalPairs {
public:
    explicit NormalPairs(std::uint64_t seed) : m_rng(seed) {}
    double next()
    {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        const double radius = std::sqrt(-2.0 * std::log(1.0 - m_rng.uniform()));
        const double angle = 2.0 * std::numbers::pi * m_rng.uniform();
        m_spare = radius * std::sin(angle);
        m_hasSpare = true;
        return radius * std::cos(angle);
    }

private:
    SplitMix64 m_rng;
    double m_spare = 0;
    bool m_hasSpare = false;
};

/** Running sums of one d_k, for one of the two scalings. */
struct Sums {
    double maxWeight = 0;
    double entropy = 0;
    double gradient = 0;
};

/** Adds the softmax of row · factor (n entries) to sums; weights is scratch space of n entries. */
void measureSoftmax(const std::vector<double>& row, double factor, std::vector<double>& weights, Sums& sums)
{
    // p = softmax(row · factor), a_j = (x_j − max) · factor ≤ 0, Z = Σ exp(a_j); the largest weight is exp(0) / Z
    const Eigen::Index n = Eigen::Index(row.size());
    const SoftmaxNorm norm = softmaxRow(row.data(), weights.data(), n, n, factor);
    // entropy −Σ p log p = log Z − Σ p_j a_j; ‖diag(p) − p pᵀ‖²_F = Σ p²(1 − p)² + (Σ p²)² − Σ p⁴
    double pa = 0, p2 = 0, p4 = 0, diagonal = 0;
    for (std::size_t j = 0; j < row.size(); ++j) {
        const double p = weights[j];
        pa += p * (row[j] - norm.max) * factor;
        p2 += p * p;
        p4 += p * p * p * p;
        diagonal += p * p * (1 - p) * (1 - p);
    }
    sums.maxWeight += 1.0 / norm.sum;
    sums.entropy += std::log(norm.sum) - pa;
    sums.gradient += std::sqrt(std::max(0.0, diagonal + p2 * p2 - p4));
}

/** The running sums of every d_k over all rows. */
struct Accumulated {
    std::vector<double> sum, sumSquares;  ///< of the dot products
    std::vector<Sums> unscaled, scaled;
};

/** Draws the keys and queries and adds every row's dot products and softmax measures, one entry per d_k. */
Accumulated accumulate(const std::vector<int>& dks, int n, int samples, int queries, std::uint64_t seed)
{
    const std::size_t m = dks.size();
    const int dMax = dks.back();
    Accumulated a{std::vector<double>(m, 0.0), std::vector<double>(m, 0.0), std::vector<Sums>(m), std::vector<Sums>(m)};

    NormalPairs rng(seed);
    std::vector<double> keys(std::size_t(dMax) * std::size_t(n));  // dMax × n: column j = key j
    std::vector<double> query(static_cast<std::size_t>(dMax));
    std::vector<double> dots(static_cast<std::size_t>(n));
    std::vector<double> weights(static_cast<std::size_t>(n));
    for (int s = 0; s < samples; ++s) {
        for (double& v : keys)
            v = rng.next();
        for (int qi = 0; qi < queries; ++qi) {
            for (double& v : query)
                v = rng.next();
            std::fill(dots.begin(), dots.end(), 0.0);
            std::size_t next = 0;
            for (int d = 0; d < dMax; ++d) {
                // dots_j = Σ_{t ≤ d} q_t · k_jt, the dot products over the first d + 1 dimensions
                const double q = query[std::size_t(d)];
                const double* k = keys.data() + std::size_t(d) * std::size_t(n);
                for (int j = 0; j < n; ++j)
                    dots[std::size_t(j)] += q * k[j];
                if (d + 1 != dks[next])
                    continue;
                for (double x : dots) {
                    a.sum[next] += x;
                    a.sumSquares[next] += x * x;
                }
                measureSoftmax(dots, 1.0, weights, a.unscaled[next]);
                measureSoftmax(dots, 1.0 / std::sqrt(double(d + 1)), weights, a.scaled[next]);
                ++next;
            }
        }
    }
    return a;
}

/** Fills the study with the means of the sums, taken over `rows` softmax rows of n keys each. */
void summarize(const Accumulated& a, double rows, int n, ScalingStudy& study)
{
    const double count = rows * double(n);
    for (std::size_t i = 0; i < study.dk.size(); ++i) {
        const double mean = a.sum[i] / count;
        const double spread = std::sqrt(std::max(0.0, a.sumSquares[i] / count - mean * mean));
        study.spreadUnscaled.push_back(spread);
        study.spreadScaled.push_back(spread / std::sqrt(double(study.dk[i])));
        study.maxWeightUnscaled.push_back(a.unscaled[i].maxWeight / rows);
        study.maxWeightScaled.push_back(a.scaled[i].maxWeight / rows);
        study.entropyUnscaled.push_back(a.unscaled[i].entropy / rows);
        study.entropyScaled.push_back(a.scaled[i].entropy / rows);
        study.gradientUnscaled.push_back(a.unscaled[i].gradient / rows);
        study.gradientScaled.push_back(a.scaled[i].gradient / rows);
    }
}

}  // namespace

std::vector<int> defaultScalingDks()
{
    std::vector<int> dks = {1};
    for (int p = 2; p <= 512; p *= 2) {
        if (p >= 4)
            dks.push_back(p / 4 * 3);
        dks.push_back(p);
    }
    return dks;
}

ScalingStudy runScalingStudy(const ScalingStudyOptions& options)
{
    std::vector<int> dks = options.dks.empty() ? defaultScalingDks() : options.dks;
    std::erase_if(dks, [](int d) { return d < 1 || d > 4096; });
    std::sort(dks.begin(), dks.end());
    dks.erase(std::unique(dks.begin(), dks.end()), dks.end());

    const int n = std::clamp(options.keys, 2, 4096);
    const int samples = std::clamp(options.samples, 1, 100000);
    const int queries = std::clamp(options.queriesPerSample, 1, 100000);

    ScalingStudy study;
    study.dk = dks;
    study.keys = n;
    study.maxEntropy = std::log(double(n));
    study.rows = samples * queries;
    if (!dks.empty())
        summarize(accumulate(dks, n, samples, queries, options.seed), double(samples) * double(queries), n, study);
    return study;
}

}  // namespace core
