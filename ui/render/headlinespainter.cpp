#include "headlinespainter.h"

#include "figurefont.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace render {

namespace {

QString shownToken(QString s)
{
    for (QChar& c : s)
        if (c.category() == QChar::Other_Control)
            c = QLatin1Char(' ');
    return s;
}


}  // namespace

HeadLinesPainter::HeadLinesPainter(std::shared_ptr<const AttentionGrid> grid, HeadLinesView view, HeadLinesStyle style)
    : m_grid(std::move(grid)), m_view(std::move(view)), m_style(std::move(style))
{
    m_view.layer = std::clamp(m_view.layer, 0, std::max(0, m_grid->layers - 1));
    std::erase_if(m_view.heads, [&](int h) { return h < 0 || h >= m_grid->heads; });
}

QColor HeadLinesPainter::headColour(int head)
{
    // Tableau's ten, the palette matplotlib and BertViz use for categories.
    static const QRgb colours[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                   0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf};
    return QColor::fromRgb(colours[std::size_t(std::max(0, head)) % 10]);
}

bool HeadLinesPainter::canDraw() const
{
    return m_grid->blockSide == 1 && m_grid->layers > 0 && m_grid->heads > 0;
}

QString HeadLinesPainter::title() const
{
    if (m_view.heads.size() == 1)
        return QCoreApplication::translate("HeadView", "Layer %1 · head %2").arg(m_view.layer + 1).arg(m_view.heads.front() + 1);
    QStringList heads;
    for (int h : m_view.heads)
        heads << QString::number(h + 1);
    return heads.isEmpty() ? QCoreApplication::translate("HeadView", "Layer %1 · no head chosen").arg(m_view.layer + 1)
                           : QCoreApplication::translate("HeadView", "Layer %1 · heads %2").arg(m_view.layer + 1).arg(heads.join(QStringLiteral(", ")));
}

HeadLinesPainter::Layout HeadLinesPainter::metrics(double scale) const
{
    Layout l;
    l.em = fontPixels(m_style.font) * scale;
    l.pad = 0.9 * l.em;
    l.titleFont = fontOfPixels(m_style.font, 1.2 * l.em, true);
    l.tokenFont = fontOfPixels(m_style.font, l.em, false);
    l.boldFont = fontOfPixels(m_style.font, l.em, true);
    l.headerFont = fontOfPixels(m_style.font, 0.9 * l.em, false);
    const QFontMetricsF fm(l.tokenFont), bold(l.boldFont);
    l.pitch = 1.35 * fm.height();
    for (const QString& t : m_grid->tokens) {
        l.texts << fm.elidedText(shownToken(t), Qt::ElideRight, 14 * l.em);
        l.textW = std::max(l.textW, bold.horizontalAdvance(l.texts.last()));
    }
    l.textW = std::max(l.textW, QFontMetricsF(l.headerFont).horizontalAdvance(QCoreApplication::translate("HeadView", "queries")));
    l.textW = std::max(l.textW, QFontMetricsF(l.headerFont).horizontalAdvance(QCoreApplication::translate("HeadView", "keys")));
    if (m_style.showTitle)
        l.titleH = QFontMetricsF(l.titleFont).height() + 0.4 * l.em;
    if (m_view.heads.size() > 1)
        l.legendH = legendLineHeight(l);  // one line, until a width says how many
    l.headerH = QFontMetricsF(l.headerFont).height() + 0.3 * l.em;
    return l;
}

double HeadLinesPainter::legendLineHeight(const Layout& l)
{
    return QFontMetricsF(l.tokenFont).height() + 0.4 * l.em;
}

double HeadLinesPainter::legendEntryWidth(const Layout& l, int head) const
{
    const QString name = QCoreApplication::translate("HeadView", "head %1").arg(head + 1);
    return 0.8 * l.em + 0.3 * l.em + QFontMetricsF(l.tokenFont).horizontalAdvance(name);
}

std::vector<std::vector<int>> HeadLinesPainter::legendLines(const Layout& l, double width) const
{
    std::vector<std::vector<int>> lines;
    if (m_view.heads.size() < 2)
        return lines;
    const double space = 1.2 * l.em;
    double used = 0;
    for (int h : m_view.heads) {
        const double w = legendEntryWidth(l, h);
        if (lines.empty() || (!lines.back().empty() && used + space + w > width)) {
            lines.emplace_back();
            used = -space;
        }
        lines.back().push_back(h);
        used += space + w;
    }
    return lines;
}

QSize HeadLinesPainter::preferredSize() const
{
    const Layout l = metrics(1.0);
    const double linesW = std::max(12 * l.em, 0.6 * l.textW * 2);
    double width = 2 * l.pad + 2 * (l.textW + 0.5 * l.em) + linesW;
    if (m_style.showTitle)
        width = std::max(width, 2 * l.pad + 1.1 * QFontMetricsF(l.titleFont).horizontalAdvance(title()));
    // The legend on one line where that is not much wider than the rest; else on as many as it takes.
    double legendW = 0;
    for (int h : m_view.heads)
        legendW += legendEntryWidth(l, h) + 1.2 * l.em;
    if (m_view.heads.size() > 1)
        width = std::max(width, std::min(2 * l.pad + legendW, 1.5 * width));
    const double legendH = double(legendLines(l, width - 2 * l.pad).size()) * legendLineHeight(l);
    const double height = 2 * l.pad + l.titleH + legendH + l.headerH + std::max(1, m_grid->n()) * l.pitch;
    return QSize(std::clamp(int(std::ceil(width)), 240, 4000), std::clamp(int(std::ceil(height)), 160, 8000));
}

HeadLinesPainter::Layout HeadLinesPainter::layout(const QRectF& target) const
{
    Layout l = metrics(fitScale(target, preferredSize(), 0.6, 3.0));
    l.legendH = double(legendLines(l, target.width() - 2 * l.pad).size()) * legendLineHeight(l);
    const int n = std::max(1, m_grid->n());
    // Rows share what height there is, never closer than the text.
    const double rowsH = target.height() - 2 * l.pad - l.titleH - l.legendH - l.headerH;
    l.pitch = std::max(QFontMetricsF(l.tokenFont).height(), std::min(l.pitch * 1.6, rowsH / n));
    const double linesW = std::max(6 * l.em, target.width() - 2 * l.pad - 2 * (l.textW + 0.5 * l.em));
    const double used = 2 * (l.textW + 0.5 * l.em) + linesW;
    const double left = target.left() + std::max(l.pad, 0.5 * (target.width() - used));
    l.leftX = left + l.textW;
    l.rightX = l.leftX + 0.5 * l.em + linesW + 0.5 * l.em;
    l.top = target.top() + l.pad + l.titleH + l.legendH + l.headerH;
    return l;
}

QRectF HeadLinesPainter::tokenRect(int token, bool key, const QRectF& target) const
{
    if (token < 0 || token >= m_grid->n())
        return {};
    const Layout l = layout(target);
    const double y = l.top + token * l.pitch;
    return key ? QRectF(l.rightX, y, l.textW, l.pitch) : QRectF(l.leftX - l.textW, y, l.textW, l.pitch);
}

std::optional<std::pair<int, bool>> HeadLinesPainter::tokenAt(const QPointF& pos, const QRectF& target) const
{
    const Layout l = layout(target);
    if (pos.y() < l.top || m_grid->n() == 0)
        return std::nullopt;
    const int token = int((pos.y() - l.top) / l.pitch);
    if (token >= m_grid->n())
        return std::nullopt;
    if (pos.x() >= l.leftX - l.textW && pos.x() <= l.leftX + 0.5 * l.em)
        return std::pair{token, false};
    if (pos.x() >= l.rightX - 0.5 * l.em && pos.x() <= l.rightX + l.textW)
        return std::pair{token, true};
    return std::nullopt;
}

void HeadLinesPainter::paint(QPainter* p, const QRectF& target) const
{
    const Layout l = layout(target);
    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);
    p->setRenderHint(QPainter::TextAntialiasing, true);
    p->fillRect(target, m_style.palette.color(QPalette::Base));
    const QColor fg = m_style.palette.color(QPalette::Text);
    QColor muted = fg;
    muted.setAlphaF(0.6f);
    const double width = target.width() - 2 * l.pad;

    double y = target.top() + l.pad;
    if (m_style.showTitle) {
        p->setPen(fg);
        p->setFont(l.titleFont);
        p->drawText(QRectF(target.left() + l.pad, y, width, l.titleH), Qt::AlignHCenter | Qt::AlignTop | Qt::TextSingleLine,
                    QFontMetricsF(l.titleFont).elidedText(title(), Qt::ElideRight, width));
        y += l.titleH;
    }
    // One swatch and name per head, each line centred, as many lines as the width takes.
    p->setFont(l.tokenFont);
    const QFontMetricsF fm(l.tokenFont);
    const double swatch = 0.8 * l.em, space = 1.2 * l.em;
    for (const std::vector<int>& line : legendLines(l, width)) {
        double total = -space;
        for (int h : line)
            total += legendEntryWidth(l, h) + space;
        double x = target.left() + std::max(l.pad, 0.5 * (target.width() - total));
        for (int h : line) {
            const QString name = QCoreApplication::translate("HeadView", "head %1").arg(h + 1);
            p->fillRect(QRectF(x, y + 0.5 * (fm.height() - swatch), swatch, swatch), headColour(h));
            x += swatch + 0.3 * l.em;
            p->setPen(fg);
            p->drawText(QRectF(x, y, fm.horizontalAdvance(name) + 1, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, name);
            x += fm.horizontalAdvance(name) + space;
        }
        y += legendLineHeight(l);
    }
    p->setPen(muted);
    p->setFont(l.headerFont);
    p->drawText(QRectF(l.leftX - l.textW, y, l.textW, l.headerH), Qt::AlignRight | Qt::AlignVCenter, QCoreApplication::translate("HeadView", "queries"));
    p->drawText(QRectF(l.rightX, y, l.textW, l.headerH), Qt::AlignLeft | Qt::AlignVCenter, QCoreApplication::translate("HeadView", "keys"));

    if (!canDraw()) {
        p->setPen(fg);
        p->setFont(l.tokenFont);
        p->drawText(target.adjusted(l.pad, l.top - target.top(), -l.pad, -l.pad), Qt::AlignCenter | Qt::TextWordWrap,
                    QCoreApplication::translate("HeadView", "The head view draws up to %1 tokens; this text has %2.").arg(gridCellSide).arg(m_grid->n()));
        p->restore();
        return;
    }

    const int n = m_grid->n();
    const bool hovering = m_view.hoveredToken >= 0 && m_view.hoveredToken < n;
    const double x0 = l.leftX + 0.3 * l.em, x1 = l.rightX - 0.3 * l.em;
    const double lineW = std::max(1.0, 0.16 * l.em);
    for (int h : m_view.heads) {
        const core::Matrix& w = m_grid->cell(m_view.layer, h);
        QColor colour = headColour(h);
        for (int i = 0; i < n; ++i) {
            if (hovering && !m_view.hoveredIsKey && i != m_view.hoveredToken)
                continue;
            const int last = m_grid->causal ? i : n - 1;  // a causal layer has no lines to the future
            for (int j = 0; j <= last; ++j) {
                if (hovering && m_view.hoveredIsKey && j != m_view.hoveredToken)
                    continue;
                const double weight = w(i, j);
                if (!(weight >= minimumWeight))
                    continue;
                colour.setAlphaF(float(std::min(1.0, weight)));
                p->setPen(QPen(colour, lineW, Qt::SolidLine, Qt::RoundCap));
                p->drawLine(QPointF(x0, l.top + (i + 0.5) * l.pitch), QPointF(x1, l.top + (j + 0.5) * l.pitch));
            }
        }
    }

    for (int i = 0; i < n; ++i) {
        for (bool key : {false, true}) {
            const bool hot = hovering && key == m_view.hoveredIsKey && i == m_view.hoveredToken;
            p->setFont(hot ? l.boldFont : l.tokenFont);
            p->setPen(hovering && !hot ? muted : fg);
            const double top = l.top + i * l.pitch;
            if (key)
                p->drawText(QRectF(l.rightX, top, l.textW, l.pitch), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine,
                            l.texts.value(i));
            else
                p->drawText(QRectF(l.leftX - l.textW, top, l.textW, l.pitch),
                            Qt::AlignRight | Qt::AlignVCenter | Qt::TextSingleLine, l.texts.value(i));
        }
    }
    p->restore();
}

}  // namespace render
