#include "matrixtablemodel.h"

#include "ui/render/cellstyle.h"
#include "viewstate.h"

#include "ui/render/displaynumber.h"

#include <algorithm>
#include <cmath>

namespace ui {

MatrixTableModel::MatrixTableModel(Document* document, MatrixId id, ViewState* view, QObject* parent)
    : NumericTableModel(view, parent), m_document(document), m_id(id)
{
    Q_ASSERT(document);
    m_rows = tableRows(document->model(), id);  // a weight's bias is its last row
    m_cols = int(matrix().cols());
    if (m_id == MatrixId::Embeddings)
        m_tokens = document->model().tokens;
    m_heads = document->model().heads();
    connect(document, &Document::modelChanged, this, &MatrixTableModel::documentChanged);
}

core::Step MatrixTableModel::step() const
{
    switch (m_id) {
    case MatrixId::Embeddings: return core::Step::X;
    case MatrixId::Query: return core::Step::WeightQuery;
    case MatrixId::Key: return core::Step::WeightKey;
    case MatrixId::Value: return core::Step::WeightValue;
    case MatrixId::Output: return core::Step::WeightOutput;
    }
    return core::Step::X;
}

double MatrixTableModel::largest() const
{
    if (!m_largest) {
        const core::Matrix& m = matrix();
        double largest = m.size() > 0 ? m.cwiseAbs().maxCoeff() : 0.0;
        if (const core::Matrix* bias = biasOf(m_document->model(), m_id); bias && bias->size() > 0)
            largest = std::max(largest, bias->cwiseAbs().maxCoeff());
        m_largest = largest;
    }
    return *m_largest;
}

double MatrixTableModel::maxAbs() const
{
    const double l = largest();
    return l > 0 ? l : 1.0;
}

bool MatrixTableModel::cellChanged(const ModelChange& cell)
{
    const double after = std::abs(cell.after);
    const double before = std::abs(cell.before);
    if (!std::isfinite(after) || !std::isfinite(before))
        return false;
    const QModelIndex at = index(cell.row, cell.col);
    if (!m_largest) {  // no tint shown since the last change: none to move
        emit dataChanged(at, at);
        return true;
    }
    if (!std::isfinite(*m_largest))
        return false;
    // The largest magnitude only needs the whole matrix read again when the cell that held it shrank.
    const double scale = maxAbs();
    if (after >= *m_largest)
        m_largest = after;
    else if (before >= *m_largest)
        m_largest.reset();
    if (maxAbs() != scale)
        emitAllChanged();  // every tint moved with the scale
    else
        emit dataChanged(at, at);
    return true;
}

void MatrixTableModel::documentChanged(const ModelChange& change)
{
    if (!change.reaches(m_id))
        return;  // another matrix's values, or the options: nothing here moved
    const int rows = tableRows(m_document->model(), m_id), cols = int(matrix().cols());
    const bool sameShape = rows == m_rows && cols == m_cols;
    // One cell set (the shape, tokens and every other cell as they were): only what it reaches.
    if (change.kind == ModelChange::Kind::Cell && sameShape && cellChanged(change))
        return;
    // X's rows are labelled with the tokens; relabel only when they changed (a header measures its labels).
    const bool relabel =
        m_id == MatrixId::Embeddings && !change.isValuesOf(m_id) && m_tokens != m_document->model().tokens;
    if (relabel)
        m_tokens = m_document->model().tokens;
    // W_Q, W_K, W_V and W_O's rows are labelled by head: the same shape split into other heads relabels.
    const bool reheaded = m_heads != m_document->model().heads();
    m_heads = m_document->model().heads();
    if (!sameShape) {
        beginResetModel();
        m_rows = rows;
        m_cols = cols;
        m_largest.reset();
        endResetModel();
        return;
    }
    // Same shape: keep the selection. A rectangle set: only its cells, unless the tints' scale moved (tints are shown
    // only when the scale is known).
    const std::optional<double> scale = m_largest ? std::optional(maxAbs()) : std::nullopt;
    m_largest.reset();
    if (relabel && m_rows > 0)
        emit headerDataChanged(Qt::Vertical, 0, m_rows - 1);
    if (reheaded && m_rows > 0 && m_cols > 0) {
        if (m_id == MatrixId::Output)
            emit headerDataChanged(Qt::Vertical, 0, m_rows - 1);
        else
            emit headerDataChanged(Qt::Horizontal, 0, m_cols - 1);
    }
    if (change.kind == ModelChange::Kind::Block && (!scale || maxAbs() == *scale)) {
        if (change.rows > 0 && change.cols > 0)
            emit dataChanged(index(change.row, change.col),
                             index(change.row + change.rows - 1, change.col + change.cols - 1));
        return;
    }
    emitAllChanged();
}

QVariant MatrixTableModel::data(const QModelIndex& index, int role) const
{
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return {};
    const int r = index.row(), c = index.column();
    const bool biasRow = r >= matrix().rows();
    const double v = biasRow ? (*biasOf(m_document->model(), m_id))(0, c) : matrix()(r, c);
    switch (role) {
    case EditedRole: return isEdited(r, c);
    case Qt::DisplayRole: return formatCell(v, precision());
    case Qt::EditRole:
    case ValueRole: return v;
    case Qt::BackgroundRole: return cellTint(v, -maxAbs(), maxAbs(), render::ColormapId::Diverging, baseColor());
    case Qt::ForegroundRole:
        return render::contrastingTextColor(cellTint(v, -maxAbs(), maxAbs(), render::ColormapId::Diverging, baseColor()).rgb());
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        const QString number = render::displayNumber(v, 'g', render::shortestPrecision);
        if (m_id == MatrixId::Embeddings && r < m_document->model().n())
            return tr("%1(%2,%3) = %4 (token “%5”)")
                .arg(matrixTitle(m_id))
                .arg(r + 1)
                .arg(c + 1)
                .arg(number, QString::fromStdString(m_document->model().tokens[std::size_t(r)]));
        const QString edited = isEdited(r, c) ? tr(" (edited; the checkpoint's value is kept)")
                                                                     : QString();
        if (biasRow)
            return tr("%1(%2) = %3").arg(biasTitle(m_id)).arg(c + 1).arg(number) + edited;
        return tr("%1(%2,%3) = %4").arg(matrixTitle(m_id)).arg(r + 1).arg(c + 1).arg(number) + edited;
    }
    case HighlightRole: {
        if (!m_view || biasRow)
            return false;
        const core::Step s = step();
        for (const core::CellRef& source : m_view->highlighted())
            if (covers(source, s, 0, r, c))
                return true;
        return false;
    }
    case HoveredRole: {
        const auto hovered = m_view ? m_view->hoveredCell() : std::nullopt;
        return !biasRow && hovered && covers(*hovered, step(), 0, r, c) && hovered->row >= 0 && hovered->col >= 0;
    }
    default: return {};
    }
}

QVariant MatrixTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    const int count = orientation == Qt::Vertical ? m_rows : m_cols;
    if (section < 0 || section >= count)
        return {};
    if (orientation == Qt::Vertical && m_id == MatrixId::Embeddings && section < m_document->model().n()) {
        const QString token = QString::fromStdString(m_document->model().tokens[std::size_t(section)]);
        return role == Qt::ToolTipRole ? tr("Token %1: “%2”").arg(section + 1).arg(token)
                                       : tr("%1 %2").arg(section + 1).arg(token);
    }
    if (orientation == Qt::Vertical && section >= matrix().rows())
        return role == Qt::ToolTipRole ? tr("%1: the bias, added to every row of the product").arg(biasTitle(m_id))
                                       : biasTitle(m_id);
    // The columns of W_Q, W_K and W_V, and the rows of W_O, are the heads' blocks side by side.
    const bool headed = orientation == Qt::Vertical ? m_id == MatrixId::Output
                                                    : (m_id == MatrixId::Query || m_id == MatrixId::Key
                                                       || m_id == MatrixId::Value);
    if (headed)
        return role == Qt::ToolTipRole ? headedLabelToolTip(section, count, m_heads, orientation == Qt::Vertical)
                                       : headedLabel(section, count, m_heads);
    return QString::number(section + 1);
}

Qt::ItemFlags MatrixTableModel::flags(const QModelIndex& index) const
{
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return Qt::NoItemFlags;
    // A model's X is its layer's attention norm output, not a weight: it is shown, not edited.
    if (m_id == MatrixId::Embeddings && m_document->isModelSession())
        return Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsEditable;
}

bool MatrixTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !hasIndex(index.row(), index.column(), index.parent()))
        return false;
    double v = 0;
    bool ok = false;
    const QMetaType type = value.metaType();
    if (type.id() == QMetaType::Double || type.id() == QMetaType::Int || type.id() == QMetaType::LongLong
        || type.id() == QMetaType::Float) {
        v = value.toDouble();
        ok = std::isfinite(v);
    } else {
        ok = parseCellText(value.toString(), &v);
    }
    if (!ok) {
        emit refused(tr("“%1” is not a finite number; %2(%3,%4) keeps %5.")
                         .arg(value.toString(), matrixTitle(m_id))
                         .arg(index.row() + 1)
                         .arg(index.column() + 1)
                         .arg(formatCell(*cellOf(const_cast<core::AttentionModel&>(m_document->model()), m_id,
                                                 index.row(), index.column()),
                                         precision())));
        return false;
    }
    return m_document->setCell(m_id, index.row(), index.column(), v);
}

bool MatrixTableModel::isEdited(int r, int c) const
{
    const ModelSession* model = m_document->modelSession();
    return model && model->isCellEdited(m_id, r, c);
}

}  // namespace ui
