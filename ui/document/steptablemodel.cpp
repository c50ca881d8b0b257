#include "steptablemodel.h"

#include "ui/render/cellstyle.h"
#include "ui/render/stepfigure.h"
#include "viewstate.h"

#include "core/tensor/pooling.h"

#include <cmath>

namespace ui {

namespace {

bool tokenRows(core::Step step)
{
    using core::Step;
    return step != Step::WeightQuery && step != Step::WeightKey && step != Step::WeightValue
        && step != Step::WeightOutput;
}

bool tokenColumns(core::Step step)
{
    using core::Step;
    return step == Step::Scores || step == Step::ScaledScores || step == Step::Weights;
}

/** headerData()'s display text of a section, from the trace alone: any thread may ask. */
QString sectionLabel(const core::Trace& trace, core::Step step, bool weighted, int section, Qt::Orientation orientation,
                     int count)
{
    const bool tokens = orientation == Qt::Vertical ? (weighted || tokenRows(step)) : (!weighted && tokenColumns(step));
    if (tokens && section < trace.n())
        return QString::fromStdString(trace.model->tokens[std::size_t(section)]);
    if (orientation == Qt::Horizontal && step == core::Step::Concat && !weighted)  // the heads side by side
        return headedLabel(section, count, trace.headCount());
    return QString::number(section + 1);
}

}  // namespace

StepTableModel::StepTableModel(Document* document, ViewState* view, core::Step step, QObject* parent)
    : NumericTableModel(view, parent), m_document(document), m_step(step)
{
    Q_ASSERT(document && view);
    m_colormap = render::defaultColormap(step);
    connect(document, &Document::traceChanged, this, &StepTableModel::refresh);
    connect(view, &ViewState::headChanged, this, &StepTableModel::refresh);
    refresh();
}

StepTableModel* StepTableModel::weightedValues(Document* document, ViewState* view, QObject* parent)
{
    auto* model = new StepTableModel(document, view, core::Step::Values, parent);
    model->m_weighted = true;
    model->m_colormap = render::ColormapId::Diverging;
    connect(view, &ViewState::selectedQueryChanged, model, &StepTableModel::refresh);
    model->beginResetModel();
    model->m_rows = model->m_cols = 0;
    model->m_owned = core::Matrix();
    model->m_matrix = &model->m_owned;
    model->endResetModel();
    model->refresh();
    return model;
}

void StepTableModel::refresh()
{
    auto trace = m_document->trace();
    const int head = trace && trace->headCount() > 0 ? std::clamp(m_view->head(), 0, trace->headCount() - 1) : 0;
    const int query = trace && trace->n() > 0 ? std::clamp(m_view->selectedQuery(), 0, trace->n() - 1) : 0;

    core::Matrix owned;
    const core::Matrix* matrix = nullptr;
    double factor = 1.0;
    if (trace && trace->headCount() > 0) {
        if (m_weighted) {
            owned = trace->weightedValues(head, query);
        } else {
            matrix = trace->storedMatrix(m_step, head, &factor);
            if (!matrix && core::isPerHead(m_step))
                owned = trace->step(m_step, head);
        }
    }
    const int rows = matrix ? int(matrix->rows()) : int(owned.rows());
    const int cols = matrix ? int(matrix->cols()) : int(owned.cols());

    const bool reshape = rows != m_rows || cols != m_cols;
    // The labels are the trace's tokens or numbers: with the shape unchanged, only new tokens change them.
    const bool relabel = !reshape && (!m_trace || !trace || m_trace->model->tokens != trace->model->tokens);
    if (reshape)
        beginResetModel();
    m_trace = std::move(trace);
    m_head = head;
    m_query = query;
    m_owned = std::move(owned);
    m_matrix = matrix ? matrix : &m_owned;
    m_factor = factor;
    m_rows = rows;
    m_cols = cols;
    m_range.reset();
    if (reshape) {
        endResetModel();
    } else if (m_rows > 0 && m_cols > 0) {
        if (relabel) {  // before the data, so that views measuring both see the new labels
            emit headerDataChanged(Qt::Vertical, 0, m_rows - 1);
            emit headerDataChanged(Qt::Horizontal, 0, m_cols - 1);
        }
        emitAllChanged();
    }
}

core::Matrix StepTableModel::matrix() const
{
    return m_factor == 1.0 ? *m_matrix : core::Matrix(m_factor * *m_matrix);
}

core::Matrix StepTableModel::pooledMatrix(int maxRows, int maxCols) const
{
    return core::pooled(*m_matrix, maxRows, maxCols, m_factor);
}

std::function<core::Matrix(int, int)> StepTableModel::pooledSource() const
{
    if (!m_trace || m_matrix == &m_owned)
        return {};
    // The trace is held so that the matrix it owns outlives this model's next refresh.
    return [trace = m_trace, matrix = m_matrix, factor = m_factor](int maxRows, int maxCols) {
        return core::pooled(*matrix, maxRows, maxCols, factor);
    };
}

std::function<QStringList(Qt::Orientation)> StepTableModel::labelSource() const
{
    if (!m_trace)
        return {};
    return [trace = m_trace, step = m_step, weighted = m_weighted, rows = m_rows, cols = m_cols](Qt::Orientation o) {
        const int count = o == Qt::Vertical ? rows : cols;
        QStringList labels;
        labels.reserve(count);
        for (int i = 0; i < count; ++i)
            labels << sectionLabel(*trace, step, weighted, i, o, count);
        return labels;
    };
}

QStringList StepTableModel::widestTexts(int column) const
{
    if (column < 0 || column >= m_cols)
        return {};
    double lo = 0, hi = 0;
    bool any = false;
    QStringList texts;
    for (int r = 0; r < m_rows; ++r) {
        const double v = valueAt(r, column);
        if (!std::isfinite(v)) {  // "NaN", "∞", "−∞": never in a trace of finite input, but shown if there
            if (const QString t = formatCell(v, precision()); !texts.contains(t))
                texts << t;
            continue;
        }
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
    }
    texts << formatCell(lo, precision()) << formatCell(hi, precision());
    return texts;
}

QColor StepTableModel::tint(double v) const
{
    if (!m_range) {
        // Weights are probabilities; everything else is signed around 0.
        if (m_step == core::Step::Weights && !m_weighted) {
            m_range.emplace(0.0, 1.0);
        } else {
            const double maxAbs = m_matrix->size() > 0 ? std::fabs(m_factor) * m_matrix->cwiseAbs().maxCoeff() : 0.0;
            const double hi = std::isfinite(maxAbs) && maxAbs > 0 ? maxAbs : 1.0;
            m_range.emplace(-hi, hi);
        }
    }
    return cellTint(v, m_range->first, m_range->second, m_colormap, baseColor());
}

core::CellRef StepTableModel::cellRef(const QModelIndex& index) const
{
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return {};
    if (m_weighted)
        return {core::Step::Weights, m_head, m_query, index.row()};
    return {m_step, m_head, index.row(), index.column()};
}

std::vector<core::CellRef> StepTableModel::sources(const QModelIndex& index) const
{
    if (!m_trace || !hasIndex(index.row(), index.column(), index.parent()))
        return {};
    if (m_weighted)  // w(i, j) · v(j, c)
        return {{core::Step::Weights, m_head, m_query, index.row()},
                {core::Step::Values, m_head, index.row(), index.column()}};
    return core::derive(*m_trace, cellRef(index)).sources;
}

QString StepTableModel::tooltip(int row, int col) const
{
    const int decimals = std::max(4, precision());
    if (!m_weighted)
        return derivationTip(core::derive(*m_trace, {m_step, m_head, row, col}).text(decimals));
    const core::HeadTrace& h = m_trace->heads[std::size_t(m_head)];
    auto number = [decimals](double v) { return QString::fromStdString(core::formatNumber(v, decimals)); };
    return minusSigns(tr("w(%1,%2)·v(%2,%3) = %4·%5 = %6")
                          .arg(m_query + 1)
                          .arg(row + 1)
                          .arg(col + 1)
                          .arg(number(h.weights(m_query, row)), number(h.values(row, col)), number(valueAt(row, col))));
}

bool StepTableModel::isMasked(int row, int col) const
{
    if (!m_trace || m_trace->model->options.mask != core::Mask::Causal)
        return false;
    if (m_weighted)  // row j holds w(i, j)·v_j of the selected query i
        return row > m_query;
    return tokenColumns(m_step) && col > row;
}

QVariant StepTableModel::data(const QModelIndex& index, int role) const
{
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return {};
    const int r = index.row(), c = index.column();
    switch (role) {
    case Qt::DisplayRole: return formatCell(valueAt(r, c), precision());
    case ValueRole: return valueAt(r, c);
    case MaskedRole: return isMasked(r, c);
    case Qt::BackgroundRole: return isMasked(r, c) ? maskedCellColor(baseColor()) : tint(valueAt(r, c));
    case Qt::ForegroundRole:
        return isMasked(r, c) ? maskedTextColor(baseColor()) : render::contrastingTextColor(tint(valueAt(r, c)).rgb());
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::AccessibleDescriptionRole: return isMasked(r, c) ? tr("masked") : QVariant();
    case Qt::ToolTipRole: {
        if (!isMasked(r, c))
            return tooltip(r, c);
        const int query = m_weighted ? m_query : r, key = m_weighted ? r : c;
        return maskedCellNote(query + 1, key + 1) + QLatin1Char('\n')
            + (m_step == core::Step::Weights && !m_weighted
                   ? localizedDerivation(core::derive(*m_trace, cellRef(index)).name) + QStringLiteral(" = 0")
                   : tooltip(r, c));
    }
    case HighlightRole: {
        if (m_weighted)
            return false;
        for (const core::CellRef& source : m_view->highlighted())
            if (covers(source, m_step, m_head, r, c))
                return true;
        return false;
    }
    case HoveredRole: {
        const auto hovered = m_view->hoveredCell();
        return hovered && *hovered == cellRef(index) && !m_weighted;
    }
    default: return {};
    }
}

QVariant StepTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    const int count = orientation == Qt::Vertical ? m_rows : m_cols;
    if (!m_trace || section < 0 || section >= count)
        return {};
    const QString label = sectionLabel(*m_trace, m_step, m_weighted, section, orientation, count);
    if (role != Qt::ToolTipRole)
        return label;
    const bool tokens = orientation == Qt::Vertical ? (m_weighted || tokenRows(m_step))
                                                    : (!m_weighted && tokenColumns(m_step));
    if (tokens && section < m_trace->n())
        return tr("Token %1: “%2”").arg(section + 1).arg(label);
    if (orientation == Qt::Horizontal && m_step == core::Step::Concat && !m_weighted)  // the heads side by side
        return headedLabelToolTip(section, count, m_trace->headCount());
    return label;
}

Qt::ItemFlags StepTableModel::flags(const QModelIndex& index) const
{
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled;
}

}  // namespace ui
