#pragma once
/** The float32 product compiled for AVX2 and FMA (sgemmavx2.cpp). This header includes no Eigen on purpose:
 *  that file instantiates Eigen's templates for AVX2 under a renamed namespace, and only raw pointers cross
 *  between it and the rest of the engine. Call it through simdKernels()->sgemm, which is null on a processor
 *  without AVX2 and FMA; never directly. */

#include <cstddef>

namespace core {

/** c = a · b (bTransposed false) or c = a · bᵀ (true), overwriting c. All three are row-major blocks of
 *  floats: a is m × k (rows lda apart), b is k × n (or n × k when transposed; rows ldb apart), c is m × n
 *  (rows ldc apart). Rounds differently from the SSE2 build of the same product (fused multiply-adds, other
 *  summation blocks) but always the same way for the same shapes. */
void sgemmAvx2(const float* a, std::ptrdiff_t lda, const float* b, std::ptrdiff_t ldb, bool bTransposed, float* c,
               std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k);

}  // namespace core
