#pragma once
/** The double products of core::compute, on the fastest product kernels this processor has (products.h). */

#include "matrix.h"

namespace core {

/** The right factor of products that many blocks of rows share (W_Q of every block of queries, Kᵀ, V): where it
 *  lies and the largest magnitude of its entries, found once, so that each product checks only its left factor.
 *  It copies nothing: the matrix packed must outlive the products (not a temporary). */
class PackedMatrix {
public:
    PackedMatrix() = default;
    explicit PackedMatrix(MatrixCRef b) { pack(b); }

    /** Refers to b (k × n). */
    void pack(MatrixCRef b) { refer(b, false); }
    /** Refers to btᵀ, given bt (n × k): Q·Kᵀ takes K this way, without forming Kᵀ. */
    void packTransposed(MatrixCRef bt) { refer(bt, true); }

    Eigen::Index rows() const { return m_transposed ? m_cols : m_rows; }
    Eigen::Index cols() const { return m_transposed ? m_rows : m_cols; }

private:
    friend void multiply(MatrixCRef a, const PackedMatrix& b, Eigen::Ref<Matrix> c);
    void refer(MatrixCRef m, bool transposed);

    const double* m_data = nullptr;  ///< b, or bt when transposed: m_rows × m_cols, rows m_stride apart
    Eigen::Index m_rows = 0, m_cols = 0, m_stride = 0;
    bool m_transposed = false;
    double m_maxAbs = 0;  ///< the largest |entry| (NaN when one is NaN)
};

/** c = a · b, overwriting c: a is m × k, b is k × n, c is m × n, all row-major blocks (rows contiguous).
 *  Fused multiply-adds where the processor has them, when no product and no partial sum can overflow
 *  (max|a| · max|b| · k is far below the largest double); otherwise, and whenever an entry is ±∞ or NaN, a
 *  plain sum of rounded products (the baseline build's Eigen), so that non-finite values follow IEEE
 *  arithmetic as in any plain sum (0 · ∞ = NaN, ∞ − ∞ = NaN) and an overflowed product is never hidden by
 *  fusing it with the next. */
void multiply(MatrixCRef a, MatrixCRef b, Eigen::Ref<Matrix> c);

/** The same with b packed beforehand; a may have fewer columns than b has rows, and then only b's first
 *  a.cols() rows take part (a causal block of weights times the values of the tokens it can see). */
void multiply(MatrixCRef a, const PackedMatrix& b, Eigen::Ref<Matrix> c);

/** The level of the product kernels this processor runs, e.g. "x86-64-v4 (AVX-512)" (products.h). */
const char* productLevel();

}  // namespace core
