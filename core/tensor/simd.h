#pragma once
/** The softmax's row sweeps, and the heatmap's colour levels, behind one small interface, on AVX-512 or on AVX2 and
 *  FMA. All of them live in simd.cpp, the only file with intrinsics; their callers (attention.cpp, the render
 *  layer's ColourScale) keep a portable path for when there are none. The products are elsewhere (products.h). */

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>

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
    /** A colour scale's levels: out[j] = −1 when t = (in[j] − lo) / span is NaN, else int(clamp(t, 0, 1) · top + 0.5),
     *  each operation rounded as the portable loop rounds it (no fused multiply-add). Only whole vectors: returns
     *  how many entries it did (count rounded down), the rest is the caller's. */
    Eigen::Index (*levels)(const double* in, Eigen::Index count, double lo, double span, double top, int* out);
    /** The same levels' entries of lut (nan where the level is −1), into out; only whole vectors, as levels. */
    Eigen::Index (*colours)(const double* in, Eigen::Index count, double lo, double span, double top,
                            const std::uint32_t* lut, std::uint32_t nan, std::uint32_t* out);
};

/** The kernels of this processor: AVX-512 (F) when it has it, else AVX2 and FMA, on x86-64. Null when the build
 *  is for another processor or this one lacks both: callers then take their portable path. */
const SimdKernels* simdKernels();

}  // namespace core
