#include "colourscale.h"

#include "core/tensor/simd.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace render {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

/** lo < hi: an empty or one-valued range is widened as the figure's default range is. */
std::pair<double, double> widened(double lo, double hi, std::pair<double, double> fallback)
{
    if (!(lo <= hi))
        return fallback;
    if (lo == hi)
        return {lo - 0.5, hi + 0.5};
    return {lo, hi};
}

}  // namespace

QStringList colourRangeNames()
{
    return {QStringLiteral("fixed"), QStringLiteral("matrix"), QStringLiteral("row"), QStringLiteral("log")};
}

QString colourRangeName(ColourRange range)
{
    return colourRangeNames().value(int(range));
}

std::optional<ColourRange> colourRangeFromName(const QString& name)
{
    const int i = int(colourRangeNames().indexOf(name.trimmed().toLower()));
    if (i < 0)
        return std::nullopt;
    return ColourRange(i);
}

ColourScale ColourScale::of(const core::Matrix& values, ColourRange mode, std::pair<double, double> fixedRange,
                            CausalMask mask, ColormapId colormap)
{
    ColourScale s;
    s.m_mode = mode;
    std::tie(s.m_lo, s.m_hi) = fixedRange;
    if (mode == ColourRange::Fixed)
        return s;

    const Eigen::Index rows = values.rows(), cols = values.cols();
    double lo = inf, hi = -inf, maxAbs = 0.0, minPositive = inf;
    if (mode == ColourRange::Row)
        s.m_rows.reserve(std::size_t(rows));
    for (Eigen::Index r = 0; r < rows; ++r) {
        const double* row = values.data() + r * cols;
        const Eigen::Index live = mask.liveColumns(r, cols);
        double rlo = inf, rhi = -inf;
        for (Eigen::Index c = 0; c < live; ++c) {
            const double v = row[c];
            s.m_belowLog += v <= 0.0 ? 1 : 0;
            if (!(v - v == 0.0))  // NaN or infinite
                continue;
            rlo = v < rlo ? v : rlo;
            rhi = v > rhi ? v : rhi;
            maxAbs = std::max(maxAbs, std::abs(v));
            if (v > 0.0)
                minPositive = std::min(minPositive, v);
        }
        lo = std::min(lo, rlo);
        hi = std::max(hi, rhi);
        if (mode == ColourRange::Row)
            s.m_rows.push_back(widened(rlo, rhi, fixedRange));
    }
    if (mode != ColourRange::Log)
        s.m_belowLog = 0;
    switch (mode) {
    case ColourRange::Fixed: break;
    case ColourRange::Matrix:
    case ColourRange::Row:
        // A diverging map keeps 0 in its middle (white): its ends are ±max|v|.
        if (isDiverging(colormap))
            std::tie(s.m_lo, s.m_hi) = maxAbs > 0.0 ? std::pair{-maxAbs, maxAbs} : fixedRange;
        else
            std::tie(s.m_lo, s.m_hi) = widened(lo, hi, fixedRange);
        if (mode == ColourRange::Row && isDiverging(colormap)) {
            for (auto& [rlo, rhi] : s.m_rows) {
                const double a = std::max(std::abs(rlo), std::abs(rhi));
                std::tie(rlo, rhi) = std::pair{-a, a};
            }
        }
        break;
    case ColourRange::Log:
        if (!(hi > 0.0)) {
            s.m_hi = 1.0;
            s.m_lo = std::pow(10.0, -logDecades);
        } else {
            s.m_hi = hi;
            s.m_lo = std::max(minPositive, hi * std::pow(10.0, -logDecades));
            if (s.m_lo >= s.m_hi)
                s.m_lo = s.m_hi / 10.0;
        }
        break;
    }
    return s;
}

std::pair<double, double> ColourScale::rowRange(int row) const
{
    if (m_mode == ColourRange::Row && row >= 0 && std::size_t(row) < m_rows.size())
        return m_rows[std::size_t(row)];
    return {m_lo, m_hi};
}

double ColourScale::t(double v, int row) const
{
    if (v != v)
        return v;
    double t = 0.0;
    if (m_mode == ColourRange::Log) {
        if (v <= 0.0)
            return 0.0;
        t = (std::log10(v) - std::log10(m_lo)) / (std::log10(m_hi) - std::log10(m_lo));
    } else {
        const auto [lo, hi] = rowRange(row);
        t = (v - lo) / (hi - lo);
    }
    return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

void ColourScale::indices(const double* values, Eigen::Index count, int row, int* out) const
{
    if (m_mode == ColourRange::Log) {
        for (Eigen::Index c = 0; c < count; ++c)
            out[c] = colormapIndex(t(values[c], row));
        return;
    }
    // t() and colormapIndex() written out for one row, with the row's range read once: the same
    // arithmetic in the same order, so each index is the one a call per cell gives.
    // Written so that the compiler can take several cells per instruction (no branch; NaN becomes −1.0
    // before the conversion to int).
    const auto [lo, hi] = rowRange(row);
    const double span = hi - lo;
    // Whole vectors on AVX-512 or AVX2 when the processor has them (the same operations), the rest here.
    const core::SimdKernels* kernels = core::simdKernels();
    Eigen::Index c = kernels ? kernels->levels(values, count, lo, span, double(colormapLevels - 1), out) : 0;
    for (; c < count; ++c) {
        const double t = (values[c] - lo) / span;
        const double clamped = std::min(std::max(t, 0.0), 1.0);
        out[c] = int(t != t ? -1.0 : clamped * (colormapLevels - 1) + 0.5);
    }
}

void ColourScale::colours(const double* values, Eigen::Index count, int row, const QRgb* lut, QRgb nan,
                          QRgb* out) const
{
    // Whole vectors on AVX-512 or AVX2 in one pass, gathering from the table; the rest (and Log) by indices().
    const core::SimdKernels* kernels = m_mode == ColourRange::Log ? nullptr : core::simdKernels();
    const auto [lo, hi] = rowRange(row);
    const Eigen::Index done =
        kernels ? kernels->colours(values, count, lo, hi - lo, double(colormapLevels - 1), lut, nan, out) : 0;
    if (done == count)
        return;
    std::vector<int> rest(std::size_t(count - done));
    indices(values + done, count - done, row, rest.data());
    for (std::size_t c = 0; c < rest.size(); ++c)
        out[Eigen::Index(c) + done] = rest[c] < 0 ? nan : lut[rest[c]];
}

double ColourScale::valueAt(double t) const
{
    if (m_mode == ColourRange::Log)
        return std::pow(10.0, std::log10(m_lo) + t * (std::log10(m_hi) - std::log10(m_lo)));
    return m_lo + t * (m_hi - m_lo);
}

}  // namespace render
