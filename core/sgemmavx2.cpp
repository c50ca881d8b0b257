// Eigen's float product compiled with -mavx2 -mfma (core/CMakeLists.txt sets them on this file only), for the
// float32 weight products of the GPT-2 forward pass. Every other file is built for plain x86-64, where
// Eigen's kernel has only SSE2.
//
// One definition rule: Eigen's templates instantiated here would have the mangled names of the SSE2 ones
// instantiated elsewhere, and the linker keeps one copy of each, possibly this one, which would then run on
// processors without AVX2. Renaming the namespace for this file keeps the two apart. So this define comes
// before any include that may reach Eigen, and this file includes no header of the engine that includes it.
#define Eigen AeEigenAvx2

#include "sgemmavx2.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <Eigen/Core>

namespace core {

void sgemmAvx2(const float* a, std::ptrdiff_t lda, const float* b, std::ptrdiff_t ldb, bool bTransposed, float* c,
               std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k)
{
    using Rows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Stride = Eigen::OuterStride<>;
    const Eigen::Map<const Rows, Eigen::Unaligned, Stride> left(a, m, k, Stride(lda));
    Eigen::Map<Rows, Eigen::Unaligned, Stride> out(c, m, n, Stride(ldc));
    if (k == 0) {
        out.setZero();
    } else if (bTransposed) {
        out.noalias() = left * Eigen::Map<const Rows, Eigen::Unaligned, Stride>(b, n, k, Stride(ldb)).transpose();
    } else {
        out.noalias() = left * Eigen::Map<const Rows, Eigen::Unaligned, Stride>(b, k, n, Stride(ldb));
    }
}

}  // namespace core
#endif
