#include "reportwriter.h"

#include "core/formats/numbertext.h"
#include "printpage.h"
#include "ui/render/stepfigure.h"
#include "ui/render/atomicwrite.h"
#include "ui/render/colormap.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/render/ropechart.h"
#include "ui/render/stepwording.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPalette>
#include <QPdfWriter>

#include <algorithm>
#include <cmath>
#include <optional>
#include <functional>
#include <memory>
#include <vector>

namespace exports {

namespace {

/** The translation context of these texts, the same for lupdate and at run time. */
struct Report {
    Q_DECLARE_TR_FUNCTIONS(Report)
};

/** One matrix of a step: numbers in a table (with its heatmap beside it for the n × n steps), or a
 *  heatmap alone when the numbers would not be readable. */
struct Figure {
    QString caption;          ///< rich text
    render::HeatmapData data; ///< the values (rows × cols), their labels and colour range
    render::ColormapId colormap = render::ColormapId::Diverging;
    bool withHeatmap = false; ///< an n × n step: its heatmap beside the table
    bool newLine = false;     ///< starts a new line of figures
    bool masked = false;      ///< causal: the cells above the diagonal are masked (greyed, hatched)
    int maskedAfterRow = -1;  ///< ≥ 0: the rows after this one are masked (a query's weighted values)
    bool isMasked(int row, int col) const { return (masked && col > row) || (maskedAfterRow >= 0 && row > maskedAfterRow); }
};

/** What one step says; the painter lays it out. */
struct StepSection {
    QString title;       ///< plain, e.g. "Step 4 · Divide by √d_k"
    QString formula;     ///< rich text
    QString shape;       ///< rich text
    QString explanation; ///< rich text
    std::vector<Figure> figures;
    QString note; ///< rich text, or empty
    /// With rotary positions (step 3): the score of the focus query and its strongest key over their distance.
    std::optional<render::RopeChartData> ropeChart;
};

QString headSuffix(const core::Trace& t, int head)
{
    return t.headCount() > 1 ? Report::tr(" · head %1").arg(head + 1) : QString();
}

/** "<i>Q</i> · head 2": a matrix symbol in italics, with the head (from 0) when there are several; none for
 *  a head of −1. */
QString symbolCaption(const core::Trace& t, const QString& symbol, int head = -1)
{
    return QStringLiteral("<i>%1</i>").arg(symbol) + (head >= 0 ? headSuffix(t, head).toHtmlEscaped() : QString());
}

QString shapeText(const QString& name, Eigen::Index rows, Eigen::Index cols, const QString& symbolic)
{
    return richSymbols(Report::tr("%1: %2 × %3 (%4)").arg(name).arg(rows).arg(cols).arg(symbolic));
}

/** The figure of a step of the trace, as the window shows it (its labels, colour map and range). */
Figure stepFigure(const core::Trace& t, core::Step step, int head, const QString& caption)
{
    Figure f;
    f.caption = caption;
    f.data = ui::heatmapData(t, step, head);
    f.colormap = render::defaultColormap(step);
    f.withHeatmap = step == core::Step::Scores || step == core::Step::ScaledScores || step == core::Step::Weights;
    f.masked = f.withHeatmap && t.model->options.mask == core::Mask::Causal;
    // The table hatches the scores the mask will hide; the heatmap beside it hatches the same cells.
    f.data.causalMask = f.masked;
    return f;
}

/** The figure of a weight's bias row (b_Q under W_Q, …), its columns labelled as the weight's; nothing when the
 *  model has no such bias. letter: the weight's subscript ("Q"). */
void addBiasFigure(std::vector<Figure>& figures, const core::Trace& t, core::Step weight,
                   const std::optional<core::Matrix>& bias, const QString& letter)
{
    if (!bias)
        return;
    Figure f;
    f.caption = QStringLiteral("<i>b</i><sub>%1</sub>").arg(letter);
    f.data = ui::heatmapFrame(t, weight, 0, 1, bias->cols());
    f.data.values = *bias;
    f.data.rowLabels = QStringList{QString()};  // one row: the caption names it
    f.colormap = render::defaultColormap(weight);
    figures.push_back(std::move(f));
}

/** A step number (1 … 7) with its heading, formula and explanation from the one wording of the steps,
 *  and the shape of its matrix name (rows × cols) in numbers and symbols; no name: the caller writes
 *  the shape. */
StepSection wordedSection(const core::Trace& t, int number, const QString& name = QString(), Eigen::Index rows = 0,
                          Eigen::Index cols = 0)
{
    const render::StepText text = render::StepWording::step(number, *t.model);
    StepSection s;
    s.title = render::StepWording::heading(number, text.title);
    s.formula = text.formula;
    s.explanation = richSymbols(text.details);
    if (!name.isEmpty())
        s.shape = shapeText(name, rows, cols, text.shape);
    return s;
}

/** The seven steps and, with several heads or W_O, the eighth; step 6 walks the query and head of focus. */
std::vector<StepSection> stepSections(const core::Trace& t, const ReportFocus& focus = {})
{
    using core::Step;
    const core::AttentionModel& model = *t.model;
    const int n = t.n(), h = t.headCount(), dk = model.dK(), dv = model.dV();
    std::vector<StepSection> steps;

    StepSection s1 = wordedSection(t, 1, QStringLiteral("X"), n, model.dModel());
    s1.figures.push_back(stepFigure(t, Step::X, 0, symbolCaption(t, QStringLiteral("X"))));
    steps.push_back(std::move(s1));

    StepSection s2 = wordedSection(t, 2);
    s2.shape = richSymbols(Report::tr("Q and K: %1 × %2 (n × d_k);  V: %1 × %3 (n × d_v)").arg(n).arg(dk).arg(dv));
    s2.figures.push_back(stepFigure(t, Step::WeightQuery, 0, QStringLiteral("<i>W</i><sub>Q</sub>")));
    s2.figures.push_back(stepFigure(t, Step::WeightKey, 0, QStringLiteral("<i>W</i><sub>K</sub>")));
    s2.figures.push_back(stepFigure(t, Step::WeightValue, 0, QStringLiteral("<i>W</i><sub>V</sub>")));
    // The biases, each a row under its weight: what an edit of one changes is in the report too.
    const std::size_t weights = s2.figures.size();
    addBiasFigure(s2.figures, t, Step::WeightQuery, model.bq, QStringLiteral("Q"));
    addBiasFigure(s2.figures, t, Step::WeightKey, model.bk, QStringLiteral("K"));
    addBiasFigure(s2.figures, t, Step::WeightValue, model.bv, QStringLiteral("V"));
    if (s2.figures.size() > weights)
        s2.figures[weights].newLine = true;
    for (int head = 0; head < h; ++head) {
        if (model.options.positionalEncoding == core::PositionalEncoding::Rotary) {  // Q and K before the turn too
            s2.figures.push_back(stepFigure(t, Step::QueriesUnrotated, head,
                                            Report::tr("<i>Q</i> before the turn") + headSuffix(t, head).toHtmlEscaped()));
            s2.figures.back().newLine = true;
            s2.figures.push_back(stepFigure(t, Step::KeysUnrotated, head,
                                            Report::tr("<i>K</i> before the turn") + headSuffix(t, head).toHtmlEscaped()));
        }
        s2.figures.push_back(stepFigure(t, Step::Queries, head, symbolCaption(t, QStringLiteral("Q"), head)));
        s2.figures.back().newLine = true;
        s2.figures.push_back(stepFigure(t, Step::Keys, head, symbolCaption(t, QStringLiteral("K"), head)));
        s2.figures.push_back(stepFigure(t, Step::Values, head, symbolCaption(t, QStringLiteral("V"), head)));
    }
    steps.push_back(std::move(s2));

    const std::pair<Step, QString> square[] = {
        {Step::Scores, Report::tr("scores")},
        {Step::ScaledScores, Report::tr("scaled scores")},
        {Step::Weights, Report::tr("weights")},
    };
    for (int k = 0; k < 3; ++k) {
        const auto& [step, name] = square[k];
        StepSection s = wordedSection(t, 3 + k, name, n, n);
        for (int head = 0; head < h; ++head) {
            s.figures.push_back(stepFigure(t, step, head, (name + headSuffix(t, head)).toHtmlEscaped()));
            s.figures.back().newLine = true;
        }
        if (step == Step::Scores && model.options.positionalEncoding == core::PositionalEncoding::Rotary)
            s.ropeChart = render::ropeChartData(t, std::clamp(focus.head, 0, h - 1), std::clamp(focus.query, 0, n - 1));
        steps.push_back(std::move(s));
    }

    StepSection s6 = wordedSection(t, 6);
    s6.shape = richSymbols(Report::tr("for each query i: %1 × %2 (n × d_v), one row per key j").arg(n).arg(dv));
    // A few tokens: every query; more: the one chosen. The first two heads, or the one chosen.
    const int chosenQuery = std::clamp(focus.query, 0, std::max(0, n - 1));
    const int shownQueries = n <= 4 ? n : 1;
    const int firstQuery = n <= 4 ? 0 : chosenQuery;
    const bool oneHead = focus.head >= 0 && focus.head < h;
    const int shownHeads = oneHead ? 1 : std::min(h, 2);
    for (int i = 0; i < shownHeads; ++i)
        for (int q = firstQuery; q < firstQuery + shownQueries; ++q) {
            const int head = oneHead ? focus.head : i;
            Figure f;
            f.caption =
                (Report::tr("query %1 (%2)").arg(q + 1).arg(QString::fromStdString(model.tokens[std::size_t(q)])) +
                 headSuffix(t, head))
                    .toHtmlEscaped();
            f.data.values = t.weightedValues(head, q);
            f.data.rowLabels = ui::tokenLabels(t);
            for (int c = 0; c < dv; ++c)
                f.data.colLabels << QString::number(c + 1);
            f.newLine = i > 0 && q == firstQuery;
            f.maskedAfterRow = model.options.mask == core::Mask::Causal ? q : -1;
            s6.figures.push_back(std::move(f));
        }
    if (shownQueries < n || shownHeads < h)
        s6.note = Report::tr("The other queries%1 are weighted the same way, each with its own row of weights.")
                      .arg(shownHeads < h ? Report::tr(" and heads") : QString())
                      .toHtmlEscaped();
    steps.push_back(std::move(s6));

    StepSection s7 = wordedSection(t, 7, QStringLiteral("Z"), n, dv);
    for (int head = 0; head < h; ++head)
        s7.figures.push_back(stepFigure(t, Step::Outputs, head, symbolCaption(t, QStringLiteral("Z"), head)));
    steps.push_back(std::move(s7));

    if (render::StepWording::hasProjection(model)) {
        // The end of step 7, numbered so as the steps panel and the slides do: the concatenated
        // heads and the projection.
        StepSection s8;
        s8.title = render::StepWording::heading(7, render::StepWording::projectionTitle());
        s8.formula = render::StepWording::projectionFormula(model);
        s8.shape = shapeText(Report::tr("concat"), n, t.concat.cols(), Report::tr("n × h·d_v")) +
                   QStringLiteral(";  ") + shapeText(Report::tr("output"), n, t.output.cols(), Report::tr("n × d_out"));
        s8.explanation = richSymbols(render::StepWording::projectionDetails(model));
        if (h > 1)
            s8.figures.push_back(stepFigure(t, Step::Concat, 0, Report::tr("concat").toHtmlEscaped()));
        if (model.wo) {
            s8.figures.push_back(stepFigure(t, Step::WeightOutput, 0, QStringLiteral("<i>W</i><sub>O</sub>")));
            addBiasFigure(s8.figures, t, Step::WeightOutput, model.bo, QStringLiteral("O"));
        }
        s8.figures.push_back(stepFigure(t, Step::Output, 0, Report::tr("output").toHtmlEscaped()));
        steps.push_back(std::move(s8));
    }
    return steps;
}

/** Lays the report out into pages, then paints them. Units are the writer's pixels at 96 dpi. */
class ReportPainter {
public:
    ReportPainter(QPdfWriter& writer, const core::Trace& trace, const QString& title, render::ColourRange range,
                  const ReportFocus& focus)
        : m_writer(writer), m_trace(trace), m_title(title), m_range(range), m_steps(stepSections(trace, focus))
    {
        m_area = QRectF(0, 0, m_writer.width(), m_writer.height());
        m_body = m_area.adjusted(0, 0, 0, -footerHeight(&m_writer));
    }

    bool paint()
    {
        layOut();
        if (!m_p.begin(&m_writer))
            return false;
        for (std::size_t page = 0; page < m_pages.size(); ++page) {
            if (page > 0)
                m_writer.newPage();
            paintFooter(&m_p, m_area, Report::tr("Attention Explorer · %1").arg(m_title),
                        Report::tr("page %1").arg(page + 1));
            for (const auto& [top, piece] : m_pages[page])
                piece.paint(top);
        }
        return m_p.end();
    }

    /** The cells the log colour range could not place, summed over the heatmaps painted. */
    Eigen::Index belowLogScale() const { return m_belowLogScale; }

private:
    /** A part of the report that is never split: a heading, a paragraph, a line of figures. */
    struct Piece {
        double height = 0;
        double gapAfter = 0;
        std::function<void(double top)> paint;
    };
    using Pieces = std::vector<Piece>;

    static constexpr double kFigureGap = 18;
    static constexpr double kStepGap = 30;

    // --- laying out --------------------------------------------------------------------------------

    void layOut()
    {
        startPage();
        for (Piece& piece : frontPieces())
            place(std::move(piece), QString());
        for (std::size_t k = 0; k < m_steps.size(); ++k) {
            m_stepPages.push_back(0);
            layOutStep(k);
        }
    }

    /** Places step k where it fits whole: on this page at one of the larger sizes, else on a new
     *  page at the largest size that fits. A step larger than a page at the smallest size is split, one size
     *  larger: it starts here when its opening (the texts and the first line of figures) fits, else on a new page. */
    void layOutStep(std::size_t k)
    {
        const StepSection& step = m_steps[k];
        StepPieces layout;
        bool fits = false;
        for (int level = 0; level < kLevels && !fits; ++level) {
            if (level > kLevelsOnAFilledPage && !pageIsEmpty())
                break;
            layout = stepPieces(step, level);
            fits = height(layout.pieces) <= room();
        }
        bool fitsPage = fits;
        for (int level = 0; level < kLevels && !fitsPage; ++level) {
            layout = stepPieces(step, level);
            fitsPage = height(layout.pieces) <= m_body.height();
        }
        if (!fitsPage) // split anyway: in type a size larger than the smallest
            layout = stepPieces(step, kLevels - 2);
        if (!fits && !pageIsEmpty()) {
            const Pieces opening(layout.pieces.begin(),
                                 layout.pieces.begin() +
                                     std::ptrdiff_t(std::min(layout.opening, layout.pieces.size())));
            if (fitsPage || height(opening) > room())
                startPage();
        }
        m_stepPages[k] = int(m_pages.size());
        layout.pieces.back().gapAfter = kStepGap;
        for (Piece& piece : layout.pieces)
            place(std::move(piece), step.title);
    }

    void startPage()
    {
        m_pages.emplace_back();
        m_y = m_body.top();
    }

    bool pageIsEmpty() const { return m_pages.back().empty(); }
    double room() const { return m_body.bottom() - m_y; }

    static double height(const Pieces& pieces)
    {
        double h = 0;
        for (const Piece& piece : pieces)
            h += piece.height + piece.gapAfter;
        return pieces.empty() ? 0 : h - pieces.back().gapAfter;
    }

    /** Puts piece at the cursor, on a new page when it does not fit (headed "title (continued)"). */
    void place(Piece piece, const QString& title)
    {
        if (piece.height > room() && !pageIsEmpty()) {
            startPage();
            if (!title.isEmpty()) {
                Piece continued = textPiece(richSymbols(Report::tr("%1 (continued)").arg(title)), printFont(12, true),
                                            ink::muted, 10);
                m_y += continued.height + continued.gapAfter;
                m_pages.back().emplace_back(m_body.top(), std::move(continued));
            }
        }
        const double top = m_y;
        m_y += piece.height + piece.gapAfter;
        m_pages.back().emplace_back(top, std::move(piece));
    }

    // --- pieces ------------------------------------------------------------------------------------

    /** Rich text across the body's width (or at x, width wide). */
    Piece textPiece(const QString& html, const QFont& font, const QColor& color, double gapAfter, double x = -1,
                    double width = -1)
    {
        const double left = x < 0 ? m_body.left() : x;
        auto text = std::make_shared<RichText>(html, font, color, width < 0 ? m_body.width() : width, &m_writer);
        return {text->height(), gapAfter, [this, text, left](double top) { text->paint(&m_p, QPointF(left, top)); }};
    }

    Piece formulaPiece(const QString& formula)
    {
        const double pad = 9;
        auto text =
            std::make_shared<RichText>(formula, printFont(12), ink::text, m_body.width() - 2 * pad - 3, &m_writer);
        const double h = text->height() + 2 * pad;
        return {h, 8, [this, text, h, pad](double top) {
                    const QRectF box(m_body.left(), top, m_body.width(), h);
                    m_p.fillRect(box, ink::tint);
                    m_p.fillRect(QRectF(box.left(), box.top(), 3, box.height()), ink::accent);
                    text->paint(&m_p, QPointF(box.left() + pad + 3, top + pad));
                }};
    }

    /** A row of the front page: a label on the left, rich text beside it. */
    Piece fieldPiece(const QString& label, const QString& html)
    {
        const double labelWidth = 110;
        Piece value =
            textPiece(html, printFont(10.5), ink::text, 7, m_body.left() + labelWidth, m_body.width() - labelWidth);
        Piece name =
            textPiece(label.toHtmlEscaped(), printFont(10.5, true), ink::text, 0, m_body.left(), labelWidth - 8);
        const double h = std::max(value.height, name.height);
        return {h, 7, [value, name](double top) {
                    name.paint(top);
                    value.paint(top);
                }};
    }

    Pieces frontPieces()
    {
        const core::AttentionModel& model = *m_trace.model;
        Pieces pieces;
        pieces.push_back(
            textPiece(Report::tr("Self-attention, step by step").toHtmlEscaped(), printFont(11), ink::accent, 4));
        pieces.push_back(textPiece(m_title.toHtmlEscaped(), printFont(22, true), ink::text, 8));
        pieces.push_back(
            textPiece(richSymbols(Report::tr("Scaled dot-product self-attention computed from the numbers "
                                             "below, step by step. Rows are tokens. Numbers are rounded to "
                                             "4 decimals; the exact values are in the CSV and JSON exports.")),
                      printFont(10), ink::muted, 16));

        const std::size_t shown = 200;
        QString tokenText = numberedTokens(model.tokens, shown).join(QStringLiteral("   ·   "));
        if (model.tokens.size() > shown)
            tokenText += Report::tr("   … and %1 more").arg(model.tokens.size() - shown);
        pieces.push_back(fieldPiece(Report::tr("Tokens"), tokenText.toHtmlEscaped()));

        QStringList shapes{Report::tr("n = %1 tokens").arg(model.n()), Report::tr("d_model = %1").arg(model.dModel()),
                           Report::tr("heads h = %1").arg(model.heads()), Report::tr("d_k = %1").arg(model.dK()),
                           Report::tr("d_v = %1").arg(model.dV())};
        if (model.wo)
            shapes << Report::tr("d_out = %1").arg(model.wo->cols());
        pieces.push_back(fieldPiece(
            Report::tr("Shapes"),
            richSymbols(shapes.join(QStringLiteral(",   "))) + QStringLiteral("<br>") +
                QStringLiteral("<span style=\"color:%1\">%2</span>")
                    .arg(ink::muted.name(),
                         richSymbols(
                             (model.kvHeads() == model.heads()
                                  ? Report::tr("X: n × d_model,   W_Q and W_K: d_model × h·d_k,   W_V: d_model × h·d_v%1")
                                  : Report::tr("X: n × d_model,   W_Q: d_model × h·d_k,   W_K: d_model × h_kv·d_k,   "
                                               "W_V: d_model × h_kv·d_v%1"))
                                 .arg(model.wo ? Report::tr(",   W_O: h·d_v × d_out") : QString())))));

        QStringList options{
            model.options.scale ? Report::tr("scores divided by √d_k") : Report::tr("scores not scaled"),
            Report::tr("temperature %1").arg(QString::fromStdString(core::formatNumber(model.options.temperature))),
            model.options.mask == core::Mask::Causal ? Report::tr("causal mask") : Report::tr("no mask"),
            render::StepWording::positionsFact(model),
        };
        options << render::StepWording::headOptionFacts(model);
        pieces.push_back(fieldPiece(Report::tr("Options"), richSymbols(options.join(QStringLiteral(",   ")))));

        // The contents, with the page each step starts on (known once the steps are laid out).
        const QFont font = printFont(10.5);
        const double lineHeight = QFontMetricsF(font, &m_writer).height() * 1.35;
        pieces.back().gapAfter = 14;
        pieces.push_back(textPiece(Report::tr("Contents").toHtmlEscaped(), printFont(12, true), ink::text, 4));
        const double contentsWidth = std::min(m_body.width(), 460.0);
        for (std::size_t k = 0; k < m_steps.size(); ++k) {
            auto title = std::make_shared<RichText>(richSymbols(m_steps[k].title), font, ink::text, contentsWidth - 40,
                                                    &m_writer);
            pieces.push_back(
                {std::max(lineHeight, title->height()), 0, [this, title, k, font, contentsWidth](double top) {
                     title->paint(&m_p, QPointF(m_body.left(), top));
                     m_p.setFont(font);
                     m_p.setPen(ink::muted);
                     m_p.drawText(QRectF(m_body.left(), top, contentsWidth, QFontMetricsF(font, &m_writer).height()),
                                  Qt::AlignRight | Qt::AlignTop, QString::number(m_stepPages[k]));
                 }});
        }
        pieces.back().gapAfter = kStepGap;
        return pieces;
    }

    /** The pieces of a step; the first `opening` of them (the texts and the first line of figures) are
     *  never parted. */
    struct StepPieces {
        Pieces pieces;
        std::size_t opening = 0;
    };

    StepPieces stepPieces(const StepSection& step, int level)
    {
        Pieces pieces;
        pieces.push_back(textPiece(richSymbols(step.title), printFont(16, true), ink::text, 8));
        pieces.push_back(formulaPiece(step.formula));
        if (!step.shape.isEmpty())
            pieces.push_back(textPiece(step.shape, printFont(9.5, false, true), ink::muted, 6));
        pieces.push_back(textPiece(step.explanation, printFont(10.5), ink::text, 14));
        const std::size_t opening = pieces.size() + 1;
        for (Piece& line : figureLines(step, level))
            pieces.push_back(std::move(line));
        if (step.ropeChart && !step.ropeChart->scores.empty())
            pieces.push_back(ropeChartPiece(*step.ropeChart));
        if (!step.note.isEmpty())
            pieces.push_back(textPiece(step.note, printFont(9.5, false, true), ink::muted, 8));
        return {std::move(pieces), opening};
    }

    /** The chart of a score over the distance, drawn by the painter the steps panel uses, in print colours. */
    Piece ropeChartPiece(const render::RopeChartData& data)
    {
        QPalette palette;
        palette.setColor(QPalette::Base, Qt::white);
        palette.setColor(QPalette::Text, ink::text);
        palette.setColor(QPalette::PlaceholderText, ink::muted);
        palette.setColor(QPalette::Highlight, ink::accent);
        palette.setColor(QPalette::Link, ink::accent);
        QFont font = printFont(10.5);
        font.setPixelSize(int(std::lround(10.5 * 96.0 / 72.0)));  // the writer's pixels are at 96 dpi
        auto painter = std::make_shared<render::RopeChartPainter>(data, render::RopeChartStyle{font, palette});
        const QSizeF size = QSizeF(painter->preferredSize()).scaled(std::min(m_body.width(), 520.0), 1e9,
                                                                      Qt::KeepAspectRatio);
        return {size.height(), kFigureGap, [this, painter, size](double top) {
                    painter->paint(&m_p, QRectF(QPointF(m_body.left(), top), size));
                }};
    }

    // --- figures -----------------------------------------------------------------------------------

    /** Figure sizes by level: the largest table font, the tallest heatmap alone (a fraction of the body)
     *  and the least height of a heatmap beside its table. */
    static constexpr int kLevels = 4;
    static constexpr double kTablePoints[kLevels] = {10.0, 9.0, 8.0, reportMinTablePoints};
    static constexpr double kHeatmapHeights[kLevels] = {0.5, 0.4, 0.3, 0.22};
    static constexpr double kBesideHeights[kLevels] = {210, 185, 160, 140};
    /** The smallest level a step shrinks to so as to fit below another; past it, it starts a new page. */
    static constexpr int kLevelsOnAFilledPage = 2;
    /** The smallest a heatmap beside its table is drawn, as a fraction of its preferred size. */
    static constexpr double kMinBesideScale = 0.55;

    struct TableMetrics {
        QFont font;
        QFont headerFont;
        double rowHeight = 0;
        double labelWidth = 0;
        double cellWidth = 0;
        double captionHeight = 0;
        QSizeF size;
    };

    /** What is drawn where in a line of figures. */
    struct Item {
        enum Kind { Table, BesideHeatmap, Heatmap } kind;
        const Figure* figure;
        QSizeF size;
        bool newLine;
    };

    static QString cellText(double v) { return QString::fromStdString(core::formatNumber(v, 4)); }

    RichText caption(const Figure& f) const
    {
        return RichText(f.caption, printFont(10, true), ink::text, -1, &m_writer);
    }

    /** The table of f at level, in the largest type from the level's down to reportMinTablePoints that is
     *  at most maxWidth wide; wider when none is. */
    TableMetrics tableMetrics(const Figure& f, int level, double maxWidth) const
    {
        const core::Matrix& values = f.data.values;
        TableMetrics m;
        const RichText title = caption(f);
        for (double points = kTablePoints[level]; points >= reportMinTablePoints; points -= 1.0) {
            m.font = printFont(points);
            m.headerFont = printFont(points * 0.92);
            const QFontMetricsF fm(m.font, &m_writer), hm(m.headerFont, &m_writer);
            m.rowHeight = fm.height() * 1.55;
            const double pad = fm.horizontalAdvance(QLatin1Char('0')) * 1.2;
            double widest = 0;
            for (Eigen::Index r = 0; r < values.rows(); ++r)
                for (Eigen::Index c = 0; c < values.cols(); ++c)
                    widest = std::max(widest, fm.horizontalAdvance(cellText(values(r, c))));
            for (const QString& label : f.data.colLabels)
                widest = std::max(
                    widest, std::min(hm.horizontalAdvance(label), fm.horizontalAdvance(QStringLiteral("0000000"))));
            m.cellWidth = widest + 2 * pad;
            double labels = 0;
            for (const QString& label : f.data.rowLabels)
                labels = std::max(labels, hm.horizontalAdvance(label));
            m.labelWidth = std::min(labels, 110.0) + pad * 1.5;
            m.captionHeight = title.height() + 6;
            m.size = QSizeF(std::max(title.width(), m.labelWidth + m.cellWidth * double(values.cols())),
                            m.captionHeight + m.rowHeight * double(values.rows() + 1));
            if (m.size.width() <= maxWidth)
                break;
        }
        return m;
    }

    /** The table of f as printed: beside its heatmap when type from the level's down to the smallest leaves
     *  the heatmap its least width, else as wide as the body allows. */
    TableMetrics tableMetrics(const Figure& f, int level) const
    {
        if (f.withHeatmap) {
            const double beside = m_body.width() - kFigureGap - minBesideWidth(f);
            TableMetrics m = tableMetrics(f, level, beside);
            if (m.size.width() <= beside)
                return m;
        }
        return tableMetrics(f, level, m_body.width());
    }

    bool asHeatmap(const Figure& f, int level) const
    {
        return f.data.values.cols() > reportMaxTableColumns || f.data.values.rows() > reportMaxTableRows ||
               tableMetrics(f, level, m_body.width()).size.width() > m_body.width();
    }

    QSize preferredHeatmapSize(const Figure& f) const
    {
        return render::HeatmapRenderer(f.data, heatmapStyle(f)).preferredSize();
    }

    render::HeatmapStyle heatmapStyle(const Figure& f) const
    {
        // The attention steps take the range chosen; other matrices keep their own (±max|v| on a diverging map).
        render::HeatmapStyle s = printHeatmapStyle(f.colormap, f.withHeatmap ? m_range : render::ColourRange::Fixed);
        s.showTitle = false;
        return s;
    }

    /** The note under a heatmap that stands for numbers too many to print. */
    QString shapeNote(const Figure& f) const
    {
        return Report::tr("%1 × %2: too many numbers to print at a readable size, shown as a heatmap")
            .arg(f.data.values.rows())
            .arg(f.data.values.cols())
            .toHtmlEscaped();
    }

    /** A heatmap alone: its caption, the figure (at most a fraction of the body high) and the note. */
    QSizeF heatmapItemSize(const Figure& f, int level) const
    {
        const QSizeF preferred = preferredHeatmapSize(f);
        const double maxHeight = m_body.height() * kHeatmapHeights[level];
        const double scale = std::min({m_body.width() / preferred.width(), maxHeight / preferred.height(), 1.0});
        const QSizeF figure(std::max(preferred.width() * scale, 200.0), std::max(preferred.height() * scale, 160.0));
        const double captionHeight = caption(f).height() + 6;
        const double noteHeight =
            RichText(shapeNote(f), printFont(8.5, false, true), ink::muted, figure.width(), &m_writer).height();
        return QSizeF(figure.width(), captionHeight + figure.height() + 4 + noteHeight);
    }

    /** The least width of a heatmap beside its table: its labels still fit and its cells read. */
    double minBesideWidth(const Figure& f) const { return preferredHeatmapSize(f).width() * kMinBesideScale; }

    /** The heatmap beside a table: as high as the table or the level's least height, as wide as its shape
     *  asks, never smaller than kMinBesideScale of its preferred size. */
    QSizeF besideHeatmapSize(const Figure& f, const QSizeF& table, int level) const
    {
        const QSizeF preferred = preferredHeatmapSize(f);
        const double h = std::max(table.height(), kBesideHeights[level]);
        const double scale =
            std::min(std::max(h / preferred.height(), kMinBesideScale), m_body.width() / preferred.width());
        return preferred * scale;
    }

    std::vector<Item> items(const StepSection& step, int level) const
    {
        std::vector<Item> list;
        for (const Figure& f : step.figures) {
            if (asHeatmap(f, level)) {
                list.push_back({Item::Heatmap, &f, heatmapItemSize(f, level), f.newLine});
                continue;
            }
            const QSizeF table = tableMetrics(f, level).size;
            list.push_back({Item::Table, &f, table, f.newLine});
            if (f.withHeatmap)
                list.push_back({Item::BesideHeatmap, &f, besideHeatmapSize(f, table, level), false});
        }
        return list;
    }

    /** The step's figures in lines across the body, one piece per line. */
    Pieces figureLines(const StepSection& step, int level)
    {
        struct Placed {
            Item item;
            double x;
        };
        std::vector<std::vector<Placed>> lines(1);
        double x = m_body.left();
        for (Item item : items(step, level)) {
            // A heatmap narrower than it would like still goes beside its table while it keeps its least width.
            const double rest = m_body.right() - x;
            if (item.kind == Item::BesideHeatmap && item.size.width() > rest && rest >= minBesideWidth(*item.figure))
                item.size *= rest / item.size.width();
            if (x > m_body.left() && (item.newLine || x + item.size.width() > m_body.right())) {
                lines.emplace_back();
                x = m_body.left();
            }
            lines.back().push_back({item, x});
            x += item.size.width() +
                 (item.kind == Item::Table && item.figure->withHeatmap ? kFigureGap : 1.5 * kFigureGap);
        }
        Pieces pieces;
        for (std::vector<Placed>& line : lines) {
            if (line.empty())
                continue;
            double h = 0;
            for (const Placed& placed : line)
                h = std::max(h, placed.item.size.height());
            pieces.push_back({h, kFigureGap, [this, line, level](double top) {
                                  for (const Placed& placed : line)
                                      paintItem(placed.item, QPointF(placed.x, top), level);
                              }});
        }
        return pieces;
    }

    void paintItem(const Item& item, QPointF at, int level)
    {
        const Figure& f = *item.figure;
        switch (item.kind) {
        case Item::Table:
            paintTable(f, at, item.size, level);
            break;
        case Item::BesideHeatmap: {
            const render::HeatmapRenderer renderer(f.data, heatmapStyle(f));
            renderer.paint(&m_p, QRectF(at, item.size));
            m_belowLogScale += renderer.colourScale().belowLogScale();
            break;
        }
        case Item::Heatmap: {
            const RichText title = caption(f);
            title.paint(&m_p, at);
            const RichText note(shapeNote(f), printFont(8.5, false, true), ink::muted, item.size.width(), &m_writer);
            const double top = at.y() + title.height() + 6;
            const QRectF figure(at.x(), top, item.size.width(), at.y() + item.size.height() - note.height() - 4 - top);
            const render::HeatmapRenderer renderer(f.data, heatmapStyle(f));
            renderer.paint(&m_p, figure);
            m_belowLogScale += renderer.colourScale().belowLogScale();
            note.paint(&m_p, QPointF(at.x(), figure.bottom() + 4));
            break;
        }
        }
    }

    /** A cell the causal mask hides, as the window's tables show it: grey, with a few thin hatch lines. */
    void paintMaskedCell(const QRectF& cell)
    {
        m_p.fillRect(cell, ink::rule);
        m_p.save();
        m_p.setClipRect(cell, Qt::IntersectClip);
        QColor hatch = ink::muted;
        hatch.setAlphaF(0.45);
        m_p.setPen(QPen(hatch, 0.4));
        for (double x = cell.left() - cell.height(); x < cell.right(); x += cell.height() / 2)
            m_p.drawLine(QPointF(x, cell.bottom()), QPointF(x + cell.height(), cell.top()));
        m_p.restore();
    }

    void paintTable(const Figure& f, QPointF at, QSizeF size, int level)
    {
        const TableMetrics m = tableMetrics(f, level);
        caption(f).paint(&m_p, at);
        const double top = at.y() + m.captionHeight;
        const double left = at.x() + m.labelWidth;
        const core::Matrix& values = f.data.values;
        const int rows = int(values.rows()), cols = int(values.cols());
        const QFontMetricsF hm(m.headerFont, &m_writer);

        m_p.setFont(m.headerFont);
        m_p.setPen(ink::muted);
        for (int c = 0; c < cols; ++c) {
            const QRectF cell(left + c * m.cellWidth, top, m.cellWidth, m.rowHeight);
            m_p.drawText(cell.adjusted(2, 0, -2, 0), Qt::AlignCenter,
                         hm.elidedText(f.data.colLabels.value(c), Qt::ElideRight, cell.width() - 4));
        }
        for (int r = 0; r < rows; ++r) {
            const double y = top + (r + 1) * m.rowHeight;
            if (r % 2 == 0)
                m_p.fillRect(QRectF(at.x(), y, size.width(), m.rowHeight), ink::tint);
            m_p.setFont(m.headerFont);
            m_p.setPen(ink::muted);
            m_p.drawText(QRectF(at.x() + 2, y, m.labelWidth - 6, m.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                         hm.elidedText(f.data.rowLabels.value(r), Qt::ElideRight, m.labelWidth - 8));
            m_p.setFont(m.font);
            for (int c = 0; c < cols; ++c) {
                const QRectF cell(left + c * m.cellWidth, y, m.cellWidth, m.rowHeight);
                const bool masked = f.isMasked(r, c);
                if (masked)
                    paintMaskedCell(cell);
                m_p.setPen(masked ? ink::muted : ink::text);
                m_p.drawText(cell.adjusted(0, 0, -m.cellWidth * 0.12, 0), Qt::AlignRight | Qt::AlignVCenter,
                             cellText(values(r, c)));
            }
        }
        m_p.setPen(QPen(ink::rule, 0.8));
        m_p.drawLine(QPointF(at.x(), top + m.rowHeight), QPointF(at.x() + size.width(), top + m.rowHeight));
        m_p.drawLine(QPointF(left, top), QPointF(left, top + (rows + 1) * m.rowHeight));
        m_p.drawLine(QPointF(at.x(), top + (rows + 1) * m.rowHeight),
                     QPointF(at.x() + size.width(), top + (rows + 1) * m.rowHeight));
    }

    QPdfWriter& m_writer;
    const core::Trace& m_trace;
    QString m_title;
    render::ColourRange m_range;
    std::vector<StepSection> m_steps;
    QPainter m_p;
    QRectF m_area;
    QRectF m_body;
    std::vector<std::vector<std::pair<double, Piece>>> m_pages; ///< per page: each piece and its top
    std::vector<int> m_stepPages;                               ///< the page (from 1) each step starts on
    double m_y = 0;                                             ///< the layout's cursor on the last page
    Eigen::Index m_belowLogScale = 0;                           ///< belowLogScale() of the heatmaps painted
};

} // namespace

QStringList reportStepTitles(const core::Trace& trace)
{
    QStringList titles;
    for (const StepSection& step : stepSections(trace))
        titles << step.title;
    return titles;
}

QStringList reportStepFormulas(const core::Trace& trace)
{
    QStringList formulas;
    for (const StepSection& step : stepSections(trace))
        formulas << render::plainFormula(step.formula);
    return formulas;
}

render::ExportResult writeReport(const core::Trace& trace, const QString& title, QIODevice* device,
                                 render::ColourRange range, const ReportFocus& focus)
{
    const QString name = title.isEmpty() ? Report::tr("Self-attention") : title;
    QPdfWriter writer(device);
    setUpPrintPage(writer, name);
    ReportPainter painter(writer, trace, name, range, focus);
    if (!painter.paint())
        return render::ExportResult::failed(Report::tr("The report could not be painted"));
    return {true, QString(), painter.belowLogScale(), QString()};
}

render::ExportResult writeReport(const core::Trace& trace, const QString& title, const QString& path,
                                 render::ColourRange range, const ReportFocus& focus)
{
    return render::exportAtomically(path,
                                    [&](QIODevice* device) { return writeReport(trace, title, device, range, focus); });
}

TraceWriter reportWriter(const ReportFocus& focus)
{
    return [focus](const core::Trace& trace, const QString& title, const QString& path, render::ColourRange range) {
        return writeReport(trace, title, path, range, focus);
    };
}

} // namespace exports
