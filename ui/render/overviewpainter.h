#pragma once
/** OverviewPainter: the grid of every layer × head of an AttentionGrid, each cell a small heatmap drawn
 *  by HeatmapRenderer, with its head's label below it. Paints the window's overview and its exports. */

#include "attentiongrid.h"
#include "heatmaprenderer.h"

#include <QFont>
#include <QPalette>
#include <QRectF>
#include <QSize>
#include <QStringList>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace render {

struct OverviewStyle {
    QFont font;
    QPalette palette;
    ColormapId colormap = ColormapId::Viridis;
    ColourRange colourRange = ColourRange::Fixed;
    bool showTitle = true;
};

class OverviewPainter {
public:
    OverviewPainter(std::shared_ptr<const AttentionGrid> grid, OverviewStyle style);

    const AttentionGrid& grid() const { return *m_grid; }
    const OverviewStyle& style() const { return m_style; }

    /** A good pixel size: cells of 56 to 140 pixels, with the headers and labels. */
    QSize preferredSize() const;
    /** Paints the whole figure into target, filling it with the palette's Base. Returns how many cells the
     *  log colour scale could not place, summed over the heatmaps painted (ColourScale::belowLogScale()). */
    Eigen::Index paint(QPainter* painter, const QRectF& target) const;
    /** Paints again only the cells and labels of the layers marked in `layers` (all when it is empty), over a
     *  picture of the same figure in target: after an edit, the layers above the edited one are as they were. */
    void paintLayers(QPainter* painter, const QRectF& target, const std::vector<bool>& layers) const;
    /** The square of cell (layer, head) when painted into target; empty outside the grid. */
    QRectF cellRect(int layer, int head, const QRectF& target) const;
    /** The colour of the dashed outline around an edited head. */
    static const QColor editedColour;
    /** The outline that marks a chosen cell: its centre line and pen width. */
    struct Outline {
        QRectF rect;
        double width = 0;
    };
    /** The outline around cell (layer, head) when painted into target, in the room the layout keeps around every
     *  cell: clear of its label, the headers and the neighbours. Empty outside the grid. */
    Outline outline(int layer, int head, const QRectF& target) const;
    /** The colour bar right of the grid when painted into target (bottom t = 0, top t = 1); empty when the grid
     *  has no room. */
    QRectF colourBarRect(const QRectF& target) const;
    /** The cell whose square or label is under pos; empty elsewhere. */
    std::optional<std::pair<int, int>> cellAt(const QPointF& pos, const QRectF& target) const;

    /** The heatmap of one cell as the overview paints it: its values and mask, without labels. */
    HeatmapData cellData(int layer, int head) const;
    /** The same heatmap with the tokens, a title and axis names, for an enlarged view. */
    HeatmapData labelledCellData(int layer, int head) const;
    /** The style a cell is painted with. */
    HeatmapStyle cellStyle() const;

private:
    struct Layout {
        double em = 13, pad = 0, gap = 0, side = 0, labelH = 0, headerW = 0, headerH = 0, titleH = 0, captionH = 0;
        double ring = 0;  ///< the room kept between a cell and its label and header, for the chosen cell's outline
        double barW = 0, legendW = 0;  ///< the colour bar, and all it takes right of the grid with its labels
        QPointF origin;  ///< top left of cell (0, 0)
        QRectF bar;      ///< the colour bar (once the cells have their size)
        QFont titleFont, captionFont, headerFont, labelFont, legendFont;
        QStringList ticks;  ///< the colour bar's labels: bottom, middle, top
    };
    Layout layout(const QRectF& target) const;
    Layout metrics(double scale) const;
    static QRectF cellIn(const Layout& l, int layer, int head);
    static Outline outline(const Layout& l, int layer, int head);
    /** Returns the cells the log scale could not place, summed over the heatmaps painted. */
    Eigen::Index paintLayers(QPainter* painter, const Layout& l, const std::vector<bool>& layers) const;

    std::shared_ptr<const AttentionGrid> m_grid;
    OverviewStyle m_style;
};

}  // namespace render
