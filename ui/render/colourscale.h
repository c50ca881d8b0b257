#pragma once
/** ColourScale: how the values of a heatmap become positions t in [0, 1] on its colour map. One scale
 *  serves the window's heatmap, the overview's cells and every exported heatmap. */

#include "colormap.h"
#include "core/tensor/matrix.h"

#include <QString>
#include <QStringList>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace render {

/** Which values go to the ends of the colour map.
 *  Fixed: the figure's own range (0 to 1 for weights, as always). Matrix: the smallest to the largest
 *  value of the matrix. Row: each row (query) from its own smallest to its largest value. Log: log10 of
 *  the values, from the largest down six decades at most (the smallest positive value when that is
 *  nearer); 0 and below sit at the bottom. Masked cells count in none of these. */
enum class ColourRange { Fixed, Matrix, Row, Log };

/** "fixed", "matrix", "row", "log": the names of the command line and the settings, in enum order. */
QStringList colourRangeNames();
QString colourRangeName(ColourRange range);
/** The range with that name (case-insensitive); empty when there is none. */
std::optional<ColourRange> colourRangeFromName(const QString& name);

/** Log's floor: at most this many decades below the largest value are told apart. */
inline constexpr double logDecades = 6.0;

/** The cells a causal mask hides (column after row), in a matrix or in its block means: a block of
 *  blockRows × blockCols cells counts as masked when all of its cells are. */
struct CausalMask {
    bool on = false;
    Eigen::Index blockRows = 1;
    Eigen::Index blockCols = 1;

    bool masked(Eigen::Index row, Eigen::Index col) const
    {
        return on && col * blockCols > (row + 1) * blockRows - 1;
    }
    /** How many leading columns of row are not masked (of cols). */
    Eigen::Index liveColumns(Eigen::Index row, Eigen::Index cols) const
    {
        return on ? std::min(cols, ((row + 1) * blockRows - 1) / blockCols + 1) : cols;
    }
};

class ColourScale {
public:
    ColourScale() = default;
    /** The scale of values under mode. fixedRange is the Fixed mode's range (lo < hi); masked cells count
     *  in no range. */
    static ColourScale of(const core::Matrix& values, ColourRange mode, std::pair<double, double> fixedRange,
                          CausalMask mask, ColormapId colormap);

    ColourRange mode() const { return m_mode; }
    /** The values at t = 0 and t = 1 (the whole matrix's; per row they are each row's own). */
    std::pair<double, double> range() const { return {m_lo, m_hi}; }
    /** Row r's values at t = 0 and t = 1 (Row mode), else range(). */
    std::pair<double, double> rowRange(int row) const;
    /** Where v of row `row` lies: 0 … 1 (clamped), NaN for NaN. */
    double t(double v, int row) const;
    /** colormapIndex(t(v, row)) of count values of row `row` (−1 for NaN), into out: the whole row at once,
     *  so that painting a long sequence's heatmap pays for its cells, not for a call per cell. */
    void indices(const double* values, Eigen::Index count, int row, int* out) const;
    /** The colours of those indices in lut (nan for −1), into out: what a row of the heatmap's image shows. */
    void colours(const double* values, Eigen::Index count, int row, const QRgb* lut, QRgb nan, QRgb* out) const;
    /** The value at t (0 … 1) of the whole scale: lo + t·(hi − lo), or geometric for Log. */
    double valueAt(double t) const;
    /** Log mode: how many cells no causal mask hides are 0 or below (−∞ among them, NaN not), which a log scale
     *  cannot place and draws at its lowest end; counted in the same pass that finds the range. 0 in the other
     *  modes. */
    Eigen::Index belowLogScale() const { return m_belowLog; }

private:
    ColourRange m_mode = ColourRange::Fixed;
    double m_lo = 0.0, m_hi = 1.0;
    std::vector<std::pair<double, double>> m_rows;  ///< Row mode: each row's lo and hi (lo < hi)
    Eigen::Index m_belowLog = 0;
};

}  // namespace render
