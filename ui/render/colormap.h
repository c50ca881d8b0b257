#pragma once
/** Colour maps: numbers in [0, 1] to colours, for the heatmap and its legend. */

#include "core/attention/trace.h"

#include <QColor>
#include <QStringList>

#include <optional>

namespace render {

enum class ColormapId { Viridis, Magma, Cividis, Grays, Diverging };

/** Number of distinct colours a map produces: t is quantised to 1/(colormapLevels − 1). */
inline constexpr int colormapLevels = 4097;

/** The names the command line and the settings use, in the order of ColormapId. */
QStringList colormapNames();
/** The name of a map ("viridis", "magma", "cividis", "grays", "diverging"). */
QString colormapName(ColormapId id);
/** The map with that name (case-insensitive); empty when there is none. */
std::optional<ColormapId> colormapFromName(const QString& name);

/** The colour at t: t is clamped to [0, 1]; NaN gives a neutral grey.
 *  Viridis, magma, cividis: matplotlib's tables, linearly interpolated.
 *  Grays: white (t = 0) to black (t = 1). Diverging: blue–white–red (ColorBrewer RdBu, reversed). */
QColor colorAt(ColormapId id, double t);
/** colorAt() as an opaque QRgb, without building a QColor (for filling images). */
QRgb rgbAt(ColormapId id, double t);

/** The colormapLevels colours of a map: entry i is the colour of t = i / (colormapLevels − 1). */
const QRgb* colormapLut(ColormapId id);
/** The entry of colormapLut() that t maps to (t clamped to [0, 1]); −1 for NaN. */
inline int colormapIndex(double t)
{
    if (t != t)
        return -1;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return int(t * (colormapLevels - 1) + 0.5);
}
/** The colour of NaN in every map. */
inline constexpr QRgb colormapNaNColor = 0xff808080;

/** True for maps made for signed data, centred at t = 0.5. */
bool isDiverging(ColormapId id);

/** The map a step is shown with by default: weights (in [0, 1]) viridis, signed steps diverging. */
ColormapId defaultColormap(core::Step step);

/** WCAG relative luminance of an sRGB colour, in [0, 1]. */
double relativeLuminance(QRgb rgb);
/** Black or white, whichever reads better on the background. */
QColor contrastingTextColor(QRgb background);

}  // namespace render
