#pragma once
/** Writing the heatmap figure to PNG, SVG or PDF, and rendering it to an image (for the clipboard).
 *  Needs only Qt Gui, Svg and PrintSupport: works under QGuiApplication on the offscreen platform. */

#include "exportresult.h"
#include "heatmaprenderer.h"

#include <QImage>
#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>

class QPainter;

namespace render {

/** The file endings exportHeatmap() understands: "png", "svg", "pdf". */
QStringList heatmapExportFormats();

/** The figure rendered into an image of size pixels (empty size: the renderer's preferred size),
 *  antialiased, on the palette's Base colour. A null image when size is unusable. */
QImage renderHeatmapImage(const HeatmapData& data, const HeatmapStyle& style, QSize size);
/** The same of a renderer already made, on background: its colour scale tells what the log range could not place. */
QImage renderHeatmapImage(const HeatmapRenderer& renderer, const QColor& background, QSize size);

/** Writes the figure to path, in the format named by its ending (.png, .svg, .pdf; any case).
 *  pixelSize is the figure's size in pixels (the PNG's size, the SVG's viewBox, the PDF page at 96 dpi);
 *  empty means the renderer's preferred size. The file is made in memory and written whole
 *  (writeAtomically): on failure nothing is written and an existing file is left as it was, and the result's
 *  error names the path and the reason. Its belowLogScale counts the cells the figure's log colour scale could
 *  not place. */
ExportResult exportHeatmap(const HeatmapData& data, const HeatmapStyle& style, const QString& path, QSize pixelSize);

/** Paints a figure into a target rectangle (painter units); the background is the caller's. */
using FigurePaint = std::function<void(QPainter*, const QRectF&)>;

/** Any figure written as exportHeatmap() writes the heatmap: by path's ending, pixelSize pixels (PNG), the
 *  viewBox (SVG) or the page at 96 dpi (PDF), on background, written whole or not at all. title names
 *  the file's figure. The result counts no cells below a log scale: paint's caller knows them. */
ExportResult exportFigure(const FigurePaint& paint, const QColor& background, const QString& title, const QString& path,
                          QSize pixelSize);

}  // namespace render
