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
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

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

/** rowsProduct(): c = a · wᵀ with w's rows read as stored, each entry a dot product of a row of a and a row of w. A
 *  tile of MR rows of a by NR rows of w keeps MR · NR packets of partial sums in registers; the tile's rows of w (a
 *  few KiB) stay in the first-level cache while every tile of a passes them. */
namespace storedRows {

using Index = std::ptrdiff_t;

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
/** Sixteen floats. */
struct Lanes {
    using V = __m512;
    static constexpr Index width = 16;
    static constexpr int mr = 4, nr = 6;  // 24 sums, 6 rows of w and a row of a: 31 of the 32 registers
    static V zero() { return _mm512_setzero_ps(); }
    static V load(const float* p) { return _mm512_loadu_ps(p); }
    static V load(const std::uint16_t* p)
    {
        const __m256i half = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(half), 16));
    }
    /** The first count (< width) values, zeros after them; nothing past them is read. */
    static V loadFirst(const float* p, Index count) { return _mm512_maskz_loadu_ps(__mmask16((1u << count) - 1), p); }
    static V loadFirst(const std::uint16_t* p, Index count)
    {
        const __m256i half = _mm256_maskz_loadu_epi16(__mmask16((1u << count) - 1), p);
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(half), 16));
    }
    static V multiplyAdd(V x, V y, V z) { return _mm512_fmadd_ps(x, y, z); }
    static float sum(V v)
    {
        const __m256 eight = _mm256_add_ps(_mm512_castps512_ps256(v),
                                           _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
        const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
        return _mm_cvtss_f32(_mm_add_ss(two, _mm_movehdup_ps(two)));
    }
};
#elif defined(__AVX2__) && defined(__FMA__)
/** Eight floats. */
struct Lanes {
    using V = __m256;
    static constexpr Index width = 8;
    static constexpr int mr = 4, nr = 3;  // 12 sums, 3 rows of w and a row of a: 16 registers
    static V zero() { return _mm256_setzero_ps(); }
    static V load(const float* p) { return _mm256_loadu_ps(p); }
    static V load(const std::uint16_t* p)
    {
        const __m128i half = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(half), 16));
    }
    template <typename T>
    static V loadFirst(const T* p, Index count)
    {
        T part[width] = {};
        std::memcpy(part, p, std::size_t(count) * sizeof(T));
        return load(part);
    }
    static V multiplyAdd(V x, V y, V z) { return _mm256_fmadd_ps(x, y, z); }
    static float sum(V v)
    {
        const __m128 four = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
        return _mm_cvtss_f32(_mm_add_ss(two, _mm_movehdup_ps(two)));
    }
};
#else
/** Eight floats as an array the compiler may vectorise; multiply and add apart (these levels have no FMA). */
struct Lanes {
    struct V {
        float x[8];
    };
    static constexpr Index width = 8;
    static constexpr int mr = 4, nr = 2;
    static V zero() { return V{}; }
    static V load(const float* p)
    {
        V v;
        std::memcpy(v.x, p, sizeof v.x);
        return v;
    }
    static V load(const std::uint16_t* p)
    {
        std::uint16_t half[8];
        std::memcpy(half, p, sizeof half);  // the rows of a mapped file need not be aligned
        V v;
        for (int l = 0; l < 8; ++l) {
            const std::uint32_t bits = std::uint32_t(half[l]) << 16;
            std::memcpy(&v.x[l], &bits, 4);
        }
        return v;
    }
    template <typename T>
    static V loadFirst(const T* p, Index count)
    {
        T part[width] = {};
        std::memcpy(part, p, std::size_t(count) * sizeof(T));
        return load(part);
    }
    static V multiplyAdd(V x, V y, V z)
    {
        for (int l = 0; l < 8; ++l)
            z.x[l] = x.x[l] * y.x[l] + z.x[l];
        return z;
    }
    static float sum(V v)
    {
        const float four[4] = {v.x[0] + v.x[4], v.x[1] + v.x[5], v.x[2] + v.x[6], v.x[3] + v.x[7]};
        const float two[2] = {four[0] + four[2], four[1] + four[3]};
        return two[0] + two[1];
    }
};
#endif

/** Depth of one block: its partial sums are added onto c before the next; the a rows of a block stay in the
 *  second-level cache while the tiles pass them. */
constexpr Index depthBlock = 2048;

/** c[i][j] (= or +=) Σ over [k0, k1) of a[i][p] · w[j][p] for MR rows of a and NR rows of w. */
template <int MR, int NR, typename W>
void tile(const float* a, Index lda, const W* w, Index ldw, float* c, Index ldc, Index k0, Index k1, bool first)
{
    using V = typename Lanes::V;
    V sums[MR][NR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j)
            sums[i][j] = Lanes::zero();
    const auto step = [&](Index p, auto load) {
        V rows[NR];
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j)
            rows[j] = load(w + j * ldw + p);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
            const V x = load(a + i * lda + p);
#pragma GCC unroll 8
            for (int j = 0; j < NR; ++j)
                sums[i][j] = Lanes::multiplyAdd(x, rows[j], sums[i][j]);
        }
    };
    Index p = k0;
    for (; p + Lanes::width <= k1; p += Lanes::width)
        step(p, [](const auto* q) { return Lanes::load(q); });
    if (p < k1)
        step(p, [count = k1 - p](const auto* q) { return Lanes::loadFirst(q, count); });
    for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j) {
            const float s = Lanes::sum(sums[i][j]);
            float& out = c[i * ldc + j];
            out = first ? s : out + s;
        }
}

template <typename W>
using Tile = void (*)(const float*, Index, const W*, Index, float*, Index, Index, Index, bool);

/** tile<MR, NR> for every MR ≤ Lanes::mr and NR ≤ Lanes::nr, at [MR − 1][NR − 1]. */
template <typename W, std::size_t... I>
constexpr auto tiles(std::index_sequence<I...>)
{
    return std::array<Tile<W>, sizeof...(I)>{&tile<int(I / Lanes::nr) + 1, int(I % Lanes::nr) + 1, W>...};
}

template <typename W>
void product(const float* a, Index lda, const W* w, Index ldw, float* c, Index ldc, Index m, Index n, Index k)
{
    static constexpr auto table = tiles<W>(std::make_index_sequence<std::size_t(Lanes::mr * Lanes::nr)>());
    if (k == 0) {
        for (Index i = 0; i < m; ++i)
            std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
        return;
    }
    for (Index k0 = 0; k0 < k; k0 += depthBlock) {
        const Index k1 = std::min(k0 + depthBlock, k);
        for (Index j = 0; j < n; j += Lanes::nr) {
            const Index nr = std::min<Index>(Lanes::nr, n - j);
            for (Index i = 0; i < m; i += Lanes::mr) {
                const Index mr = std::min<Index>(Lanes::mr, m - i);
                table[std::size_t((mr - 1) * Lanes::nr + nr - 1)](a + i * lda, lda, w + j * ldw, ldw, c + i * ldc + j,
                                                                   ldc, k0, k1, k0 == 0);
            }
        }
    }
}

}  // namespace storedRows

void rowsProduct(const float* a, std::ptrdiff_t lda, const void* w, RowStorage storage, std::ptrdiff_t ldw, float* c,
                 std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k)
{
    if (storage == RowStorage::BF16)
        storedRows::product(a, lda, static_cast<const std::uint16_t*>(w), ldw, c, ldc, m, n, k);
    else
        storedRows::product(a, lda, static_cast<const float*>(w), ldw, c, ldc, m, n, k);
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
                                       packDoubleWeight,  packedDoubleProduct, rowsProduct, maxAbs, copyMaxAbs,
                                       gelu};

}  // namespace core
