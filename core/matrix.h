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

}  // namespace core
