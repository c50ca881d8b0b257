#include "core/tensor/gemm.h"

#include "core/tensor/products.h"

#include <limits>

namespace core {

namespace {

using Index = Eigen::Index;

/** True when a product with inner size k of factors no larger than maxA and maxB in magnitude can neither
 *  overflow a product nor a partial sum: fused and plain sums then differ only in rounding. False for NaN
 *  and ±∞. */
bool fusingIsSafe(double maxA, double maxB, Index k)
{
    return maxA * maxB * double(k) <= std::numeric_limits<double>::max() / 4;
}

/** c = a · (b, first a.cols() rows; or btᵀ, first a.cols() columns of bt). */
void product(MatrixCRef a, double maxA, const double* b, Index ldb, bool transposed, double maxB,
             Eigen::Ref<Matrix> c)
{
    const Index k = a.cols();
    if (fusingIsSafe(maxA, maxB, k)) {
        productKernels().dgemm(a.data(), a.outerStride(), b, ldb, transposed, c.data(), c.outerStride(), a.rows(),
                               c.cols(), k);
        return;
    }
    // The careful path: Eigen of the baseline build, whose kernel multiplies and adds separately.
    using Stride = Eigen::OuterStride<>;
    if (k == 0)
        c.setZero();
    else if (transposed)
        c.noalias() = a * Eigen::Map<const Matrix, 0, Stride>(b, c.cols(), k, Stride(ldb)).transpose();
    else
        c.noalias() = a * Eigen::Map<const Matrix, 0, Stride>(b, k, c.cols(), Stride(ldb));
}

}  // namespace

double maxAbs(MatrixCRef m)
{
    return productKernels().maxAbs(m.data(), m.outerStride(), m.rows(), m.cols());
}

double copyMeasuring(const Matrix& from, Matrix& to)
{
    to.resize(from.rows(), from.cols());
    return productKernels().copyMaxAbs(from.data(), to.data(), from.size());
}

const char* productLevel()
{
    return productKernels().level;
}

void SharedFactor::set(MatrixCRef m, bool transposed, double bound)
{
    m_data = m.data();
    m_rows = m.rows();
    m_cols = m.cols();
    m_stride = m.outerStride();
    m_transposed = transposed;
    m_maxAbs = bound;
}

void multiply(MatrixCRef a, double boundA, const SharedFactor& b, Eigen::Ref<Matrix> c)
{
    eigen_assert(a.cols() <= b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
    if (b.m_panels && a.cols() == b.m_panels->k && fusingIsSafe(boundA, b.m_maxAbs, a.cols())) {
        productKernels().packedDoubleProduct(a.data(), a.outerStride(), *b.m_panels, b.m_first, c.cols(), b.m_data,
                                             b.m_stride, c.data(), c.outerStride(), a.rows());
        return;
    }
    product(a, boundA, b.m_data, b.m_stride, b.m_transposed, b.m_maxAbs, c);
}

void multiply(MatrixCRef a, const SharedFactor& b, Eigen::Ref<Matrix> c)
{
    multiply(a, maxAbs(a), b, c);
}

void multiply(MatrixCRef a, MatrixCRef b, Eigen::Ref<Matrix> c)
{
    eigen_assert(a.cols() == b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
    product(a, maxAbs(a), b.data(), b.outerStride(), false, maxAbs(b), c);
}

}  // namespace core
