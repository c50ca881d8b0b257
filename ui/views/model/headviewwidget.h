#pragma once
/** HeadViewWidget: the head view of one layer (render::HeadLinesPainter): one head, or all heads overlaid
 *  in one colour each with a toggle per head; hovering a token shows only its lines. It draws the grid the
 *  overview announces (OverviewWidget::gridChanged), so a model session's layers come with it. */

#include "ui/render/headlinespainter.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;

namespace ui {

class FlowLayout;

class HeadViewWidget : public QWidget {
    Q_OBJECT
public:
    explicit HeadViewWidget(QWidget* parent = nullptr);
    ~HeadViewWidget() override;

    void setGrid(std::shared_ptr<const render::AttentionGrid> grid);
    std::shared_ptr<const render::AttentionGrid> grid() const { return m_grid; }
    /** Shows layer (from 0) and head (from 0; −1: all heads); kept when a new grid has them, else the nearest. */
    void showHead(int layer, int head);
    /** Follows the window's shown layer and head: shows layer, and head when one head is shown alone (all heads
     *  overlaid stay so), until the user picks another here or the window shows another. */
    void followShown(int layer, int head);
    int layer() const { return m_view.layer; }
    /** The head shown alone, or −1 when all (toggled on) are overlaid. */
    int head() const;
    /** The heads drawn now. */
    const std::vector<int>& shownHeads() const { return m_view.heads; }
    /** Turns one head's lines on or off while all heads are overlaid. */
    void setHeadVisible(int head, bool on);
    /** The surface the lines are drawn on. */
    QWidget* canvas() const;
    /** The view as drawn (for export and tests). */
    const render::HeadLinesView& view() const { return m_view; }

private:
    class Canvas;
    void rebuildControls();
    void updateView();
    void retranslate();

    std::shared_ptr<const render::AttentionGrid> m_grid;
    render::HeadLinesView m_view;
    std::vector<bool> m_visible;  ///< per head, while all are overlaid
    int m_wantedLayer = 0, m_wantedHead = -1;  ///< as last asked (showHead), whatever the grid has
    QLabel* m_layerLabel;
    QComboBox* m_layerBox;
    QLabel* m_headLabel;
    QComboBox* m_headBox;
    FlowLayout* m_toggleBar;
    std::vector<QCheckBox*> m_toggles;
    Canvas* m_canvas;
};

}  // namespace ui
