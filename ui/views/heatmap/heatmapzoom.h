#pragma once
/** HeatmapZoomView: a large matrix as a heatmap to look into. The wheel zooms around the pointer,
 *  dragging moves, fit() shows it whole; the cell under the pointer is reported with its value.
 *  It only maps pixels to cells: the values are the ones it was given. */

#include "ui/render/heatmaprenderer.h"

#include <QPointF>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

namespace ui {

class HeatmapZoomView : public QWidget {
    Q_OBJECT
public:
    HeatmapZoomView(render::HeatmapData data, render::ColormapId colormap, QWidget* parent = nullptr);
    ~HeatmapZoomView() override;

    /** 1 when the figure fits the view; larger when zoomed in. */
    double zoom() const { return m_zoom; }
    /** The most zoom() can be: a cell is then about 96 pixels wide. */
    double maxZoom() const;
    /** Zooms by factor (clamped to 1 … maxZoom()) keeping the point under pos where it is. */
    void zoomAt(const QPointF& pos, double factor);
    /** Shows the whole figure (zoom 1). */
    void fit();
    /** Where the figure is drawn, in widget coordinates: as wide as the widget times zoom(), and as
     *  tall, except that rows stretched at fit grow only once the cells are as wide as they are tall. */
    QRectF figureRect() const;
    /** The cell (row, column) under pos, or nothing when pos is outside the cells. */
    std::optional<std::pair<int, int>> cellAt(const QPointF& pos) const;
    /** What the pointer at pos reads: "row 2 (Machines), column 300: 0.0312"; empty outside the cells. */
    QString readout(const QPointF& pos) const;

signals:
    /** The pointer moved onto another cell: text as readout(), empty when it left the cells. */
    void hovered(const QString& text);
    /** zoom() changed. */
    void zoomChanged(double zoom);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    render::HeatmapStyle style(render::ColormapId colormap) const;
    QSizeF figureSize(double zoom) const;
    /** Keeps the figure over the view: no empty band where it could still be shown. */
    void clampOffset();
    void report(const QPointF& pos);

    std::unique_ptr<render::HeatmapRenderer> m_renderer;
    double m_zoom = 1.0;
    QPointF m_offset;  ///< the figure's top left corner in widget coordinates
    std::optional<QPointF> m_dragFrom;
    QString m_lastReadout;
    std::optional<QPointF> m_lastPos;  ///< where the pointer was last read out; none once it left
};

}  // namespace ui
