#include "ui/views/heatmap/heatmapaccessible.h"

#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/render/displaynumber.h"

#include <QCoreApplication>

namespace ui {

namespace {

/** One cell of the heatmap table; its name is read from the figure shown when asked. */
class HeatmapCellAccessible : public QAccessibleInterface, public QAccessibleTableCellInterface {
public:
    HeatmapCellAccessible(HeatmapAccessible* table, int row, int column) : m_table(table), m_row(row), m_column(column)
    {
    }

    bool isValid() const override
    {
        return m_table->isValid() && m_row < m_table->rowCount() && m_column < m_table->columnCount();
    }
    QObject* object() const override { return nullptr; }
    QWindow* window() const override { return m_table->window(); }
    QAccessibleInterface* focusChild() const override { return nullptr; }
    QAccessibleInterface* childAt(int, int) const override { return nullptr; }
    QAccessibleInterface* parent() const override { return m_table; }
    QAccessibleInterface* child(int) const override { return nullptr; }
    int childCount() const override { return 0; }
    int indexOfChild(const QAccessibleInterface*) const override { return -1; }
    QString text(QAccessible::Text t) const override
    {
        if (!isValid())
            return {};
        if (t == QAccessible::Name)
            return m_table->cellName(m_row, m_column);
        if (t == QAccessible::Description)
            return m_table->rowDescription(m_row) + QStringLiteral(" → ") + m_table->columnDescription(m_column);
        return {};
    }
    void setText(QAccessible::Text, const QString&) override {}
    QRect rect() const override { return isValid() ? m_table->cellRect(m_row, m_column) : QRect(); }
    QAccessible::Role role() const override { return QAccessible::Cell; }
    QAccessible::State state() const override
    {
        QAccessible::State s;
        s.readOnly = true;
        s.selectable = true;
        s.selected = isSelected();
        s.invisible = !isValid();
        return s;
    }
    void* interface_cast(QAccessible::InterfaceType type) override
    {
        return type == QAccessible::TableCellInterface ? static_cast<QAccessibleTableCellInterface*>(this) : nullptr;
    }

    bool isSelected() const override { return m_table->isRowSelected(m_row); }
    QList<QAccessibleInterface*> columnHeaderCells() const override { return {}; }
    QList<QAccessibleInterface*> rowHeaderCells() const override { return {}; }
    int columnIndex() const override { return m_column; }
    int rowIndex() const override { return m_row; }
    int columnExtent() const override { return 1; }
    int rowExtent() const override { return 1; }
    QAccessibleInterface* table() const override { return m_table; }

private:
    HeatmapAccessible* m_table;
    int m_row;
    int m_column;
};

QAccessibleInterface* heatmapFactory(const QString&, QObject* object)
{
    auto* canvas = qobject_cast<HeatmapCanvas*>(object);
    if (!canvas)
        return nullptr;
    // A new figure may have other rows and columns: tell a listening screen reader to read again.
    QObject::connect(canvas, &HeatmapCanvas::figureChanged, canvas, [canvas] {
        if (!QAccessible::isActive())
            return;
        QAccessibleTableModelChangeEvent event(canvas, QAccessibleTableModelChangeEvent::ModelReset);
        QAccessible::updateAccessibility(&event);
    });
    return new HeatmapAccessible(canvas);
}

}  // namespace

void installHeatmapAccessible()
{
    static const bool installed = [] {
        QAccessible::installFactory(heatmapFactory);
        return true;
    }();
    Q_UNUSED(installed);
}

HeatmapAccessible::HeatmapAccessible(HeatmapCanvas* canvas) : QAccessibleWidget(canvas, QAccessible::Table) {}

HeatmapAccessible::~HeatmapAccessible()
{
    dropCells();
}

HeatmapCanvas* HeatmapAccessible::canvas() const
{
    return static_cast<HeatmapCanvas*>(widget());
}

void HeatmapAccessible::dropCells()
{
    for (const auto& [cell, id] : m_cells)
        QAccessible::deleteAccessibleInterface(id);
    m_cells.clear();
}

void* HeatmapAccessible::interface_cast(QAccessible::InterfaceType type)
{
    if (type == QAccessible::TableInterface)
        return static_cast<QAccessibleTableInterface*>(this);
    return QAccessibleWidget::interface_cast(type);
}

QString HeatmapAccessible::text(QAccessible::Text t) const
{
    if (t == QAccessible::Description && canvas()->renderer())
        return canvas()->renderer()->data().title;
    if (t == QAccessible::Description && !canvas()->hasFigure())
        return canvas()->emptyText();
    return QAccessibleWidget::text(t);
}

int HeatmapAccessible::rowCount() const
{
    const render::HeatmapRenderer* r = canvas()->renderer();
    return r ? int(r->data().values.rows()) : 0;
}

int HeatmapAccessible::columnCount() const
{
    const render::HeatmapRenderer* r = canvas()->renderer();
    return r ? int(r->data().values.cols()) : 0;
}

int HeatmapAccessible::childCount() const
{
    return rowCount() * columnCount();
}

QAccessibleInterface* HeatmapAccessible::child(int index) const
{
    const int columns = columnCount();
    if (index < 0 || columns == 0 || index >= childCount())
        return nullptr;
    return cellAt(index / columns, index % columns);
}

int HeatmapAccessible::indexOfChild(const QAccessibleInterface* child) const
{
    if (!child || child->parent() != this || child->role() != QAccessible::Cell)
        return -1;
    auto* cell = const_cast<QAccessibleInterface*>(child)->tableCellInterface();
    return cell ? cell->rowIndex() * columnCount() + cell->columnIndex() : -1;
}

QAccessibleInterface* HeatmapAccessible::childAt(int x, int y) const
{
    const QPoint local = canvas()->mapFromGlobal(QPoint(x, y));
    for (int row = 0; row < rowCount(); ++row)
        for (int column = 0; column < columnCount(); ++column)
            if (canvas()->cellRect(row, column).contains(local))
                return cellAt(row, column);
    return nullptr;
}

QAccessibleInterface* HeatmapAccessible::cellAt(int row, int column) const
{
    if (row < 0 || column < 0 || row >= rowCount() || column >= columnCount())
        return nullptr;
    const auto key = std::make_pair(row, column);
    if (auto found = m_cells.find(key); found != m_cells.end())
        return QAccessible::accessibleInterface(found->second);
    auto* cell = new HeatmapCellAccessible(const_cast<HeatmapAccessible*>(this), row, column);
    m_cells.emplace(key, QAccessible::registerAccessibleInterface(cell));
    return cell;
}

QString HeatmapAccessible::cellName(int row, int column) const
{
    const render::HeatmapRenderer* r = canvas()->renderer();
    if (!r || row < 0 || column < 0 || row >= r->data().values.rows() || column >= r->data().values.cols())
        return {};
    const QString value = r->isMasked(row, column)
        ? QCoreApplication::translate("ui::HeatmapAccessible", "masked")
        : render::displayNumber(r->data().values(row, column), 'f', canvas()->exportStyle().precision);
    return QCoreApplication::translate("ui::HeatmapAccessible", "query %1, key %2: %3")
        .arg(row + 1)
        .arg(column + 1)
        .arg(value);
}

QRect HeatmapAccessible::cellRect(int row, int column) const
{
    const QRectF local = canvas()->cellRect(row, column);
    if (local.isEmpty())
        return {};
    return QRect(canvas()->mapToGlobal(local.topLeft().toPoint()), local.size().toSize());
}

QString HeatmapAccessible::rowDescription(int row) const
{
    const render::HeatmapRenderer* r = canvas()->renderer();
    return r && row >= 0 && row < r->data().rowLabels.size() ? r->data().rowLabels[row] : QString();
}

QString HeatmapAccessible::columnDescription(int column) const
{
    const render::HeatmapRenderer* r = canvas()->renderer();
    return r && column >= 0 && column < r->data().colLabels.size() ? r->data().colLabels[column] : QString();
}

int HeatmapAccessible::selectedRowCount() const
{
    return selectedRows().size();
}

QList<int> HeatmapAccessible::selectedRows() const
{
    const int row = canvas()->exportStyle().selectedRow;
    return row >= 0 && row < rowCount() ? QList<int>{row} : QList<int>{};
}

bool HeatmapAccessible::isRowSelected(int row) const
{
    return row >= 0 && selectedRows().contains(row);
}

void HeatmapAccessible::modelChange(QAccessibleTableModelChangeEvent* event)
{
    if (event->modelChangeType() == QAccessibleTableModelChangeEvent::ModelReset)
        dropCells();
}

}  // namespace ui
