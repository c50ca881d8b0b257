#include "ui/views/widgets/numberdelegate.h"

#include <algorithm>

#include "ui/render/cellstyle.h"
#include "ui/render/displaynumber.h"

#include <QApplication>
#include <QLineEdit>
#include <QPainter>

namespace ui {

namespace {

/** An edited weight of a checkpoint: a corner mark, visible on any tint (the number is in bold). */
void paintEditMark(QPainter* painter, const QRect& r)
{
    painter->save();
    const int side = std::max(5, r.height() / 3);
    const QPoint corner[] = {r.topLeft(), r.topLeft() + QPoint(side, 0), r.topLeft() + QPoint(0, side)};
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0xE0, 0x6C, 0x00));
    painter->drawPolygon(corner, 3);
    painter->restore();
}

/** What the editor starts with: every digit of the value, in the UI locale, which parseCellText() reads. */
QString editorText(const QModelIndex& index)
{
    return render::displayNumber(index.data(Qt::EditRole).toDouble(), 'g', render::shortestPrecision);
}

}  // namespace

void NumberDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    // What QStyledItemDelegate would draw for these cells (tint, right-aligned number, the style's text
    // margins), without its text layout per cell: a visible table of 64 tokens repaints a few thousand
    // numbers on every edit. The tint carries the value; a selection shows as a frame instead of hiding it.
    const bool selected = option.state & QStyle::State_Selected;
    if (const QVariant background = index.data(Qt::BackgroundRole); background.canConvert<QBrush>())
        painter->fillRect(option.rect, qvariant_cast<QBrush>(background));
    if (index.data(MaskedRole).toBool()) {
        // Hatched, so that a cell the causal mask hides never reads as a real value of the same colour.
        QColor hatch = index.data(Qt::ForegroundRole).value<QColor>();
        hatch.setAlpha(70);
        painter->fillRect(option.rect, QBrush(hatch, Qt::BDiagPattern));
    }
    const QVariant foreground = index.data(Qt::ForegroundRole);
    const QVariant alignment = index.data(Qt::TextAlignmentRole);
    const QStyle* style = option.widget ? option.widget->style() : QApplication::style();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option.widget) + 1;
    const QRect textRect = option.rect.adjusted(margin, 0, -margin, 0);
    const QString text = index.data(Qt::DisplayRole).toString();
    const Qt::Alignment align = alignment.isValid() ? Qt::Alignment(alignment.toInt()) : option.displayAlignment;
    const bool edited = index.data(EditedRole).toBool();
    painter->save();
    QFont font = option.font;
    font.setBold(edited);
    painter->setFont(font);
    painter->setPen(foreground.canConvert<QColor>() ? qvariant_cast<QColor>(foreground)
                                                     : option.palette.color(QPalette::Text));
    if (edited) {
        // An edited weight, in bold: few, so laid out each time in the wider bold font (the cache holds the regular
        // one), and elided by that font's width, never cut.
        painter->drawText(textRect, align, QFontMetrics(font).elidedText(text, Qt::ElideRight, textRect.width()));
        painter->restore();
        paintEditMark(painter, option.rect);
    } else if (const LaidOut& laid = laidOut(text, option.font, option.fontMetrics); laid.advance <= textRect.width()) {
        const QSizeF size = laid.text.size();
        // Placed as drawText(textRect, align, text) places it.
        QPointF at(textRect.left(), textRect.top() + qRound((textRect.height() - size.height()) / 2));
        if (align & Qt::AlignRight)
            at.setX(textRect.right() + 1 - size.width());
        else if (align & Qt::AlignHCenter)
            at.setX(textRect.left() + (textRect.width() - size.width()) / 2);
        if (align & Qt::AlignTop)
            at.setY(textRect.top());
        else if (align & Qt::AlignBottom)
            at.setY(textRect.bottom() + 1 - size.height());
        painter->drawStaticText(at, laid.text);
        painter->restore();
    } else {
        painter->drawText(textRect, align, option.fontMetrics.elidedText(text, Qt::ElideRight, textRect.width()));
        painter->restore();
    }

    const bool hovered = index.data(HoveredRole).toBool();
    const bool highlighted = index.data(HighlightRole).toBool();
    if (!hovered && !highlighted && !selected)
        return;
    painter->save();
    const QColor accent = option.palette.color(QPalette::Highlight);
    QColor frame = hovered ? option.palette.color(QPalette::Text) : accent;
    if (highlighted && !hovered) {
        QColor wash = accent;
        wash.setAlpha(60);
        painter->fillRect(option.rect, wash);
    }
    painter->setPen(QPen(frame, selected && !hovered && !highlighted ? 1.5 : 2.0));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(QRectF(option.rect).adjusted(1, 1, -1, -1));
    painter->restore();
}

const NumberDelegate::LaidOut& NumberDelegate::laidOut(const QString& text, const QFont& font,
                                                      const QFontMetrics& metrics) const
{
    // Bounded: a long session's tables show a few thousand distinct numbers at once, far below this.
    constexpr qsizetype kept = 16384;
    if (font != m_textFont || m_texts.size() >= kept) {
        m_texts.clear();
        m_textFont = font;
    }
    auto it = m_texts.find(text);
    if (it == m_texts.end()) {
        LaidOut laid{QStaticText(text), metrics.horizontalAdvance(text)};
        laid.text.setTextFormat(Qt::PlainText);
        laid.text.prepare(QTransform(), font);
        it = m_texts.insert(text, laid);
    }
    return *it;
}

QWidget* NumberDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const
{
    auto* edit = new QLineEdit(parent);
    edit->setFrame(false);
    edit->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return edit;
}

void NumberDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const
{
    auto* edit = static_cast<QLineEdit*>(editor);
    edit->setText(editorText(index));
    edit->selectAll();
}

void NumberDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const
{
    const QString text = static_cast<QLineEdit*>(editor)->text();
    if (text == editorText(index))
        return;  // unchanged: no undo step
    model->setData(index, text, Qt::EditRole);
}

}  // namespace ui
