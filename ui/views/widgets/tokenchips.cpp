#include "ui/views/widgets/tokenchips.h"

#include <QHash>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPaintEvent>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>

namespace ui {

namespace {

constexpr int maxChipTextWidthEm = 12;

QFont indexFont(const QFont& base)
{
    QFont f(base);
    f.setPointSizeF(base.pointSizeF() > 0 ? base.pointSizeF() * 0.78 : 8.0);
    return f;
}

QColor blend(const QColor& a, const QColor& b, double f)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f), float(a.greenF() + (b.greenF() - a.greenF()) * f),
                            float(a.blueF() + (b.blueF() - a.blueF()) * f));
}

}  // namespace

TokenChips::TokenChips(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("tokenChips"));
    setMouseTracking(true);
    // The scroll area around the chips gives them their height for its width (and scrolls to the last chip) only
    // when the size policy says so: hasHeightForWidth() alone left it at one row's minimum, the rest cut off.
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    setAccessibleName(tr("Tokens"));
}

void TokenChips::setTokens(const QStringList& tokens)
{
    if (tokens == m_tokens)
        return;
    m_tokens = tokens;
    m_hovered = -1;
    measure();
    relayout();
}

void TokenChips::setSelected(int index)
{
    if (index == m_selected)
        return;
    m_selected = index;
    update();
}

QRect TokenChips::chipRect(int index) const
{
    return index >= 0 && index < m_rects.size() ? m_rects[index] : QRect();
}

TokenChips::Metrics TokenChips::metrics() const
{
    const int em = fontMetrics().height();
    return {em / 2, em / 5, em / 3, em + 2 * (em / 5), em / 4, 2};
}

void TokenChips::measure()
{
    // A pasted paragraph brings thousands of chips, mostly the same few words: each distinct text is
    // shaped once here, not on every layout pass of every width the layouts above try.
    const Metrics m = metrics();
    const QFontMetrics fm(font());
    const QFontMetrics im(indexFont(font()));
    const int maxTextWidth = maxChipTextWidthEm * fm.averageCharWidth();
    QHash<QString, std::pair<QString, int>> seen;
    m_display.clear();
    m_indexWidths.clear();
    m_widths.clear();
    for (int i = 0; i < m_tokens.size(); ++i) {
        auto hit = seen.find(m_tokens[i]);
        if (hit == seen.end()) {
            QString s = m_tokens[i];
            for (QChar& c : s)
                if (c.category() == QChar::Other_Control || c == QLatin1Char('\n') || c == QLatin1Char('\t'))
                    c = QLatin1Char(' ');
            int w = fm.horizontalAdvance(s);
            if (w > maxTextWidth) {
                s = fm.elidedText(s, Qt::ElideRight, maxTextWidth);
                w = fm.horizontalAdvance(s);
            }
            hit = seen.insert(m_tokens[i], {s, w});
        }
        const int indexW = im.horizontalAdvance(QString::number(i + 1));
        m_display << hit->first;
        m_indexWidths << indexW;
        m_widths << m.padX + indexW + m.indexGap + hit->second + m.padX;
    }
}

QList<QRect> TokenChips::layoutFor(int width) const
{
    const Metrics m = metrics();
    QList<QRect> rects;
    rects.reserve(m_widths.size());
    int x = m.margin, y = m.margin;
    for (int w : m_widths) {
        if (x > m.margin && x + w > width - m.margin) {
            x = m.margin;
            y += m.height + m.gap;
        }
        rects << QRect(x, y, w, m.height);
        x += w + m.gap;
    }
    return rects;
}

void TokenChips::relayout()
{
    m_rects = layoutFor(width());
    updateGeometry();
    update();
}

int TokenChips::heightForWidth(int width) const
{
    const QList<QRect> rects = layoutFor(width);
    const Metrics m = metrics();
    return rects.isEmpty() ? m.height + 2 * m.margin : rects.last().bottom() + 1 + m.margin;
}

QSize TokenChips::sizeHint() const
{
    return QSize(240, heightForWidth(std::max(width(), 240)));
}

QSize TokenChips::minimumSizeHint() const
{
    const Metrics m = metrics();
    return QSize(60, m.height + 2 * m.margin);
}

int TokenChips::chipAt(const QPoint& pos) const
{
    for (int i = 0; i < m_rects.size(); ++i)
        if (m_rects[i].contains(pos))
            return i;
    return -1;
}

bool TokenChips::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int i = chipAt(help->pos());
        if (i >= 0) {
            const QString tip = i < m_ids.size()
                ? tr("Token %1: “%2”, id %3 — click to follow it as the query").arg(i + 1).arg(m_tokens[i]).arg(m_ids[i])
                : tr("Token %1: “%2” — click to follow it as the query").arg(i + 1).arg(m_tokens[i]);
            QToolTip::showText(help->globalPos(), tip, this, m_rects[i]);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

void TokenChips::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const Metrics m = metrics();
    const QFont small = indexFont(font());
    const QPalette& pal = palette();
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    const QColor chip = blend(base, text, 0.08);
    const QColor border = blend(base, text, 0.22);
    const QColor hover = blend(base, pal.color(QPalette::Highlight), 0.25);
    const double radius = m.height / 2.0;
    for (int i = 0; i < m_rects.size(); ++i) {
        if (!event->rect().intersects(m_rects[i]))
            continue;  // thousands of chips: only those in view are drawn
        const QRectF r = QRectF(m_rects[i]).adjusted(0.5, 0.5, -0.5, -0.5);
        const bool selected = i == m_selected;
        p.setPen(QPen(selected ? pal.color(QPalette::Highlight) : border, 1.0));
        p.setBrush(selected ? pal.color(QPalette::Highlight) : i == m_hovered ? hover : chip);
        p.drawRoundedRect(r, radius, radius);
        const QColor fg = selected ? pal.color(QPalette::HighlightedText) : text;
        QColor dim = fg;
        dim.setAlphaF(0.6f);
        const int indexW = m_indexWidths.value(i);
        p.setFont(small);
        p.setPen(dim);
        p.drawText(QRect(m_rects[i].left() + m.padX, m_rects[i].top(), indexW, m.height), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::number(i + 1));
        p.setFont(font());
        p.setPen(fg);
        p.drawText(m_rects[i].adjusted(m.padX + indexW + m.indexGap, 0, -m.padX + 1, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   m_display.value(i));
    }
}

void TokenChips::mousePressEvent(QMouseEvent* event)
{
    const int i = chipAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && i >= 0) {
        emit chipClicked(i);
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void TokenChips::mouseMoveEvent(QMouseEvent* event)
{
    const int i = chipAt(event->position().toPoint());
    if (i != m_hovered) {
        m_hovered = i;
        setCursor(i >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void TokenChips::leaveEvent(QEvent* event)
{
    if (m_hovered >= 0) {
        m_hovered = -1;
        update();
    }
    QWidget::leaveEvent(event);
}

void TokenChips::resizeEvent(QResizeEvent* event)
{
    m_rects = layoutFor(width());
    QWidget::resizeEvent(event);
}

void TokenChips::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        measure();
        relayout();
    }
    QWidget::changeEvent(event);
}

}  // namespace ui
