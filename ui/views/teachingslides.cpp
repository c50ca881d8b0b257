#include "teachingslides.h"

#include "core/derivation.h"
#include "ui/document/stepfigure.h"
#include "ui/render/stepwording.h"

#include <QCoreApplication>

namespace ui {

namespace {

/** The translation context of these texts, the same for lupdate and at run time. */
struct Teaching {
    Q_DECLARE_TR_FUNCTIONS(Teaching)
};

QStringList indices(int count)
{
    QStringList list;
    for (int i = 0; i < count; ++i)
        list << QString::number(i + 1);
    return list;
}

SlideMatrix matrix(const QString& name, const core::Matrix& values, const QStringList& rows, const QStringList& cols)
{
    SlideMatrix m;
    m.name = name;
    m.values = values;
    m.rowLabels = rows;
    m.colLabels = cols;
    return m;
}

QStringList derivations(const core::Trace& trace, core::Step step, int head, int row, int cols)
{
    QStringList lines;
    for (int c = 0; c < cols && lines.size() < 8; ++c)
        lines << QString::fromStdString(core::derive(trace, {step, head, row, c}).text(4));
    if (cols > 8)
        lines << Teaching::tr("… and %1 more").arg(cols - 8);
    return lines;
}

/** A slide of step number with its heading, formula and explanation from the one wording of the steps;
 *  from step 3 on the slides walk one query (0-based), and the heading names it. */
Slide wordedSlide(int number, const core::AttentionModel& model, int query, const QString& token)
{
    const render::StepText text = render::StepWording::step(number, model);
    Slide s;
    s.step = number;
    s.title = render::StepWording::heading(number, text.title);
    if (number >= 3)
        s.title = Teaching::tr("%1 · %2").arg(s.title, render::StepWording::queryName(query, token));
    s.formula = text.plainFormula();
    s.explanation = text.explanation;
    return s;
}

}  // namespace

std::vector<Slide> buildSlides(const core::Trace& trace, int head, int query)
{
    using core::Step;
    std::vector<Slide> slides;
    if (trace.n() == 0 || head < 0 || head >= trace.headCount())
        return slides;
    query = std::clamp(query, 0, trace.n() - 1);
    const core::HeadTrace& ht = trace.heads[std::size_t(head)];
    const QStringList tokens = tokenLabels(trace);
    const QString q = tokens.value(query);
    const int n = trace.n();
    const bool causal = trace.model.options.mask == core::Mask::Causal;
    const QStringList keyCols = indices(int(ht.keys.cols()));
    const QStringList valueCols = indices(int(ht.values.cols()));

    {
        Slide s = wordedSlide(1, trace.model, query, q);
        s.matrices.push_back(matrix(QStringLiteral("X"), trace.x(), tokens, indices(int(trace.x().cols()))));
        slides.push_back(s);
    }
    {
        Slide s = wordedSlide(2, trace.model, query, q);
        SlideMatrix qm = matrix(QStringLiteral("Q"), ht.queries, tokens, keyCols);
        SlideMatrix km = matrix(QStringLiteral("K"), ht.keys, tokens, keyCols);
        SlideMatrix vm = matrix(QStringLiteral("V"), ht.values, tokens, valueCols);
        qm.highlightRow = km.highlightRow = vm.highlightRow = query;
        s.matrices = {qm, km, vm};
        s.operators = {QString(), QString()};
        s.arithmetic = derivations(trace, Step::Queries, head, query, int(ht.queries.cols()));
        slides.push_back(s);
    }
    {
        Slide s = wordedSlide(3, trace.model, query, q);
        SlideMatrix qm = matrix(QStringLiteral("Q"), ht.queries, tokens, keyCols);
        qm.highlightRow = query;
        SlideMatrix kt = matrix(QStringLiteral("Kᵀ"), ht.keys.transpose(), keyCols, tokens);
        SlideMatrix sc = matrix(Teaching::tr("scores"), ht.scores, tokens, tokens);
        sc.highlightRow = query;
        s.matrices = {qm, kt, sc};
        s.operators = {QStringLiteral("·"), QStringLiteral("=")};
        s.arithmetic = derivations(trace, Step::Scores, head, query, n);
        slides.push_back(s);
    }
    {
        Slide s = wordedSlide(4, trace.model, query, q);
        const core::Matrix scaled = trace.scaledScores(head);
        SlideMatrix before = matrix(Teaching::tr("scores"), ht.scores, tokens, tokens);
        SlideMatrix after = matrix(Teaching::tr("scaled"), scaled, tokens, tokens);
        before.highlightRow = after.highlightRow = query;
        s.matrices = {before, after};
        s.operators = {QStringLiteral("→")};
        s.arithmetic = derivations(trace, Step::ScaledScores, head, query, n);
        slides.push_back(s);
    }
    {
        Slide s = wordedSlide(5, trace.model, query, q);
        SlideMatrix w = matrix(Teaching::tr("weights"), ht.weights, tokens, tokens);
        w.highlightRow = query;
        w.masked = causal;
        s.matrices = {w};
        s.arithmetic = derivations(trace, Step::Weights, head, query, n);
        slides.push_back(s);
    }
    {
        Slide s = wordedSlide(6, trace.model, query, q);
        SlideMatrix v = matrix(QStringLiteral("V"), ht.values, tokens, valueCols);
        SlideMatrix wv = matrix(Teaching::tr("weighted values"), trace.weightedValues(head, query), tokens, valueCols);
        s.matrices = {v, wv};
        s.operators = {QStringLiteral("→")};
        for (int j = 0; j < n && s.arithmetic.size() < 8; ++j)
            s.arithmetic << QStringLiteral("%1 · v%2").arg(QString::fromStdString(core::formatNumber(ht.weights(query, j))),
                                                          QString::fromStdString(core::subscript(j + 1)));
        slides.push_back(s);
    }
    {
        Slide s = wordedSlide(7, trace.model, query, q);
        SlideMatrix wv = matrix(Teaching::tr("weighted values"), trace.weightedValues(head, query), tokens, valueCols);
        SlideMatrix z = matrix(QStringLiteral("z%1").arg(QString::fromStdString(core::subscript(query + 1))),
                               ht.outputs.row(query), {q}, valueCols);
        s.matrices = {wv, z};
        s.operators = {QStringLiteral("Σ →")};
        s.arithmetic = derivations(trace, Step::Outputs, head, query, int(ht.outputs.cols()));
        slides.push_back(s);
    }
    {
        Slide s;
        s.step = 7;
        s.title = Teaching::tr("Every token at once");
        s.formula = render::plainFormula(render::StepWording::overallFormula(trace.model));
        s.explanation = Teaching::tr("The same steps run for every query together: one matrix product for the scores, a "
                           "softmax per row, and one product with V.");
        SlideMatrix w = matrix(Teaching::tr("weights"), ht.weights, tokens, tokens);
        w.masked = causal;
        w.highlightRow = query;
        SlideMatrix v = matrix(QStringLiteral("V"), ht.values, tokens, valueCols);
        SlideMatrix z = matrix(QStringLiteral("Z"), ht.outputs, tokens, valueCols);
        z.highlightRow = query;
        s.matrices = {w, v, z};
        s.operators = {QStringLiteral("·"), QStringLiteral("=")};
        slides.push_back(s);
    }
    return slides;
}

}  // namespace ui
