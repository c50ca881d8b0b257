#include "gemm.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AE_AVX2_GEMM 1
#endif

namespace core {

namespace {

using Index = Eigen::Index;

/** Steps of k per pass: a pass's panel of b (kc × 8 doubles, 16 KiB) stays in the first-level cache while
 *  every block of rows of a goes over it. */
constexpr Index kc = 256;
/** Columns per panel: two AVX2 registers. */
constexpr Index panel = 8;

Index panelsOf(Index cols)
{
    return (cols + panel - 1) / panel;
}

/** Where the panel `j` of the pass starting at row k0 begins: passes one after another, each pass's panels
 *  one after another, kk × 8 doubles each. */
Index panelOffset(Index k0, Index rows, Index cols, Index j)
{
    return k0 * panelsOf(cols) * panel + j * std::min(kc, rows - k0) * panel;
}

#if defined(AE_AVX2_GEMM)
/** c(R rows, 8 columns) (+)= a(R rows, kk) · one panel (kk × 8, contiguous): R rows of eight columns in 2R
 *  registers, one broadcast of a and two loads of the panel per step of k. Each product is rounded before it
 *  is added, as in a plain sum (no FMA, which is also why the target leaves it out): a fused ∞ · x − ∞ of
 *  two overflowing terms would give ±∞ where the sum of the rounded products is NaN. With Edge, only the
 *  columns whose mask lanes are set are read from and written to c (the last, narrower panel). */
template <int R, bool Edge>
__attribute__((target("avx2"))) inline void tile(const double* a, Index lda, const double* b, double* c, Index ldc,
                                                     Index kk, bool accumulate, __m256i maskLo, __m256i maskHi)
{
    // The loops over r are unrolled so that the 2R sums stay in registers at any optimisation level.
    __m256d lo[R], hi[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        if (!accumulate) {
            lo[r] = hi[r] = _mm256_setzero_pd();
        } else if (Edge) {
            lo[r] = _mm256_maskload_pd(c + r * ldc, maskLo);
            hi[r] = _mm256_maskload_pd(c + r * ldc + 4, maskHi);
        } else {
            lo[r] = _mm256_loadu_pd(c + r * ldc);
            hi[r] = _mm256_loadu_pd(c + r * ldc + 4);
        }
    }
    for (Index p = 0; p < kk; ++p, b += panel) {
        const __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256d x = _mm256_broadcast_sd(a + r * lda + p);
            lo[r] = _mm256_add_pd(lo[r], _mm256_mul_pd(x, b0));
            hi[r] = _mm256_add_pd(hi[r], _mm256_mul_pd(x, b1));
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        if (Edge) {
            _mm256_maskstore_pd(c + r * ldc, maskLo, lo[r]);
            _mm256_maskstore_pd(c + r * ldc + 4, maskHi, hi[r]);
        } else {
            _mm256_storeu_pd(c + r * ldc, lo[r]);
            _mm256_storeu_pd(c + r * ldc + 4, hi[r]);
        }
    }
}

/** Rows per tile: 6 × 8 sums take 12 of the 16 registers, leaving the panel's two and the broadcast. */
constexpr int tileRows = 6;

/** One panel for every row of a, tileRows at a time, then the rows left over in one narrower tile. */
template <bool Edge>
__attribute__((target("avx2"))) void panelColumn(const double* a, Index lda, const double* b, double* c, Index ldc,
                                                     Index m, Index kk, bool accumulate, __m256i maskLo,
                                                     __m256i maskHi)
{
    Index i = 0;
    for (; i + tileRows <= m; i += tileRows)
        tile<tileRows, Edge>(a + i * lda, lda, b, c + i * ldc, ldc, kk, accumulate, maskLo, maskHi);
    a += i * lda;
    c += i * ldc;
    switch (m - i) {
    case 5: tile<5, Edge>(a, lda, b, c, ldc, kk, accumulate, maskLo, maskHi); break;
    case 4: tile<4, Edge>(a, lda, b, c, ldc, kk, accumulate, maskLo, maskHi); break;
    case 3: tile<3, Edge>(a, lda, b, c, ldc, kk, accumulate, maskLo, maskHi); break;
    case 2: tile<2, Edge>(a, lda, b, c, ldc, kk, accumulate, maskLo, maskHi); break;
    case 1: tile<1, Edge>(a, lda, b, c, ldc, kk, accumulate, maskLo, maskHi); break;
    default: break;
    }
    static_assert(tileRows == 6, "one case per row count below tileRows");
}

__attribute__((target("avx2"))) void multiplyAvx2(const double* a, Index lda, const double* panels, Index bRows,
                                                      Index bCols, double* c, Index ldc, Index m, Index k)
{
    if (k == 0) {
        for (Index i = 0; i < m; ++i)
            std::fill(c + i * ldc, c + i * ldc + bCols, 0.0);
        return;
    }
    const Index full = bCols / panel, edge = bCols % panel;
    // Lanes of the last panel that are columns of c (mask lanes with the sign bit set are read and written).
    alignas(32) long long lanes[panel];
    for (Index l = 0; l < panel; ++l)
        lanes[l] = l < edge ? -1 : 0;
    const __m256i maskLo = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
    const __m256i maskHi = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes + 4));
    for (Index k0 = 0; k0 < k; k0 += kc) {
        const Index kk = std::min(kc, k - k0);
        const bool accumulate = k0 > 0;
        for (Index j = 0; j < full; ++j)
            panelColumn<false>(a + k0, lda, panels + panelOffset(k0, bRows, bCols, j), c + j * panel, ldc, m, kk,
                               accumulate, maskLo, maskHi);
        if (edge)
            panelColumn<true>(a + k0, lda, panels + panelOffset(k0, bRows, bCols, full), c + full * panel, ldc, m,
                              kk, accumulate, maskLo, maskHi);
    }
}
#endif

}  // namespace

bool haveAvx2Fma()
{
#if defined(AE_AVX2_GEMM)
    static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return have;
#else
    return false;
#endif
}

void PackedMatrix::resize(Index rows, Index cols)
{
    m_rows = rows;
    m_cols = cols;
    m_panels.resize(std::size_t(rows * panelsOf(cols) * panel));
}

namespace {

/** Calls fill(out, k0, kk, j, width) for every panel of a rows × cols factor laid out in panels: out is where
 *  panel j of the pass starting at row k0 begins (kk rows of eight, width of them columns of the factor, the
 *  rest to be zeros). */
template <typename Fill>
void forEachPanel(Index rows, Index cols, double* panels, Fill fill)
{
    for (Index k0 = 0; k0 < rows; k0 += kc)
        for (Index j = 0; j * panel < cols; ++j)
            fill(panels + panelOffset(k0, rows, cols, j), k0, std::min(kc, rows - k0), j,
                 std::min(panel, cols - j * panel));
}

}  // namespace

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
        for (Index p = 0; p < kk; ++p, out += panel) {
            std::memcpy(out, b.row(k0 + p).data() + j * panel, std::size_t(width) * sizeof(double));
            std::fill(out + width, out + panel, 0.0);
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
        for (Index l = 0; l < panel; ++l) {
            const double* row = l < width ? bt.row(j * panel + l).data() + k0 : nullptr;
            for (Index p = 0; p < kk; ++p)
                out[p * panel + l] = row ? row[p] : 0.0;
        }
    });
}

void multiply(MatrixCRef a, const PackedMatrix& b, Eigen::Ref<Matrix> c)
{
    eigen_assert(a.cols() <= b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
#if defined(AE_AVX2_GEMM)
    if (haveAvx2Fma()) {
        multiplyAvx2(a.data(), a.outerStride(), b.m_panels.data(), b.m_rows, b.m_cols, c.data(), c.outerStride(),
                     a.rows(), a.cols());
        return;
    }
#endif
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
