#pragma once
/** HeatmapWidget: the attention heatmap with its step, head and colour map choosers, zoom and scrolling. */

#include "core/attention/trace.h"
#include "ui/render/colormap.h"
#include "ui/render/colourscale.h"

#include <QWidget>

#include <optional>

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QScrollArea;
class QToolButton;

namespace render {
struct HeatmapData;
struct HeatmapStyle;
}  // namespace render

namespace ui {

class Document;
class HeatmapCanvas;
class ViewState;

class HeatmapWidget : public QWidget {
    Q_OBJECT
public:
    HeatmapWidget(Document* document, ViewState* viewState, QWidget* parent = nullptr);
    ~HeatmapWidget() override;

    /** The steps the step chooser offers (scores, scaled scores, weights). */
    static const QList<core::Step>& heatmapSteps();

    HeatmapCanvas* canvas() const { return m_canvas; }

    /** Step actions (checkable, exclusive; the shown step is checked). */
    QList<QAction*> stepActions() const;
    /** Colour map actions: "automatic" first, then every map (checkable, exclusive). */
    QList<QAction*> colormapActions() const;
    QAction* zoomInAction() const { return m_zoomIn; }
    QAction* zoomOutAction() const { return m_zoomOut; }
    QAction* zoomFitAction() const { return m_zoomFit; }
    QAction* annotateAction() const { return m_annotate; }

    /** The colour map chosen; nothing means each step's default. */
    std::optional<render::ColormapId> colormapChoice() const;
    void setColormapChoice(std::optional<render::ColormapId> id);
    /** Size factor against the figure's preferred size; 0 means "fit the window". */
    double zoom() const;
    void setZoom(double zoom);
    bool annotate() const;
    void setAnnotate(bool on);
    render::ColourRange colourRange() const;
    void setColourRange(render::ColourRange range);

    /** True when a figure is shown (false in the empty or error state). */
    bool hasFigure() const;
    /** The figure as shown, for export. Call only when hasFigure(). */
    render::HeatmapData figureData() const;
    /** The style the figure is shown with, without the mouse highlight. */
    render::HeatmapStyle figureStyle() const;

signals:
    /** The colour range was chosen (the overview follows it). */
    void colourRangeChanged(render::ColourRange range);

private:
    void buildActions();
    void syncControls();
    void zoomBy(double factor, const QPoint& anchor);
    void applyZoom(double zoom, const QPoint& anchor);

    Document* m_document;
    ViewState* m_viewState;
    HeatmapCanvas* m_canvas;
    QScrollArea* m_scroll;
    QComboBox* m_stepBox;
    QComboBox* m_headBox;
    QLabel* m_headLabel;
    QComboBox* m_layerBox = nullptr;  ///< a model session's layer, 1 … L; hidden for a plain session
    QWidget* m_layerGroup = nullptr;
    /** Fills and shows the layer chooser as the document's session asks. */
    void syncLayerBox();
    QComboBox* m_colormapBox;
    QComboBox* m_rangeBox;
    QActionGroup* m_stepGroup;
    QActionGroup* m_colormapGroup;
    QAction* m_zoomIn;
    QAction* m_zoomOut;
    QAction* m_zoomFit;
    QAction* m_annotate;
};

}  // namespace ui
