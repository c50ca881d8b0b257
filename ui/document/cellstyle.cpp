#include "cellstyle.h"

#include "ui/render/displaynumber.h"

#include <QLocale>

#include <cmath>

namespace ui {

QString formatCell(double value, int precision)
{
    return render::displayNumber(value, 'f', precision);
}

QColor cellTint(double value, double lo, double hi, render::ColormapId colormap, const QColor& base)
{
    if (std::isnan(value))
        return base;  // ±∞ take the ends of the map below
    const double t = hi > lo ? std::clamp((value - lo) / (hi - lo), 0.0, 1.0) : 0.5;
    const QColor c = render::colorAt(colormap, t);
    const double alpha = render::isDiverging(colormap) ? 0.8 * std::fabs(2 * t - 1) : 0.55;
    auto mix = [alpha](int a, int b) { return int(std::lround(a * alpha + b * (1 - alpha))); };
    return QColor(mix(c.red(), base.red()), mix(c.green(), base.green()), mix(c.blue(), base.blue()));
}

bool covers(const core::CellRef& source, core::Step step, int head, int row, int col)
{
    if (source.step != step)
        return false;
    if (core::isPerHead(step) && source.head != head)
        return false;
    return (source.row < 0 || source.row == row) && (source.col < 0 || source.col == col);
}

bool parseCellText(const QString& text, double* value)
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return false;
    // Group separators are refused: "1,500" must not silently become 1500.
    QLocale c = QLocale::c();
    c.setNumberOptions(QLocale::RejectGroupSeparator);
    QLocale ui;  // the default locale, which the language switch sets
    ui.setNumberOptions(QLocale::RejectGroupSeparator);
    bool ok = false;
    double v = c.toDouble(t, &ok);
    if (!ok)
        v = ui.toDouble(t, &ok);
    if (!ok || !std::isfinite(v))
        return false;
    *value = v;
    return true;
}

}  // namespace ui
