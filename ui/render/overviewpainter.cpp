#include "overviewpainter.h"

#include "displaynumber.h"
#include "figurefont.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace render {

namespace {

QColor muted(const QPalette& palette)
{
    const QColor a = palette.color(QPalette::Text), b = palette.color(QPalette::Base);
    return QColor::fromRgbF(float(0.7 * a.redF() + 0.3 * b.redF()), float(0.7 * a.greenF() + 0.3 * b.greenF()),
                            float(0.7 * a.blueF() + 0.3 * b.blueF()));
}

QString titleText(const AttentionGrid& grid)
{
    const QString what = QCoreApplication::translate("Overview", "Attention of every layer and head");
    return grid.title.isEmpty() ? what : QCoreApplication::translate("Overview", "%1 — %2").arg(grid.title, what);
}

QString captionText(const AttentionGrid& grid, ColourRange range)
{
    const QString caption = QCoreApplication::translate("Overview", "layers: %1 · heads: %2 · tokens: %3 · colours: %4")
                                .arg(grid.layers)
                                .arg(grid.heads)
                                .arg(grid.n())
                                .arg(HeatmapRenderer::colourRangeCaption(range));
    if (std::find(grid.edited.begin(), grid.edited.end(), true) == grid.edited.end())
        return caption;
    return QCoreApplication::translate("Overview", "%1 · dashed: weights edited").arg(caption);
}

}  // namespace

const QColor OverviewPainter::editedColour = QColor(0xE6, 0x61, 0x00);

OverviewPainter::OverviewPainter(std::shared_ptr<const AttentionGrid> grid, OverviewStyle style)
    : m_grid(std::move(grid)), m_style(std::move(style))
{
}

OverviewPainter::Layout OverviewPainter::metrics(double scale) const
{
    Layout l;
    l.em = fontPixels(m_style.font) * scale;
    l.pad = 0.9 * l.em;
    l.gap = 0.6 * l.em;
    l.titleFont = fontOfPixels(m_style.font, 1.2 * l.em, true);
    l.captionFont = fontOfPixels(m_style.font, 0.9 * l.em, false);
    l.headerFont = fontOfPixels(m_style.font, 0.9 * l.em, true);
    l.labelFont = fontOfPixels(m_style.font, 0.85 * l.em, false);
    l.legendFont = fontOfPixels(m_style.font, 0.85 * l.em, false);
    l.ring = 0.35 * l.em;
    l.labelH = QFontMetricsF(l.labelFont).height() + 0.2 * l.em + l.ring;
    // Each cell is coloured by the style's range: weights 0 … 1, or each row's or each cell's own range.
    switch (m_style.colourRange) {
    case ColourRange::Fixed:
        l.ticks = QStringList{displayNumber(0.0, 'g', 4, Minus::Typographic), displayNumber(0.5, 'g', 4, Minus::Typographic),
                              displayNumber(1.0, 'g', 4, Minus::Typographic)};
        break;
    case ColourRange::Row:
        l.ticks = QStringList{QCoreApplication::translate("HeatmapRenderer", "row min"), QString(),
                              QCoreApplication::translate("HeatmapRenderer", "row max")};
        break;
    case ColourRange::Matrix:
    case ColourRange::Log:
        l.ticks = QStringList{QCoreApplication::translate("Overview", "cell min"), QString(),
                              QCoreApplication::translate("Overview", "cell max")};
        break;
    }
    l.barW = 0.9 * l.em;
    l.legendW = 1.5 * l.em + colourBarWidth(l.barW, l.em, l.legendFont, l.ticks);
    const QFontMetricsF header(l.headerFont);
    l.headerH = header.height() + 0.2 * l.em + l.ring;
    l.headerW = header.horizontalAdvance(QCoreApplication::translate("Overview", "layer %1").arg(m_grid->layers)) + l.gap;
    if (m_style.showTitle) {
        l.titleH = QFontMetricsF(l.titleFont).height();
        l.captionH = QFontMetricsF(l.captionFont).height() + 0.6 * l.em;
    }
    return l;
}

QSize OverviewPainter::preferredSize() const
{
    const int widest = std::max({1, m_grid->heads, m_grid->layers});
    const double side = std::clamp(std::floor(960.0 / widest), 56.0, 140.0);
    const Layout l = metrics(1.0);
    double width = 2 * l.pad + l.headerW + m_grid->heads * (side + l.gap) + l.legendW;
    if (m_style.showTitle) {
        // Room to spare: fonts come in whole pixels, so text does not grow exactly with the scale of an export.
        width = std::max(width, 2 * l.pad + l.em + 1.1 * QFontMetricsF(l.titleFont).horizontalAdvance(titleText(*m_grid)));
        width = std::max(width, 2 * l.pad + l.em
                                    + 1.1 * QFontMetricsF(l.captionFont).horizontalAdvance(captionText(*m_grid, m_style.colourRange)));
    }
    const double height = 2 * l.pad + l.titleH + l.captionH + l.headerH + m_grid->layers * (side + l.labelH + l.gap);
    return QSize(std::clamp(int(std::ceil(width)), 200, 8000), std::clamp(int(std::ceil(height)), 120, 8000));
}

OverviewPainter::Layout OverviewPainter::layout(const QRectF& target) const
{
    Layout l = metrics(fitScale(target, preferredSize(), 0.75, 4.0));
    const int heads = std::max(1, m_grid->heads), layers = std::max(1, m_grid->layers);
    const double availW = target.width() - 2 * l.pad - l.headerW - l.legendW;
    const double availH = target.height() - 2 * l.pad - l.titleH - l.captionH - l.headerH;
    l.side = std::max(0.0, std::min(availW / heads - l.gap, availH / layers - l.labelH - l.gap));
    const double gridW = l.headerW + heads * (l.side + l.gap) + l.legendW;
    const double left = target.left() + std::max(l.pad, 0.5 * (target.width() - gridW));
    l.origin = QPointF(left + l.headerW, target.top() + l.pad + l.titleH + l.captionH + l.headerH);
    if (l.side > 0) {
        // Beside the first layers: as tall as the grid, but not taller than a bar is read at a glance.
        const double gridH = layers * (l.side + l.labelH + l.gap) - l.labelH - l.gap;
        const double barH = std::min(gridH, std::max(l.side, 12 * l.em));
        l.bar = QRectF(l.origin.x() + heads * (l.side + l.gap) - l.gap + 1.5 * l.em, l.origin.y(), l.barW, barH);
    }
    return l;
}

QRectF OverviewPainter::cellRect(int layer, int head, const QRectF& target) const
{
    if (layer < 0 || head < 0 || layer >= m_grid->layers || head >= m_grid->heads)
        return {};
    return cellIn(layout(target), layer, head);
}

QRectF OverviewPainter::cellIn(const Layout& l, int layer, int head)
{
    return QRectF(l.origin.x() + head * (l.side + l.gap), l.origin.y() + layer * (l.side + l.labelH + l.gap), l.side, l.side);
}

OverviewPainter::Outline OverviewPainter::outline(int layer, int head, const QRectF& target) const
{
    if (layer < 0 || head < 0 || layer >= m_grid->layers || head >= m_grid->heads)
        return {};
    return outline(layout(target), layer, head);
}

OverviewPainter::Outline OverviewPainter::outline(const Layout& l, int layer, int head)
{
    // From 0.1 em (a whole pixel at least: none of the cell's edge pixels) to 0.3 em outside the cell, inside the
    // ring of 0.35 em that keeps the label and the header clear; the gaps beside and between the cells are wider.
    const double width = 0.2 * l.em, offset = std::max(1.0, 0.1 * l.em) + 0.5 * width;
    return {cellIn(l, layer, head).adjusted(-offset, -offset, offset, offset), width};
}

QRectF OverviewPainter::colourBarRect(const QRectF& target) const
{
    return m_grid->empty() ? QRectF() : layout(target).bar;
}

std::optional<std::pair<int, int>> OverviewPainter::cellAt(const QPointF& pos, const QRectF& target) const
{
    const Layout l = layout(target);
    if (l.side <= 0)
        return std::nullopt;
    const double x = pos.x() - l.origin.x(), y = pos.y() - l.origin.y();
    if (x < 0 || y < 0)
        return std::nullopt;
    const int head = int(x / (l.side + l.gap)), layer = int(y / (l.side + l.labelH + l.gap));
    if (head >= m_grid->heads || layer >= m_grid->layers)
        return std::nullopt;
    // The gaps between cells belong to none.
    if (x - head * (l.side + l.gap) > l.side || y - layer * (l.side + l.labelH + l.gap) > l.side + l.labelH)
        return std::nullopt;
    return std::pair{layer, head};
}

HeatmapData OverviewPainter::cellData(int layer, int head) const
{
    HeatmapData data;
    data.values = m_grid->cell(layer, head);
    data.range = std::pair(0.0, 1.0);
    data.causalMask = m_grid->causal;  // block means of square blocks: a block after the diagonal is all masked
    return data;
}

HeatmapData OverviewPainter::labelledCellData(int layer, int head) const
{
    HeatmapData data = cellData(layer, head);
    if (m_grid->blockSide == 1) {
        data.rowLabels = m_grid->tokens;
        data.colLabels = m_grid->tokens;
    }
    data.rowAxisTitle = QCoreApplication::translate("Steps", "query");
    data.colAxisTitle = QCoreApplication::translate("Steps", "key");
    data.title = QCoreApplication::translate("Overview", "Layer %1 · head %2: %3")
                     .arg(layer + 1)
                     .arg(head + 1)
                     .arg(headCellTitle(*m_grid, layer, head));
    return data;
}

HeatmapStyle OverviewPainter::cellStyle() const
{
    HeatmapStyle style;
    style.colormap = m_style.colormap;
    style.colourRange = m_style.colourRange;
    style.palette = m_style.palette;
    style.font = fontOfPixels(m_style.font, 1, false);  // no labels: the margins shrink to a pixel
    style.fontScale = 1.0;
    style.showTitle = false;
    style.showLegend = false;
    style.cellsAsImage = true;
    return style;
}

Eigen::Index OverviewPainter::paint(QPainter* p, const QRectF& target) const
{
    const Layout l = layout(target);
    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);
    p->setRenderHint(QPainter::TextAntialiasing, true);
    p->fillRect(target, m_style.palette.color(QPalette::Base));
    const QColor fg = m_style.palette.color(QPalette::Text);
    const double width = target.width() - 2 * l.pad;

    if (m_style.showTitle) {
        const QFontMetricsF tfm(l.titleFont), cfm(l.captionFont);
        p->setPen(fg);
        p->setFont(l.titleFont);
        p->drawText(QRectF(target.left() + l.pad, target.top() + l.pad, width, l.titleH), Qt::AlignCenter | Qt::TextSingleLine,
                    tfm.elidedText(titleText(*m_grid), Qt::ElideRight, width));
        p->setPen(muted(m_style.palette));
        p->setFont(l.captionFont);
        p->drawText(QRectF(target.left() + l.pad, target.top() + l.pad + l.titleH, width, l.captionH),
                    Qt::AlignHCenter | Qt::AlignTop | Qt::TextSingleLine,
                    cfm.elidedText(captionText(*m_grid, m_style.colourRange), Qt::ElideRight, width));
    }
    if (l.side <= 0 || m_grid->empty()) {
        p->restore();
        return 0;
    }

    const QFontMetricsF hfm(l.headerFont);
    p->setFont(l.headerFont);
    p->setPen(fg);
    for (int h = 0; h < m_grid->heads; ++h) {
        const QRectF cell = cellIn(l, 0, h);
        // A narrow column is headed by the head's number alone rather than a cut word.
        const double room = cell.width() + l.gap;
        QString text = QCoreApplication::translate("Overview", "head %1").arg(h + 1);
        if (hfm.horizontalAdvance(text) > room)
            text = QString::number(h + 1);
        p->drawText(QRectF(cell.left() - 0.5 * l.gap, cell.top() - l.headerH, room, l.headerH - l.ring),
                    Qt::AlignHCenter | Qt::AlignVCenter | Qt::TextSingleLine, hfm.elidedText(text, Qt::ElideRight, room));
    }
    for (int layer = 0; layer < m_grid->layers; ++layer) {
        const QRectF cell = cellIn(l, layer, 0);
        p->setFont(l.headerFont);
        p->setPen(fg);
        p->drawText(QRectF(cell.left() - l.headerW, cell.top(), l.headerW - l.gap, cell.height()),
                    Qt::AlignRight | Qt::AlignVCenter | Qt::TextSingleLine,
                    QCoreApplication::translate("Overview", "layer %1").arg(layer + 1));
    }

    const Eigen::Index belowLogScale = paintLayers(p, l, {});
    paintColourBar(p, l.bar, m_style.colormap, m_style.palette, l.em, l.legendFont, l.ticks);
    p->restore();
    return belowLogScale;
}

void OverviewPainter::paintLayers(QPainter* p, const QRectF& target, const std::vector<bool>& layers) const
{
    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);
    p->setRenderHint(QPainter::TextAntialiasing, true);
    paintLayers(p, layout(target), layers);
    p->restore();
}

Eigen::Index OverviewPainter::paintLayers(QPainter* p, const Layout& l, const std::vector<bool>& layers) const
{
    if (l.side <= 0)
        return 0;
    Eigen::Index belowLogScale = 0;
    const QFontMetricsF lfm(l.labelFont);
    // One renderer for every cell, each painted at the origin of its own translation: the cells share their
    // shape and size, so the layout is measured once rather than once per cell (384 cells in gpt2-medium).
    HeatmapRenderer renderer(HeatmapData(), cellStyle());
    const QRectF origin(QPointF(0, 0), QSizeF(l.side, l.side));
    std::map<QString, std::optional<QString>> labels;  // each label, when it fits its cell
    for (int layer = 0; layer < m_grid->layers; ++layer) {
        if (!layers.empty() && !layers[std::size_t(layer)])
            continue;
        // Whole pixels cleared first, each cell's with the room of its outline, so that a layer drawn again over an
        // older picture blends its edges with the background exactly as a first drawing does.
        const auto labelBoxOf = [&](const QRectF& cell) {
            return QRectF(cell.left() - 0.4 * l.gap, cell.bottom() + l.ring, cell.width() + 0.8 * l.gap, l.labelH - l.ring);
        };
        p->save();
        p->setRenderHint(QPainter::Antialiasing, false);
        for (int h = 0; h < m_grid->heads; ++h) {
            const Outline frame = outline(l, layer, h);
            const double reach = 0.5 * frame.width + 1;
            p->fillRect(frame.rect.adjusted(-reach, -reach, reach, reach).toAlignedRect(), m_style.palette.color(QPalette::Base));
            p->fillRect(labelBoxOf(cellIn(l, layer, h)).toAlignedRect(), m_style.palette.color(QPalette::Base));
        }
        p->restore();
        for (int h = 0; h < m_grid->heads; ++h) {
            const QRectF cell = cellIn(l, layer, h);
            const QRectF labelBox = labelBoxOf(cell);
            renderer.setData(cellData(layer, h));
            p->save();
            p->translate(cell.topLeft());
            renderer.paint(p, origin);
            belowLogScale += renderer.colourScale().belowLogScale();
            p->restore();
            if (m_grid->isEdited(layer, h)) {
                // Dashed, where the chosen cell's solid outline goes: an edited head is told from the chosen one.
                const Outline frame = outline(l, layer, h);
                QPen pen(editedColour, frame.width, Qt::DashLine);
                pen.setDashPattern({2.0, 1.5});
                p->setPen(pen);
                p->setBrush(Qt::NoBrush);
                p->drawRect(frame.rect);
            }
            // A label too long for its cell is left to the enlarged cell and the tooltip, not cut.
            const QString text = headCellLabel(*m_grid, layer, h);
            auto label = labels.find(text);
            if (label == labels.end())
                label = labels.emplace(text, lfm.horizontalAdvance(text) <= labelBox.width() ? std::optional(text)
                                                                                             : std::nullopt)
                            .first;
            if (label->second) {
                p->setFont(l.labelFont);
                p->setPen(muted(m_style.palette));
                p->drawText(labelBox, Qt::AlignHCenter | Qt::AlignVCenter | Qt::TextSingleLine, *label->second);
            }
        }
    }
    return belowLogScale;
}

}  // namespace render
