#pragma once
/** Eigen aliases and shape conventions shared by the whole engine.
 *  Rows are tokens: X is n × d_model, Q = X·W_Q is n × d_k. */

#include <Eigen/Core>

namespace core {

/// Dense double matrix, row-major so that one token (one row) is contiguous.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<double, 1, Eigen::Dynamic>;
using Vector = Eigen::VectorXd;

/// Read-only view of any matrix expression or block, the way inputs are taken.
using MatrixCRef = Eigen::Ref<const Matrix>;

/** True when no entry is ±∞ or NaN. x − x is 0 for every finite x and NaN otherwise, and a sum with a NaN in
 *  it stays NaN: four independent sums of that go at the speed of the memory. (Eigen's own allFinite() reads
 *  a row-major matrix column by column here, thirty times slower, and would dominate a one-cell edit.) */
inline bool allFinite(MatrixCRef m)
{
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        const double* row = m.row(r).data();
        double sums[4] = {0, 0, 0, 0};
        Eigen::Index c = 0;
        for (; c + 4 <= m.cols(); c += 4)
            for (int l = 0; l < 4; ++l)
                sums[l] += row[c + l] - row[c + l];
        for (; c < m.cols(); ++c)
            sums[0] += row[c] - row[c];
        if (!(sums[0] + sums[1] + sums[2] + sums[3] == 0))
            return false;
    }
    return true;
}

}  // namespace core
