#include "numberdelegate.h"

#include "ui/document/cellstyle.h"

#include <QLineEdit>
#include <QLocale>
#include <QPainter>

namespace ui {

void NumberDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QStyleOptionViewItem opt = option;
    // The tint carries the value; a selection shows as a frame instead of hiding it.
    const bool selected = opt.state & QStyle::State_Selected;
    opt.state &= ~QStyle::State_Selected;
    opt.state &= ~QStyle::State_HasFocus;
    QStyledItemDelegate::paint(painter, opt, index);

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
    edit->setText(QString::number(index.data(Qt::EditRole).toDouble(), 'g', QLocale::FloatingPointShortest));
    edit->selectAll();
}

void NumberDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const
{
    const QString text = static_cast<QLineEdit*>(editor)->text();
    if (text == QString::number(index.data(Qt::EditRole).toDouble(), 'g', QLocale::FloatingPointShortest))
        return;  // unchanged: no undo step
    model->setData(index, text, Qt::EditRole);
}

}  // namespace ui
