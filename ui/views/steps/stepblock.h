#pragma once
/** StepBlock: one matrix of the steps panel: a caption over a compact tinted table of a
 *  StepTableModel, or, when the matrix is too large to read as numbers, a heatmap thumbnail with
 *  a zoom button. Hovering a number sets the ViewState's hovered cell and its sources. A table wider
 *  than the panel (a head of 64 columns) takes the panel's width and scrolls sideways in its own
 *  view, so that the panel itself, and the formulas in it, never need to. */

#include <QFont>
#include <QHash>
#include <QWidget>

#include <vector>

class QDialog;
class QLabel;
class QTableView;
class QToolButton;

namespace ui {

class HeatmapZoomView;
class StepTableModel;
class ViewState;

class StepBlock : public QWidget {
    Q_OBJECT
public:
    /** Matrices with more rows or columns than this show as a thumbnail. */
    static constexpr int maxTableSide = 64;

    StepBlock(StepTableModel* model, ViewState* view, const QString& caption, QWidget* parent = nullptr);

    StepTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    /** The heatmap thumbnail shown instead of the table for a large matrix. */
    QWidget* thumbnail() const { return m_thumbnail; }
    /** True while the matrix is shown as a heatmap thumbnail instead of numbers. */
    bool isThumbnail() const;
    /** How many figures the thumbnail made so far (tests and profiling). */
    quint64 thumbnailFiguresMade() const;
    void setCaption(const QString& caption);
    /** Opens the matrix in a window of its own to zoom into (the Zoom… button); returns its view. */
    HeatmapZoomView* zoom();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void retranslate();

private:
    /** The zoom's title: the caption as plain text. */
    QString zoomTitle() const;
    void retitleZoom(QDialog* dialog) const;
    void refresh();
    void fitTable();
    /** The table's height: its rows, and its scroll bar's when the block is narrower than the table's columns. */
    void fitTableHeight();

    StepTableModel* m_model;
    ViewState* m_view;
    QLabel* m_caption;
    QTableView* m_table;
    QWidget* m_thumbnail;
    QToolButton* m_zoom;
    /** Each column's header size hint, measured after a reset or a relabel; empty when stale. */
    std::vector<int> m_headerHints;
    int m_rowHeaderWidth = 0;
    int m_columnHeaderHeight = 0;
    /** The table with every column shown, as fitTable() measured it; empty before. */
    QSize m_fullTable;
    /** The width of each number fitTable() measured, in the table's font (m_textFont): an edit or a new text
     *  brings mostly numbers measured before, and laying a text out is what measuring costs. */
    QHash<QString, int> m_textWidths;
    QFont m_textFont;
};

}  // namespace ui
