#include "ui/views/teaching/teachingslides.h"

#include "core/attention/derivation.h"
#include "ui/render/cellstyle.h"
#include "ui/render/stepfigure.h"
#include "ui/render/stepwording.h"

#include <QCoreApplication>

namespace ui {

namespace {

/** The translation context of these texts, the same for lupdate and at run time. */
struct Teaching {
    Q_DECLARE_TR_FUNCTIONS(Teaching)
};

/** Every number on every slide: at most four decimals (render::slideNumber). */
constexpr int decimals = 4;
/** Lines of arithmetic on a slide before "… and k more". */
constexpr int shownLines = 8;
/** The most columns concat · W_O = output may have together on one slide (see appendProjection()). */
constexpr Eigen::Index maxProjectionColumns = 16;

QString num(double v)
{
    return render::slideNumber(v, decimals);
}

/** A factor inside a product: negatives in parentheses. */
QString factor(double v)
{
    return v < 0 ? QLatin1Char('(') + num(v) + QLatin1Char(')') : num(v);
}

QString str(const std::string& s)
{
    return QString::fromStdString(s);
}

QStringList indices(int count)
{
    QStringList list;
    for (int i = 0; i < count; ++i)
        list << QString::number(i + 1);
    return list;
}

/** 1 … count, or "h1·1 … h2·1" when the count columns are heads blocks side by side. */
QStringList headedIndices(int count, int heads)
{
    QStringList list;
    for (int i = 0; i < count; ++i)
        list << headedLabel(i, count, heads);
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

/** One line of a derivation in the slides' number format, e.g. "score(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4". */
QString line(const core::Derivation& d)
{
    using Kind = core::Derivation::Kind;
    const QString head = localizedDerivation(d.name) + QStringLiteral(" = ");
    switch (d.kind) {
    case Kind::DotProduct:
    case Kind::WeightedSum: {
        QStringList terms;
        for (const auto& t : d.terms)
            terms << factor(t.a) + QStringLiteral("·") + factor(t.b);
        if (d.totalTerms > int(d.terms.size()))
            terms << Teaching::tr("… (%1 more)").arg(d.totalTerms - int(d.terms.size()));
        return head + localizedDerivation(d.symbolic) + QStringLiteral(" = ") + terms.join(QStringLiteral(" + ")) +
               QStringLiteral(" = ") + num(d.value);
    }
    case Kind::Scale: {
        QString ops, nums;
        if (d.dk > 0) {
            ops += QStringLiteral(" / √d_k");
            nums += QStringLiteral(" / √") + QString::number(d.dk);
        }
        if (d.temperature != 1.0) {
            ops += QStringLiteral(" / T");
            nums += QStringLiteral(" / ") + num(d.temperature);
        }
        if (ops.isEmpty())
            return head + localizedDerivation(d.symbolic) + QStringLiteral(" = ") + num(d.value);
        return head + localizedDerivation(d.symbolic) + ops + QStringLiteral(" = ") + num(d.numeratorArg) + nums +
               QStringLiteral(" = ") + num(d.value);
    }
    case Kind::Rotation:
        if (d.terms.size() == 2) {
            const QString angle = num(d.numeratorArg);
            return head + localizedDerivation(d.symbolic) + QStringLiteral(" = ") + factor(d.terms[0].a) +
                   QStringLiteral("·cos(") + angle + QStringLiteral(")") +
                   (d.partnerAdds ? QStringLiteral(" + ") : QStringLiteral(" − ")) + factor(d.terms[1].a) +
                   QStringLiteral("·sin(") + angle + QStringLiteral(") = ") + num(d.value);
        }
        return head + num(d.value);
    case Kind::Copy:
        return head + localizedDerivation(d.symbolic) + QStringLiteral(" = ") + num(d.value);
    default:
        return head + num(d.value);
    }
}

/** How many sums of `terms` products a slide shows: long ones wrap onto two lines each, and eight of
 *  them would leave the matrices too little room to be read. */
int linesOfSums(int terms)
{
    return terms > 6 ? 4 : shownLines;
}

/** The derivations of the first cells of a row, at most `shown` lines, then "… and k more". */
QStringList derivations(const core::Trace& trace, core::Step step, int head, int row, int cols, int shown = shownLines)
{
    QStringList lines;
    for (int c = 0; c < cols && lines.size() < shown; ++c)
        lines << line(core::derive(trace, {step, head, row, c}));
    if (cols > shown)
        lines << Teaching::tr("… and %1 more").arg(cols - shown);
    return lines;
}

/** lines, one per key of query (0-based), with those of the keys the causal mask hides marked as such. */
QStringList maskedLines(QStringList lines, bool causal, int query)
{
    if (!causal)
        return lines;
    for (int j = query + 1; j < lines.size() && j < shownLines; ++j)
        if (!lines[j].startsWith(QStringLiteral("…")))  // not "… and 4 more"
            lines[j] += Teaching::tr(" (masked)");
    return lines;
}

/** The softmax of one row as a teacher writes it: the maximum, the sum of the exponentials, then each
 *  weight as its exponential over that sum, so that no line runs long at any n. */
QStringList softmaxLines(const core::Trace& trace, int head, int row, int n)
{
    const core::Derivation first = core::derive(trace, {core::Step::Weights, head, row, 0});
    QStringList lines;
    lines << QStringLiteral("max = %1").arg(num(first.rowMax));
    QStringList exps;
    for (std::size_t k = 0; k < first.terms.size(); ++k) {
        const core::Derivation d = core::derive(trace, {core::Step::Weights, head, row, int(k)});
        if (!d.masked)
            exps << num(first.terms[k].b);
    }
    if (first.totalTerms > int(first.terms.size()))
        exps << Teaching::tr("… (%1 more)").arg(first.totalTerms - int(first.terms.size()));
    lines << QStringLiteral("Σ = Σₖ exp(s(%1,k) − max) = %2 = %3")
                 .arg(QString::number(row + 1), exps.join(QStringLiteral(" + ")), num(first.denominator));
    for (int j = 0; j < n && j < shownLines; ++j) {
        const core::Derivation d = core::derive(trace, {core::Step::Weights, head, row, j});
        const QString name = str(d.name);
        if (d.masked) {
            lines << Teaching::tr("%1 = 0: key %2 comes after query %3 (causal mask)")
                         .arg(name, QString::number(j + 1), QString::number(row + 1));
            continue;
        }
        lines << QStringLiteral("%1 = exp(%2 − %3) / Σ = %4 / %5 = %6")
                     .arg(name, num(d.numeratorArg), num(d.rowMax), num(first.terms[std::size_t(j)].b),
                          num(d.denominator), num(d.value));
    }
    if (n > shownLines)
        lines << Teaching::tr("… and %1 more").arg(n - shownLines);
    return lines;
}

/** A slide of step number with its heading, formula and explanation from the one wording of the steps;
 *  from step 3 on the slides walk one query (0-based), and the heading names it. */
Slide wordedSlide(int number, const core::AttentionModel& model, int head, int query, const QString& token)
{
    const render::StepText text = render::StepWording::step(number, model);
    Slide s;
    s.step = number;
    s.decimals = decimals;
    s.title = render::StepWording::heading(number, text.title);
    if (number >= 3)
        s.title = Teaching::tr("%1 · %2").arg(s.title, render::StepWording::queryName(query, token));
    if (number >= 2 && model.heads() > 1)
        s.title = Teaching::tr("%1 · head %2").arg(s.title).arg(head + 1);
    s.formula = text.plainFormula();
    s.explanation = text.explanation;
    return s;
}

QString subscripted(const QString& letter, int index)
{
    return letter + str(core::subscript(index + 1));
}

/** After step 7 of a model with several heads or W_O: the heads side by side, then the projection. */
void appendProjection(std::vector<Slide>& slides, const core::Trace& trace, int query, const QStringList& tokens)
{
    const core::AttentionModel& model = *trace.model;
    if (!render::StepWording::hasProjection(model))
        return;
    Slide base;
    base.step = 7;
    base.decimals = decimals;
    base.title = render::StepWording::heading(7, render::StepWording::projectionTitle());
    base.formula = render::plainFormula(render::StepWording::projectionFormula(model));
    base.explanation = render::StepWording::projectionDetails(model);
    const QStringList concatCols = headedIndices(int(trace.concat.cols()), trace.headCount());
    const std::size_t first = slides.size();
    if (trace.headCount() > 1) {
        Slide s = base;
        // At most four heads side by side, then "…" for the others; the concatenation shows every column it can.
        const int shown = std::min(trace.headCount(), 4);
        const bool more = shown < trace.headCount();
        for (int h = 0; h < shown; ++h) {
            const core::Matrix& z = trace.heads[std::size_t(h)].outputs;
            s.matrices.push_back(matrix(subscripted(QStringLiteral("Z"), h), z, tokens, indices(int(z.cols()))));
            s.operators << (h + 1 < shown ? QString() : more ? QStringLiteral("… →") : QStringLiteral("→"));
        }
        if (more)
            s.explanation = Teaching::tr("%1 (%2 … %3 are not drawn; concat holds every head.)")
                                .arg(s.explanation, subscripted(QStringLiteral("Z"), shown),
                                     subscripted(QStringLiteral("Z"), trace.headCount() - 1));
        SlideMatrix concat = matrix(Teaching::tr("concat"), trace.concat, tokens, concatCols);
        concat.highlightRow = query;
        s.matrices.push_back(concat);
        slides.push_back(s);
    }
    if (model.wo) {
        Slide s = base;
        SlideMatrix concat = matrix(Teaching::tr("concat"), trace.concat, tokens, concatCols);
        concat.highlightRow = query;
        SlideMatrix out = matrix(Teaching::tr("output"), trace.output, tokens, indices(int(trace.output.cols())));
        out.highlightRow = query;
        const QStringList outCols = indices(int(model.wo->cols()));
        s.matrices = {concat, matrix(QStringLiteral("W_O"), *model.wo, concatCols, outCols)};  // W_O's rows: the heads
        s.operators = {QStringLiteral("·")};
        if (model.bo) {  // one row, added to every row of the product
            s.matrices.push_back(matrix(QStringLiteral("b_O"), *model.bo, {QString()}, outCols));
            s.operators << QStringLiteral("+");
        }
        // Sums of h·d_v products: four of them leave the matrices room to be read.
        s.arithmetic = derivations(trace, core::Step::Output, 0, query, int(trace.output.cols()), 4);
        // concat, W_O and the output side by side are too many columns to read on one slide beyond
        // maxProjectionColumns: the output then follows on a slide of its own.
        const auto columns = trace.concat.cols() + model.wo->cols() + trace.output.cols();
        if (columns <= maxProjectionColumns) {
            s.matrices.push_back(out);
            s.operators << QStringLiteral("=");
            slides.push_back(s);
        } else {
            slides.push_back(s);
            Slide result = base;
            result.matrices = {out};
            slides.push_back(result);
        }
    }
    // Several slides of the one heading are told apart: "(1/2)", "(2/2)".
    const std::size_t count = slides.size() - first;
    for (std::size_t i = first; count > 1 && i < slides.size(); ++i)
        slides[i].title += QStringLiteral(" (%1/%2)").arg(i - first + 1).arg(count);
}

} // namespace

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
    const bool causal = trace.model->options.mask == core::Mask::Causal;
    const QStringList keyCols = indices(int(ht.keys.cols()));
    const QStringList valueCols = indices(int(ht.values.cols()));
    auto worded = [&](int number) { return wordedSlide(number, *trace.model, head, query, q); };

    {
        Slide s = worded(1);
        s.matrices.push_back(matrix(QStringLiteral("X"), trace.x(), tokens, indices(int(trace.x().cols()))));
        slides.push_back(s);
    }
    {
        // With rotary positions the projections come first, then a slide of their turn: before → after.
        const bool turned = trace.model->options.positionalEncoding == core::PositionalEncoding::Rotary
            && ht.queriesUnrotated.rows() == n && ht.keysUnrotated.rows() == n;
        const core::Matrix& queries = turned ? ht.queriesUnrotated : ht.queries;
        const core::Matrix& keys = turned ? ht.keysUnrotated : ht.keys;
        Slide s = worded(2);
        SlideMatrix qm = matrix(QStringLiteral("Q"), queries, tokens, keyCols);
        SlideMatrix km = matrix(QStringLiteral("K"), keys, tokens, keyCols);
        SlideMatrix vm = matrix(QStringLiteral("V"), ht.values, tokens, valueCols);
        qm.highlightRow = km.highlightRow = vm.highlightRow = query;
        s.matrices = {qm, km, vm};
        s.operators = {QString(), QString()};
        s.arithmetic = derivations(trace, turned ? Step::QueriesUnrotated : Step::Queries, head, query,
                                   int(queries.cols()), linesOfSums(int(trace.x().cols())));
        if (turned) {
            Slide r = worded(2);
            s.title += QStringLiteral(" (1/2)");
            r.title += QStringLiteral(" (2/2)");
            r.explanation = Teaching::tr("Each query and key is turned by its position p: the pair of dimensions "
                                         "(i, i + d/2) by the angle p·θ_i. The values are not turned.");
            SlideMatrix qt = matrix(QStringLiteral("Q′"), ht.queries, tokens, keyCols);
            SlideMatrix kt = matrix(QStringLiteral("K′"), ht.keys, tokens, keyCols);
            qt.highlightRow = kt.highlightRow = query;
            r.matrices = {qm, qt, km, kt};
            r.operators = {QStringLiteral("→"), QString(), QStringLiteral("→")};
            r.arithmetic = derivations(trace, Step::Queries, head, query, int(ht.queries.cols()), shownLines / 2)
                + derivations(trace, Step::Keys, head, query, int(ht.keys.cols()), shownLines / 2);
            slides.push_back(s);
            slides.push_back(r);
        } else {
            slides.push_back(s);
        }
    }
    {
        Slide s = worded(3);
        SlideMatrix qm = matrix(QStringLiteral("Q"), ht.queries, tokens, keyCols);
        qm.highlightRow = query;
        SlideMatrix kt = matrix(QStringLiteral("Kᵀ"), ht.keys.transpose(), keyCols, tokens);
        SlideMatrix sc = matrix(Teaching::tr("scores"), ht.scores, tokens, tokens);
        sc.highlightRow = query;
        sc.masked = causal;
        sc.keepColumns = true;
        s.matrices = {qm, kt, sc};
        s.operators = {QStringLiteral("·"), QStringLiteral("=")};
        s.arithmetic = maskedLines(derivations(trace, Step::Scores, head, query, n, linesOfSums(int(ht.queries.cols()))),
                                   causal, query);
        slides.push_back(s);
    }
    {
        Slide s = worded(4);
        const core::Matrix scaled = trace.scaledScores(head);
        SlideMatrix before = matrix(Teaching::tr("scores"), ht.scores, tokens, tokens);
        SlideMatrix after = matrix(Teaching::tr("scaled"), scaled, tokens, tokens);
        before.highlightRow = after.highlightRow = query;
        before.masked = after.masked = causal;
        before.keepColumns = after.keepColumns = true;
        s.matrices = {before, after};
        s.operators = {QStringLiteral("→")};
        s.arithmetic = maskedLines(derivations(trace, Step::ScaledScores, head, query, n), causal, query);
        slides.push_back(s);
    }
    {
        Slide s = worded(5);
        SlideMatrix w = matrix(Teaching::tr("weights"), ht.weights, tokens, tokens);
        w.highlightRow = query;
        w.masked = causal;
        w.keepColumns = true;
        s.matrices = {w};
        s.arithmetic = softmaxLines(trace, head, query, n);
        slides.push_back(s);
    }
    {
        Slide s = worded(6);
        SlideMatrix v = matrix(QStringLiteral("V"), ht.values, tokens, valueCols);
        SlideMatrix wv = matrix(Teaching::tr("weighted values"), trace.weightedValues(head, query), tokens, valueCols);
        wv.maskedAfterRow = causal ? query : -1;
        wv.keepRows = true;
        s.matrices = {v, wv};
        s.operators = {QStringLiteral("→")};
        for (int j = 0; j < n && j < shownLines; ++j)
            s.arithmetic << QStringLiteral("%1 · v%2").arg(num(ht.weights(query, j)), str(core::subscript(j + 1)));
        if (n > shownLines)
            s.arithmetic << Teaching::tr("… and %1 more").arg(n - shownLines);
        slides.push_back(s);
    }
    {
        Slide s = worded(7);
        SlideMatrix wv = matrix(Teaching::tr("weighted values"), trace.weightedValues(head, query), tokens, valueCols);
        wv.maskedAfterRow = causal ? query : -1;
        wv.keepRows = true;  // every row is summed into z: none is cut to z's one row
        SlideMatrix z = matrix(subscripted(QStringLiteral("z"), query), ht.outputs.row(query), {q}, valueCols);
        s.matrices = {wv, z};
        s.operators = {QStringLiteral("Σ →")};
        s.arithmetic = derivations(trace, Step::Outputs, head, query, int(ht.outputs.cols()), linesOfSums(n));
        slides.push_back(s);
    }
    {
        Slide s;
        s.step = 7;
        s.decimals = decimals;
        s.title = Teaching::tr("Every token at once");
        if (trace.headCount() > 1)
            s.title = Teaching::tr("%1 · head %2").arg(s.title).arg(head + 1);
        s.formula = render::plainFormula(render::StepWording::overallFormula(*trace.model));
        s.explanation =
            Teaching::tr("The same steps run for every query together: one matrix product for the scores, a "
                         "softmax per row, and one product with V.");
        SlideMatrix w = matrix(Teaching::tr("weights"), ht.weights, tokens, tokens);
        w.masked = causal;
        w.keepColumns = true;
        w.highlightRow = query;
        SlideMatrix v = matrix(QStringLiteral("V"), ht.values, tokens, valueCols);
        SlideMatrix z = matrix(QStringLiteral("Z"), ht.outputs, tokens, valueCols);
        z.highlightRow = query;
        s.matrices = {w, v, z};
        s.operators = {QStringLiteral("·"), QStringLiteral("=")};
        slides.push_back(s);
    }
    appendProjection(slides, trace, query, tokens);
    // A layer of a real model: every slide says which model and layer (the heading names the head already).
    if (const auto& origin = trace.model->origin)
        for (Slide& s : slides)
            s.title = Teaching::tr("%1 · layer %2 of %3 · %4")
                          .arg(QString::fromStdString(origin->model))
                          .arg(origin->layer)
                          .arg(origin->layers)
                          .arg(s.title);
    return slides;
}

} // namespace ui
