#include "reportwriter.h"

#include "core/derivation.h"
#include "ui/document/stepfigure.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/render/stepwording.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>

#include <vector>

namespace exports {

namespace {

/** The translation context of these texts, the same for lupdate and at run time. */
struct Report {
    Q_DECLARE_TR_FUNCTIONS(Report)
};

bool fail(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

/** One matrix on a page: numbers in a table, or a heatmap when too large. */
struct Figure {
    QString caption;
    core::Matrix values;    ///< rows × cols
    QStringList rowLabels;  ///< one per row
    QStringList colLabels;  ///< one per column
    bool unitRange = false; ///< weights: colour 0 … 1
    bool newLine = false;   ///< starts a new line of figures
};

/** What one step page says; the painter lays it out. */
struct StepPage {
    QString title;
    QString formula;
    QString shape;
    QString explanation;
    std::vector<Figure> figures;
    QString note;
};

QString headSuffix(const core::Trace& t, int head)
{
    return t.headCount() > 1 ? Report::tr(" · head %1").arg(head + 1) : QString();
}

QStringList indexLabels(int count)
{
    QStringList labels;
    for (int i = 0; i < count; ++i)
        labels << QString::number(i + 1);
    return labels;
}

QString shapeText(const QString& name, Eigen::Index rows, Eigen::Index cols, const QString& symbolic)
{
    return Report::tr("%1: %2 × %3 (%4)").arg(name).arg(rows).arg(cols).arg(symbolic);
}

Figure tokenRowsFigure(const core::Trace& t, const QString& caption, const core::Matrix& m)
{
    return {caption, m, ui::tokenLabels(t), indexLabels(int(m.cols())), false};
}

Figure squareFigure(const core::Trace& t, const QString& caption, const core::Matrix& m, bool unitRange)
{
    return {caption, m, ui::tokenLabels(t), ui::tokenLabels(t), unitRange};
}

Figure weightFigure(const QString& caption, const core::Matrix& m)
{
    return {caption, m, indexLabels(int(m.rows())), indexLabels(int(m.cols())), false};
}

/** A page of step number (1 … 7) with its heading, formula and explanation from the one wording of the
 *  steps, and the shape of its matrix name (rows × cols) in numbers and symbols; no name: the caller
 *  writes the shape. */
StepPage wordedPage(const core::Trace& t, int number, const QString& name = QString(), Eigen::Index rows = 0,
                    Eigen::Index cols = 0)
{
    const render::StepText text = render::StepWording::step(number, t.model);
    StepPage page;
    page.title = render::StepWording::heading(number, text.title);
    page.formula = text.plainFormula();
    page.explanation = text.details;
    if (!name.isEmpty())
        page.shape = shapeText(name, rows, cols, text.shape);
    return page;
}

/** The pages of the seven steps and, with several heads or W_O, the eighth. */
std::vector<StepPage> stepPages(const core::Trace& t)
{
    const core::AttentionModel& model = t.model;
    const int n = t.n(), h = t.headCount(), dk = model.dK(), dv = model.dV();
    std::vector<StepPage> pages;

    StepPage p1 = wordedPage(t, 1, QStringLiteral("X"), n, model.dModel());
    p1.figures.push_back(tokenRowsFigure(t, QStringLiteral("X"), t.x()));
    pages.push_back(std::move(p1));

    StepPage p2 = wordedPage(t, 2);
    p2.shape = Report::tr("Q and K: %1 × %2 (n × d_k);  V: %1 × %3 (n × d_v)").arg(n).arg(dk).arg(dv);
    p2.figures.push_back(weightFigure(QStringLiteral("W_Q"), model.wq));
    p2.figures.push_back(weightFigure(QStringLiteral("W_K"), model.wk));
    p2.figures.push_back(weightFigure(QStringLiteral("W_V"), model.wv));
    for (int head = 0; head < h; ++head) {
        const core::HeadTrace& ht = t.heads[std::size_t(head)];
        p2.figures.push_back(tokenRowsFigure(t, QStringLiteral("Q") + headSuffix(t, head), ht.queries));
        p2.figures.back().newLine = true;
        p2.figures.push_back(tokenRowsFigure(t, QStringLiteral("K") + headSuffix(t, head), ht.keys));
        p2.figures.push_back(tokenRowsFigure(t, QStringLiteral("V") + headSuffix(t, head), ht.values));
    }
    pages.push_back(std::move(p2));

    StepPage p3 = wordedPage(t, 3, Report::tr("scores"), n, n);
    for (int head = 0; head < h; ++head)
        p3.figures.push_back(squareFigure(t, Report::tr("scores") + headSuffix(t, head), t.heads[std::size_t(head)].scores, false));
    pages.push_back(std::move(p3));

    StepPage p4 = wordedPage(t, 4, Report::tr("scaled scores"), n, n);
    for (int head = 0; head < h; ++head)
        p4.figures.push_back(squareFigure(t, Report::tr("scaled scores") + headSuffix(t, head), t.scaledScores(head), false));
    pages.push_back(std::move(p4));

    StepPage p5 = wordedPage(t, 5, Report::tr("weights"), n, n);
    for (int head = 0; head < h; ++head)
        p5.figures.push_back(squareFigure(t, Report::tr("weights") + headSuffix(t, head), t.heads[std::size_t(head)].weights, true));
    pages.push_back(std::move(p5));

    StepPage p6 = wordedPage(t, 6);
    p6.shape = Report::tr("for each query i: %1 × %2 (n × d_v), one row per key j").arg(n).arg(dv);
    const int shownQueries = n <= 4 ? n : 1;
    const int shownHeads = std::min(h, 2);
    for (int head = 0; head < shownHeads; ++head)
        for (int q = 0; q < shownQueries; ++q)
            p6.figures.push_back({Report::tr("query %1 (%2)").arg(q + 1).arg(QString::fromStdString(model.tokens[std::size_t(q)]))
                                      + headSuffix(t, head),
                                  t.weightedValues(head, q), ui::tokenLabels(t), indexLabels(dv), false,
                                  head > 0 && q == 0});
    if (shownQueries < n || shownHeads < h)
        p6.note = Report::tr("The other queries%1 are weighted the same way, each with its own row of weights.")
                      .arg(shownHeads < h ? Report::tr(" and heads") : QString());
    pages.push_back(std::move(p6));

    StepPage p7 = wordedPage(t, 7, QStringLiteral("Z"), n, dv);
    for (int head = 0; head < h; ++head)
        p7.figures.push_back(tokenRowsFigure(t, QStringLiteral("Z") + headSuffix(t, head), t.heads[std::size_t(head)].outputs));
    pages.push_back(std::move(p7));

    if (render::StepWording::hasProjection(model)) {
        // The end of step 7 on a page of its own: the concatenated heads and the projection.
        StepPage p8;
        p8.title = render::StepWording::heading(8, render::StepWording::projectionTitle());
        p8.formula = render::plainFormula(render::StepWording::projectionFormula(model));
        p8.shape = shapeText(Report::tr("concat"), n, t.concat.cols(), Report::tr("n × h·d_v")) + QStringLiteral(";  ")
            + shapeText(Report::tr("output"), n, t.output.cols(), Report::tr("n × d_out"));
        p8.explanation = render::StepWording::projectionDetails(model);
        if (h > 1)
            p8.figures.push_back(tokenRowsFigure(t, Report::tr("concat"), t.concat));
        if (model.wo)
            p8.figures.push_back(weightFigure(QStringLiteral("W_O"), *model.wo));
        p8.figures.push_back(tokenRowsFigure(t, Report::tr("output"), t.output));
        pages.push_back(std::move(p8));
    }
    return pages;
}

QFont fontOf(double points, bool bold = false, bool italic = false)
{
    QFont f;
    f.setPointSizeF(points);
    f.setBold(bold);
    f.setItalic(italic);
    return f;
}

const QColor kInk(0x1f, 0x23, 0x28);
const QColor kMuted(0x5f, 0x66, 0x6d);
const QColor kRule(0xd0, 0xd4, 0xd9);
const QColor kTint(0xf3, 0xf5, 0xf7);
const QColor kAccent(0x2b, 0x59, 0xc3);

/** Paints the pages. Units are the writer's pixels at 96 dpi, the unit HeatmapRenderer is made for. */
class ReportPainter {
public:
    ReportPainter(QPdfWriter& writer, const core::Trace& trace, const QString& title)
        : m_writer(writer), m_trace(trace), m_title(title)
    {
    }

    bool paint()
    {
        if (!m_p.begin(&m_writer))
            return false;
        m_area = QRectF(0, 0, m_writer.width(), m_writer.height());
        m_body = m_area.adjusted(0, 0, 0, -footerHeight());
        titlePage();
        for (const StepPage& page : stepPages(m_trace))
            stepPage(page);
        return m_p.end();
    }

private:
    static constexpr double kGap = 14;
    static constexpr double kFigureGap = 22;

    double footerHeight() const { return QFontMetricsF(fontOf(7.5), &m_writer).height() * 2.2; }

    void footer()
    {
        m_p.setFont(fontOf(7.5));
        m_p.setPen(kMuted);
        const QRectF r(m_area.left(), m_area.bottom() - QFontMetricsF(m_p.font()).height(), m_area.width(),
                       QFontMetricsF(m_p.font()).height());
        const QFontMetricsF fm(m_p.font());
        m_p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(Report::tr("Attention Explorer · %1").arg(m_title), Qt::ElideRight, r.width() * 0.8));
        m_p.drawText(r, Qt::AlignRight | Qt::AlignVCenter, Report::tr("page %1").arg(m_page));
        m_p.setPen(QPen(kRule, 0.8));
        m_p.drawLine(QPointF(r.left(), r.top() - 6), QPointF(r.right(), r.top() - 6));
    }

    void newPage()
    {
        if (m_page > 0)
            m_writer.newPage();
        ++m_page;
        footer();
        m_y = m_body.top();
    }

    /** Paints text wrapped to the body's width at the cursor and moves the cursor below it. */
    void text(const QString& s, const QFont& font, const QColor& color, double spaceAfter)
    {
        m_p.setFont(font);
        m_p.setPen(color);
        const QRectF bounds(m_body.left(), m_y, m_body.width(), m_body.bottom() - m_y);
        const QRectF used = m_p.boundingRect(bounds, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, s);
        m_p.drawText(bounds, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, s);
        m_y += used.height() + spaceAfter;
    }

    double textHeight(const QString& s, const QFont& font, double width) const
    {
        return QFontMetricsF(font, &m_writer)
            .boundingRect(QRectF(0, 0, width, 1e6), Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, s)
            .height();
    }

    void formulaBox(const QString& formula)
    {
        const QFont font = fontOf(11.5);
        const double pad = 9;
        const double h = textHeight(formula, font, m_body.width() - 2 * pad) + 2 * pad;
        const QRectF box(m_body.left(), m_y, m_body.width(), h);
        m_p.fillRect(box, kTint);
        m_p.fillRect(QRectF(box.left(), box.top(), 3, box.height()), kAccent);
        m_p.setFont(font);
        m_p.setPen(kInk);
        m_p.drawText(box.adjusted(pad + 3, pad, -pad, -pad), Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignVCenter, formula);
        m_y += h + kGap;
    }

    void titlePage()
    {
        newPage();
        const core::AttentionModel& model = m_trace.model;
        m_y += 40;
        text(Report::tr("Self-attention, step by step"), fontOf(11, false), kAccent, 6);
        text(m_title, fontOf(24, true), kInk, 10);
        text(Report::tr("Scaled dot-product self-attention computed from the numbers below, one page per step. Rows are tokens. "
                "Numbers are rounded to 4 decimals; the exact values are in the CSV and JSON exports."),
             fontOf(10), kMuted, 24);

        text(Report::tr("Tokens"), fontOf(12, true), kInk, 6);
        QStringList tokens;
        for (std::size_t i = 0; i < model.tokens.size(); ++i)
            tokens << QStringLiteral("%1 %2").arg(i + 1).arg(QString::fromStdString(model.tokens[i]));
        const int shown = 200;
        QString tokenText = tokens.mid(0, shown).join(QStringLiteral("   ·   "));
        if (tokens.size() > shown)
            tokenText += Report::tr("   … and %1 more").arg(tokens.size() - shown);
        text(tokenText, fontOf(10.5), kInk, 20);

        text(Report::tr("Shapes"), fontOf(12, true), kInk, 6);
        QStringList shapes{Report::tr("n = %1 tokens").arg(model.n()), Report::tr("d_model = %1").arg(model.dModel()),
                           Report::tr("heads h = %1").arg(model.heads()), Report::tr("d_k = %1").arg(model.dK()),
                           Report::tr("d_v = %1").arg(model.dV())};
        if (model.wo)
            shapes << Report::tr("d_out = %1").arg(model.wo->cols());
        text(shapes.join(QStringLiteral(",   ")), fontOf(10.5), kInk, 4);
        text(Report::tr("X: n × d_model,   W_Q and W_K: d_model × h·d_k,   W_V: d_model × h·d_v%1")
                 .arg(model.wo ? Report::tr(",   W_O: h·d_v × d_out") : QString()),
             fontOf(9.5), kMuted, 20);

        text(Report::tr("Options"), fontOf(12, true), kInk, 6);
        const QStringList options{
            model.options.scale ? Report::tr("scores divided by √d_k") : Report::tr("scores not scaled"),
            Report::tr("temperature %1").arg(QString::fromStdString(core::formatNumber(model.options.temperature))),
            model.options.mask == core::Mask::Causal ? Report::tr("causal mask") : Report::tr("no mask"),
            model.options.positionalEncoding == core::PositionalEncoding::Sinusoidal
                ? Report::tr("sinusoidal positional encoding")
                : Report::tr("no positional encoding"),
        };
        text(options.join(QStringLiteral(",   ")), fontOf(10.5), kInk, 20);

        text(Report::tr("Contents"), fontOf(12, true), kInk, 6);
        for (const QString& title : reportStepTitles(m_trace))
            text(title, fontOf(10.5), kInk, 3);
    }

    void stepPage(const StepPage& page)
    {
        newPage();
        text(page.title, fontOf(18, true), kInk, 8);
        formulaBox(page.formula);
        text(page.shape, fontOf(9.5, false, true), kMuted, 8);
        text(page.explanation, fontOf(10.5), kInk, kFigureGap);

        // The largest figures that let the whole step fit on its page; the smallest when none does.
        for (m_level = 0; m_level + 1 < kLevels; ++m_level)
            if (flow(page, false) <= m_body.bottom())
                break;
        m_y = flow(page, true);
        if (!page.note.isEmpty())
            text(page.note, fontOf(9.5, false, true), kMuted, kGap);
    }

    /** Lays the figures out in lines below the cursor; returns the bottom of the last line. Painting, it
     *  starts a new page where a figure does not fit; measuring, it pretends the page is endless. */
    double flow(const StepPage& page, bool paint)
    {
        double x = m_body.left(), y = m_y, lineHeight = 0;
        for (const Figure& figure : page.figures) {
            const QSizeF size = figureSize(figure);
            if (x > m_body.left() && (figure.newLine || x + size.width() > m_body.right())) {
                x = m_body.left();
                y += lineHeight + kFigureGap;
                lineHeight = 0;
            }
            if (paint && y + size.height() > m_body.bottom() && y > m_body.top()) {
                newPage();
                text(Report::tr("%1 (continued)").arg(page.title), fontOf(12, true), kMuted, kGap);
                x = m_body.left();
                y = m_y;
                lineHeight = 0;
            }
            if (paint)
                paintFigure(figure, QPointF(x, y), size);
            x += size.width() + 2 * kFigureGap;
            lineHeight = std::max(lineHeight, size.height());
        }
        return y + lineHeight + kFigureGap;
    }

    // --- figures ---------------------------------------------------------------------------------

    /** Figure sizes by level: the largest table font and the tallest heatmap, a fraction of the body. */
    static constexpr int kLevels = 4;
    static constexpr double kTablePoints[kLevels] = {10.0, 9.0, 8.0, 7.0};
    static constexpr double kHeatmapHeights[kLevels] = {0.55, 0.4, 0.3, 0.22};

    struct TableMetrics {
        QFont font;
        QFont headerFont;
        double rowHeight = 0;
        double labelWidth = 0;
        double cellWidth = 0;
        double captionHeight = 0;
        QSizeF size;
    };

    static QString cellText(double v) { return QString::fromStdString(core::formatNumber(v, 4)); }

    bool asHeatmap(const Figure& f) const
    {
        return f.values.cols() > reportMaxTableColumns || f.values.rows() > reportMaxTableRows
            || tableMetrics(f).size.width() > m_body.width();
    }

    TableMetrics tableMetrics(const Figure& f) const
    {
        TableMetrics m;
        for (double points : {kTablePoints[m_level], 8.0, 7.0, 6.5}) {
            if (points > kTablePoints[m_level])
                continue;
            m.font = fontOf(points);
            m.headerFont = fontOf(points * 0.92);
            const QFontMetricsF fm(m.font, &m_writer), hm(m.headerFont, &m_writer);
            m.rowHeight = fm.height() * 1.55;
            const double pad = fm.horizontalAdvance(QLatin1Char('0')) * 1.2;
            double widest = 0;
            for (Eigen::Index r = 0; r < f.values.rows(); ++r)
                for (Eigen::Index c = 0; c < f.values.cols(); ++c)
                    widest = std::max(widest, fm.horizontalAdvance(cellText(f.values(r, c))));
            for (const QString& label : f.colLabels)
                widest = std::max(widest, std::min(hm.horizontalAdvance(label), fm.horizontalAdvance(QStringLiteral("0000000"))));
            m.cellWidth = widest + 2 * pad;
            double labels = 0;
            for (const QString& label : f.rowLabels)
                labels = std::max(labels, hm.horizontalAdvance(label));
            m.labelWidth = std::min(labels, 110.0) + pad * 1.5;
            m.captionHeight = QFontMetricsF(fontOf(10, true), &m_writer).height() * 1.5;
            const double captionWidth = QFontMetricsF(fontOf(10, true), &m_writer).horizontalAdvance(f.caption);
            m.size = QSizeF(std::max(captionWidth, m.labelWidth + m.cellWidth * double(f.values.cols())),
                            m.captionHeight + m.rowHeight * double(f.values.rows() + 1));
            if (m.size.width() <= m_body.width())
                break;
        }
        return m;
    }

    QSizeF figureSize(const Figure& f) const
    {
        if (!asHeatmap(f))
            return tableMetrics(f).size;
        const render::HeatmapRenderer renderer(heatmapData(f), heatmapStyle(f));
        const QSizeF preferred = renderer.preferredSize();
        const double maxHeight = m_body.height() * kHeatmapHeights[m_level];
        double scale = std::min(m_body.width() / preferred.width(), maxHeight / preferred.height());
        scale = std::min(scale, 1.0);
        return QSizeF(std::max(preferred.width() * scale, 200.0), std::max(preferred.height() * scale, 160.0));
    }

    render::HeatmapData heatmapData(const Figure& f) const
    {
        render::HeatmapData d;
        d.values = f.values;
        d.rowLabels = f.rowLabels;
        d.colLabels = f.colLabels;
        d.title = f.caption;
        if (f.unitRange)
            d.range = std::make_pair(0.0, 1.0);
        return d;
    }

    render::HeatmapStyle heatmapStyle(const Figure& f) const
    {
        render::HeatmapStyle s;
        s.colormap = f.unitRange ? render::ColormapId::Viridis : render::ColormapId::Diverging;
        s.font = QFont();
        s.font.setPixelSize(10);
        s.fontScale = 1.0;
        s.palette.setColor(QPalette::Base, Qt::white);
        s.palette.setColor(QPalette::Text, kInk);
        return s;
    }

    void paintFigure(const Figure& f, QPointF at, QSizeF size)
    {
        if (asHeatmap(f)) {
            const render::HeatmapRenderer renderer(heatmapData(f), heatmapStyle(f));
            renderer.paint(&m_p, QRectF(at, size));
            return;
        }
        const TableMetrics m = tableMetrics(f);
        m_p.setFont(fontOf(10, true));
        m_p.setPen(kInk);
        m_p.drawText(QRectF(at.x(), at.y(), size.width(), m.captionHeight), Qt::AlignLeft | Qt::AlignTop, f.caption);
        const double top = at.y() + m.captionHeight;
        const double left = at.x() + m.labelWidth;
        const int rows = int(f.values.rows()), cols = int(f.values.cols());
        const QFontMetricsF hm(m.headerFont, &m_writer);

        m_p.setFont(m.headerFont);
        m_p.setPen(kMuted);
        for (int c = 0; c < cols; ++c) {
            const QRectF cell(left + c * m.cellWidth, top, m.cellWidth, m.rowHeight);
            m_p.drawText(cell.adjusted(2, 0, -2, 0), Qt::AlignCenter,
                         hm.elidedText(f.colLabels.value(c), Qt::ElideRight, cell.width() - 4));
        }
        for (int r = 0; r < rows; ++r) {
            const double y = top + (r + 1) * m.rowHeight;
            if (r % 2 == 0)
                m_p.fillRect(QRectF(at.x(), y, size.width(), m.rowHeight), kTint);
            m_p.setFont(m.headerFont);
            m_p.setPen(kMuted);
            m_p.drawText(QRectF(at.x() + 2, y, m.labelWidth - 6, m.rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                         hm.elidedText(f.rowLabels.value(r), Qt::ElideRight, m.labelWidth - 8));
            m_p.setFont(m.font);
            m_p.setPen(kInk);
            for (int c = 0; c < cols; ++c) {
                const QRectF cell(left + c * m.cellWidth, y, m.cellWidth, m.rowHeight);
                m_p.drawText(cell.adjusted(0, 0, -m.cellWidth * 0.12, 0), Qt::AlignRight | Qt::AlignVCenter,
                             cellText(f.values(r, c)));
            }
        }
        m_p.setPen(QPen(kRule, 0.8));
        m_p.drawLine(QPointF(at.x(), top + m.rowHeight), QPointF(at.x() + size.width(), top + m.rowHeight));
        m_p.drawLine(QPointF(left, top), QPointF(left, top + (rows + 1) * m.rowHeight));
        m_p.drawLine(QPointF(at.x(), top + (rows + 1) * m.rowHeight),
                     QPointF(at.x() + size.width(), top + (rows + 1) * m.rowHeight));
    }

    QPdfWriter& m_writer;
    const core::Trace& m_trace;
    QString m_title;
    QPainter m_p;
    QRectF m_area;
    QRectF m_body;
    double m_y = 0;
    int m_page = 0;
    int m_level = 0;  ///< index into kTablePoints and kHeatmapHeights for the page being laid out
};

}  // namespace

QStringList reportStepTitles(const core::Trace& trace)
{
    QStringList titles;
    for (const StepPage& page : stepPages(trace))
        titles << page.title;
    return titles;
}

QStringList reportStepFormulas(const core::Trace& trace)
{
    QStringList formulas;
    for (const StepPage& page : stepPages(trace))
        formulas << page.formula;
    return formulas;
}

bool writeReport(const core::Trace& trace, const QString& title, QIODevice* device, QString* error)
{
    const QString name = title.isEmpty() ? Report::tr("Self-attention") : title;
    QPdfWriter writer(device);
    writer.setResolution(96);
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(16, 16, 16, 14),
                                     QPageLayout::Millimeter));
    writer.setTitle(name);
    writer.setCreator(QStringLiteral("Attention Explorer"));
    ReportPainter painter(writer, trace, name);
    if (!painter.paint())
        return fail(error, Report::tr("The report could not be painted"));
    return true;
}

bool writeReport(const core::Trace& trace, const QString& title, const QString& path, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(error, Report::tr("Cannot write \"%1\": %2").arg(path, file.errorString()));
    QString why;
    if (!writeReport(trace, title, &file, &why)) {
        file.cancelWriting();
        return fail(error, Report::tr("Cannot write \"%1\": %2").arg(path, why));
    }
    if (file.error() != QFileDevice::NoError || !file.commit())
        return fail(error, Report::tr("Cannot write \"%1\": %2").arg(path, file.errorString()));
    return true;
}

}  // namespace exports
