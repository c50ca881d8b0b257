#pragma once
/** HeatmapRenderer: one labelled heatmap figure, painted on any QPainter (widget, image, SVG, PDF). */

#include "colormap.h"
#include "colourscale.h"
#include "core/tensor/matrix.h"

#include <QFont>
#include <QImage>
#include <QPalette>
#include <QRectF>
#include <QSize>
#include <QStringList>

#include <memory>
#include <optional>
#include <utility>

class QPainter;

namespace render {

/** What is drawn: numbers and their names. The renderer computes nothing from them but colours. */
struct HeatmapData {
    core::Matrix values;     ///< rows × cols; entry (i, j) is the cell in row i (from the top), column j
    QStringList rowLabels;   ///< one per row (missing ones are blank), e.g. the query tokens
    QStringList colLabels;   ///< one per column, e.g. the key tokens
    QString title;           ///< e.g. "Attention weights · head 1"
    QString rowAxisTitle;    ///< e.g. "query"
    QString colAxisTitle;    ///< e.g. "key"
    /** Values mapped to the ends of the colour map. Default: [0, 1] when every value lies in [0, 1]
     *  and the map is not diverging; ±max|v| for a diverging map; else min..max. */
    std::optional<std::pair<double, double>> range;
    /** The cells after the diagonal (column > row) are masked (a causal mask): drawn greyed and hatched,
     *  never as a value, and counted in no colour range. */
    bool causalMask = false;
};

/** How it is drawn. */
struct HeatmapStyle {
    ColormapId colormap = ColormapId::Viridis;
    ColourRange colourRange = ColourRange::Fixed;  ///< which values the ends of the colour map stand for
    bool annotate = false;      ///< print each cell's value in it when the cell is big enough to read
    int precision = 2;          ///< decimals of the printed values
    QFont font;                 ///< base font (family and size at fontScale 1)
    QPalette palette;           ///< Base is the background, Text the labels, Highlight the selection
    /** Font size factor; 0 means automatic: 1 up to preferredSize(), growing with larger targets. */
    double fontScale = 0.0;
    bool showTitle = true;
    bool showLegend = true;
    int highlightRow = -1;      ///< row outlined under the mouse, −1 for none
    int highlightCol = -1;      ///< column outlined under the mouse, −1 for none
    int selectedRow = -1;       ///< selected query row, −1 for none
    /** The cells are at least this tall in all (pixels), as far as the target allows: the rows of a
     *  wide and short matrix grow taller than its columns are wide. 0: square cells. */
    double minMatrixHeight = 0.0;
    /** Paint the cells as one image in SVG and PDF too (small multiples, where thousands of vector cells
     *  would only make the file large). */
    bool cellsAsImage = false;

    bool operator==(const HeatmapStyle&) const = default;
};

/** Paints the figure: title, row labels on the left, column labels below, cells, colour legend.
 *  In SVG and PDF up to perCellLimit cells are painted as one rectangle each (crisp at any zoom), on
 *  pixels up to perCellRasterLimit; larger matrices as a cached image with one pixel per cell, scaled
 *  without smoothing (the same pixels, without a fill per cell).
 *  The colour of cell (i, j) is exactly colorAt(colormap, (v − lo) / (hi − lo)).
 *  Not thread-safe: it caches the image and the layout of the last target (one thread at a time may use it). */
/** A vertical colour bar: colormap from its bottom (t = 0) to its top (t = 1) filling bar, framed, with three
 *  ticks at its right edge (bottom, middle, top) labelled ticks[0], ticks[1], ticks[2] in font. em sets the
 *  tick length, the gap before the labels and the frame's width. The heatmap's legend and the overview's
 *  colour bar are both this one. */
void paintColourBar(QPainter* p, const QRectF& bar, ColormapId colormap, const QPalette& palette, double em,
                    const QFont& font, const QStringList& ticks);
/** The width paintColourBar takes from the bar's left edge to the end of its widest tick label. */
double colourBarWidth(double barWidth, double em, const QFont& font, const QStringList& ticks);

class HeatmapRenderer {
public:
    /** Matrices with more cells than this are painted through the cached image. */
    static constexpr int perCellLimit = 128 * 128;
    /** The same limit on pixel devices (screen, PNG). */
    static constexpr int perCellRasterLimit = 32 * 32;

    HeatmapRenderer(HeatmapData data, HeatmapStyle style);
    ~HeatmapRenderer();
    HeatmapRenderer(const HeatmapRenderer&) = delete;
    HeatmapRenderer& operator=(const HeatmapRenderer&) = delete;

    const HeatmapData& data() const { return m_data; }
    const HeatmapStyle& style() const { return m_style; }
    /** True when the figure keeps its layout (the same shape, labels, titles and legend): only what valuesRect()
     *  covers looks different. */
    bool setData(HeatmapData data);
    /** Moves the values out, for the next setData() to reuse their storage; nothing is painted until then. */
    core::Matrix takeValues();
    void setStyle(const HeatmapStyle& style);

    /** The values mapped to t = 0 and t = 1 (lo < hi always; per row, the matrix's extremes). */
    std::pair<double, double> valueRange() const { return m_scale.range(); }
    /** How values become colours (the style's colour range over these values). */
    const ColourScale& colourScale() const { return m_scale; }
    /** The colour cell (row, col) is painted with (masked cells: maskedColor()). */
    QRgb cellColor(int row, int col) const;
    /** True when cell (row, col) is under the causal mask. */
    bool isMasked(int row, int col) const { return m_data.causalMask && col > row; }
    /** The colour masked cells are filled with (the hatching is drawn over it), from the palette. */
    QRgb maskedColor() const;
    /** The legend's words for the colour range in use ("fixed 0–1", "per row", …), translated. */
    static QString colourRangeCaption(ColourRange range);

    /** A good pixel size for the whole figure, from the matrix shape and the labels
     *  (about 60 px cells for small matrices, shrinking; the matrix at most about 1800 px). */
    QSize preferredSize() const;
    /** Does the work of a later paint() into target on a screen or image of that device pixel ratio,
     *  without painting: the layout and the cells' image. Lets a worker thread build a large figure that
     *  the GUI thread then only draws; the renderer must not be used by two threads at once. */
    void prepare(const QRectF& target, double devicePixelRatio) const;
    /** The same with the block means of the cells already taken (core::pooled of the values at
     *  pooledCellLimit()), for a caller that could take them from where the values were copied from, at the
     *  same time as the copy; ignored when their shape is not the one the layout asks for. */
    void prepare(const QRectF& target, double devicePixelRatio, const core::Matrix& blockMeans) const;
    /** At most how many rows (height) and columns (width) of cells an image of the figure in target keeps on a
     *  screen or image of that device pixel ratio: past that, it shows block means. */
    QSize pooledCellLimit(const QRectF& target, double devicePixelRatio) const;
    /** Paints the whole figure into target (painter units), filling it with the background. With exposed (what
     *  a widget's paint event asks for), the labels, titles and legend that lie wholly outside it are left out. */
    void paint(QPainter* painter, const QRectF& target, const QRectF& exposed = QRectF()) const;
    /** Whole pixels around the cells, their outlines and the frame when the figure is painted into target: all
     *  that new values of the same layout change (setData() returning true). */
    QRectF valuesRect(const QRectF& target) const;
    /** Where cell (row, col) lies when the figure is painted into target; empty when out of range. */
    QRectF cellRect(int row, int col, const QRectF& target) const;
    /** Where the title and the legend's colour-range caption are drawn when the figure is painted into target;
     *  empty when there is none. */
    QRectF titleRect(const QRectF& target) const;
    /** True when the style asks for the cells' numbers and the cells are big enough, in target, to print them. */
    bool annotates(const QRectF& target) const;
    QRectF rangeCaptionRect(const QRectF& target) const;
    /** The cell (row, col) under pos when the figure is painted into target; empty outside the cells. */
    std::optional<std::pair<int, int>> cellAt(const QPointF& pos, const QRectF& target) const;

private:
    struct Layout;

    const Layout& layout(const QRectF& target) const;
    QSize measurePreferredSize() const;
    void invalidate(bool colours);
    void forgetImage();
    void updateScale();
    void paintMaskHatching(QPainter* p, const Layout& l) const;
    /** One pixel per cell (times upscale); past maxRows × maxCols cells, one per block mean (core::pooled). */
    /** blockMeans, when given with the pooled shape, are the block means to colour. */
    const QImage& cellImage(int upscale, int maxRows, int maxCols, const core::Matrix* blockMeans = nullptr) const;
    /** cellImage() for a matrix covering pixels (device-independent) on a raster device. */
    const QImage& rasterCellImage(const QRectF& pixels, double dpr, const core::Matrix* blockMeans = nullptr) const;
    void paintCells(QPainter* p, const Layout& l) const;
    void paintAnnotations(QPainter* p, const Layout& l) const;
    void paintHighlights(QPainter* p, const Layout& l) const;
    /** exposed: only what reaches it is painted; null for everything. */
    void paintLabels(QPainter* p, const Layout& l, const QRectF& exposed) const;
    void paintLegend(QPainter* p, const Layout& l, const QRectF& exposed) const;

    HeatmapData m_data;
    HeatmapStyle m_style;
    std::pair<Eigen::Index, Eigen::Index> m_shape;  ///< rows × cols the layout is for (kept by takeValues())
    std::pair<double, double> m_range{0.0, 1.0};  ///< the Fixed range: the data's own or the default
    ColourScale m_scale;
    mutable QImage m_image;  ///< rows × cols pixels, times the upscale factor of m_imageUpscale
    mutable int m_imageUpscale = 0;
    mutable QSize m_imageCells;  ///< the columns × rows of values m_image shows (fewer when pooled)
    mutable std::unique_ptr<Layout> m_layout;
    mutable std::optional<QSize> m_preferred;  ///< preferredSize(), once measured
};

/** What is said of the cells a log colour scale cannot place (ColourScale::belowLogScale()), in the interface language: how many, and how they are drawn; empty for none. */
QString logScaleNote(Eigen::Index cells);
/** The same said of several heatmaps, each on its own log scale: cells is their count summed over the heatmaps
 *  drawn; empty for none. */
QString logScaleNoteOfHeatmaps(Eigen::Index cells);

}  // namespace render
