#pragma once
/** NumberDelegate: paints a tinted number cell with the hover highlights of the numeric models and
 *  edits it as plain text, so that the model's setData() judges what was typed. */

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QStyledItemDelegate>

namespace ui {

class NumberDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    explicit NumberDelegate(QObject* parent = nullptr) : QStyledItemDelegate(parent) {}

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    /** A frameless line edit: any text may be typed; the model refuses what is not a number. */
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;

private:
    /** A number laid out in the font of the last cell painted, with its advance (what decides eliding): a
     *  table that repaints after an edit draws mostly numbers it has drawn before, and laying a text out
     *  costs many times drawing it. */
    struct LaidOut {
        QStaticText text;
        int advance = 0;
    };
    const LaidOut& laidOut(const QString& text, const QFont& font, const QFontMetrics& metrics) const;

    mutable QHash<QString, LaidOut> m_texts;
    mutable QFont m_textFont;
};

}  // namespace ui
