#include "attentiongrid.h"

#include "displaynumber.h"

#include "core/models/modelpass.h"
#include "core/tensor/pooling.h"
#include "core/attention/trace.h"

#include <QCoreApplication>

namespace render {

namespace {

/** Adds one head: its weights, or their block means past maxSide, and its descriptors. */
template <typename M>
void addCell(AttentionGrid& grid, const M& weights, int maxSide)
{
    grid.descriptors.push_back(core::describeHead(weights, grid.causal));
    const Eigen::Index n = weights.rows();
    if (n <= maxSide) {
        grid.cells.push_back(weights.template cast<double>());
        return;
    }
    const core::Matrix full = weights.template cast<double>();
    grid.cells.push_back(core::pooled(full, maxSide, maxSide));
    grid.blockSide = int((n + grid.cells.back().rows() - 1) / grid.cells.back().rows());
}

}  // namespace

AttentionGrid attentionGridFromTrace(const core::Trace& trace, int maxSide)
{
    AttentionGrid grid;
    grid.layers = trace.headCount() > 0 ? 1 : 0;
    grid.heads = trace.headCount();
    for (const auto& t : trace.model->tokens)
        grid.tokens << QString::fromStdString(t);
    grid.causal = trace.model->options.mask == core::Mask::Causal;
    for (const core::HeadTrace& head : trace.heads)
        addCell(grid, head.weights, maxSide);
    return grid;
}

AttentionGrid attentionGridFromModel(const core::ModelPass& pass, const QStringList& tokens, int maxSide,
                                     const AttentionGrid* previous)
{
    AttentionGrid grid;
    const core::ModelShape shape = pass.shape();
    grid.layers = shape.layers;
    grid.heads = shape.heads;
    grid.tokens = tokens;
    grid.causal = true;
    // Only a grid that kept the weights whole can tell that they did not change.
    const bool comparable = previous && previous->layers == grid.layers && previous->heads == grid.heads
        && previous->blockSide == 1 && previous->n() == pass.n() && pass.n() <= maxSide
        && previous->cells.size() == std::size_t(grid.layers * grid.heads)
        && previous->descriptors.size() == previous->cells.size();
    for (int l = 0; l < grid.layers; ++l)
        for (int h = 0; h < grid.heads; ++h) {
            const core::FloatMatrix& weights = pass.attention(l, h);
            if (comparable) {
                const core::Matrix& before = previous->cell(l, h);
                if (before.rows() == weights.rows() && before.cols() == weights.cols()
                    && (before.array() == weights.cast<double>().array()).all()) {
                    grid.cells.push_back(before);
                    grid.descriptors.push_back(previous->descriptor(l, h));
                    continue;
                }
            }
            addCell(grid, weights, maxSide);
        }
    if (!pass.ablations().empty()) {
        grid.zeroed.assign(std::size_t(grid.layers * grid.heads), false);
        for (const auto& [layer, head] : pass.ablations())
            grid.zeroed[std::size_t(layer * grid.heads + head)] = true;
    }
    const std::set<std::pair<int, int>> edited = core::editedHeads(shape, pass.edits());
    if (!edited.empty()) {
        grid.edited.assign(std::size_t(grid.layers * grid.heads), false);
        for (const auto& [layer, head] : edited)
            if (layer < grid.layers && head < grid.heads)
                grid.edited[std::size_t(layer * grid.heads + head)] = true;
    }
    return grid;
}

QString headCellLabel(const AttentionGrid& grid, int layer, int head)
{
    if (grid.isZeroed(layer, head))
        return QCoreApplication::translate("Overview", "zeroed");
    if (grid.hasDetection() && grid.induction[std::size_t(layer * grid.heads + head)] >= inductionLabelThreshold)
        return QCoreApplication::translate("Overview", "induction");
    return headPatternLabel(grid.descriptor(layer, head).pattern);
}

QString headCellTitle(const AttentionGrid& grid, int layer, int head)
{
    const QString label = headCellLabel(grid, layer, head);
    return grid.isEdited(layer, head) ? QCoreApplication::translate("Overview", "%1 · weights edited").arg(label) : label;
}

QString headPatternLabel(core::HeadPattern pattern)
{
    switch (pattern) {
    case core::HeadPattern::PreviousToken: return QCoreApplication::translate("Overview", "previous token");
    case core::HeadPattern::FirstToken: return QCoreApplication::translate("Overview", "first token / sink");
    case core::HeadPattern::Diagonal: return QCoreApplication::translate("Overview", "diagonal / self");
    case core::HeadPattern::Broad: return QCoreApplication::translate("Overview", "broad / uniform");
    case core::HeadPattern::Mixed: return QCoreApplication::translate("Overview", "mixed");
    }
    return {};
}

QString headDescriptorText(const core::HeadDescriptors& d)
{
    const auto number = [](double v) { return displayNumber(v, 'f', 2); };
    return QCoreApplication::translate("Overview", "previous %1 · first %2 · self %3 · entropy %4")
        .arg(number(d.previousToken), number(d.firstToken), number(d.diagonal), number(d.meanEntropy));
}

QString headDetectionText(const AttentionGrid& grid, int layer, int head)
{
    if (!grid.hasDetection())
        return {};
    const std::size_t i = std::size_t(layer * grid.heads + head);
    return QCoreApplication::translate("Overview", "induction %1 · duplicate token %2")
        .arg(displayNumber(grid.induction[i], 'f', 2), displayNumber(grid.duplicate[i], 'f', 2));
}

}  // namespace render
