#pragma once
/** StepTableModel: one step of one head of the document's current trace, read-only, as a table. */

#include "document.h"
#include "core/attention/derivation.h"
#include "ui/render/colormap.h"

#include <functional>
#include <optional>
#include <utility>

#include "numerictablemodel.h"

namespace ui {

class StepTableModel : public NumericTableModel {
    Q_OBJECT
public:
    /** The matrix of step for the head ViewState::head() names (head 1 when out of range). */
    StepTableModel(Document* document, ViewState* view, core::Step step, QObject* parent = nullptr);
    /** The weighted values of the selected query instead: row j = weights(i, j) · v_j (n × d_v),
     *  from Trace::weightedValues, following ViewState::selectedQuery(). */
    static StepTableModel* weightedValues(Document* document, ViewState* view, QObject* parent = nullptr);

    core::Step step() const { return m_step; }
    bool isWeightedValues() const { return m_weighted; }
    /** The head shown (ViewState::head() clamped to the trace's heads). */
    int head() const { return m_head; }
    /** The selected query the weighted values belong to. */
    int query() const { return m_query; }
    /** The matrix shown (empty when there is no trace). */
    core::Matrix matrix() const;
    /** The matrix shown, as block means of at most maxRows × maxCols (core::pooled), for figures. */
    core::Matrix pooledMatrix(int maxRows, int maxCols) const;
    /** pooledMatrix() as a function any thread may call, also after this model moved on to another trace
     *  (it holds the trace it reads); empty when the matrix shown is not one the trace stores. */
    std::function<core::Matrix(int maxRows, int maxCols)> pooledSource() const;
    /** The labels of an axis, headerData()'s display texts of its sections, as a function any thread may call
     *  (it holds the trace): a thumbnail makes them on its worker, and only when it shows them. */
    std::function<QStringList(Qt::Orientation)> labelSource() const;
    /** The trace shown; null when there is none. */
    std::shared_ptr<const core::Trace> trace() const { return m_trace; }
    /** The texts among which column's widest is: those of its largest and smallest finite values
     *  (with a fixed number of decimals, width grows only with the integer digits and the sign), so
     *  that a view sizes the column from two strings instead of measuring every cell. */
    QStringList widestTexts(int column) const;

    /** The trace cell behind index (for the weighted values: the weight w(i, j) of its row). */
    core::CellRef cellRef(const QModelIndex& index) const;
    /** The cells, rows and columns the value at index came from (its derivation's sources). */
    std::vector<core::CellRef> sources(const QModelIndex& index) const;

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    void refresh();
    double valueAt(int row, int col) const { return m_factor * (*m_matrix)(row, col); }
    QColor tint(double v) const;
    QString tooltip(int row, int col) const;
    /** The causal mask hides this cell: a key after its query (scores, scaled scores, weights; for the
     *  weighted values, a row after the selected query). */
    bool isMasked(int row, int col) const;

    Document* m_document;
    core::Step m_step;
    bool m_weighted = false;
    std::shared_ptr<const core::Trace> m_trace;
    const core::Matrix* m_matrix = &m_owned;  ///< into m_trace or m_owned
    core::Matrix m_owned;                    ///< weighted values, built on refresh
    double m_factor = 1.0;                   ///< shown = m_factor · stored (the scaled scores)
    int m_head = 0;
    int m_query = 0;
    /** The tint range, measured when a tint is first asked for: a step shown as a thumbnail never is,
     *  and measuring it reads the whole matrix (128 MiB of scores at 4096 tokens) on every edit. */
    mutable std::optional<std::pair<double, double>> m_range;
    render::ColormapId m_colormap = render::ColormapId::Diverging;
};

}  // namespace ui
