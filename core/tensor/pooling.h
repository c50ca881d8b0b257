#pragma once
/** Block means: how a figure shows a matrix that has more cells than it has pixels. */

#include "core/tensor/matrix.h"

#include <utility>

namespace core {

/** factor · m reduced to at most maxRows × maxCols by averaging blocks of ⌈rows / maxRows⌉ ×
 *  ⌈cols / maxCols⌉ cells (the last blocks may be smaller). Non-finite entries are left out of their
 *  block's mean; a block with none finite is NaN. When m already fits, this is factor · m.
 *  maxRows and maxCols below 1 count as 1. */
Matrix pooled(MatrixCRef m, int maxRows, int maxCols, double factor = 1.0);

/** pooled(m, maxRows, maxCols, factor), and factor · m written into `copy` (resized to m's shape) in the
 *  same pass over m: a figure that keeps a large matrix's values and shows their block means reads it
 *  once. Up to `threads` threads share the rows: the caller and the engine's pool (threadpool.h). */
Matrix pooledWithCopy(MatrixCRef m, int maxRows, int maxCols, double factor, Matrix& copy, int threads = 1);

/** The rows and columns pooled() gives for a rows × cols matrix, without pooling it. */
std::pair<Eigen::Index, Eigen::Index> pooledShape(Eigen::Index rows, Eigen::Index cols, int maxRows, int maxCols);

}  // namespace core
