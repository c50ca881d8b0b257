#include "numerictablemodel.h"

#include "ui/render/cellstyle.h"
#include "viewstate.h"

namespace ui {

NumericTableModel::NumericTableModel(ViewState* view, QObject* parent) : QAbstractTableModel(parent), m_view(view)
{
    if (view)
        connect(view, &ViewState::hoveredChanged, this, &NumericTableModel::hoverChanged);
}

void NumericTableModel::setPrecision(int decimals)
{
    decimals = std::clamp(decimals, 0, 6);
    if (decimals == m_precision)
        return;
    m_precision = decimals;
    emitAllChanged({Qt::DisplayRole, Qt::ToolTipRole});
}

void NumericTableModel::setBaseColor(const QColor& base)
{
    if (base == m_base)
        return;
    m_base = base;
    emitAllChanged({Qt::BackgroundRole, Qt::ForegroundRole});
}

int NumericTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int NumericTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : m_cols;
}

void NumericTableModel::emitAllChanged(const QList<int>& roles)
{
    if (m_rows > 0 && m_cols > 0)
        emit dataChanged(index(0, 0), index(m_rows - 1, m_cols - 1), roles);
}

void NumericTableModel::hoverChanged()
{
    // Only the highlight roles change; a model with nothing lit before or after stays quiet.
    const bool any = !m_view->highlighted().empty() || m_view->hoveredCell().has_value();
    if (any || m_anyHighlight)
        emitAllChanged({HighlightRole, HoveredRole});
    m_anyHighlight = any;
}

}  // namespace ui
