#include "simd.h"
#include "sgemmavx2.h"

#include <algorithm>
#include <cmath>
#include <limits>

// The one switch for processor-specific code: every intrinsic of the engine is in this file, behind it.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AE_X86_KERNELS 1
#endif

namespace core {

#if defined(AE_X86_KERNELS)
namespace {

using Index = Eigen::Index;

// --- the product ---------------------------------------------------------------------------------------------

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
    for (Index p = 0; p < kk; ++p, b += panelWidth) {
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

/** SimdKernels::multiply: for each pass of panelDepth rows of b, every panel over every row of a. */
__attribute__((target("avx2"))) void multiplyAvx2(const double* a, Index lda, const double* panels, Index bRows,
                                                      Index bCols, double* c, Index ldc, Index m, Index k)
{
    if (k == 0) {
        for (Index i = 0; i < m; ++i)
            std::fill(c + i * ldc, c + i * ldc + bCols, 0.0);
        return;
    }
    const Index full = bCols / panelWidth, edge = bCols % panelWidth;
    // Lanes of the last panel that are columns of c (mask lanes with the sign bit set are read and written).
    alignas(32) long long lanes[panelWidth];
    for (Index l = 0; l < panelWidth; ++l)
        lanes[l] = l < edge ? -1 : 0;
    const __m256i maskLo = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
    const __m256i maskHi = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes + 4));
    for (Index k0 = 0; k0 < k; k0 += panelDepth) {
        const Index kk = std::min(panelDepth, k - k0);
        const bool accumulate = k0 > 0;
        for (Index j = 0; j < full; ++j)
            panelColumn<false>(a + k0, lda, panels + panelOffset(k0, bRows, bCols, j), c + j * panelWidth, ldc, m,
                               kk, accumulate, maskLo, maskHi);
        if (edge)
            panelColumn<true>(a + k0, lda, panels + panelOffset(k0, bRows, bCols, full), c + full * panelWidth,
                              ldc, m, kk, accumulate, maskLo, maskHi);
    }
}
// --- the softmax's row sweeps ---------------------------------------------------------------------------

/** SimdKernels::rowRange, four at a time. */
__attribute__((target("avx2"))) RowRange rangeAvx2(const double* in, Index count)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    // max_pd / min_pd return their second operand when either is NaN: a NaN entry never replaces the running
    // extremes, and the unordered compare records it instead.
    __m256d hi = _mm256_set1_pd(-inf), lo = _mm256_set1_pd(inf), nan = _mm256_setzero_pd();
    Index j = 0;
    for (; j + 4 <= count; j += 4) {
        const __m256d x = _mm256_loadu_pd(in + j);
        hi = _mm256_max_pd(x, hi);
        lo = _mm256_min_pd(x, lo);
        nan = _mm256_or_pd(nan, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
    }
    alignas(32) double his[4], los[4];
    _mm256_store_pd(his, hi);
    _mm256_store_pd(los, lo);
    RowRange r{std::max({his[0], his[1], his[2], his[3]}), std::min({los[0], los[1], los[2], los[3]}),
               _mm256_movemask_pd(nan) != 0};
    for (; j < count; ++j) {
        if (std::isnan(in[j])) {
            r.nan = true;
            continue;
        }
        r.max = std::max(r.max, in[j]);
        r.min = std::min(r.min, in[j]);
    }
    return r;
}

/** exp(x) for four x in [vectorExpFloor, 0]: exp(x) = 2^k · exp(r) with x = k·ln 2 + r, |r| ≤ ln 2 / 2, and
 *  exp(r) from its Taylor series to r¹³ (error below 1e-17), evaluated in four independent parts (Estrin's
 *  scheme) so that four products are in flight instead of a chain of thirteen. k comes from adding
 *  1.5·2⁵² + 1023: the sum's low bits are then k + 1023, which shifted into the exponent field is 2^k.
 *  exp(0) is exactly 1. Agrees with std::exp to an ulp or two. */
__attribute__((target("avx2,fma"))) inline __m256d expAvx2(__m256d x)
{
    constexpr double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
    const __m256d shifter = _mm256_set1_pd(6755399441055744.0 + 1023.0);
    const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(1.4426950408889634), shifter);
    const __m256d k = _mm256_sub_pd(t, shifter);
    const __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(ln2Lo), _mm256_fnmadd_pd(k, _mm256_set1_pd(ln2Hi), x));
    const auto c = _mm256_set1_pd;
    const __m256d r2 = _mm256_mul_pd(r, r), r4 = _mm256_mul_pd(r2, r2), r8 = _mm256_mul_pd(r4, r4);
    // 1/0! … 1/13! in pairs c_i + c_{i+1}·r, then pairs of pairs, then the halves
    const __m256d p01 = _mm256_fmadd_pd(r, c(1.0), c(1.0)), p23 = _mm256_fmadd_pd(r, c(1.0 / 6), c(0.5));
    const __m256d p45 = _mm256_fmadd_pd(r, c(1.0 / 120), c(1.0 / 24)), p67 = _mm256_fmadd_pd(r, c(1.0 / 5040), c(1.0 / 720));
    const __m256d p89 = _mm256_fmadd_pd(r, c(1.0 / 362880), c(1.0 / 40320));
    const __m256d p1011 = _mm256_fmadd_pd(r, c(1.0 / 39916800), c(1.0 / 3628800));
    const __m256d p1213 = _mm256_fmadd_pd(r, c(1.0 / 6227020800), c(1.0 / 479001600));
    const __m256d p03 = _mm256_fmadd_pd(r2, p23, p01), p47 = _mm256_fmadd_pd(r2, p67, p45);
    const __m256d p811 = _mm256_fmadd_pd(r2, p1011, p89);
    const __m256d p07 = _mm256_fmadd_pd(r4, p47, p03), p813 = _mm256_fmadd_pd(r4, p1213, p811);
    const __m256d p = _mm256_fmadd_pd(r8, p813, p07);
    return _mm256_mul_pd(p, _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(t), 52)));
}

/** SimdKernels::expShifted, eight at a time. */
__attribute__((target("avx2,fma"))) double expShiftedAvx2(const double* in, double* out, Index count, double max,
                                                         double factor)
{
    const __m256d vmax = _mm256_set1_pd(max), vfactor = _mm256_set1_pd(factor);
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    Index j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m256d e0 = expAvx2(_mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(in + j), vmax), vfactor));
        const __m256d e1 = expAvx2(_mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(in + j + 4), vmax), vfactor));
        _mm256_storeu_pd(out + j, e0);
        _mm256_storeu_pd(out + j + 4, e1);
        acc0 = _mm256_add_pd(acc0, e0);
        acc1 = _mm256_add_pd(acc1, e1);
    }
    if (j + 4 <= count) {
        const __m256d e = expAvx2(_mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(in + j), vmax), vfactor));
        _mm256_storeu_pd(out + j, e);
        acc0 = _mm256_add_pd(acc0, e);
        j += 4;
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, _mm256_add_pd(acc0, acc1));
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; j < count; ++j) {
        out[j] = std::exp((in[j] - max) * factor);
        sum += out[j];
    }
    return sum;
}

/** SimdKernels::scale, four at a time. */
__attribute__((target("avx2"))) void scaleAvx2(double* out, Index count, double factor)
{
    const __m256d s = _mm256_set1_pd(factor);
    Index j = 0;
    for (; j + 4 <= count; j += 4)
        _mm256_storeu_pd(out + j, _mm256_mul_pd(_mm256_loadu_pd(out + j), s));
    for (; j < count; ++j)
        out[j] *= factor;
}
#if defined(AE_SGEMM_AVX2)
constexpr auto sgemm = sgemmAvx2;
#else
constexpr decltype(&sgemmAvx2) sgemm = nullptr;  // a compiler the build does not give -mavx2 -mfma
#endif
constexpr SimdKernels avx2Fma{multiplyAvx2, rangeAvx2, expShiftedAvx2, scaleAvx2, sgemm};

}  // namespace

const SimdKernels* simdKernels()
{
    static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return have ? &avx2Fma : nullptr;
}

#else

const SimdKernels* simdKernels()
{
    return nullptr;
}

#endif

}  // namespace core
