#include "core/tensor/simd.h"

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

/** exp(x) for every lane x in [vectorExpFloor, 0]: exp(x) = 2^k · exp(r) with x = k·ln 2 + r, |r| ≤ ln 2 / 2,
 *  and exp(r) from its Taylor series to r¹³ (error below 1e-17), evaluated in four independent parts (Estrin's
 *  scheme) so that four products are in flight instead of a chain of thirteen. k comes from adding
 *  1.5·2⁵² + 1023: the sum's low bits are then k + 1023, which shifted into the exponent field is 2^k.
 *  exp(0) is exactly 1. Agrees with std::exp to an ulp or two. One body for both widths: P is the intrinsics'
 *  prefix (_mm256 or _mm512), V the vector of doubles, SI its width in bits (256 or 512). */
#define AE_EXP_VECTOR(P, V, SI)                                                                                    \
    {                                                                                                              \
        constexpr double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;                   \
        const auto c = P##_set1_pd;                                                                                \
        const V shifter = c(6755399441055744.0 + 1023.0);                                                          \
        const V t = P##_fmadd_pd(x, c(1.4426950408889634), shifter);                                               \
        const V k = P##_sub_pd(t, shifter);                                                                        \
        const V r = P##_fnmadd_pd(k, c(ln2Lo), P##_fnmadd_pd(k, c(ln2Hi), x));                                     \
        const V r2 = P##_mul_pd(r, r), r4 = P##_mul_pd(r2, r2), r8 = P##_mul_pd(r4, r4);                           \
        /* 1/0! … 1/13! in pairs c_i + c_{i+1}·r, then pairs of pairs, then the halves */                          \
        const V p01 = P##_fmadd_pd(r, c(1.0), c(1.0)), p23 = P##_fmadd_pd(r, c(1.0 / 6), c(0.5));                 \
        const V p45 = P##_fmadd_pd(r, c(1.0 / 120), c(1.0 / 24)), p67 = P##_fmadd_pd(r, c(1.0 / 5040), c(1.0 / 720)); \
        const V p89 = P##_fmadd_pd(r, c(1.0 / 362880), c(1.0 / 40320));                                           \
        const V p1011 = P##_fmadd_pd(r, c(1.0 / 39916800), c(1.0 / 3628800));                                     \
        const V p1213 = P##_fmadd_pd(r, c(1.0 / 6227020800), c(1.0 / 479001600));                                 \
        const V p03 = P##_fmadd_pd(r2, p23, p01), p47 = P##_fmadd_pd(r2, p67, p45);                                \
        const V p811 = P##_fmadd_pd(r2, p1011, p89);                                                               \
        const V p07 = P##_fmadd_pd(r4, p47, p03), p813 = P##_fmadd_pd(r4, p1213, p811);                            \
        const V p = P##_fmadd_pd(r8, p813, p07);                                                                   \
        return P##_mul_pd(p, P##_castsi##SI##_pd(P##_slli_epi64(P##_castpd_si##SI(t), 52)));                        \
    }

/** AE_EXP_VECTOR on four lanes. */
__attribute__((target("avx2,fma"))) inline __m256d expAvx2(__m256d x) AE_EXP_VECTOR(_mm256, __m256d, 256)

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
// --- the same on AVX-512 -------------------------------------------------------------------------------------

/** SimdKernels::rowRange, eight at a time; the tail under a mask (its lanes outside the row count as −∞ for
 *  the maximum and +∞ for the minimum, and are not NaN). */
__attribute__((target("avx512f"))) RowRange rangeAvx512(const double* in, Index count)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    __m512d hi = _mm512_set1_pd(-inf), lo = _mm512_set1_pd(inf);
    __mmask8 nan = 0;
    for (Index j = 0; j < count; j += 8) {
        const __mmask8 live = count - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (count - j)) - 1);
        const __m512d x = _mm512_maskz_loadu_pd(live, in + j);
        // max_pd / min_pd return their second operand when either is NaN, as in the AVX2 sweep.
        hi = _mm512_mask_max_pd(hi, live, x, hi);
        lo = _mm512_mask_min_pd(lo, live, x, lo);
        nan |= _mm512_mask_cmp_pd_mask(live, x, x, _CMP_UNORD_Q);
    }
    return {_mm512_reduce_max_pd(hi), _mm512_reduce_min_pd(lo), nan != 0};
}

/** AE_EXP_VECTOR on eight lanes. */
__attribute__((target("avx512f"))) inline __m512d expAvx512(__m512d x) AE_EXP_VECTOR(_mm512, __m512d, 512)

/** SimdKernels::expShifted, eight at a time, the tail under a mask (its lanes give exp(0) = 1 and are neither
 *  stored nor summed). The series is long enough that one running sum keeps up with it. */
__attribute__((target("avx512f"))) double expShiftedAvx512(const double* in, double* out, Index count, double max,
                                                           double factor)
{
    const __m512d vmax = _mm512_set1_pd(max), vfactor = _mm512_set1_pd(factor);
    __m512d sum = _mm512_setzero_pd();
    for (Index j = 0; j < count; j += 8) {
        const __mmask8 live = count - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (count - j)) - 1);
        const __m512d e = expAvx512(_mm512_mul_pd(_mm512_sub_pd(_mm512_mask_loadu_pd(vmax, live, in + j), vmax), vfactor));
        _mm512_mask_storeu_pd(out + j, live, e);
        sum = _mm512_mask_add_pd(sum, live, sum, e);
    }
    return _mm512_reduce_add_pd(sum);
}

/** SimdKernels::scale, eight at a time, the tail under a mask. */
__attribute__((target("avx512f"))) void scaleAvx512(double* out, Index count, double factor)
{
    const __m512d s = _mm512_set1_pd(factor);
    for (Index j = 0; j < count; j += 8) {
        const __mmask8 live = count - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (count - j)) - 1);
        _mm512_mask_storeu_pd(out + j, live, _mm512_mul_pd(_mm512_maskz_loadu_pd(live, out + j), s));
    }
}

// --- a colour scale's levels ------------------------------------------------------------------------------
// The portable loop (render::ColourScale::indices) is min(max(t, 0), 1) · top + 0.5, truncated: the same
// operations one by one, multiplying and adding apart. max_pd returns 0 for a NaN t, which the blend replaces.

/** The levels q as ints, −1 where t is NaN. */
__attribute__((target("avx2"))) inline __m128i levelInts(__m256d q, __m256d t)
{
    return _mm256_cvttpd_epi32(_mm256_blendv_pd(q, _mm256_set1_pd(-1.0), _mm256_cmp_pd(t, t, _CMP_UNORD_Q)));
}

__attribute__((target("avx512f"))) inline __m256i levelInts(__m512d q, __m512d t)
{
    return _mm512_cvttpd_epi32(_mm512_mask_blend_pd(_mm512_cmp_pd_mask(t, t, _CMP_UNORD_Q), q, _mm512_set1_pd(-1.0)));
}

__attribute__((target("avx2"))) inline void storeLevels(int* out, __m256d q, __m256d t)
{
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), levelInts(q, t));
}

__attribute__((target("avx512f"))) inline void storeLevels(int* out, __m512d q, __m512d t)
{
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), levelInts(q, t));
}

/** The entries of lut at the levels q, nan where t is NaN, stored at out: a gather of the other lanes. */
__attribute__((target("avx2"))) inline void storeColours(std::uint32_t* out, __m256d q, __m256d t,
                                                         const std::uint32_t* lut, std::uint32_t nan)
{
    const __m128i at = levelInts(q, t);
    const __m128i live = _mm_cmpgt_epi32(at, _mm_set1_epi32(-1));
    const __m128i c = _mm_mask_i32gather_epi32(_mm_set1_epi32(int(nan)), reinterpret_cast<const int*>(lut), at, live,
                                               4);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), c);
}

__attribute__((target("avx512f"))) inline void storeColours(std::uint32_t* out, __m512d q, __m512d t,
                                                            const std::uint32_t* lut, std::uint32_t nan)
{
    const __m512i at = _mm512_castsi256_si512(levelInts(q, t));  // eight of sixteen lanes: the mask says which
    const __mmask16 live = _mm512_cmpgt_epi32_mask(at, _mm512_set1_epi32(-1)) & 0xff;
    const __m512i c = _mm512_mask_i32gather_epi32(_mm512_set1_epi32(int(nan)), live, at, lut, 4);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_castsi512_si256(c));
}

/** SimdKernels::levels and ::colours for both widths: P is the intrinsics' prefix (_mm256 or _mm512), V the vector
 *  of doubles, W its lanes, STORE(j, q, t) what is done with the levels q of in[j …] and their t. */
#define AE_LEVELS_VECTOR(P, V, W, STORE)                                                                           \
    {                                                                                                              \
        const V l = P##_set1_pd(lo), s = P##_set1_pd(span), k = P##_set1_pd(top);                                  \
        const V zero = P##_setzero_pd(), one = P##_set1_pd(1.0), half = P##_set1_pd(0.5);                          \
        Index j = 0;                                                                                               \
        for (; j + W <= count; j += W) {                                                                           \
            const V t = P##_div_pd(P##_sub_pd(P##_loadu_pd(in + j), l), s);                                        \
            STORE(j, P##_add_pd(P##_mul_pd(P##_min_pd(P##_max_pd(t, zero), one), k), half), t);                   \
        }                                                                                                          \
        return j;                                                                                                  \
    }
#define AE_STORE_LEVELS(j, q, t) storeLevels(out + (j), q, t)
#define AE_STORE_COLOURS(j, q, t) storeColours(out + (j), q, t, lut, nan)

/** SimdKernels::levels, four at a time. */
__attribute__((target("avx2"))) Index levelsAvx2(const double* in, Index count, double lo, double span, double top,
                                                 int* out) AE_LEVELS_VECTOR(_mm256, __m256d, 4, AE_STORE_LEVELS)

/** SimdKernels::levels, eight at a time. */
__attribute__((target("avx512f"))) Index levelsAvx512(const double* in, Index count, double lo, double span,
                                                      double top, int* out) AE_LEVELS_VECTOR(_mm512, __m512d, 8,
                                                                                             AE_STORE_LEVELS)

/** SimdKernels::colours, four at a time. */
__attribute__((target("avx2"))) Index coloursAvx2(const double* in, Index count, double lo, double span, double top,
                                                  const std::uint32_t* lut, std::uint32_t nan, std::uint32_t* out)
    AE_LEVELS_VECTOR(_mm256, __m256d, 4, AE_STORE_COLOURS)

/** SimdKernels::colours, eight at a time. */
__attribute__((target("avx512f"))) Index coloursAvx512(const double* in, Index count, double lo, double span,
                                                       double top, const std::uint32_t* lut, std::uint32_t nan,
                                                       std::uint32_t* out) AE_LEVELS_VECTOR(_mm512, __m512d, 8,
                                                                                            AE_STORE_COLOURS)

constexpr SimdKernels avx2Fma{rangeAvx2, expShiftedAvx2, scaleAvx2, levelsAvx2, coloursAvx2};
constexpr SimdKernels avx512{rangeAvx512, expShiftedAvx512, scaleAvx512, levelsAvx512, coloursAvx512};

}  // namespace

const SimdKernels* simdKernels()
{
    static const SimdKernels* const chosen = __builtin_cpu_supports("avx512f") ? &avx512
                                             : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                                                 ? &avx2Fma
                                                 : nullptr;
    return chosen;
}

#else

const SimdKernels* simdKernels()
{
    return nullptr;
}

#endif

}  // namespace core
