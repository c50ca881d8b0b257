#include "stepfigure.h"

#include "cellstyle.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace ui {

QString modelSessionTitle(const QString& modelName, int layer)
{
    return QCoreApplication::translate("ModelState", "%1, layer %2").arg(modelName).arg(layer);
}

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
    case Step::QueriesUnrotated: return QCoreApplication::translate("Steps", "Queries Q before the rotation");
    case Step::KeysUnrotated: return QCoreApplication::translate("Steps", "Keys K before the rotation");
    }
    return {};
}

QString localizedDerivation(const std::string& text)
{
    QString s = QString::fromStdString(text);
    // The cells' names, where they stand before their indices ("score(1,2)", "concat₁").
    static const QRegularExpression names(QStringLiteral("\\b(score|scaled|concat|out)(?=[(₀₁₂₃₄₅₆₇₈₉])"));
    QString out;
    qsizetype from = 0;
    for (auto it = names.globalMatch(s); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const QString name = m.captured(1);
        out += s.mid(from, m.capturedStart() - from);
        out += (name == QLatin1String("score")    ? QCoreApplication::translate("Steps", "score")
                : name == QLatin1String("scaled") ? QCoreApplication::translate("Steps", "scaled")
                : name == QLatin1String("concat") ? QCoreApplication::translate("Steps", "concat")
                                                  : QCoreApplication::translate("Steps", "out"));
        from = m.capturedEnd();
    }
    out += s.mid(from);
    auto replace = [&out](const QRegularExpression& re, const QString& pattern) {
        for (QRegularExpressionMatch m = re.match(out); m.hasMatch(); m = re.match(out, m.capturedStart() + 1)) {
            QString with = pattern;
            for (int i = 1; i <= re.captureCount(); ++i)
                with = with.arg(m.captured(i));
            out.replace(m.capturedStart(), m.capturedLength(), with);
        }
    };
    static const QRegularExpression bracketHead(QStringLiteral("\\[head (\\d+)\\]"));
    static const QRegularExpression ofHead(QStringLiteral(" of head (\\d+)"));
    static const QRegularExpression more(QStringLiteral("… \\((\\d+) more\\)"));
    static const QRegularExpression masked(QStringLiteral("\\(causal mask: key (\\d+) comes after query (\\d+)\\)"));
    replace(bracketHead, QCoreApplication::translate("Steps", "[head %1]"));
    replace(ofHead, QCoreApplication::translate("Steps", " of head %1"));
    replace(more, QCoreApplication::translate("Steps", "… (%1 more)"));
    replace(masked, QCoreApplication::translate("Steps", "(causal mask: key %1 comes after query %2)"));
    return minusSigns(out);
}

QString minusSigns(QString text)
{
    // A hyphen before a digit that follows no letter, digit or point: "-3.2", "(-0.5)", "<-1.79e308".
    for (qsizetype i = 0; i + 1 < text.size(); ++i)
        if (text[i] == QLatin1Char('-') && (text[i + 1].isDigit() || text[i + 1] == QLatin1Char('.'))
            && (i == 0 || !(text[i - 1].isLetterOrNumber() || text[i - 1] == QLatin1Char('.'))))
            text[i] = QChar(0x2212);
    return text;
}

QString derivationTip(const std::string& text)
{
    constexpr qsizetype lineChars = 64;  // some 450 px in a tooltip's font: narrower than any screen
    const QString s = localizedDerivation(text);
    QStringList lines{QString()};
    for (qsizetype start = 0, end = 0; start < s.size(); start = end) {
        // The next term with the operator after it: up to and including the next " = " or " + ".
        end = s.size();
        for (qsizetype i = start; i + 2 < s.size(); ++i)
            if (s[i] == QLatin1Char(' ') && s[i + 2] == QLatin1Char(' ')
                && (s[i + 1] == QLatin1Char('=') || s[i + 1] == QLatin1Char('+'))) {
                end = i + 3;
                break;
            }
        const QStringView term = QStringView(s).mid(start, end - start);
        if (!lines.back().isEmpty() && lines.back().size() + term.trimmed().size() > lineChars)
            lines << QString();
        lines.back() += term;
    }
    for (QString& line : lines)
        line = line.trimmed();
    return lines.join(QStringLiteral("\n    "));
}

QStringList tokenLabels(const core::Trace& trace)
{
    QStringList labels;
    labels.reserve(trace.n());
    for (const auto& t : trace.model->tokens)
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
        // The columns of W_Q, W_K, W_V and the concatenation, and the rows of W_O, are the heads' blocks.
        const bool headedColumns = step == Step::WeightQuery || step == Step::WeightKey || step == Step::WeightValue
            || step == Step::Concat;
        const int heads = trace.headCount();
        for (Eigen::Index c = 0; c < cols; ++c)
            data.colLabels << (headedColumns ? headedLabel(int(c), int(cols), heads) : QString::number(c + 1));
        if (!tokenRows)
            for (Eigen::Index r = 0; r < rows; ++r)
                data.rowLabels << (step == Step::WeightOutput ? headedLabel(int(r), int(rows), heads)
                                                              : QString::number(r + 1));
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
        && trace.model->options.mask == core::Mask::Causal;
    return data;
}

}  // namespace ui
