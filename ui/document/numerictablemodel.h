#pragma once
/** NumericTableModel: what the matrix and step models share: a rows × cols table of numbers with
 *  a precision, tints laid over a base colour, and hover highlights from the ViewState. */

#include <QAbstractTableModel>
#include <QColor>

namespace ui {

class ViewState;

class NumericTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /** Decimals shown (0–6). */
    int precision() const { return m_precision; }
    void setPrecision(int decimals);
    /** The colour tints are laid over (the view's Base colour). */
    QColor baseColor() const { return m_base; }
    void setBaseColor(const QColor& base);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;

protected:
    /** view may be null: then nothing is highlighted. */
    NumericTableModel(ViewState* view, QObject* parent);
    /** Emits dataChanged over the whole table (nothing when it is empty). */
    void emitAllChanged(const QList<int>& roles = {});

    ViewState* m_view;
    int m_rows = 0;
    int m_cols = 0;

private:
    void hoverChanged();

    int m_precision = 2;
    QColor m_base = Qt::white;
    bool m_anyHighlight = false;
};

}  // namespace ui
