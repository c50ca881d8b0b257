#include "core/tensor/pooling.h"

#include "core/tensor/threadpool.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

namespace {

/** Adds the rows [r0, r1) of m into the block sums and finite counts of their blocks (br × bc cells), and
 *  with copy, writes factor · those rows into it. */
void poolRows(MatrixCRef m, Eigen::Index br, Eigen::Index bc, Eigen::Index r0, Eigen::Index r1, Matrix& sum,
              Matrix& count, double factor, Matrix* copy)
{
    const Eigen::Index cols = m.cols();
    // Row by row, so that the large matrix is read once, in memory order; a block's columns in one run.
    for (Eigen::Index r = r0; r < r1; ++r) {
        const double* in = m.row(r).data();
        double* s = sum.row(r / br).data();
        double* k = count.row(r / br).data();
        double* out = copy ? copy->row(r).data() : nullptr;
        for (Eigen::Index b = 0, c0 = 0; c0 < cols; ++b, c0 += bc) {
            const Eigen::Index c1 = std::min(cols, c0 + bc);
            double total = 0, finite = 0;
            for (Eigen::Index c = c0; c < c1; ++c) {
                const double v = in[c];
                const bool ok = v - v == 0.0;  // false for NaN and ±∞
                total += ok ? v : 0.0;
                finite += ok ? 1.0 : 0.0;
            }
            if (out)
                for (Eigen::Index c = c0; c < c1; ++c)
                    out[c] = factor * in[c];
            s[b] += total;
            k[b] += finite;
        }
    }
}

Matrix pool(MatrixCRef m, int maxRows, int maxCols, double factor, Matrix* copy, int threads)
{
    const Eigen::Index rows = m.rows(), cols = m.cols();
    const Eigen::Index br = blockSide(rows, maxRows), bc = blockSide(cols, maxCols);
    if (copy) {
        copy->resize(rows, cols);
        if (br == 1 && bc == 1) {
            copy->noalias() = factor * m;
            return *copy;
        }
    } else if (br == 1 && bc == 1) {
        return factor * m;
    }
    // Plain names, not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const auto shape = pooledShape(rows, cols, maxRows, maxCols);
    const Eigen::Index outRows = shape.first, outCols = shape.second;
    Matrix sum = Matrix::Zero(outRows, outCols);
    Matrix count = Matrix::Zero(outRows, outCols);
    // Each part takes whole rows of blocks, so that no two threads write one block's sum.
    const int parts = int(std::clamp<Eigen::Index>(threads, 1, outRows));
    parallelFor(parts, parts, [&](int part) {
        const Eigen::Index r0 = std::min(rows, br * (outRows * part / parts));
        const Eigen::Index r1 = std::min(rows, br * (outRows * (part + 1) / parts));
        poolRows(m, br, bc, r0, r1, sum, count, factor, copy);
    });
    Matrix out(outRows, outCols);
    for (Eigen::Index i = 0; i < out.size(); ++i)
        out.data()[i] = count.data()[i] > 0 ? factor * (sum.data()[i] / count.data()[i])
                                            : std::numeric_limits<double>::quiet_NaN();
    return out;
}

}  // namespace

Matrix pooled(MatrixCRef m, int maxRows, int maxCols, double factor)
{
    return pool(m, maxRows, maxCols, factor, nullptr, 1);
}

Matrix pooledWithCopy(MatrixCRef m, int maxRows, int maxCols, double factor, Matrix& copy, int threads)
{
    return pool(m, maxRows, maxCols, factor, &copy, threads);
}

}  // namespace core
