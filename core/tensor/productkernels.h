// The product kernels of products.h, included (without a guard) by each of products_v2.cpp, products_v3.cpp,
// products_v4.cpp and products_baseline.cpp. Before including it, each defines AE_PRODUCTS_TABLE (the name of
// its table) and AE_PRODUCTS_LEVEL (its level's name), and renames Eigen (#define Eigen …) before any include,
// so that Eigen's templates, instantiated here for one instruction set and configured as below, never share a
// mangled name with those of the rest of the build. Nothing of the engine that includes Eigen may be included.

#include "core/tensor/products.h"

// Every product through Eigen's blocked kernel, however small: its coefficient-based path for small shapes
// peels by the destination's alignment, so one product would round differently in differently aligned storage.
#define EIGEN_GEMM_TO_COEFFBASED_THRESHOLD 0
#include <Eigen/Core>

#include <algorithm>
#include <cmath>

namespace core {

extern const ProductKernels AE_PRODUCTS_TABLE;

namespace {

template <typename T>
void gemm(const T* a, std::ptrdiff_t lda, const T* b, std::ptrdiff_t ldb, bool bTransposed, T* c, std::ptrdiff_t ldc,
          std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k)
{
    using Rows = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Stride = Eigen::OuterStride<>;
    using ConstMap = Eigen::Map<const Rows, Eigen::Unaligned, Stride>;
    Eigen::Map<Rows, Eigen::Unaligned, Stride> out(c, m, n, Stride(ldc));
    if (m == 0 || n == 0)
        return;
    if (k == 0) {
        out.setZero();
        return;
    }
    const ConstMap left(a, m, k, Stride(lda));
    if (bTransposed)
        out.noalias() = left * ConstMap(b, n, k, Stride(ldb)).transpose();
    else
        out.noalias() = left * ConstMap(b, k, n, Stride(ldb));
}

/** x · y + z, fused on the levels that have FMA (as Eigen's kernels there are). */
inline double multiplyAdd(double x, double y, double z)
{
#if defined(__FMA__)
    return std::fma(x, y, z);
#else
    return x * y + z;
#endif
}

/** c = a · b for a of M rows (M ≤ fewRows), b not transposed: b is read once, row after row, and never packed. Each
 *  entry is the multiply-adds of its k products in order, from 0; columns of c in pieces that stay in the
 *  first-level cache between the rows of b. */
template <int M>
void fewRowsProduct(const double* a, std::ptrdiff_t lda, const double* b, std::ptrdiff_t ldb, double* c,
                    std::ptrdiff_t ldc, std::ptrdiff_t n, std::ptrdiff_t k)
{
    constexpr std::ptrdiff_t piece = 512;  // M × 512 doubles: at most 16 KiB
    alignas(64) double acc[M][piece];
    for (std::ptrdiff_t j0 = 0; j0 < n; j0 += piece) {
        const std::ptrdiff_t w = n - j0 < piece ? n - j0 : piece;
        for (int r = 0; r < M; ++r)
            for (std::ptrdiff_t j = 0; j < w; ++j)
                acc[r][j] = 0;
        std::ptrdiff_t p = 0;
        for (; p + 4 <= k; p += 4) {  // four rows of b per sweep over the piece, still in order
            const double* b0 = b + p * ldb + j0;
            const double* b1 = b0 + ldb;
            const double* b2 = b1 + ldb;
            const double* b3 = b2 + ldb;
            double x[M][4];
            for (int r = 0; r < M; ++r)
                for (int q = 0; q < 4; ++q)
                    x[r][q] = a[r * lda + p + q];
            for (std::ptrdiff_t j = 0; j < w; ++j) {
                const double y0 = b0[j], y1 = b1[j], y2 = b2[j], y3 = b3[j];
                for (int r = 0; r < M; ++r)
                    acc[r][j] = multiplyAdd(x[r][3], y3,
                                            multiplyAdd(x[r][2], y2,
                                                        multiplyAdd(x[r][1], y1, multiplyAdd(x[r][0], y0, acc[r][j]))));
            }
        }
        for (; p < k; ++p) {
            const double* bp = b + p * ldb + j0;
            for (int r = 0; r < M; ++r) {
                const double x = a[r * lda + p];
                for (std::ptrdiff_t j = 0; j < w; ++j)
                    acc[r][j] = multiplyAdd(x, bp[j], acc[r][j]);
            }
        }
        for (int r = 0; r < M; ++r)
            for (std::ptrdiff_t j = 0; j < w; ++j)
                c[r * ldc + j0 + j] = acc[r][j];
    }
}

/** Products of at most this many rows (b not transposed) take fewRowsProduct() instead of Eigen's blocked kernel,
 *  which packs b (for a few rows of X a copy of every weight, costing more than the product) and pads the rows
 *  to its panel. */
constexpr std::ptrdiff_t fewRows = 4;

void dgemm(const double* a, std::ptrdiff_t lda, const double* b, std::ptrdiff_t ldb, bool bTransposed, double* c,
           std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k)
{
    if (!bTransposed && m > 0 && m <= fewRows && n > 0 && k > 0) {
        switch (m) {
        case 1: fewRowsProduct<1>(a, lda, b, ldb, c, ldc, n, k); return;
        case 2: fewRowsProduct<2>(a, lda, b, ldb, c, ldc, n, k); return;
        case 3: fewRowsProduct<3>(a, lda, b, ldb, c, ldc, n, k); return;
        default: fewRowsProduct<4>(a, lda, b, ldb, c, ldc, n, k); return;
        }
    }
    gemm(a, lda, b, ldb, bTransposed, c, ldc, m, n, k);
}

void sgemm(const float* a, std::ptrdiff_t lda, const float* b, std::ptrdiff_t ldb, bool bTransposed, float* c,
           std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k)
{
    gemm(a, lda, b, ldb, bTransposed, c, ldc, m, n, k);
}

/** The pieces of Eigen's product as sgemm and dgemm run it (general_matrix_matrix_product<…>::run in Eigen's
 *  GeneralMatrixMatrix.h). Eigen computes a row-major c = a · b as the column-major cᵀ = bᵀ · aᵀ: the weights b, read
 *  as the column-major n × k matrix bᵀ, are its left factor, which it copies into panels (pack_lhs) one depth block
 *  of kc at a time, then multiplies by panels of aᵀ (pack_rhs) with its block-panel kernel (gebp). Packing b once
 *  and running the same loops with the same blocking gives the same arithmetic in the same order, bit for bit. */
namespace weightPanels {

using Index = std::ptrdiff_t;

template <typename T>
struct Eigens {
    using Traits = Eigen::internal::gebp_traits<T, T>;
    using Mapper = Eigen::internal::const_blas_data_mapper<T, Index, Eigen::ColMajor>;
    using ResultMapper = Eigen::internal::blas_data_mapper<T, Index, Eigen::ColMajor, Eigen::Unaligned, 1>;
    using PackLhs = Eigen::internal::gemm_pack_lhs<T, Index, Mapper, Traits::mr, Traits::LhsProgress,
                                                   typename Traits::LhsPacket4Packing, Eigen::ColMajor>;
    using PackRhs = Eigen::internal::gemm_pack_rhs<T, Index, Mapper, Traits::nr, Eigen::ColMajor>;
    using Kernel = Eigen::internal::gebp_kernel<T, T, Index, ResultMapper, Traits::mr, Traits::nr, false, false>;
};

/** Eigen's blocking of cᵀ = bᵀ · aᵀ (n rows, m columns, depth k), as its product chooses it: kc depends on k
 *  alone (and the first-level cache), so panels packed for depth k serve every m. */
struct Blocking {
    Index kc, mc, nc;
};
template <typename T>
Blocking blocking(Index n, Index m, Index k)
{
    Index kc = k, mc = n, nc = m;
    Eigen::internal::computeProductBlockingSizes<T, T, 1>(kc, mc, nc);
    return {kc, std::min(mc, n), std::min(nc, m)};
}

/** Values from one depth panel of w (k × n) to the next: n · kc, rounded up to whole 64-byte lines so that every
 *  panel starts aligned as the kernel's packet loads need. */
template <typename T>
Index panelStride(Index n, Index kc)
{
    constexpr Index line = Index(64 / sizeof(T));
    return (n * kc + line - 1) / line * line;
}

template <typename T>
void pack(const T* b, Index ldb, Index k, Index n, PackedPanels<T>& out)
{
    using E = Eigens<T>;
    out.level = &AE_PRODUCTS_TABLE;
    out.k = k;
    out.n = n;
    out.depthBlock = blocking<T>(n, n, k).kc;  // any m gives this kc
    out.panelStride = panelStride<T>(n, out.depthBlock);
    out.columnGroup = E::Traits::mr;
    const Index panels = out.depthBlock > 0 ? (k + out.depthBlock - 1) / out.depthBlock : 0;
    out.values.clear();
    out.values.resize(std::size_t(panels * out.panelStride));  // uninitialised: every value is written below
    const typename E::Mapper weightsT(b, ldb);  // bᵀ: n × k, column-major
    typename E::PackLhs packLhs;
    for (Index p = 0; p < panels; ++p) {
        const Index k2 = p * out.depthBlock, kc = std::min(out.depthBlock, k - k2);
        T* panel = out.values.data() + p * out.panelStride;
        packLhs(panel, weightsT.getSubMapper(0, k2), kc, n);
        std::fill(panel + n * kc, panel + out.panelStride, T(0));  // the padding, never read: zero, not noise
    }
}

/** c = a · (columns [first, first + cols) of w) on w's panels, as Eigen's product of a by those columns runs:
 *  false (nothing written) when the panels cannot give the same arithmetic. */
template <typename T>
bool product(const T* a, Index lda, const PackedPanels<T>& w, Index first, Index cols, T* c, Index ldc, Index m)
{
    using E = Eigens<T>;
    constexpr Index mr = E::Traits::mr;
    const Index k = w.k;
    if (m <= 1 || cols <= 1 || k == 0)  // Eigen's matrix-vector kernel (or nothing to multiply)
        return false;
    const Blocking block = blocking<T>(cols, m, k);
    // The panels hold all n rows of bᵀ at once, in groups of mr rows (then fewer at the end), each group at
    // row · kc of its panel. Eigen packs the rows it multiplies mc at a time: its groups fall where they fall in
    // the whole when each block starts at a multiple of mr and ends at one or at the end of the whole. Otherwise
    // (shallow products of a few rows only), or for panels of another level or depth, the panels cannot serve.
    if (w.level != &AE_PRODUCTS_TABLE || block.kc != w.depthBlock || first % mr != 0
        || (first + cols != w.n && cols % mr != 0) || (block.mc < cols && block.mc % mr != 0))
        return false;
    for (Index r = 0; r < m; ++r)  // Eigen's product sets its result to zero, then adds each depth block to it
        std::fill(c + r * ldc, c + r * ldc + cols, T(0));
    const typename E::Mapper inputT(a, lda);        // aᵀ: k × m, column-major
    const typename E::ResultMapper result(c, ldc);  // cᵀ: cols × m, column-major
    typename E::PackRhs packRhs;
    typename E::Kernel kernel;
    // the panels of aᵀ, kc × nc: at most a few hundred KiB, kept by each thread for its next product
    thread_local std::vector<T, PacketAllocator<T>> inputPanels;  // pack_rhs writes what the kernel reads
    inputPanels.resize(std::max(inputPanels.size(), std::size_t(block.kc * block.nc)));
    T* blockB = inputPanels.data();
    const bool packInputOnce = block.mc != cols && block.kc == k && block.nc == m;
    for (Index i2 = 0; i2 < cols; i2 += block.mc) {
        const Index mc = std::min(i2 + block.mc, cols) - i2;
        for (Index k2 = 0; k2 < k; k2 += block.kc) {
            const Index kc = std::min(k2 + block.kc, k) - k2;
            const T* blockA = w.values.data() + k2 / block.kc * w.panelStride + (first + i2) * kc;
            for (Index j2 = 0; j2 < m; j2 += block.nc) {
                const Index nc = std::min(j2 + block.nc, m) - j2;
                if (!packInputOnce || i2 == 0)
                    packRhs(blockB, inputT.getSubMapper(k2, j2), kc, nc);
                kernel(result.getSubMapper(i2, j2), blockA, blockB, mc, kc, nc, T(1));
            }
        }
    }
    return true;
}

}  // namespace weightPanels

void packWeight(const float* b, std::ptrdiff_t ldb, std::ptrdiff_t k, std::ptrdiff_t n, PackedWeight& out)
{
    weightPanels::pack(b, ldb, k, n, out);
}

void packedProduct(const float* a, std::ptrdiff_t lda, const PackedWeight& w, const float* b, std::ptrdiff_t ldb,
                   float* c, std::ptrdiff_t ldc, std::ptrdiff_t m)
{
    if (!weightPanels::product(a, lda, w, 0, w.n, c, ldc, m))
        sgemm(a, lda, b, ldb, false, c, ldc, m, w.n, w.k);
}

void packDoubleWeight(const double* b, std::ptrdiff_t ldb, std::ptrdiff_t k, std::ptrdiff_t n, PackedDoubleWeight& out)
{
    weightPanels::pack(b, ldb, k, n, out);
}

void packedDoubleProduct(const double* a, std::ptrdiff_t lda, const PackedDoubleWeight& w, std::ptrdiff_t first,
                         std::ptrdiff_t cols, const double* b, std::ptrdiff_t ldb, double* c, std::ptrdiff_t ldc,
                         std::ptrdiff_t m)
{
    // a few rows take dgemm's own path, which never packs
    if (m <= fewRows || !weightPanels::product(a, lda, w, first, cols, c, ldc, m))
        dgemm(a, lda, b, ldb, false, c, ldc, m, cols, w.k);
}

double maxAbs(const double* a, std::ptrdiff_t ld, std::ptrdiff_t rows, std::ptrdiff_t cols)
{
    if (rows == 0 || cols == 0)
        return 0;
    using Rows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const Rows, Eigen::Unaligned, Eigen::OuterStride<>> m(a, rows, cols, Eigen::OuterStride<>(ld));
    return m.cwiseAbs().template maxCoeff<Eigen::PropagateNaN>();
}

double copyMaxAbs(const double* from, double* to, std::ptrdiff_t count)
{
    using Array = Eigen::Array<double, Eigen::Dynamic, 1>;
    // In pieces that stay in the first-level cache between the copy and the measure.
    constexpr std::ptrdiff_t piece = 2048;
    double largest = 0;
    for (std::ptrdiff_t i = 0; i < count; i += piece) {
        const std::ptrdiff_t size = count - i < piece ? count - i : piece;
        Eigen::Map<Array> out(to + i, size);
        out = Eigen::Map<const Array>(from + i, size);
        const double m = out.abs().template maxCoeff<Eigen::PropagateNaN>();
        if (!(m <= largest) && !std::isnan(largest))  // a NaN, once found, stays
            largest = m;
    }
    return largest;
}

void gelu(float* v, std::ptrdiff_t count)
{
    Eigen::Map<Eigen::ArrayXf> x(v, count);
    const float c = float(std::sqrt(2.0 / M_PI));
    x = 0.5f * x * (1.0f + (c * (x + 0.044715f * x * x * x)).tanh());
}

}  // namespace

const ProductKernels AE_PRODUCTS_TABLE{AE_PRODUCTS_LEVEL, dgemm,  sgemm,      packWeight,       packedProduct,
                                       packDoubleWeight,  packedDoubleProduct, maxAbs, copyMaxAbs, gelu};

}  // namespace core
