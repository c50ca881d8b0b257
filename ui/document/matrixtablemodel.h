#pragma once
/** MatrixTableModel: one editable matrix of the document (X, W_Q, W_K, W_V or W_O) as a table. */

#include "document.h"

#include "numerictablemodel.h"

namespace ui {

class MatrixTableModel : public NumericTableModel {
    Q_OBJECT
public:
    /** A model over document's matrix id; view (optional) supplies the hovered cell's sources. */
    MatrixTableModel(Document* document, MatrixId id, ViewState* view = nullptr, QObject* parent = nullptr);

    MatrixId matrixId() const { return m_id; }
    /** The step derivations use for this matrix (X for the embeddings, W_Q … for the weights). */
    core::Step step() const;
    Document* document() const { return m_document; }

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /** Accepts a finite number (a double, or text in the C or the system locale) through
     *  Document::setCell; anything else is refused: false, refused() says why, the value stays. */
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

signals:
    /** An edit was refused; message says why (the editor shows it). */
    void refused(const QString& message);

private:
    /** Updates what change reached: one cell, a rectangle, the labels, or everything. */
    void documentChanged(const ModelChange& change);
    void updateRange();
    /** Takes one cell's change; false when it needs the whole matrix looked at again. */
    bool cellChanged(const ModelChange& cell);
    const core::Matrix& matrix() const { return m_document->matrix(m_id); }

    Document* m_document;
    MatrixId m_id;
    double m_maxAbs = 1;       ///< the tint's scale: the largest magnitude, 1 when that is 0
    double m_largest = 0;      ///< the largest magnitude in the matrix
    /** The tokens the row labels of X were last announced with. */
    std::vector<std::string> m_tokens;
    int m_heads = 1;  ///< the heads the labels of W_Q, W_K, W_V and W_O were last announced with
};

}  // namespace ui
