#include "core/models/modelpass.h"

#include "core/models/checkpointfiles.h"
#include "core/tensor/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace core {

namespace {
using FloatRow = Eigen::Matrix<float, 1, Eigen::Dynamic>;
} // namespace

namespace {

/** The softmax of every entry of logits (1 × vocab), in double by the one row softmax; empty when an entry is NaN
 *  or +∞ or none is finite (the pass overflowed float32: such logits have no probabilities and no order). */
RowVector probabilities(const FloatMatrix& logits)
{
    const float* v = logits.data();
    if (std::any_of(v, v + logits.size(), [](float x) { return std::isnan(x); }))
        return {};
    RowVector p = Eigen::Map<const FloatRow>(v, logits.size()).cast<double>();
    const SoftmaxNorm norm = softmaxRow(p.data(), p.data(), p.size(), p.size(), 1.0);
    return std::isfinite(norm.max) ? p : RowVector();
}

} // namespace

std::vector<TokenCandidate> topCandidates(const FloatMatrix& logits, int count)
{
    const RowVector p = probabilities(logits);
    if (p.size() == 0)
        return {};
    const float* v = logits.data();
    std::vector<int> ids(static_cast<std::size_t>(logits.size()));
    std::iota(ids.begin(), ids.end(), 0);
    const auto take = std::min<std::size_t>(std::size_t(std::max(count, 0)), ids.size());
    std::partial_sort(ids.begin(), ids.begin() + std::ptrdiff_t(take), ids.end(),
                      [&](int a, int b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
    std::vector<TokenCandidate> out;
    for (std::size_t i = 0; i < take; ++i)
        out.push_back({ids[i], p(ids[i])});
    return out;
}

std::vector<double> candidateProbabilities(const FloatMatrix& logits, const std::vector<int>& ids)
{
    std::vector<double> out(ids.size(), 0.0);
    if (logits.size() == 0)
        return out;
    const RowVector p = probabilities(logits);  // once for all of them: 50 257 exponentials for GPT-2
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] >= 0 && ids[i] < logits.size())
            out[i] = p.size() ? p(ids[i]) : std::numeric_limits<double>::quiet_NaN();
    return out;
}

double candidateProbability(const FloatMatrix& logits, int id)
{
    return candidateProbabilities(logits, {id}).front();
}

std::optional<std::string> ModelPass::tokensProblem(const std::vector<int>& ids) const
{
    const ModelShape s = shape();
    return tokenIdsProblem(ids, s.positions, s.positionsKey.c_str(), s.vocabSize, (long long)s.layers * s.heads);
}

std::vector<TokenCandidate> ModelPass::topTokens(int count) const
{
    return topCandidates(logits(), count);
}

int firstOverflowLayer(const std::vector<FloatMatrix>& streams, int position)
{
    const int layers = int(streams.size()) - 1;
    for (int layer = 0; layer < layers; ++layer)
        if (!streams[std::size_t(layer) + 1].topRows(position + 1).allFinite())
            return layer;
    return layers;
}

std::set<std::pair<int, int>> editedHeads(const ModelShape& shape, const std::vector<ModelEdit>& edits)
{
    std::set<std::pair<int, int>> heads;
    const int dk = std::max(1, shape.headDim);
    const int group = shape.kvHeads > 0 ? std::max(1, shape.heads / shape.kvHeads) : 1;
    const auto add = [&](int layer, int first, int count) {
        for (int h = first; h < std::min(first + count, shape.heads); ++h)
            heads.emplace(layer, h);
    };
    for (const ModelEdit& e : edits) {
        switch (e.weight) {
        case ModelWeight::Query:
        case ModelWeight::QueryBias: add(e.layer, e.col / dk, 1); break;
        case ModelWeight::Key:
        case ModelWeight::Value:
        case ModelWeight::KeyBias:
        case ModelWeight::ValueBias: add(e.layer, e.col / dk * group, group); break;
        case ModelWeight::Output: add(e.layer, e.row / dk, 1); break;
        case ModelWeight::QueryNorm:
        case ModelWeight::KeyNorm: add(e.layer, 0, shape.heads); break;
        case ModelWeight::OutputBias: break;
        }
    }
    return heads;
}

} // namespace core
