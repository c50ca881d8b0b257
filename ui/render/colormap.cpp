#include "colormap.h"

#include "colormaptables.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace render {

namespace {

/** ColorBrewer RdBu, 11 classes, reversed (blue at 0, red at 1): Cynthia A. Brewer, colorbrewer2.org
 *  (Apache License 2.0), the table matplotlib's "RdBu_r" interpolates. */
constexpr std::array<QRgb, 11> kDivergingStops = {
    0x053061, 0x2166ac, 0x4393c3, 0x92c5de, 0xd1e5f0, 0xf7f7f7,
    0xfddbc7, 0xf4a582, 0xd6604d, 0xb2182b, 0x67001f,
};

int toByte(double c) { return std::clamp(int(std::lround(c * 255.0)), 0, 255); }

QRgb interpolateTable(const detail::ColorTable& table, double t)
{
    const double x = t * double(table.size() - 1);
    const int i = std::min(int(x), int(table.size()) - 2);
    const double f = x - i;
    const auto& a = table[std::size_t(i)];
    const auto& b = table[std::size_t(i) + 1];
    return qRgb(toByte(a[0] + (b[0] - a[0]) * f), toByte(a[1] + (b[1] - a[1]) * f),
                toByte(a[2] + (b[2] - a[2]) * f));
}

QRgb interpolateStops(double t)
{
    const double x = t * double(kDivergingStops.size() - 1);
    const int i = std::min(int(x), int(kDivergingStops.size()) - 2);
    const double f = x - i;
    const QRgb a = kDivergingStops[std::size_t(i)];
    const QRgb b = kDivergingStops[std::size_t(i) + 1];
    auto mix = [f](int ca, int cb) { return std::clamp(int(std::lround(ca + (cb - ca) * f)), 0, 255); };
    return qRgb(mix(qRed(a), qRed(b)), mix(qGreen(a), qGreen(b)), mix(qBlue(a), qBlue(b)));
}

QRgb exactColor(ColormapId id, double t)
{
    switch (id) {
    case ColormapId::Viridis: return interpolateTable(detail::kViridisTable, t);
    case ColormapId::Magma: return interpolateTable(detail::kMagmaTable, t);
    case ColormapId::Cividis: return interpolateTable(detail::kCividisTable, t);
    case ColormapId::Grays: {
        const int v = toByte(1.0 - t);
        return qRgb(v, v, v);
    }
    case ColormapId::Diverging: return interpolateStops(t);
    }
    return colormapNaNColor;
}

using Lut = std::vector<QRgb>;

Lut buildLut(ColormapId id)
{
    Lut lut(colormapLevels);
    for (int i = 0; i < colormapLevels; ++i)
        lut[std::size_t(i)] = exactColor(id, double(i) / (colormapLevels - 1));
    return lut;
}

const Lut& lutFor(ColormapId id)
{
    static const std::array<Lut, 5> luts = {buildLut(ColormapId::Viridis), buildLut(ColormapId::Magma),
                                            buildLut(ColormapId::Cividis), buildLut(ColormapId::Grays),
                                            buildLut(ColormapId::Diverging)};
    return luts[std::size_t(id)];
}

double linearise(int c)
{
    const double s = c / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
}

}  // namespace

QStringList colormapNames()
{
    return {QStringLiteral("viridis"), QStringLiteral("magma"), QStringLiteral("cividis"),
            QStringLiteral("grays"), QStringLiteral("diverging")};
}

QString colormapName(ColormapId id)
{
    return colormapNames().value(int(id));
}

std::optional<ColormapId> colormapFromName(const QString& name)
{
    const int i = colormapNames().indexOf(name.trimmed().toLower());
    if (i < 0)
        return std::nullopt;
    return ColormapId(i);
}

const QRgb* colormapLut(ColormapId id)
{
    return lutFor(id).data();
}

QRgb rgbAt(ColormapId id, double t)
{
    const int index = colormapIndex(t);
    return index < 0 ? colormapNaNColor : lutFor(id)[std::size_t(index)];
}

QColor colorAt(ColormapId id, double t)
{
    return QColor::fromRgb(rgbAt(id, t));
}

bool isDiverging(ColormapId id)
{
    return id == ColormapId::Diverging;
}

ColormapId defaultColormap(core::Step step)
{
    return step == core::Step::Weights ? ColormapId::Viridis : ColormapId::Diverging;
}

double relativeLuminance(QRgb rgb)
{
    return 0.2126 * linearise(qRed(rgb)) + 0.7152 * linearise(qGreen(rgb)) + 0.0722 * linearise(qBlue(rgb));
}

QColor contrastingTextColor(QRgb background)
{
    // 0.179 is where black and white have equal contrast against the background.
    return relativeLuminance(background) > 0.179 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace render
