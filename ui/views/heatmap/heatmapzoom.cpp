#include "ui/views/heatmap/heatmapzoom.h"

#include "ui/render/displaynumber.h"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ui {

HeatmapZoomView::HeatmapZoomView(render::HeatmapData data, render::ColormapId colormap, QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setCursor(Qt::OpenHandCursor);
    setMinimumSize(240, 160);
    m_renderer = std::make_unique<render::HeatmapRenderer>(std::move(data), style(colormap));
}

HeatmapZoomView::~HeatmapZoomView() = default;

render::HeatmapStyle HeatmapZoomView::style(render::ColormapId colormap) const
{
    render::HeatmapStyle s;
    s.colormap = colormap;
    s.font = font();
    s.palette = palette();
    s.showTitle = false;
    s.annotate = true;    // the renderer prints values once the cells are large enough to read
    s.fontScale = 1.0;    // labels stay their size however far the cells are zoomed
    s.minMatrixHeight = std::numeric_limits<double>::max();  // a wide, short matrix fills the height
    return s;
}

QSizeF HeatmapZoomView::figureSize(double zoom) const
{
    // Rows stretched taller than the columns are wide at fit (a wide, short matrix) grow only once the
    // columns have caught up: zooming spreads the columns out instead of pushing the rows off the view.
    const QRectF cell = m_renderer->cellRect(0, 0, QRectF(QPointF(0, 0), QSizeF(size())));
    const double vertical = cell.height() > 0 ? std::max(1.0, zoom * cell.width() / cell.height()) : zoom;
    return QSizeF(width() * zoom, height() * vertical);
}

QRectF HeatmapZoomView::figureRect() const
{
    return QRectF(m_offset, figureSize(m_zoom));
}

double HeatmapZoomView::maxZoom() const
{
    const QRectF whole(QPointF(0, 0), QSizeF(size()));
    const QRectF cell = m_renderer->cellRect(0, 0, whole);
    if (cell.width() <= 0)
        return 1.0;
    return std::max(1.0, 96.0 / std::min(cell.width(), cell.height()));
}

void HeatmapZoomView::zoomAt(const QPointF& pos, double factor)
{
    const double zoom = std::clamp(m_zoom * factor, 1.0, maxZoom());
    if (zoom == m_zoom)
        return;
    // The point of the figure under pos stays under pos. The labels keep their size, so the cells do
    // not scale with the figure exactly: the cell under pos is put back under pos, at the same place in it.
    const auto cell = cellAt(pos);
    const QRectF before = cell ? m_renderer->cellRect(cell->first, cell->second, figureRect()) : QRectF();
    const QSizeF from = figureSize(m_zoom), to = figureSize(zoom);
    m_offset = pos - QPointF((pos.x() - m_offset.x()) * to.width() / from.width(),
                             (pos.y() - m_offset.y()) * to.height() / from.height());
    m_zoom = zoom;
    if (cell && before.width() > 0 && before.height() > 0) {
        const QRectF after = m_renderer->cellRect(cell->first, cell->second, figureRect());
        const QPointF inCell((pos.x() - before.left()) / before.width(), (pos.y() - before.top()) / before.height());
        m_offset += pos - (after.topLeft() + QPointF(inCell.x() * after.width(), inCell.y() * after.height()));
    }
    clampOffset();
    update();
    emit zoomChanged(m_zoom);
    report(pos);
}

void HeatmapZoomView::fit()
{
    m_offset = QPointF();
    const bool changed = m_zoom != 1.0;
    m_zoom = 1.0;
    update();
    if (changed)
        emit zoomChanged(m_zoom);
}

void HeatmapZoomView::clampOffset()
{
    const QSizeF figure = figureSize(m_zoom);
    m_offset.setX(std::clamp(m_offset.x(), width() - figure.width(), 0.0));
    m_offset.setY(std::clamp(m_offset.y(), height() - figure.height(), 0.0));
}

std::optional<std::pair<int, int>> HeatmapZoomView::cellAt(const QPointF& pos) const
{
    if (!rect().contains(pos.toPoint()))
        return std::nullopt;
    return m_renderer->cellAt(pos, figureRect());
}

QString HeatmapZoomView::readout(const QPointF& pos) const
{
    const auto cell = cellAt(pos);
    if (!cell)
        return {};
    const auto [row, col] = *cell;
    const render::HeatmapData& data = m_renderer->data();
    const QString value = render::displayNumber(data.values(row, col), 'g', 6);
    // A label that only repeats the number (the columns of X) is left out.
    QString rowLabel = data.rowLabels.value(row), colLabel = data.colLabels.value(col);
    if (rowLabel == QString::number(row + 1))
        rowLabel.clear();
    if (colLabel == QString::number(col + 1))
        colLabel.clear();
    const QString rowText = rowLabel.isEmpty() ? tr("row %1").arg(row + 1) : tr("row %1 (%2)").arg(row + 1).arg(rowLabel);
    const QString colText = colLabel.isEmpty() ? tr("column %1").arg(col + 1) : tr("column %1 (%2)").arg(col + 1).arg(colLabel);
    return tr("%1, %2: %3").arg(rowText, colText, value);
}

void HeatmapZoomView::report(const QPointF& pos)
{
    m_lastPos = pos;
    const QString text = readout(pos);
    if (text == m_lastReadout)
        return;
    m_lastReadout = text;
    setToolTip(text);
    emit hovered(text);
}

void HeatmapZoomView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setClipRect(rect());
    m_renderer->paint(&p, figureRect());
}

void HeatmapZoomView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) {
        event->ignore();
        return;
    }
    zoomAt(event->position(), std::pow(1.25, steps));
    event->accept();
}

void HeatmapZoomView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    m_dragFrom = event->position();
    setCursor(Qt::ClosedHandCursor);
}

void HeatmapZoomView::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragFrom) {
        m_offset += event->position() - *m_dragFrom;
        m_dragFrom = event->position();
        clampOffset();
        update();
    }
    report(event->position());
}

void HeatmapZoomView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    m_dragFrom.reset();
    setCursor(Qt::OpenHandCursor);
}

void HeatmapZoomView::leaveEvent(QEvent* event)
{
    m_lastReadout.clear();
    m_lastPos.reset();
    emit hovered(QString());
    QWidget::leaveEvent(event);
}

void HeatmapZoomView::resizeEvent(QResizeEvent* event)
{
    clampOffset();
    QWidget::resizeEvent(event);
}

void HeatmapZoomView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        m_renderer->setStyle(style(m_renderer->style().colormap));
    if (event->type() == QEvent::LanguageChange && m_lastPos) {
        m_lastReadout.clear();  // the same cell, read out in the new language
        report(*m_lastPos);
    }
    QWidget::changeEvent(event);
}

}  // namespace ui
