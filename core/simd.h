#pragma once
/** The softmax's row sweeps behind one small interface, on AVX-512 or on AVX2 and FMA. All of them live in
 *  simd.cpp, the only file with intrinsics; their caller (attention.cpp) keeps a portable Eigen path for when
 *  there are none. The products are elsewhere (products.h). */

#include <Eigen/Core>

#include <cstddef>

namespace core {

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
    /** The RowRange of in[0, count). */
    RowRange (*rowRange)(const double* in, Eigen::Index count);
    /** out[j] = exp((in[j] − max) · factor) for j < count; returns their sum. Every exponent must lie in
     *  [vectorExpFloor, 0]; the exponent 0 gives exactly 1. out may be in. */
    double (*expShifted)(const double* in, double* out, Eigen::Index count, double max, double factor);
    /** out[j] ·= factor for j < count. */
    void (*scale)(double* out, Eigen::Index count, double factor);
};

/** The kernels of this processor: AVX-512 (F) when it has it, else AVX2 and FMA, on x86-64. Null when the build
 *  is for another processor or this one lacks both: callers then take their portable path. */
const SimdKernels* simdKernels();

}  // namespace core
