#pragma once
/** The engine's processor-specific kernels behind one small interface: the register tiles of the product and
 *  the row sweeps of the softmax, on AVX2 and FMA. All of them live in simd.cpp, the only file with
 *  intrinsics; their callers (gemm.cpp, attention.cpp) keep a portable Eigen path for when there are none. */

#include <Eigen/Core>

#include <algorithm>
#include <cstddef>

namespace core {

/** How the right factor of a product is laid out for the product kernel (PackedMatrix): its columns in panels
 *  of panelWidth, panelDepth rows per pass; the passes one after another, within a pass the panels one after
 *  another, each kk × panelWidth doubles (kk = the pass's rows), the last panel zero-padded. */
constexpr Eigen::Index panelWidth = 8;    ///< columns per panel: two AVX2 registers
constexpr Eigen::Index panelDepth = 256;  ///< rows per pass: a panel (16 KiB) stays in the first-level cache

/** Panels of a factor with cols columns. */
inline Eigen::Index panelsOf(Eigen::Index cols)
{
    return (cols + panelWidth - 1) / panelWidth;
}

/** Where panel j of the pass starting at row k0 of a rows × cols factor begins, in doubles. */
inline Eigen::Index panelOffset(Eigen::Index k0, Eigen::Index rows, Eigen::Index cols, Eigen::Index j)
{
    return k0 * panelsOf(cols) * panelWidth + j * std::min(panelDepth, rows - k0) * panelWidth;
}

/** The vectorised exponentials agree with std::exp to an ulp or two down to this exponent; below it std::exp
 *  goes subnormal and then exactly 0, which they do not. */
constexpr double vectorExpFloor = -708.0;

/** What pass 1 of the softmax needs of a row, in one sweep: its largest entry not NaN (−∞ when there is
 *  none), its smallest, and whether any entry is NaN. */
struct RowRange {
    double max, min;
    bool nan;
};

/** The kernels of one processor. */
struct SimdKernels {
    /** c = a · b: a is m × k (rows lda apart), b is bRows × bCols laid out in panels (k ≤ bRows: only b's
     *  first k rows take part), c is m × bCols (rows ldc apart), overwritten. Each entry is a plain sum of
     *  rounded products over k in order (no fused multiply-add), so non-finite values follow IEEE arithmetic
     *  as in any plain sum. */
    void (*multiply)(const double* a, Eigen::Index lda, const double* panels, Eigen::Index bRows, Eigen::Index bCols,
                     double* c, Eigen::Index ldc, Eigen::Index m, Eigen::Index k);
    /** The RowRange of in[0, count). */
    RowRange (*rowRange)(const double* in, Eigen::Index count);
    /** out[j] = exp((in[j] − max) · factor) for j < count; returns their sum. Every exponent must lie in
     *  [vectorExpFloor, 0]; the exponent 0 gives exactly 1. out may be in. */
    double (*expShifted)(const double* in, double* out, Eigen::Index count, double max, double factor);
    /** out[j] ·= factor for j < count. */
    void (*scale)(double* out, Eigen::Index count, double factor);
    /** The float32 product c = a · b, or a · bᵀ when bTransposed: Eigen's, compiled for AVX2 and FMA
     *  (sgemmavx2.h has the shapes). Null in a build without that file: callers then use Eigen's float
     *  product of the rest of the build. */
    void (*sgemm)(const float* a, std::ptrdiff_t lda, const float* b, std::ptrdiff_t ldb, bool bTransposed,
                  float* c, std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k);
};

/** The kernels of this processor: AVX2 and FMA on x86-64. Null when the build is for another processor or
 *  this one lacks either: callers then take their portable path. */
const SimdKernels* simdKernels();

}  // namespace core
