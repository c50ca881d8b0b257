#include "ropechart.h"

#include "displaynumber.h"
#include "figurefont.h"
#include "stepwording.h"

#include "core/attention/rotary.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <utility>

namespace render {

namespace {

/** The chart's words (translation context "RopeChart"). */
class RopeChart {
    Q_DECLARE_TR_FUNCTIONS(RopeChart)
};

}  // namespace

RopeChartData ropeChartData(const core::Trace& trace, int head, int query)
{
    RopeChartData data;
    if (head < 0 || head >= trace.headCount() || query < 0 || query >= trace.n())
        return data;
    const core::HeadTrace& ht = trace.heads[std::size_t(head)];
    if (ht.queriesUnrotated.rows() != trace.n() || ht.keysUnrotated.rows() != trace.n())
        return data;
    int key = query;  // the strongest key; the query itself on a tie or an empty row
    for (int j = 0; j < trace.n(); ++j)
        if (ht.weights(query, j) > ht.weights(query, key))
            key = j;
    const int distances = std::min(1024, std::max(64, trace.n()));
    data.scores = core::scoreByDistance(*trace.model, ht.queriesUnrotated.row(query), ht.keysUnrotated.row(key),
                                        distances);
    data.query = query;
    data.key = key;
    const auto token = [&](int i) { return QString::fromStdString(trace.model->tokens[std::size_t(i)]); };
    data.caption = RopeChart::tr("q of %1 · k of key %2 “%3”")
                       .arg(StepWording::queryName(query, token(query)))
                       .arg(key + 1)
                       .arg(token(key));
    return data;
}

RopeChartPainter::RopeChartPainter(RopeChartData data, RopeChartStyle style)
    : m_data(std::move(data)), m_style(std::move(style))
{
}

QSize RopeChartPainter::preferredSize() const
{
    const double em = fontPixels(m_style.font);
    return QSize(int(em * 26), int(em * 13));
}

void RopeChartPainter::paint(QPainter* p, const QRectF& target) const
{
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    const QPalette& pal = m_style.palette;
    p->fillRect(target, pal.color(QPalette::Base));
    const double em = fontPixels(m_style.font);
    const QFont small = fontOfPixels(m_style.font, em * 0.85, false);
    const QFontMetricsF fm(small);
    p->setFont(small);
    const double lineH = fm.height();
    // title over the plot, axis labels under and left of it
    const QRectF titleRect(target.left() + 4, target.top() + 2, target.width() - 8, lineH);
    p->setPen(pal.color(QPalette::Text));
    p->drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(RopeChart::tr("score q′·k′ as the query moves away from the key"), Qt::ElideRight, titleRect.width()));
    if (m_data.scores.empty()) {
        p->restore();
        return;
    }
    const auto [lo, hi] = std::minmax_element(m_data.scores.begin(), m_data.scores.end());
    double minV = std::min(0.0, *lo), maxV = std::max(0.0, *hi);
    if (!(maxV > minV))
        maxV = minV + 1;
    const QString topText = displayNumber(maxV, 'g', 3), bottomText = displayNumber(minV, 'g', 3);
    const double labelW = std::max(fm.horizontalAdvance(topText), fm.horizontalAdvance(bottomText)) + 6;
    const QRectF plot(target.left() + labelW + 4, titleRect.bottom() + lineH * 0.5,
                      target.width() - labelW - 12, target.height() - 3.5 * lineH - 4);
    if (plot.width() < 8 || plot.height() < 8) {
        p->restore();
        return;
    }
    const int n = int(m_data.scores.size());
    const auto xAt = [&](double d) { return plot.left() + plot.width() * d / std::max(1, n - 1); };
    const auto yAt = [&](double v) { return plot.bottom() - plot.height() * (v - minV) / (maxV - minV); };

    const QColor muted = pal.color(QPalette::PlaceholderText);
    p->setPen(QPen(muted, 1));
    p->drawRect(plot);
    p->drawLine(QPointF(plot.left(), yAt(0)), QPointF(plot.right(), yAt(0)));  // score 0
    p->drawText(QRectF(target.left(), plot.top() - lineH / 2, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter, topText);
    p->drawText(QRectF(target.left(), plot.bottom() - lineH / 2, labelW, lineH), Qt::AlignRight | Qt::AlignVCenter,
                bottomText);
    p->drawText(QRectF(plot.left() - 20, plot.bottom() + 2, 40, lineH), Qt::AlignCenter, QStringLiteral("0"));
    p->drawText(QRectF(plot.right() - 40, plot.bottom() + 2, 60, lineH), Qt::AlignCenter, QString::number(n - 1));
    const QRectF axisRect(plot.left() + 20, plot.bottom() + 2, plot.width() - 60, lineH);
    p->drawText(axisRect, Qt::AlignCenter, fm.elidedText(RopeChart::tr("distance (tokens)"), Qt::ElideRight, axisRect.width()));

    // the real distance of the pair
    const int real = m_data.query - m_data.key;
    if (real >= 0 && real < n) {
        QColor mark = pal.color(QPalette::Highlight);
        p->setPen(QPen(mark, 1, Qt::DashLine));
        p->drawLine(QPointF(xAt(real), plot.top()), QPointF(xAt(real), plot.bottom()));
    }
    QPainterPath path;
    for (int d = 0; d < n; ++d) {
        const QPointF pt(xAt(d), yAt(m_data.scores[std::size_t(d)]));
        if (d == 0)
            path.moveTo(pt);
        else
            path.lineTo(pt);
    }
    p->setPen(QPen(pal.color(QPalette::Link), 1.6));
    p->drawPath(path);
    if (real >= 0 && real < n) {
        p->setBrush(pal.color(QPalette::Highlight));
        p->setPen(Qt::NoPen);
        p->drawEllipse(QPointF(xAt(real), yAt(m_data.scores[std::size_t(real)])), 3.5, 3.5);
    }
    p->setPen(pal.color(QPalette::Text));
    const QRectF captionRect(target.left() + 4, target.bottom() - lineH - 2, target.width() - 8, lineH);
    p->drawText(captionRect, Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(m_data.caption, Qt::ElideRight, captionRect.width()));
    p->restore();
}

}  // namespace render
