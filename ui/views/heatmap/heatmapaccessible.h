#pragma once
/** What a screen reader hears of the heatmap: a table of the shown figure whose cells read
 *  "query i, key j: 0.47", with the query and key tokens as row and column descriptions. */

#include <QAccessibleWidget>

#include <map>
#include <utility>

namespace ui {

class HeatmapCanvas;

/** Installs the factory that answers a HeatmapCanvas with a HeatmapAccessible (once per program). */
void installHeatmapAccessible();

/** The heatmap canvas as an accessible table; n × n cells of the figure shown (rows are queries). */
class HeatmapAccessible : public QAccessibleWidget, public QAccessibleTableInterface {
public:
    explicit HeatmapAccessible(HeatmapCanvas* canvas);
    ~HeatmapAccessible() override;

    void* interface_cast(QAccessible::InterfaceType type) override;
    QString text(QAccessible::Text t) const override;
    int childCount() const override;
    QAccessibleInterface* child(int index) const override;
    int indexOfChild(const QAccessibleInterface* child) const override;
    QAccessibleInterface* childAt(int x, int y) const override;

    /** The name of cell (row, col), e.g. "query 1, key 2: 0.47" (1-based, as the tables number them). */
    QString cellName(int row, int column) const;
    /** The screen rectangle of cell (row, col). */
    QRect cellRect(int row, int column) const;

    QAccessibleInterface* caption() const override { return nullptr; }
    QAccessibleInterface* summary() const override { return nullptr; }
    QAccessibleInterface* cellAt(int row, int column) const override;
    int selectedCellCount() const override { return 0; }
    QList<QAccessibleInterface*> selectedCells() const override { return {}; }
    QString columnDescription(int column) const override;
    QString rowDescription(int row) const override;
    int selectedColumnCount() const override { return 0; }
    int selectedRowCount() const override;
    int columnCount() const override;
    int rowCount() const override;
    QList<int> selectedColumns() const override { return {}; }
    QList<int> selectedRows() const override;
    bool isColumnSelected(int) const override { return false; }
    bool isRowSelected(int row) const override;
    bool selectRow(int) override { return false; }
    bool selectColumn(int) override { return false; }
    bool unselectRow(int) override { return false; }
    bool unselectColumn(int) override { return false; }
    void modelChange(QAccessibleTableModelChangeEvent* event) override;

private:
    HeatmapCanvas* canvas() const;
    /** Forgets the cells handed out: the figure they named is gone. */
    void dropCells();

    mutable std::map<std::pair<int, int>, QAccessible::Id> m_cells;
};

}  // namespace ui
