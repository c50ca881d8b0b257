#include "gemm.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AE_AVX2_GEMM 1
#endif

namespace core {

namespace {

using Index = Eigen::Index;

#if defined(AE_AVX2_GEMM)
/** Steps of k per pass: a pass's rows of b (kc × n doubles) stay in the second-level cache while every
 *  block of rows of a goes over them. */
constexpr Index kc = 256;

/** c(rows i..i+R, columns j..j+8) (+)= a(rows, k0..k0+kk) · b(k0..k0+kk, columns): R rows of eight columns
 *  in 2R registers, one broadcast of a and two loads of b per step of k. Each product is rounded before it
 *  is added, as in a plain sum (no FMA, which is also why the target leaves it out): a fused ∞ · x − ∞ of
 *  two overflowing terms would give ±∞ where the sum of the rounded products is NaN. */
template <int R>
__attribute__((target("avx2"))) inline void tile(const double* a, Index lda, const double* b, Index ldb, double* c,
                                                     Index ldc, Index kk, bool accumulate)
{
    // The loops over r are unrolled so that the 2R sums stay in registers at any optimisation level.
    __m256d lo[R], hi[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        lo[r] = accumulate ? _mm256_loadu_pd(c + r * ldc) : _mm256_setzero_pd();
        hi[r] = accumulate ? _mm256_loadu_pd(c + r * ldc + 4) : _mm256_setzero_pd();
    }
    for (Index p = 0; p < kk; ++p, b += ldb) {
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
        _mm256_storeu_pd(c + r * ldc, lo[r]);
        _mm256_storeu_pd(c + r * ldc + 4, hi[r]);
    }
}

__attribute__((target("avx2"))) void multiplyAvx2(const double* a, Index lda, const double* b, Index ldb, double* c,
                                                      Index ldc, Index m, Index k, Index n)
{
    const Index n8 = n / 8 * 8;
    for (Index k0 = 0; k0 < k || k0 == 0; k0 += kc) {
        const Index kk = std::min(kc, k - k0);
        const bool accumulate = k0 > 0;
        Index i = 0;
        for (; i + 4 <= m; i += 4)
            for (Index j = 0; j < n8; j += 8)
                tile<4>(a + i * lda + k0, lda, b + k0 * ldb + j, ldb, c + i * ldc + j, ldc, kk, accumulate);
        for (; i < m; ++i)
            for (Index j = 0; j < n8; j += 8)
                tile<1>(a + i * lda + k0, lda, b + k0 * ldb + j, ldb, c + i * ldc + j, ldc, kk, accumulate);
        if (k == 0)
            break;
    }
    // The last n mod 8 columns, one dot product each, in the same order of k.
    for (Index i = 0; i < m; ++i)
        for (Index j = n8; j < n; ++j) {
            double sum = 0.0;
            for (Index p = 0; p < k; ++p)
                sum += a[i * lda + p] * b[p * ldb + j];
            c[i * ldc + j] = sum;
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

void multiply(Eigen::Ref<const Matrix> a, Eigen::Ref<const Matrix> b, Eigen::Ref<Matrix> c)
{
    eigen_assert(a.cols() == b.rows() && c.rows() == a.rows() && c.cols() == b.cols());
#if defined(AE_AVX2_GEMM)
    if (haveAvx2Fma()) {
        multiplyAvx2(a.data(), a.outerStride(), b.data(), b.outerStride(), c.data(), c.outerStride(), a.rows(), a.cols(),
                     b.cols());
        return;
    }
#endif
    c.noalias() = a * b;
}

}  // namespace core
