#include "cellstyle.h"

#include "ui/render/displaynumber.h"

#include <QCoreApplication>
#include <QLocale>

#include <cmath>
#include <optional>
#include <utility>

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

namespace {

/** Head of column index (0-based) and the column inside it, when count splits into heads blocks. */
std::optional<std::pair<int, int>> headOf(int index, int count, int heads)
{
    if (heads <= 1 || count <= 0 || count % heads != 0 || index < 0 || index >= count)
        return std::nullopt;
    const int width = count / heads;
    return std::make_pair(index / width, index % width);
}

}  // namespace

QString headedLabel(int index, int count, int heads)
{
    const auto head = headOf(index, count, heads);
    if (!head)
        return QString::number(index + 1);
    return QCoreApplication::translate("CellStyle", "h%1·%2").arg(head->first + 1).arg(head->second + 1);
}

QString headedLabelToolTip(int index, int count, int heads, bool rows)
{
    const auto head = headOf(index, count, heads);
    if (!head)
        return rows ? QCoreApplication::translate("CellStyle", "Row %1").arg(index + 1)
                    : QCoreApplication::translate("CellStyle", "Column %1").arg(index + 1);
    return (rows ? QCoreApplication::translate("CellStyle", "Head %1, row %2 (row %3 of %4)")
                 : QCoreApplication::translate("CellStyle", "Head %1, column %2 (column %3 of %4)"))
        .arg(head->first + 1)
        .arg(head->second + 1)
        .arg(index + 1)
        .arg(count);
}

QString maskedCellNote(int query, int key)
{
    return QCoreApplication::translate("CellStyle",
                                       "Masked: key %1 comes after query %2, so the causal mask gives it no weight.")
        .arg(key)
        .arg(query);
}

QColor maskedCellColor(const QColor& base)
{
    // Halfway to a mid grey: lighter than any tint's dark end, darker than the base of no value.
    const QColor grey(128, 128, 128);
    return QColor((base.red() * 3 + grey.red() * 2) / 5, (base.green() * 3 + grey.green() * 2) / 5,
                  (base.blue() * 3 + grey.blue() * 2) / 5);
}

QColor maskedTextColor(const QColor& base)
{
    return base.lightness() > 128 ? QColor(96, 96, 96) : QColor(176, 176, 176);
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
