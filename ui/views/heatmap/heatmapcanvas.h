#pragma once
/** HeatmapCanvas: the surface the heatmap figure is painted on, with hover, click and tooltip. */

#include "core/attention/derivation.h"
#include "ui/document/latestjob.h"
#include "ui/render/heatmaprenderer.h"

#include <QWidget>

#include <memory>
#include <optional>

namespace ui {

class Document;
class ViewState;

class HeatmapCanvas : public QWidget {
    Q_OBJECT
public:
    HeatmapCanvas(Document* document, ViewState* viewState, QWidget* parent = nullptr);
    ~HeatmapCanvas() override;

    /** The colour map in use; nothing means the step's default. */
    std::optional<render::ColormapId> colormapChoice() const { return m_colormap; }
    /** The colour map the cells are painted with now. */
    render::ColormapId colormap() const;
    void setColormapChoice(std::optional<render::ColormapId> id);
    bool annotate() const { return m_annotate; }
    void setAnnotate(bool on);
    /** Which values the ends of the colour map stand for. */
    render::ColourRange colourRange() const { return m_colourRange; }
    void setColourRange(render::ColourRange range);

    /** Size factor against the renderer's preferred size; 0 means "fit the viewport". */
    double zoom() const { return m_zoom; }
    void setZoom(double zoom);
    /** The scale the figure is shown at now (the fitted one in fit mode). */
    double effectiveZoom() const;

    /** True when there is a figure to show (a trace and no error). */
    bool hasFigure() const { return m_renderer != nullptr || m_prepared.isPending(); }
    /** The figure as shown (data), null when there is none. */
    const render::HeatmapRenderer* renderer() const { return m_renderer.get(); }
    /** True while the figure of a large matrix is being prepared off the GUI thread (the previous
     *  figure stays shown meanwhile). */
    bool isPreparing() const { return m_prepared.isPending(); }
    /** Waits until the figure being prepared is shown; returns at once when none is. */
    void finishPreparing();

    /** Figures with more cells than this are prepared off the GUI thread (about 16 ms of copying,
     *  ranging and colouring on the GUI thread at 1024 × 1024). */
    static constexpr Eigen::Index preparedOffThreadCells = Eigen::Index(1) << 20;
    /** The style for export and the clipboard: as shown, without the mouse highlight. */
    render::HeatmapStyle exportStyle() const;
    /** Where cell (row, col) is painted, in widget coordinates; empty when there is no such cell. */
    QRectF cellRect(int row, int col) const;
    /** The derivation text of the cell under the mouse; empty when the mouse is on no cell. */
    QString hoverText() const { return m_hoverText; }
    /** The message shown instead of a figure; empty when a figure is shown. */
    QString emptyText() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /** Ctrl+wheel: steps of 1/8° × 120 (positive zooms in) around pos (widget coordinates). */
    void zoomRequested(int angleDelta, const QPoint& pos);
    /** The figure's data or style changed in a way that may change its preferred size. */
    void figureChanged();
    /** A figure prepared off the GUI thread could not be made (memory); message says so. */
    void figureFailed(const QString& message);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    /** The job that prepares the figure of the current trace, step and head on a worker. */
    LatestJob<std::shared_ptr<render::HeatmapRenderer>>::Job preparing();
    /** Shows a figure prepared on a worker; null: the worker ran out of memory. */
    void prepared(std::shared_ptr<render::HeatmapRenderer> renderer);
    /** Shows renderer as the new figure, keeping the hovered cell when it is still there. sameLayout: the
     *  figure shown before, with new values in the same layout (HeatmapRenderer::setData()). */
    void showFigure(std::shared_ptr<render::HeatmapRenderer> renderer, bool sameLayout = false);
    /** What updateStyle() repaints: all; only the cells' area when the style is the same (new values in the same
     *  layout); nothing when the style is the same (a highlight that may not have moved). */
    enum class Repaint { Whole, Values, IfChanged };
    /** Gives the renderer the style of the moment and repaints. */
    void updateStyle(Repaint repaint = Repaint::Whole);
    void hoverAt(const QPoint& pos);
    void setHoverCell(std::optional<core::CellRef> cell);
    bool rowsAreTokens() const;
    render::HeatmapStyle baseStyle() const;

    Document* m_document;
    ViewState* m_viewState;
    std::shared_ptr<render::HeatmapRenderer> m_renderer;
    core::Matrix m_spareValues;      ///< storage of a replaced figure's values, for the next worker
    std::optional<render::ColormapId> m_colormap;
    bool m_annotate = true;
    render::ColourRange m_colourRange = render::ColourRange::Fixed;
    double m_zoom = 0.0;
    std::optional<core::CellRef> m_hoverCell;  ///< the cell under the mouse in this canvas
    QString m_hoverText;
    /** Figures of large matrices, prepared off the GUI thread; the newest rebuild wins. */
    LatestJob<std::shared_ptr<render::HeatmapRenderer>> m_prepared;
};

}  // namespace ui
