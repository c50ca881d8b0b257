#include "teachingslides.h"

#include "core/derivation.h"
#include "ui/document/stepfigure.h"

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
    const int dk = trace.model.dK();
    const QStringList keyCols = indices(int(ht.keys.cols()));
    const QStringList valueCols = indices(int(ht.values.cols()));

    {
        Slide s;
        s.step = 1;
        s.title = Teaching::tr("Step 1 · Tokens become rows of X");
        s.formula = trace.model.options.positionalEncoding == core::PositionalEncoding::Sinusoidal
            ? Teaching::tr("X = embeddings + positional encoding")
            : Teaching::tr("X = one embedding row per token");
        s.explanation = Teaching::tr("Each token is a row of numbers. The model only ever sees these numbers: "
                           "everything that follows is arithmetic on the rows of X.");
        s.matrices.push_back(matrix(QStringLiteral("X"), trace.x(), tokens, indices(int(trace.x().cols()))));
        slides.push_back(s);
    }
    {
        Slide s;
        s.step = 2;
        s.title = Teaching::tr("Step 2 · Queries, keys and values");
        s.formula = QStringLiteral("Q = X·W_Q    K = X·W_K    V = X·W_V");
        s.explanation = Teaching::tr("Three weight matrices turn every token into three new rows: a query (what it looks for), "
                           "a key (what it offers to be found by) and a value (what it passes on).");
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
        Slide s;
        s.step = 3;
        s.title = Teaching::tr("Step 3 · Scores of “%1” against every key").arg(q);
        s.formula = QStringLiteral("score(%1, j) = q%2·kⱼ").arg(query + 1).arg(QString::fromStdString(core::subscript(query + 1)));
        s.explanation = Teaching::tr("The query of one token is compared with the key of every token by a dot product. "
                           "A large score means: this key matches what the query looks for.");
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
        Slide s;
        s.step = 4;
        s.title = Teaching::tr("Step 4 · Divide by √d_k");
        const core::Matrix scaled = trace.scaledScores(head);
        if (trace.model.options.scale) {
            s.formula = QStringLiteral("scores / √%1").arg(dk);
            s.explanation = Teaching::tr("Dot products of long vectors grow with their length d_k. Dividing by √d_k keeps them "
                               "near 1, so the softmax in the next step does not saturate.");
        } else {
            s.formula = Teaching::tr("skipped (scaling is off)");
            s.explanation = Teaching::tr("The worked example skips this step, so the scores go to the softmax as they are. "
                               "Switch scaling on to divide them by √d_k = √%1.").arg(dk);
        }
        if (trace.model.options.temperature != 1.0)
            s.formula += QStringLiteral("  / T = %1").arg(QString::fromStdString(core::formatNumber(trace.model.options.temperature)));
        SlideMatrix before = matrix(Teaching::tr("scores"), ht.scores, tokens, tokens);
        SlideMatrix after = matrix(Teaching::tr("scaled"), scaled, tokens, tokens);
        before.highlightRow = after.highlightRow = query;
        s.matrices = {before, after};
        s.operators = {QStringLiteral("→")};
        s.arithmetic = derivations(trace, Step::ScaledScores, head, query, n);
        slides.push_back(s);
    }
    {
        Slide s;
        s.step = 5;
        s.title = Teaching::tr("Step 5 · Softmax turns the scores of “%1” into weights").arg(q);
        s.formula = QStringLiteral("w(%1, j) = exp(sⱼ − max) / Σₖ exp(sₖ − max)").arg(query + 1);
        s.explanation = causal
            ? Teaching::tr("Each row becomes positive weights that add up to 1. Under the causal mask a token may only look "
                 "back: the weights of later tokens are exactly 0.")
            : Teaching::tr("Each row becomes positive weights that add up to 1: how much attention this token pays to each "
                 "of the others.");
        SlideMatrix w = matrix(Teaching::tr("weights"), ht.weights, tokens, tokens);
        w.highlightRow = query;
        w.masked = causal;
        s.matrices = {w};
        s.arithmetic = derivations(trace, Step::Weights, head, query, n);
        slides.push_back(s);
    }
    {
        Slide s;
        s.step = 6;
        s.title = Teaching::tr("Step 6 · Weigh each value row for “%1”").arg(q);
        s.formula = QStringLiteral("w(%1, j) · vⱼ").arg(query + 1);
        s.explanation = Teaching::tr("Every value row is multiplied by the weight the query gave its token. Rows with a "
                           "weight near 0 all but vanish.");
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
        Slide s;
        s.step = 7;
        s.title = Teaching::tr("Step 7 · Sum the weighted values: the output of “%1”").arg(q);
        s.formula = QStringLiteral("z%1 = Σⱼ w(%2, j) · vⱼ").arg(QString::fromStdString(core::subscript(query + 1))).arg(query + 1);
        s.explanation = Teaching::tr("Adding the weighted rows gives one new row for this token: a blend of the values of "
                           "the tokens it attended to.");
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
        s.formula = QStringLiteral("Z = softmax(Q·Kᵀ%1)·V").arg(trace.model.options.scale ? QStringLiteral(" / √d_k") : QString());
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
