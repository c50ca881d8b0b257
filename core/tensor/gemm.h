#pragma once
/** The double products of core::compute, on the fastest product kernels this processor has (products.h). */

#include "core/tensor/matrix.h"
#include "core/tensor/products.h"

namespace core {

/** The largest |entry| of m: NaN when an entry is NaN, 0 when m is empty (on the fastest kernel). */
double maxAbs(MatrixCRef m);

/** to = from (to resized first, in its own storage when the size is the same), returning the largest |entry|
 *  of from as maxAbs() does, in one pass over from instead of two. */
double copyMeasuring(const Matrix& from, Matrix& to);

/** The right factor of products that many blocks of rows share (W_Q of every block of queries, Kᵀ, V): where it
 *  lies and the largest magnitude of its entries, found once, so that each product checks only its left factor.
 *  It copies nothing: the matrix referred to must outlive the products (not a temporary). */
class SharedFactor {
public:
    SharedFactor() = default;
    explicit SharedFactor(MatrixCRef b) { refer(b); }
    SharedFactor(MatrixCRef b, double bound) { refer(b, bound); }

    /** Refers to b (k × n). */
    void refer(MatrixCRef b) { set(b, false, maxAbs(b)); }
    /** Refers to btᵀ, given bt (n × k): Q·Kᵀ takes K this way, without forming Kᵀ. */
    void referTransposed(MatrixCRef bt) { set(bt, true, maxAbs(bt)); }
    /** The same with the largest |entry| known already (from the pass that wrote or checked b): any bound no
     *  smaller than it, or NaN when an entry is NaN. A bound too large only takes the careful path sooner. */
    void refer(MatrixCRef b, double bound) { set(b, false, bound); }
    void referTransposed(MatrixCRef bt, double bound) { set(bt, true, bound); }
    /** The same for columns [first, first + b.cols()) of a weight packed beforehand into panels (which must
     *  outlive the products too): the products read the panels instead of b wherever the panels can serve. */
    SharedFactor(MatrixCRef b, double bound, const PackedDoubleWeight* panels, Eigen::Index first)
    {
        set(b, false, bound);
        m_panels = panels;
        m_first = first;
    }

    Eigen::Index rows() const { return m_transposed ? m_cols : m_rows; }
    Eigen::Index cols() const { return m_transposed ? m_rows : m_cols; }

private:
    friend void multiply(MatrixCRef a, double boundA, const SharedFactor& b, Eigen::Ref<Matrix> c);
    void set(MatrixCRef m, bool transposed, double bound);

    const double* m_data = nullptr;  ///< b, or bt when transposed: m_rows × m_cols, rows m_stride apart
    Eigen::Index m_rows = 0, m_cols = 0, m_stride = 0;
    bool m_transposed = false;
    double m_maxAbs = 0;  ///< the largest |entry| (NaN when one is NaN)
    const PackedDoubleWeight* m_panels = nullptr;  ///< b packed (with the weight's other columns), or none
    Eigen::Index m_first = 0;                      ///< b's first column in the panels
};

/** c = a · b, overwriting c: a is m × k, b is k × n, c is m × n, all row-major blocks (rows contiguous).
 *  Fused multiply-adds where the processor has them, when no product and no partial sum can overflow
 *  (max|a| · max|b| · k is far below the largest double); otherwise, and whenever an entry is ±∞ or NaN, a
 *  plain sum of rounded products (the baseline build's Eigen), so that non-finite values follow IEEE
 *  arithmetic as in any plain sum (0 · ∞ = NaN, ∞ − ∞ = NaN) and an overflowed product is never hidden by
 *  fusing it with the next. */
void multiply(MatrixCRef a, MatrixCRef b, Eigen::Ref<Matrix> c);

/** The same with b referred to beforehand; a may have fewer columns than b has rows, and then only b's first
 *  a.cols() rows take part (a causal block of weights times the values of the tokens it can see). */
void multiply(MatrixCRef a, const SharedFactor& b, Eigen::Ref<Matrix> c);

/** The same with a bound of a's largest |entry| known already (as SharedFactor::refer takes one): the weights
 *  of a softmax are at most 1, and X's magnitude is found once for all its blocks. */
void multiply(MatrixCRef a, double boundA, const SharedFactor& b, Eigen::Ref<Matrix> c);

/** The level of the product kernels this processor runs, e.g. "x86-64-v4 (AVX-512)" (products.h). */
const char* productLevel();

}  // namespace core
