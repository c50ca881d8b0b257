#include "numberdelegate.h"

#include <algorithm>

#include "ui/document/cellstyle.h"
#include "ui/render/displaynumber.h"

#include <QApplication>
#include <QLineEdit>
#include <QPainter>

namespace ui {

namespace {

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
    const QVariant foreground = index.data(Qt::ForegroundRole);
    const QVariant alignment = index.data(Qt::TextAlignmentRole);
    const QStyle* style = option.widget ? option.widget->style() : QApplication::style();
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, option.widget) + 1;
    const QRect textRect = option.rect.adjusted(margin, 0, -margin, 0);
    QString text = index.data(Qt::DisplayRole).toString();
    if (option.fontMetrics.horizontalAdvance(text) > textRect.width())
        text = option.fontMetrics.elidedText(text, Qt::ElideRight, textRect.width());
    painter->save();
    QFont font = option.font;
    font.setBold(index.data(EditedRole).toBool());
    painter->setFont(font);
    painter->setPen(foreground.canConvert<QColor>() ? qvariant_cast<QColor>(foreground)
                                                     : option.palette.color(QPalette::Text));
    painter->drawText(textRect,
                      alignment.isValid() ? Qt::Alignment(alignment.toInt()) : option.displayAlignment,
                      text);
    painter->restore();
    if (index.data(EditedRole).toBool()) {
        // An edited weight of a checkpoint: a corner mark, visible on any tint, and the number in bold.
        painter->save();
        const QRect r = option.rect;
        const int side = std::max(5, r.height() / 3);
        const QPoint corner[] = {r.topLeft(), r.topLeft() + QPoint(side, 0), r.topLeft() + QPoint(0, side)};
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(0xE0, 0x6C, 0x00));
        painter->drawPolygon(corner, 3);
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
