#include "core/models/blockview.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace core {

namespace {

/** Row `row` of m as a BlockVector; its norm summed in double. */
BlockVector vectorOf(const FloatMatrix& m, Eigen::Index row = 0)
{
    BlockVector v;
    v.values.resize(std::size_t(m.cols()));
    double squares = 0;
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
        const double x = m(row, c);
        v.values[std::size_t(c)] = x;
        squares += x * x;
    }
    v.norm = std::sqrt(squares);
    return v;
}

double rowNorm(const auto& row)
{
    return row.template cast<double>().norm();
}

} // namespace

BlockView blockView(const ModelPass& pass, int layer, int position, int neuronCount, int logitCount)
{
    const ModelShape shape = pass.shape();
    BlockView b;
    b.layer = layer;
    b.position = position;
    b.layers = shape.layers;
    b.positions = pass.n();
    b.norm = shape.norm;
    b.mlp = shape.mlp;
    b.parallelResidual = shape.parallelResidual;
    b.token = pass.readable(pass.tokens()[std::size_t(position)]);

    const FloatMatrix attention = pass.attentionOutput(layer);
    const MlpRow mlp = pass.mlpRow(layer, position);
    b.streamIn = vectorOf(pass.stream(layer), position);
    b.attentionNormed = vectorOf(pass.layerInput(layer), position);
    b.attention = vectorOf(attention, position);
    b.afterAttention = vectorOf(FloatMatrix(pass.stream(layer).row(position) + attention.row(position)));
    b.mlpNormed = vectorOf(mlp.normed);
    b.mlpOutput = vectorOf(mlp.output);
    b.streamOut = vectorOf(pass.stream(layer + 1), position);

    // the neurons by |activation|, largest first
    b.neuronCount = int(mlp.activation.cols());
    std::vector<int> order(std::size_t(b.neuronCount));
    std::iota(order.begin(), order.end(), 0);
    const auto size = [&](int i) { return std::fabs(double(mlp.activation(0, i))); };
    const std::size_t kept = std::size_t(std::clamp(neuronCount, 0, b.neuronCount));
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(kept), order.end(),
                      [&](int x, int y) { return size(x) != size(y) ? size(x) > size(y) : x < y; });
    for (std::size_t k = 0; k < kept; ++k) {
        const int i = order[k];
        const double gate = mlp.gate.size() ? double(mlp.gate(0, i)) : 0.0;
        b.neurons.push_back({i, mlp.activation(0, i), mlp.up(0, i), gate, mlp.gate.size() ? gate / (1 + std::exp(-gate)) : 0.0});
    }

    // what each layer's attention and MLP add at each position: the MLP's is the rest of the layer's change
    b.attentionAdds.resize(shape.layers, pass.n());
    b.mlpAdds.resize(shape.layers, pass.n());
    for (int l = 0; l < shape.layers; ++l) {
        const FloatMatrix added = l == layer ? attention : pass.attentionOutput(l);
        for (int p = 0; p < pass.n(); ++p) {
            b.attentionAdds(l, p) = rowNorm(added.row(p));
            b.mlpAdds(l, p) = (pass.stream(l + 1).row(p).cast<double>() - pass.stream(l).row(p).cast<double>() -
                               added.row(p).cast<double>())
                                  .norm();
        }
    }

    b.finalNormed = vectorOf(pass.finalNorm(pass.stream(shape.layers).middleRows(position, 1)));
    const FloatMatrix logits = pass.logitsAt(position);
    for (const TokenCandidate& c : topCandidates(logits, logitCount))
        b.logits.push_back({c.id, pass.readable(c.id), logits(0, c.id), c.probability});
    return b;
}

} // namespace core
