#include "pooling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace core {

namespace {

/** Side of a block: ⌈size / max⌉, at least 1. */
Eigen::Index blockSide(Eigen::Index size, int max)
{
    const Eigen::Index m = std::max(1, max);
    return std::max<Eigen::Index>(1, (size + m - 1) / m);
}

}  // namespace

std::pair<Eigen::Index, Eigen::Index> pooledShape(Eigen::Index rows, Eigen::Index cols, int maxRows, int maxCols)
{
    const Eigen::Index br = blockSide(rows, maxRows), bc = blockSide(cols, maxCols);
    return {(rows + br - 1) / br, (cols + bc - 1) / bc};
}

Matrix pooled(MatrixCRef m, int maxRows, int maxCols, double factor)
{
    const Eigen::Index rows = m.rows(), cols = m.cols();
    const Eigen::Index br = blockSide(rows, maxRows), bc = blockSide(cols, maxCols);
    if (br == 1 && bc == 1)
        return factor * m;
    const auto [outRows, outCols] = pooledShape(rows, cols, maxRows, maxCols);
    Matrix sum = Matrix::Zero(outRows, outCols);
    Matrix count = Matrix::Zero(outRows, outCols);
    // Row by row, so that the large matrix is read once, in memory order; a block's columns in one run.
    for (Eigen::Index r = 0; r < rows; ++r) {
        const double* in = m.row(r).data();
        double* s = sum.row(r / br).data();
        double* k = count.row(r / br).data();
        for (Eigen::Index b = 0, c0 = 0; c0 < cols; ++b, c0 += bc) {
            const Eigen::Index c1 = std::min(cols, c0 + bc);
            double total = 0, finite = 0;
            for (Eigen::Index c = c0; c < c1; ++c) {
                const double v = in[c];
                const bool ok = v - v == 0.0;  // false for NaN and ±∞
                total += ok ? v : 0.0;
                finite += ok ? 1.0 : 0.0;
            }
            s[b] += total;
            k[b] += finite;
        }
    }
    Matrix out(outRows, outCols);
    for (Eigen::Index i = 0; i < out.size(); ++i)
        out.data()[i] = count.data()[i] > 0 ? factor * (sum.data()[i] / count.data()[i])
                                            : std::numeric_limits<double>::quiet_NaN();
    return out;
}

}  // namespace core
