#include "core/attention/headpattern.h"

#include <algorithm>
#include <cmath>

namespace core {

const char* headPatternKey(HeadPattern pattern)
{
    switch (pattern) {
    case HeadPattern::PreviousToken: return "previous_token";
    case HeadPattern::FirstToken: return "first_token";
    case HeadPattern::Diagonal: return "diagonal";
    case HeadPattern::Broad: return "broad";
    case HeadPattern::Mixed: return "mixed";
    }
    return "mixed";
}

namespace {

template <typename M>
HeadDescriptors describe(const M& w, bool causal)
{
    HeadDescriptors d;
    const Eigen::Index n = std::min(w.rows(), w.cols());
    if (n == 0)
        return d;
    double previous = 0, first = 0, diagonal = 0, entropy = 0, normalised = 0;
    Eigen::Index spreadRows = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
        const Eigen::Index seen = causal ? i + 1 : w.cols();
        double h = 0;
        for (Eigen::Index j = 0; j < seen; ++j) {
            const double p = double(w(i, j));
            if (p > 0 && std::isfinite(p))
                h -= p * std::log(p);
        }
        entropy += h;
        if (seen > 1) {
            normalised += h / std::log(double(seen));
            ++spreadRows;
        }
        diagonal += double(w(i, i));
        if (i > 0) {
            previous += double(w(i, i - 1));
            first += double(w(i, 0));
        }
    }
    d.previousToken = n > 1 ? previous / double(n - 1) : 0.0;
    d.firstToken = n > 1 ? first / double(n - 1) : 0.0;
    d.diagonal = diagonal / double(n);
    d.meanEntropy = entropy / double(n);
    d.normalisedEntropy = spreadRows > 0 ? normalised / double(spreadRows) : 0.0;

    // The largest share names the head; at equal shares the earlier of previous, first, diagonal.
    struct Candidate {
        double share;
        HeadPattern pattern;
    };
    const Candidate candidates[] = {{d.previousToken, HeadPattern::PreviousToken},
                                    {d.firstToken, HeadPattern::FirstToken},
                                    {d.diagonal, HeadPattern::Diagonal}};
    const Candidate* best = &candidates[0];
    for (const Candidate& c : candidates)
        if (c.share > best->share)
            best = &c;
    if (best->share >= patternShareThreshold)
        d.pattern = best->pattern;
    else if (d.normalisedEntropy >= broadEntropyThreshold)
        d.pattern = HeadPattern::Broad;
    else
        d.pattern = HeadPattern::Mixed;
    return d;
}

}  // namespace

HeadDescriptors describeHead(MatrixCRef weights, bool causal)
{
    return describe(weights, causal);
}

HeadDescriptors describeHead(const Eigen::Ref<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& weights,
                             bool causal)
{
    return describe(weights, causal);
}

namespace {

/** Σ w·P / Σ w over the pattern that `matches(i, j)` draws. */
template <typename Matches>
double detectorScore(const Eigen::Ref<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& weights,
                     Matches matches)
{
    double hit = 0, all = 0;
    for (Eigen::Index i = 0; i < weights.rows(); ++i)
        for (Eigen::Index j = 0; j < weights.cols(); ++j) {
            all += weights(i, j);
            if (matches(i, j))
                hit += weights(i, j);
        }
    return all != 0 ? hit / all : 0.0;
}

}  // namespace

double duplicateTokenScore(const Eigen::Ref<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& weights,
                           const std::vector<int>& tokens)
{
    const auto n = Eigen::Index(tokens.size());
    return detectorScore(weights, [&](Eigen::Index i, Eigen::Index j) {
        return j < i && i < n && tokens[std::size_t(j)] == tokens[std::size_t(i)];
    });
}

double inductionScore(const Eigen::Ref<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>& weights,
                      const std::vector<int>& tokens)
{
    const auto n = Eigen::Index(tokens.size());
    return detectorScore(weights, [&](Eigen::Index i, Eigen::Index j) {
        return 1 <= j && j <= i && i < n && tokens[std::size_t(j - 1)] == tokens[std::size_t(i)];
    });
}

}  // namespace core
