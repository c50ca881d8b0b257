#include "stepfigure.h"

#include <QCoreApplication>

namespace ui {

QString stepTitle(core::Step step)
{
    using core::Step;
    switch (step) {
    case Step::X: return QCoreApplication::translate("Steps", "Embeddings X");
    case Step::Queries: return QCoreApplication::translate("Steps", "Queries Q");
    case Step::Keys: return QCoreApplication::translate("Steps", "Keys K");
    case Step::Values: return QCoreApplication::translate("Steps", "Values V");
    case Step::Scores: return QCoreApplication::translate("Steps", "Scores Q·Kᵀ");
    case Step::ScaledScores: return QCoreApplication::translate("Steps", "Scaled scores");
    case Step::Weights: return QCoreApplication::translate("Steps", "Attention weights");
    case Step::Outputs: return QCoreApplication::translate("Steps", "Outputs Z");
    case Step::Concat: return QCoreApplication::translate("Steps", "Concatenated heads");
    case Step::Output: return QCoreApplication::translate("Steps", "Output");
    case Step::WeightQuery: return QCoreApplication::translate("Steps", "Query weights W_Q");
    case Step::WeightKey: return QCoreApplication::translate("Steps", "Key weights W_K");
    case Step::WeightValue: return QCoreApplication::translate("Steps", "Value weights W_V");
    case Step::WeightOutput: return QCoreApplication::translate("Steps", "Output weights W_O");
    }
    return {};
}

QStringList tokenLabels(const core::Trace& trace)
{
    QStringList labels;
    labels.reserve(trace.n());
    for (const auto& t : trace.model.tokens)
        labels << QString::fromStdString(t);
    return labels;
}

render::HeatmapData heatmapData(const core::Trace& trace, core::Step step, int head, core::Matrix reuse)
{
    trace.stepInto(step, head, reuse);
    const Eigen::Index rows = reuse.rows(), cols = reuse.cols();
    render::HeatmapData data = heatmapFrame(trace, step, head, rows, cols);
    data.values = std::move(reuse);
    return data;
}

render::HeatmapData heatmapFrame(const core::Trace& trace, core::Step step, int head, Eigen::Index rows, Eigen::Index cols)
{
    using core::Step;
    render::HeatmapData data;
    const bool square = step == Step::Scores || step == Step::ScaledScores || step == Step::Weights;
    const bool tokenRows = step != Step::WeightQuery && step != Step::WeightKey && step != Step::WeightValue
        && step != Step::WeightOutput;
    data.rowLabels = tokenRows ? tokenLabels(trace) : QStringList();
    if (square) {
        data.colLabels = data.rowLabels;
        data.rowAxisTitle = QCoreApplication::translate("Steps", "query");
        data.colAxisTitle = QCoreApplication::translate("Steps", "key");
    } else {
        for (Eigen::Index c = 0; c < cols; ++c)
            data.colLabels << QString::number(c + 1);
        if (!tokenRows)
            for (Eigen::Index r = 0; r < rows; ++r)
                data.rowLabels << QString::number(r + 1);
        data.rowAxisTitle = tokenRows ? QCoreApplication::translate("Steps", "token")
                                      : QCoreApplication::translate("Steps", "row");
        data.colAxisTitle = QCoreApplication::translate("Steps", "column");
    }
    data.title = core::isPerHead(step) && trace.headCount() > 0
        ? QCoreApplication::translate("Steps", "%1 · head %2").arg(stepTitle(step)).arg(head + 1)
        : stepTitle(step);
    if (step == Step::Weights)
        data.range = std::make_pair(0.0, 1.0);
    // The mask applies to the scaled scores, before the softmax; the raw scores Q·Kᵀ are shown whole.
    data.causalMask = (step == Step::ScaledScores || step == Step::Weights) && rows == cols
        && trace.model.options.mask == core::Mask::Causal;
    return data;
}

}  // namespace ui
