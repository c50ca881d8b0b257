#include "gridfigure.h"

#include "colormap.h"
#include "displaynumber.h"
#include "figurefont.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace render {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("GridFigure", text);
}

/** The largest |value| of a diverging grid (1 when all are 0 or none is finite). */
double spanOf(const FigureGrid& g)
{
    double span = 0;
    for (const auto& row : g.values)
        for (double v : row)
            if (std::isfinite(v))
                span = std::max(span, std::fabs(v));
    return span > 0 ? span : 1;
}

/** Decimals that give the largest value two significant digits, at least two and at most six. */
int decimalsOf(const FigureGrid& g)
{
    return std::clamp(1 - int(std::floor(std::log10(spanOf(g)))), 2, 6);
}

/** The text a cell shows: its own, or its number. */
QString cellText(const FigureGrid& g, std::size_t r, std::size_t c)
{
    if (!g.texts.empty())
        return g.texts[r][c];
    const double v = g.values[r][c];
    return std::isfinite(v) ? displayNumber(v, 'f', decimalsOf(g), Minus::Typographic) : QString();
}

/** What the legend says beside its colour bar: what the colour means and the range it spans. */
QString legendText(const FigureGrid& g)
{
    const double span = spanOf(g);
    const int decimals = decimalsOf(g);
    const QString ends = g.diverging ? QStringLiteral("%1 … %2").arg(displayNumber(-span, 'f', decimals, Minus::Typographic),
                                                                      displayNumber(span, 'f', decimals, Minus::Typographic))
                                     : QStringLiteral("0 … 1");
    return g.legend + QStringLiteral("  (") + ends + QLatin1Char(')');
}

/** The colour bar's width in ems, and the gap after it. */
constexpr double legendBarEms = 8, legendGapEms = 1;

QRgb colourOf(const FigureGrid& g, double v, double span)
{
    if (!std::isfinite(v))
        return qRgb(0xdd, 0xdd, 0xdd);
    return g.diverging ? rgbAt(ColormapId::Diverging, 0.5 + 0.5 * v / span) : rgbAt(ColormapId::Viridis, v);
}

}  // namespace

struct GridFigurePainter::Layout {
    double em = 13, pad = 4;
    QFont titleFont, gridTitleFont, labelFont, cellFont;
    std::vector<double> rowLabelW, cellW;  ///< per grid
    std::vector<double> rowsTop;           ///< per grid: its first row's top below the figure's
    double cellH = 0, width = 0, height = 0;
};

GridFigurePainter::GridFigurePainter(GridFigure figure, GridFigureStyle style)
    : m_figure(std::move(figure)), m_style(std::move(style))
{
}

GridFigurePainter::Layout GridFigurePainter::layout(double scale) const
{
    Layout l;
    l.em = fontPixels(m_style.font) * scale;
    l.pad = 0.35 * l.em;
    l.titleFont = fontOfPixels(m_style.font, 1.25 * l.em, true);
    l.gridTitleFont = fontOfPixels(m_style.font, 1.05 * l.em, true);
    l.labelFont = fontOfPixels(m_style.font, 0.95 * l.em, false);
    l.cellFont = fontOfPixels(m_style.font, 0.9 * l.em, false);
    const QFontMetricsF labels(l.labelFont), cells(l.cellFont), titles(l.titleFont), gridTitles(l.gridTitleFont);
    l.cellH = std::max(labels.height(), cells.height()) + 2 * l.pad;
    l.width = titles.horizontalAdvance(m_figure.title) + 2 * l.em;
    l.height = l.em + titles.height() + l.em;
    for (const FigureGrid& g : m_figure.grids) {
        double rowW = 0, cellW = 2.5 * l.em;
        for (const QString& s : g.rowLabels)
            rowW = std::max(rowW, labels.horizontalAdvance(s));
        for (const QString& s : g.columnLabels)
            cellW = std::max(cellW, labels.horizontalAdvance(s));
        for (std::size_t r = 0; r < g.values.size(); ++r)
            for (std::size_t c = 0; c < g.values[r].size(); ++c)
                cellW = std::max(cellW, cells.horizontalAdvance(cellText(g, r, c)));
        rowW += 2 * l.pad;
        cellW += 2 * l.pad;
        l.rowLabelW.push_back(rowW);
        l.cellW.push_back(cellW);
        const double gridW = rowW + cellW * double(g.columnLabels.size());
        l.width = std::max({l.width, gridW + 2 * l.em, gridTitles.horizontalAdvance(g.title) + 2 * l.em,
                            labels.horizontalAdvance(legendText(g)) + (legendBarEms + legendGapEms + 2) * l.em});
        // title, column labels, rows, legend, gap
        l.rowsTop.push_back(l.height + gridTitles.height() + l.pad + l.cellH);
        l.height += gridTitles.height() + l.pad + l.cellH * double(g.values.size() + 1) + l.pad + l.cellH + l.em;
    }
    return l;
}

QSize GridFigurePainter::preferredSize() const
{
    const Layout l = layout(1.0);
    return QSize(int(std::ceil(l.width)), int(std::ceil(l.height)));
}

GridFigurePainter::Layout GridFigurePainter::fitted(const QRectF& target) const
{
    // Text does not scale exactly with its font: shrink until the layout fits the target.
    double scale = fitScale(target, preferredSize(), 0.05, 4.0);
    Layout l = layout(scale);
    for (int i = 0; i < 8 && (l.width > target.width() || l.height > target.height()); ++i)
        l = layout(scale *= 0.98 * std::min(target.width() / l.width, target.height() / l.height));
    return l;
}

std::optional<GridFigurePainter::Cell> GridFigurePainter::cellAt(const QRectF& target, QPointF point) const
{
    const Layout l = fitted(target);
    const double x = point.x() - target.left() - l.em;
    for (std::size_t gi = 0; gi < m_figure.grids.size(); ++gi) {
        const FigureGrid& g = m_figure.grids[gi];
        const double y = point.y() - target.top() - l.rowsTop[gi];
        const double column = std::floor((x - l.rowLabelW[gi]) / l.cellW[gi]);
        const double row = std::floor(y / l.cellH);
        if (row >= 0 && row < double(g.values.size()) && column >= 0 && column < double(g.values[std::size_t(row)].size()))
            return Cell{int(gi), int(row), int(column)};
    }
    return std::nullopt;
}

QRectF GridFigurePainter::cellRect(const QRectF& target, Cell cell) const
{
    const Layout l = fitted(target);
    const auto gi = std::size_t(cell.grid);
    return QRectF(target.left() + l.em + l.rowLabelW[gi] + l.cellW[gi] * cell.column,
                  target.top() + l.rowsTop[gi] + l.cellH * cell.row, l.cellW[gi], l.cellH);
}

void GridFigurePainter::paint(QPainter* p, const QRectF& target) const
{
    const Layout l = fitted(target);
    p->save();
    const QColor text = m_style.palette.color(QPalette::Text);
    double y = target.top() + l.em;
    const double x0 = target.left() + l.em;
    p->setPen(text);
    p->setFont(l.titleFont);
    const double titleH = QFontMetricsF(l.titleFont).height();
    p->drawText(QRectF(x0, y, target.width() - 2 * l.em, titleH), Qt::AlignLeft | Qt::AlignVCenter, m_figure.title);
    y += titleH + l.em;
    for (std::size_t gi = 0; gi < m_figure.grids.size(); ++gi) {
        const FigureGrid& g = m_figure.grids[gi];
        const double rowW = l.rowLabelW[gi], cellW = l.cellW[gi];
        const double gridTitleH = QFontMetricsF(l.gridTitleFont).height();
        p->setPen(text);
        p->setFont(l.gridTitleFont);
        p->drawText(QRectF(x0, y, target.width() - 2 * l.em, gridTitleH), Qt::AlignLeft | Qt::AlignVCenter, g.title);
        y += gridTitleH + l.pad;
        p->setFont(l.labelFont);
        for (int c = 0; c < g.columnLabels.size(); ++c)
            p->drawText(QRectF(x0 + rowW + cellW * c, y, cellW, l.cellH), Qt::AlignCenter, g.columnLabels[c]);
        y = target.top() + l.rowsTop[gi];
        const double span = spanOf(g);
        for (std::size_t r = 0; r < g.values.size(); ++r) {
            p->setPen(text);
            p->setFont(l.labelFont);
            p->drawText(QRectF(x0, y, rowW - l.pad, l.cellH), Qt::AlignRight | Qt::AlignVCenter,
                        g.rowLabels.value(int(r)));
            p->setFont(l.cellFont);
            for (std::size_t c = 0; c < g.values[r].size(); ++c) {
                const QRectF cell(x0 + rowW + cellW * double(c), y, cellW, l.cellH);
                const QRgb colour = colourOf(g, g.values[r][c], span);
                p->fillRect(cell.adjusted(0.5, 0.5, -0.5, -0.5), QColor(colour));
                p->setPen(contrastingTextColor(colour));
                p->drawText(cell, Qt::AlignCenter, cellText(g, r, c));
            }
            y += l.cellH;
        }
        // the legend: a colour bar from its low end to its high end, and what it says
        y += l.pad;
        const double barW = legendBarEms * l.em;
        for (int i = 0; i < 64; ++i) {
            const double t = (i + 0.5) / 64.0;
            const double v = g.diverging ? (2 * t - 1) * span : t;
            p->fillRect(QRectF(x0 + barW * i / 64.0, y + l.pad, barW / 64.0 + 0.5, l.cellH - 2 * l.pad),
                        QColor(colourOf(g, v, span)));
        }
        p->setPen(text);
        p->setFont(l.labelFont);
        const double legendX = x0 + barW + legendGapEms * l.em;
        p->drawText(QRectF(legendX, y, target.right() - legendX, l.cellH), Qt::AlignLeft | Qt::AlignVCenter,
                    legendText(g));
        y += l.cellH + l.em;
    }
    p->restore();
}

GridFigure lensFigure(const std::vector<std::vector<core::LensCell>>& lens, const QStringList& tokens,
                      const std::function<QString(int)>& tokenText)
{
    FigureGrid g;
    g.title = tr("The token each layer would predict after each position");
    g.columnLabels = tokens;
    g.legend = tr("colour: its probability");
    for (std::size_t l = 0; l < lens.size(); ++l) {
        g.rowLabels << (l == 0 ? tr("embeddings") : tr("after layer %1").arg(l));
        std::vector<double> values;
        std::vector<QString> texts;
        for (const core::LensCell& cell : lens[l]) {
            values.push_back(cell.id < 0 ? std::nan("") : cell.probability);
            texts.push_back(cell.id < 0 ? QString() : tokenText(cell.id));
        }
        g.values.push_back(std::move(values));
        g.texts.push_back(std::move(texts));
    }
    return {tr("Logit lens"), {std::move(g)}};
}

GridFigure attributionFigure(const core::Attribution& a, const QString& target)
{
    FigureGrid g;
    g.title = tr("Each head's and MLP's share of the logit of %1 at position %2 (logit %3)")
                  .arg(target)
                  .arg(a.position + 1)
                  .arg(displayNumber(a.logit, 'f', 3, Minus::Typographic));
    const std::size_t heads = a.heads.empty() ? 0 : a.heads.front().size();
    for (std::size_t h = 0; h < heads; ++h)
        g.columnLabels << tr("head %1").arg(h + 1);
    g.columnLabels << tr("MLP");
    for (std::size_t l = 0; l < a.heads.size(); ++l) {
        g.rowLabels << tr("layer %1").arg(l + 1);
        std::vector<double> row = a.heads[l];
        row.push_back(a.mlps[l]);
        g.values.push_back(std::move(row));
    }
    g.diverging = true;
    g.legend = tr("colour: the share (embeddings %1, biases %2)")
                   .arg(displayNumber(a.embeddings, 'f', 3, Minus::Typographic), displayNumber(a.bias, 'f', 3, Minus::Typographic));
    return {tr("Direct logit attribution"), {std::move(g)}};
}

GridFigure patchingFigure(const core::Patching& patching, const QStringList& tokens)
{
    // The share restored, (m − corrupt) / (clean − corrupt), says something only when the two runs differ.
    const double gap = patching.clean - patching.corrupt;
    const bool shares = std::fabs(gap) > 1e-3 * std::max({1.0, std::fabs(patching.clean), std::fabs(patching.corrupt)});
    const auto restored = [&](const std::vector<std::vector<double>>& grid) {
        std::vector<std::vector<double>> out;
        for (const auto& row : grid) {
            std::vector<double> r;
            for (double m : row)
                r.push_back(shares ? (m - patching.corrupt) / gap : m);
            out.push_back(std::move(r));
        }
        return out;
    };
    const QString clean = displayNumber(patching.clean, 'f', 3, Minus::Typographic);
    const QString corrupt = displayNumber(patching.corrupt, 'f', 3, Minus::Typographic);
    const QString legend = shares
        ? tr("colour: the share of the logit difference restored (clean %1, corrupted %2)").arg(clean, corrupt)
        : tr("colour: the logit difference (clean %1 and corrupted %2 barely differ, so no share is shown)")
              .arg(clean, corrupt);
    FigureGrid residual;
    residual.title = tr("The stream entering each layer, restored at one position");
    residual.columnLabels = tokens;
    residual.values = restored(patching.residual);
    residual.diverging = true;
    residual.legend = legend;
    FigureGrid heads;
    heads.title = tr("Each head's output, restored at every position");
    heads.values = restored(patching.heads);
    heads.diverging = true;
    heads.legend = legend;
    for (std::size_t l = 0; l < patching.residual.size(); ++l) {
        residual.rowLabels << tr("layer %1").arg(l + 1);
        heads.rowLabels << tr("layer %1").arg(l + 1);
    }
    const std::size_t h = patching.heads.empty() ? 0 : patching.heads.front().size();
    for (std::size_t i = 0; i < h; ++i)
        heads.columnLabels << tr("head %1").arg(i + 1);
    return {tr("Activation patching"), {std::move(residual), std::move(heads)}};
}

}  // namespace render
