#pragma once
/** The fonts of the overview and the head view: sizes in pixels from the style's font. */

#include <QFont>
#include <QRectF>
#include <QSize>

#include <algorithm>
#include <cmath>

namespace render {

/** The font's size in pixels (its point size at 96 dpi; 13 when it has neither). */
inline double fontPixels(const QFont& f)
{
    if (f.pixelSize() > 0)
        return f.pixelSize();
    return f.pointSizeF() > 0 ? f.pointSizeF() * 96.0 / 72.0 : 13.0;
}

/** base at px pixels (at least 1), bold or not. */
inline QFont fontOfPixels(const QFont& base, double px, bool bold)
{
    QFont f(base);
    f.setPixelSize(std::max(1, int(std::lround(px))));
    f.setBold(bold);
    return f;
}

/** The font scale of a figure drawn into target whose preferred size is preferred: the smaller of the
 *  two ratios, within lo … hi. */
inline double fitScale(const QRectF& target, QSize preferred, double lo, double hi)
{
    return std::clamp(std::min(target.width() / preferred.width(), target.height() / preferred.height()), lo, hi);
}

}  // namespace render
