#include "gemm.h"

#include "simd.h"

#include <algorithm>
#include <cstring>

namespace core {

namespace {

using Index = Eigen::Index;

/** Calls fill(out, k0, kk, j, width) for every panel of a rows × cols factor laid out in panels (simd.h): out
 *  is where panel j of the pass starting at row k0 begins (kk rows of eight, width of them columns of the
 *  factor, the rest to be zeros). */
template <typename Fill>
void forEachPanel(Index rows, Index cols, double* panels, Fill fill)
{
    for (Index k0 = 0; k0 < rows; k0 += panelDepth)
        for (Index j = 0; j * panelWidth < cols; ++j)
            fill(panels + panelOffset(k0, rows, cols, j), k0, std::min(panelDepth, rows - k0), j,
                 std::min(panelWidth, cols - j * panelWidth));
}

}  // namespace

bool haveAvx2Fma()
{
    return simdKernels() != nullptr;
}

void PackedMatrix::resize(Index rows, Index cols)
{
    m_rows = rows;
    m_cols = cols;
    m_panels.resize(std::size_t(rows * panelsOf(cols) * panelWidth));
}

void PackedMatrix::pack(MatrixCRef b)
{
    if (!haveAvx2Fma()) {
        m_plain = b;
        m_rows = b.rows();
        m_cols = b.cols();
        return;
    }
    resize(b.rows(), b.cols());
    forEachPanel(m_rows, m_cols, m_panels.data(), [&](double* out, Index k0, Index kk, Index j, Index width) {
        for (Index p = 0; p < kk; ++p, out += panelWidth) {
            std::memcpy(out, b.row(k0 + p).data() + j * panelWidth, std::size_t(width) * sizeof(double));
            std::fill(out + width, out + panelWidth, 0.0);
        }
    });
}

void PackedMatrix::packTransposed(MatrixCRef bt)
{
    if (!haveAvx2Fma()) {
        m_plain = bt.transpose();
        m_rows = bt.cols();
        m_cols = bt.rows();
        return;
    }
    resize(bt.cols(), bt.rows());
    forEachPanel(m_rows, m_cols, m_panels.data(), [&](double* out, Index k0, Index kk, Index j, Index width) {
        // Column l of the panel is row j·8 + l of bt, read along its contiguous row.
        for (Index l = 0; l < panelWidth; ++l) {
            const double* row = l < width ? bt.row(j * panelWidth + l).data() + k0 : nullptr;
            for (Index p = 0; p < kk; ++p)
                out[p * panelWidth + l] = row ? row[p] : 0.0;
        }
    });
}

void multiply(MatrixCRef a, const PackedMatrix& b, Eigen::Ref<Matrix> c)
{
    eigen_assert(a.cols() <= b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
    if (const SimdKernels* kernels = simdKernels()) {
        kernels->multiply(a.data(), a.outerStride(), b.m_panels.data(), b.m_rows, b.m_cols, c.data(),
                          c.outerStride(), a.rows(), a.cols());
        return;
    }
    c.noalias() = a * b.m_plain.topRows(a.cols());
}

void multiply(MatrixCRef a, MatrixCRef b, Eigen::Ref<Matrix> c)
{
    eigen_assert(a.cols() == b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
    if (!haveAvx2Fma()) {
        c.noalias() = a * b;
        return;
    }
    thread_local PackedMatrix packed;  // its storage stays for the thread's next product
    packed.pack(b);
    multiply(a, packed, c);
}

}  // namespace core
