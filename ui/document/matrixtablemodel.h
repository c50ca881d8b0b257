#pragma once
/** MatrixTableModel: one editable matrix of the document (X, W_Q, W_K, W_V or W_O) as a table. */

#include "document.h"

#include "numerictablemodel.h"

#include <optional>

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
    /** The largest magnitude in the matrix and its bias, measured when first asked for after a change that may have
     *  moved it: a table in a hidden tab never asks, and measuring reads the whole matrix (four of 768 × 768 for each
     *  layer a model session shows). */
    double largest() const;
    /** The tint's scale: largest(), 1 when that is 0. */
    double maxAbs() const;
    /** Takes one cell's change; false when it needs the whole matrix looked at again. */
    bool cellChanged(const ModelChange& cell);
    /** True when cell (r, c) of a model session's shown layer differs from the checkpoint. */
    bool isEdited(int r, int c) const;
    const core::Matrix& matrix() const { return m_document->matrix(m_id); }

    Document* m_document;
    MatrixId m_id;
    /** largest(), while it is known; empty after a change until it is asked for (no tint shown meanwhile). */
    mutable std::optional<double> m_largest;
    /** The tokens the row labels of X were last announced with. */
    std::vector<std::string> m_tokens;
    int m_heads = 1;  ///< the heads the labels of W_Q, W_K, W_V and W_O were last announced with
};

}  // namespace ui
