#include "blockpainter.h"

#include "colormap.h"
#include "displaynumber.h"
#include "figurefont.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace render {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("BlockView", text);
}

QString number(double v)
{
    return displayNumber(v, 'g', 4, Minus::Typographic);
}

double largestOf(const std::vector<double>& values)
{
    double m = 0;
    for (double v : values)
        m = std::max(m, std::fabs(v));
    return m;
}

const QColor attentionColour(0x1f, 0x77, 0xb4);
const QColor mlpColour(0xe6, 0x7e, 0x22);

/** Room for the neurons, the chart's layers and the logits: one line each. */
constexpr double listLine = 1.45;

} // namespace

BlockPainter::BlockPainter(std::shared_ptr<const core::BlockView> block, BlockStyle style)
    : m_block(std::move(block)), m_style(std::move(style))
{
    for (const core::BlockNeuron& n : m_block->neurons)
        m_neuronTexts << QStringLiteral("#%1").arg(n.index);
}

std::vector<BlockPainter::FlowRow> BlockPainter::flowRows() const
{
    const core::BlockView& b = *m_block;
    const QString norm = QString::fromStdString(b.norm);
    std::vector<FlowRow> rows;
    rows.push_back({RowKind::Stream, tr("x: the stream in"), &b.streamIn});
    rows.push_back({RowKind::Branch, tr("%1(x): the first norm").arg(norm), &b.attentionNormed});
    rows.push_back({RowKind::Branch, tr("attention: z·W_O + b"), &b.attention});
    if (!b.parallelResidual) {
        rows.push_back({RowKind::Sum, tr("x + attention"), &b.afterAttention});
        rows.push_back({RowKind::Branch, tr("%1(x + attention): the second norm").arg(norm), &b.mlpNormed});
    } else {
        rows.push_back({RowKind::Branch, tr("%1(x): the second norm, of the same x").arg(norm), &b.mlpNormed});
    }
    rows.push_back({RowKind::Branch, tr("MLP: %1").arg(QString::fromStdString(b.mlp)), &b.mlpOutput});
    rows.push_back({RowKind::Sum, b.parallelResidual ? tr("x + attention + MLP: the stream out")
                                                     : tr("+ MLP: the stream out"),
                    &b.streamOut});
    return rows;
}

namespace {

/** The height of text wrapped at width in font. */
double wrappedHeight(const QFont& font, const QString& text, double width)
{
    return QFontMetricsF(font).boundingRect(QRectF(0, 0, std::max(1.0, width), 1e6), Qt::TextWordWrap, text).height();
}

} // namespace

QString BlockPainter::titleText() const
{
    return tr("Layer %1 · position %2 “%3”")
        .arg(m_block->layer + 1)
        .arg(m_block->position + 1)
        .arg(QString::fromStdString(m_block->token));
}

QString BlockPainter::subtitleText() const
{
    const core::BlockView& b = *m_block;
    const QString residual = b.parallelResidual ? tr("parallel residual: attention and MLP both read x")
                                                : tr("sequential residual: the MLP reads x + attention");
    return tr("%1 · %2 · %3").arg(QString::fromStdString(b.norm), QString::fromStdString(b.mlp), residual);
}

QStringList BlockPainter::headers() const
{
    return {tr("The MLP's most active neurons (of %1): hover for the arithmetic").arg(m_block->neuronCount),
            tr("What each layer adds to the stream at this position (‖·‖)"),
            tr("After the last layer: the final norm and the next token")};
}

BlockPainter::Layout BlockPainter::layout(const QRectF& target) const
{
    Layout l;
    l.em = fontPixels(m_style.font);
    l.titleFont = fontOfPixels(m_style.font, l.em * 1.1, true);
    l.headerFont = fontOfPixels(m_style.font, l.em, true);
    l.labelFont = fontOfPixels(m_style.font, l.em, false);
    l.smallFont = fontOfPixels(m_style.font, l.em * 0.9, false);
    l.pad = l.em * 0.6;
    l.rowH = l.em * 3.0;  // a label, and under it the strip and its norm
    l.lineH = l.em * listLine;
    l.gutter = l.em * 2.2;
    l.width = target.width();
    const QFontMetricsF fm(l.labelFont), bold(l.headerFont), small(l.smallFont);
    // the lists' first column: neuron numbers, layers, tokens (elided)
    l.labelW = std::max({bold.horizontalAdvance(tr("layer %1").arg(m_block->layers)), fm.horizontalAdvance(QStringLiteral("#00000")),
                         l.em * 6});
    l.numberW = small.horizontalAdvance(QStringLiteral("‖·‖ = −0000.000"));
    l.stripX = l.pad + l.gutter + l.em;
    l.stripW = std::max(l.em * 4, l.width - l.pad - l.numberW - l.pad - l.stripX);
    l.listX = l.pad + l.gutter + l.labelW + l.pad;
    l.listW = std::max(l.em * 4, l.width - l.pad - l.numberW - l.pad - l.listX);
    const double textW = l.width - 2 * l.pad;

    double y = target.top() + l.pad;
    l.titleY = y;
    l.titleH = wrappedHeight(l.titleFont, titleText(), textW);
    l.subtitleH = wrappedHeight(l.smallFont, subtitleText(), textW);
    y += l.titleH + l.subtitleH + l.pad;
    l.flowY = y;
    y += double(flowRows().size()) * l.rowH + l.pad;
    const QStringList h = headers();
    for (int i = 0; i < 3; ++i)
        l.headerH[i] = std::max(l.lineH, wrappedHeight(l.headerFont, h[i], textW));
    l.neuronsY = y;
    y += l.headerH[0] + l.lineH * double(m_block->neurons.size()) + l.pad;
    l.chartY = y;
    y += l.headerH[1] + l.lineH * (1 + double(m_block->layers)) + l.pad;
    l.finalY = y;
    y += l.headerH[2] + l.rowH;
    l.logitsY = y;
    y += l.lineH * double(m_block->logits.size()) + l.pad;
    l.bottom = y;
    return l;
}

double BlockPainter::heightFor(double width) const
{
    const Layout l = layout(QRectF(0, 0, width, 1));
    return l.bottom;
}

double BlockPainter::minimumWidth() const
{
    const Layout l = layout(QRectF(0, 0, 1, 1));
    return std::ceil(std::max(l.stripX, l.listX) + l.em * 4 + l.pad + l.numberW + l.pad);
}

void BlockPainter::paintStrip(QPainter* painter, const QRectF& rect, const core::BlockVector& v) const
{
    const double largest = largestOf(v.values);
    const std::size_t count = v.values.size();
    if (count == 0)
        return;
    // one column of pixels per entry or per run of entries: the entry of largest |x| in it
    const int columns = std::max(1, int(std::floor(rect.width())));
    const double step = rect.width() / double(std::min<std::size_t>(count, std::size_t(columns)));
    const std::size_t cells = std::min<std::size_t>(count, std::size_t(columns));
    for (std::size_t c = 0; c < cells; ++c) {
        const std::size_t from = c * count / cells, to = std::max(from + 1, (c + 1) * count / cells);
        double pick = 0;
        for (std::size_t i = from; i < to; ++i)
            if (std::fabs(v.values[i]) > std::fabs(pick))
                pick = v.values[i];
        const double t = largest > 0 ? 0.5 + 0.5 * pick / largest : 0.5;
        painter->fillRect(QRectF(rect.left() + double(c) * step, rect.top(), step + 0.5, rect.height()),
                          colorAt(ColormapId::Diverging, t));
    }
    painter->setPen(QPen(m_style.palette.color(QPalette::Mid), 1));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(rect);
}

void BlockPainter::paintHeader(QPainter* painter, const Layout& l, double y, int which) const
{
    painter->setFont(l.headerFont);
    painter->setPen(m_style.palette.color(QPalette::Text));
    painter->drawText(QRectF(l.pad, y, l.width - 2 * l.pad, l.headerH[which]),
                      Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, headers()[which]);
}

void BlockPainter::paintBar(QPainter* painter, const QRectF& rect, double value, double scale, const QColor& colour,
                            bool centred) const
{
    if (!(scale > 0) || !std::isfinite(value))
        return;
    const double half = centred ? rect.width() / 2 : rect.width();
    const double x0 = centred ? rect.center().x() : rect.left();
    const double w = std::clamp(value / scale, -1.0, 1.0) * half;
    painter->fillRect(QRectF(w >= 0 ? x0 : x0 + w, rect.top(), std::fabs(w), rect.height()), colour);
    if (centred) {
        painter->setPen(QPen(m_style.palette.color(QPalette::Mid), 1));
        painter->drawLine(QPointF(x0, rect.top() - 1), QPointF(x0, rect.bottom() + 1));
    }
}

void BlockPainter::paint(QPainter* painter, const QRectF& target) const
{
    const core::BlockView& b = *m_block;
    const Layout l = layout(target);
    const QColor text = m_style.palette.color(QPalette::Text);
    const QColor faint = m_style.palette.color(QPalette::PlaceholderText);
    const double textW = l.width - 2 * l.pad;
    painter->save();
    painter->translate(target.left(), 0);
    painter->fillRect(QRectF(0, target.top(), target.width(), l.bottom - target.top()),
                      m_style.palette.color(QPalette::Base));
    painter->setRenderHint(QPainter::Antialiasing, true);

    // the title: where the block is and what it is made of
    painter->setFont(l.titleFont);
    painter->setPen(text);
    painter->drawText(QRectF(l.pad, l.titleY, textW, l.titleH), Qt::AlignLeft | Qt::TextWordWrap, titleText());
    painter->setFont(l.smallFont);
    painter->setPen(faint);
    painter->drawText(QRectF(l.pad, l.titleY + l.titleH, textW, l.subtitleH), Qt::AlignLeft | Qt::TextWordWrap,
                      subtitleText());

    // a vector's row: its label, and under it its strip and its norm
    const auto paintVector = [&](double y, double indent, const QString& label, const core::BlockVector& v) {
        painter->setFont(l.labelFont);
        painter->setPen(text);
        painter->drawText(QRectF(l.pad + l.gutter + indent, y, l.width - l.pad - (l.pad + l.gutter + indent), l.rowH / 2),
                          Qt::AlignLeft | Qt::AlignBottom, QFontMetricsF(l.labelFont).elidedText(
                              label, Qt::ElideRight, l.width - l.pad - (l.pad + l.gutter + indent)));
        const double mid = y + l.rowH * 0.72;
        paintStrip(painter, QRectF(l.stripX, mid - l.em * 0.45, l.stripW, l.em * 0.9), v);
        painter->setFont(l.smallFont);
        painter->setPen(text);
        painter->drawText(QRectF(l.stripX + l.stripW + l.pad, mid - l.lineH / 2, l.numberW, l.lineH),
                          Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("‖·‖ = %1").arg(number(v.norm)));
    };

    // the flow: the stream down the gutter, the branches indented, ⊕ where they are added back
    const std::vector<FlowRow> rows = flowRows();
    const double lineX = l.pad + l.gutter / 2;
    const auto rowMid = [&](std::size_t i) { return l.flowY + double(i) * l.rowH + l.rowH * 0.35; };
    painter->setPen(QPen(faint, 2));
    painter->drawLine(QPointF(lineX, rowMid(0)), QPointF(lineX, rowMid(rows.size() - 1)));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const FlowRow& r = rows[i];
        const double y = l.flowY + double(i) * l.rowH, mid = rowMid(i);
        const double indent = r.kind == RowKind::Branch ? l.em : 0;
        if (r.kind == RowKind::Sum) {
            const double radius = l.em * 0.45;
            painter->setPen(QPen(text, 1.5));
            painter->setBrush(m_style.palette.color(QPalette::Base));
            painter->drawEllipse(QPointF(lineX, mid), radius, radius);
            painter->drawLine(QPointF(lineX - radius * 0.6, mid), QPointF(lineX + radius * 0.6, mid));
            painter->drawLine(QPointF(lineX, mid - radius * 0.6), QPointF(lineX, mid + radius * 0.6));
        } else if (r.kind == RowKind::Branch) {
            painter->setPen(QPen(faint, 1.5));
            painter->drawLine(QPointF(lineX, mid), QPointF(l.pad + l.gutter + indent * 0.7, mid));
        } else {
            painter->setPen(Qt::NoPen);
            painter->setBrush(text);
            painter->drawEllipse(QPointF(lineX, mid), l.em * 0.25, l.em * 0.25);
        }
        paintVector(y, indent, r.label, *r.vector);
    }

    // a list's line: its name in the first column, a bar, a number
    const auto listLineText = [&](double y, const QString& name, bool strong) {
        painter->setFont(strong ? l.headerFont : l.labelFont);
        painter->setPen(text);
        painter->drawText(QRectF(l.pad + l.gutter, y, l.labelW, l.lineH), Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetricsF(painter->font()).elidedText(name, Qt::ElideRight, l.labelW));
    };
    const auto listNumber = [&](double y, const QString& value) {
        painter->setFont(l.smallFont);
        painter->setPen(text);
        painter->drawText(QRectF(l.listX + l.listW + l.pad, y, l.numberW, l.lineH), Qt::AlignLeft | Qt::AlignVCenter,
                          value);
    };

    // the MLP's most active neurons, each a signed bar
    paintHeader(painter, l, l.neuronsY, 0);
    double largest = 0;
    for (const core::BlockNeuron& n : b.neurons)
        largest = std::max(largest, std::fabs(n.activation));
    for (std::size_t k = 0; k < b.neurons.size(); ++k) {
        const double y = l.neuronsY + l.headerH[0] + l.lineH * double(k);
        listLineText(y, m_neuronTexts[qsizetype(k)], false);
        paintBar(painter, QRectF(l.listX, y + l.lineH * 0.2, l.listW, l.lineH * 0.6), b.neurons[k].activation, largest,
                 mlpColour, true);
        listNumber(y, number(b.neurons[k].activation));
    }

    // what each layer's attention and MLP add at this position
    paintHeader(painter, l, l.chartY, 1);
    const double legendY = l.chartY + l.headerH[1];
    const QFontMetricsF small(l.smallFont);
    double x = l.pad + l.gutter;
    painter->setFont(l.smallFont);
    for (const auto& [colour, name] : {std::pair{attentionColour, tr("attention")}, std::pair{mlpColour, tr("MLP")}}) {
        painter->fillRect(QRectF(x, legendY + l.lineH * 0.3, l.em, l.lineH * 0.4), colour);
        x += l.em * 1.3;
        painter->setPen(text);
        painter->drawText(QRectF(x, legendY, small.horizontalAdvance(name) + 2, l.lineH), Qt::AlignLeft | Qt::AlignVCenter,
                          name);
        x += small.horizontalAdvance(name) + l.em;
    }
    double scale = 0;
    for (int k = 0; k < b.layers; ++k)
        scale = std::max({scale, b.attentionAdds(k, b.position), b.mlpAdds(k, b.position)});
    for (int k = 0; k < b.layers; ++k) {
        const double y = legendY + l.lineH * double(k + 1);
        if (k == b.layer)
            painter->fillRect(QRectF(l.pad, y, textW, l.lineH), m_style.palette.color(QPalette::AlternateBase));
        listLineText(y, tr("layer %1").arg(k + 1), k == b.layer);
        paintBar(painter, QRectF(l.listX, y + l.lineH * 0.12, l.listW, l.lineH * 0.34), b.attentionAdds(k, b.position),
                 scale, attentionColour, false);
        paintBar(painter, QRectF(l.listX, y + l.lineH * 0.54, l.listW, l.lineH * 0.34), b.mlpAdds(k, b.position), scale,
                 mlpColour, false);
        listNumber(y, tr("%1 · %2").arg(number(b.attentionAdds(k, b.position)), number(b.mlpAdds(k, b.position))));
    }

    // at the end: the final norm of the last stream and the most probable next tokens
    paintHeader(painter, l, l.finalY, 2);
    paintVector(l.finalY + l.headerH[2], 0, tr("%1(x): the final norm").arg(QString::fromStdString(b.norm)),
                b.finalNormed);
    for (std::size_t k = 0; k < b.logits.size(); ++k) {
        const core::BlockLogit& t = b.logits[k];
        const double y = l.logitsY + l.lineH * double(k);
        listLineText(y, QString::fromStdString(t.token), false);
        // bars to the scale of the most probable, which a small or random model keeps far below 1
        paintBar(painter, QRectF(l.listX, y + l.lineH * 0.2, l.listW, l.lineH * 0.6), t.probability,
                 b.logits.front().probability, m_style.palette.color(QPalette::Highlight), false);
        listNumber(y, tr("%1 %").arg(displayPercentage(t.probability)));
    }
    painter->restore();
}

QString neuronArithmetic(const core::BlockView& block, const core::BlockNeuron& n)
{
    if (block.mlp == "SwiGLU")
        return QCoreApplication::translate("BlockView", "neuron %1: silu(gate) · up = silu(%2) · %3 = %4 · %3 = %5\n"
                                                        "silu(g) = g / (1 + e^−g)")
            .arg(n.index)
            .arg(number(n.gate), number(n.up), number(n.siluGate), number(n.activation));
    return QCoreApplication::translate("BlockView", "neuron %1: GELU(up) = GELU(%2) = %3")
        .arg(n.index)
        .arg(number(n.up), number(n.activation));
}

QString BlockPainter::toolTip(const QPointF& pos, const QRectF& target) const
{
    const core::BlockView& b = *m_block;
    const Layout l = layout(target);
    const double x = pos.x() - target.left(), y = pos.y();
    const auto vectorEntry = [&](const QString& label, const core::BlockVector& v) {
        const double at = (x - l.stripX) / l.stripW;
        QString text = tr("%1: %2 entries, ‖·‖ = %3").arg(label).arg(v.values.size()).arg(number(v.norm));
        if (at >= 0 && at < 1 && !v.values.empty()) {
            const std::size_t i = std::min(v.values.size() - 1, std::size_t(at * double(v.values.size())));
            text += QLatin1Char('\n') + tr("entry %1 = %2").arg(i).arg(number(v.values[i]));
        }
        return text;
    };
    const std::vector<FlowRow> rows = flowRows();
    if (y >= l.flowY && y < l.flowY + double(rows.size()) * l.rowH) {
        const FlowRow& r = rows[std::size_t((y - l.flowY) / l.rowH)];
        return vectorEntry(r.label, *r.vector);
    }
    const double neurons = l.neuronsY + l.headerH[0];
    if (y >= neurons && y < neurons + l.lineH * double(b.neurons.size()))
        return neuronArithmetic(b, b.neurons[std::size_t((y - neurons) / l.lineH)]);
    const double chart = l.chartY + l.headerH[1] + l.lineH;
    if (y >= chart && y < chart + l.lineH * double(b.layers)) {
        const int k = int((y - chart) / l.lineH);
        return tr("layer %1 at position %2: attention adds ‖·‖ = %3, the MLP ‖·‖ = %4")
            .arg(k + 1)
            .arg(b.position + 1)
            .arg(number(b.attentionAdds(k, b.position)), number(b.mlpAdds(k, b.position)));
    }
    const double final = l.finalY + l.headerH[2];
    if (y >= final && y < final + l.rowH)
        return vectorEntry(tr("%1(x): the final norm").arg(QString::fromStdString(b.norm)), b.finalNormed);
    if (y >= l.logitsY && y < l.logitsY + l.lineH * double(b.logits.size())) {
        const core::BlockLogit& t = b.logits[std::size_t((y - l.logitsY) / l.lineH)];
        return tr("“%1” (id %2): logit %3, probability %4 %")
            .arg(QString::fromStdString(t.token))
            .arg(t.id)
            .arg(number(t.logit), displayPercentage(t.probability));
    }
    return {};
}

} // namespace render
