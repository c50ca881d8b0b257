#pragma once
/** The engine's matrix products on the fastest build of Eigen this processor runs.
 *
 *  The kernels (productkernels.h) are compiled once per x86-64 level: products_v2.cpp for x86-64-v2 (SSE4.2),
 *  products_v3.cpp for x86-64-v3 (AVX2 and FMA), products_v4.cpp for x86-64-v4 (AVX-512), each with its Eigen
 *  under a namespace of its own so that the three instantiations of Eigen's templates cannot be mixed up by the
 *  linker; products.cpp picks one at run time with __builtin_cpu_supports. Elsewhere (another processor or
 *  compiler) the same kernels come from the rest of the build's Eigen.
 *
 *  This header includes no Eigen on purpose: only raw pointers, and weights packed into a plain buffer
 *  (PackedWeight), cross between the kernels and the engine.
 *  All blocks are row-major: a is m × k (rows lda apart), b is k × n, or n × k when bTransposed (rows ldb
 *  apart), c is m × n (rows ldc apart) and is overwritten. Products on the levels with FMA fuse their
 *  multiply-adds: callers that must see an overflowed product as ±∞ (core::multiply) check the magnitudes
 *  first. The same shapes always round the same way on the same level. */

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace core {

struct ProductKernels;

/** How the rows of a weight hold their values: float32, or bfloat16 (a float32's upper 16 bits, little-endian). */
enum class RowStorage { F32, BF16 };

/** Allocates for std::vector on 64-byte boundaries: the widest packet (AVX-512) of any level's kernels. Leaves
 *  what resize() adds uninitialised (default-initialised), since packing writes every value anyway: a vector that
 *  is read must be filled first. */
template <typename T>
struct PacketAllocator {
    using value_type = T;
    static constexpr std::align_val_t alignment{64};
    PacketAllocator() = default;
    template <typename U>
    PacketAllocator(const PacketAllocator<U>&) {}
    T* allocate(std::size_t count) { return static_cast<T*>(::operator new(count * sizeof(T), alignment)); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, alignment); }
    template <typename U>
    void construct(U* p) { ::new (static_cast<void*>(p)) U; }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) { ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...); }
    template <typename U>
    bool operator==(const PacketAllocator<U>&) const { return true; }
};

/** A k × n block of weights (the right factor b of c = a · b), packed once by one level's packWeight() or
 *  packDoubleWeight() in the order that level's product kernel reads it, so that its products skip the copy Eigen
 *  makes of b on every call. The layout is the level's own and opaque here: only the table that packed it may read
 *  it. A plain value: it refers to nothing outside itself. */
template <typename T>
struct PackedPanels {
    const ProductKernels* level = nullptr; ///< the table that packed it
    std::ptrdiff_t k = 0, n = 0;           ///< the shape of the weights it holds
    std::ptrdiff_t depthBlock = 0;         ///< the depth of one panel (the kernel's blocking of k)
    std::ptrdiff_t panelStride = 0;        ///< values from one panel to the next
    /** The kernel's group of columns (Eigen's mr): a product of some of the columns starts at a multiple of it. */
    std::ptrdiff_t columnGroup = 1;
    std::vector<T, PacketAllocator<T>> values;
};
/** GPT-2's float weights, packed at load. */
using PackedWeight = PackedPanels<float>;
/** A session's double weights, packed once per model (Trace::packed). */
using PackedDoubleWeight = PackedPanels<double>;

struct ProductKernels {
    const char* level;  ///< "x86-64-v4 (AVX-512)", "x86-64-v3 (AVX2, FMA)", "x86-64-v2 (SSE4.2)" or "baseline"
    /** c = a · b (or a · bᵀ) in double; a of at most four rows times b (not transposed) without Eigen's packing,
     *  each entry the multiply-adds of its k products in order. */
    void (*dgemm)(const double* a, std::ptrdiff_t lda, const double* b, std::ptrdiff_t ldb, bool bTransposed,
                  double* c, std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k);
    /** c = a · b (or a · bᵀ) in float. */
    void (*sgemm)(const float* a, std::ptrdiff_t lda, const float* b, std::ptrdiff_t ldb, bool bTransposed,
                  float* c, std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k);
    /** Packs b (k × n, rows ldb apart) into out, for this table's packedProduct(). */
    void (*packWeight)(const float* b, std::ptrdiff_t ldb, std::ptrdiff_t k, std::ptrdiff_t n, PackedWeight& out);
    /** c = a · w (a m × k, rows lda apart; c m × n, rows ldc apart) with w packed by this table's packWeight(): the
     *  same bit for bit as sgemm(a, lda, b, ldb, false, c, ldc, m, n, k) with b the weights w was packed from.
     *  sgemm takes Eigen's matrix-vector kernel when m or n is 1, which reads b unpacked: so does this, b must
     *  be those weights (k × n, rows ldb apart; not read otherwise, so its pages may be out of memory). */
    void (*packedProduct)(const float* a, std::ptrdiff_t lda, const PackedWeight& w, const float* b,
                          std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc, std::ptrdiff_t m);
    /** Packs b (k × n, rows ldb apart) into out, for this table's packedDoubleProduct(). */
    void (*packDoubleWeight)(const double* b, std::ptrdiff_t ldb, std::ptrdiff_t k, std::ptrdiff_t n,
                             PackedDoubleWeight& out);
    /** c = a · (columns [first, first + cols) of w), a m × k: the same bit for bit as dgemm(a, lda, b, ldb, false, c,
     *  ldc, m, cols, k) with b those columns of the weights w was packed from (rows ldb apart), which it reads
     *  instead when the panels cannot serve: a few rows (dgemm's own path), panels of another level, or columns
     *  that do not start at a multiple of w.columnGroup or end at one (or at w.n). */
    void (*packedDoubleProduct)(const double* a, std::ptrdiff_t lda, const PackedDoubleWeight& w, std::ptrdiff_t first,
                                std::ptrdiff_t cols, const double* b, std::ptrdiff_t ldb, double* c, std::ptrdiff_t ldc,
                                std::ptrdiff_t m);
    /** c = a · wᵀ in float, w (n × k, rows ldw values apart) read as stored and widened in registers: a is m × k
     *  (rows lda apart), c m × n (rows ldc apart, overwritten). Each entry is the same sum whatever m, n and its place:
     *  per lane of the level's widest packet, the multiply-adds (fused where the level has FMA) of its part of k in
     *  order, in depth blocks of
     *  2048, each block's lanes added in a fixed order onto the block before. So a row of c does not depend on the
     *  other rows of a, a column not on the other rows of w, and BF16 weights give the bits their exact float32
     *  widening gives. One thread; rows of w may be split between threads, the result the same. */
    void (*rowsProduct)(const float* a, std::ptrdiff_t lda, const void* w, RowStorage storage, std::ptrdiff_t ldw,
                        float* c, std::ptrdiff_t ldc, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k);
    /** The largest |entry| of a rows × cols block (rows ld apart); NaN when an entry is NaN, 0 when empty. */
    double (*maxAbs)(const double* a, std::ptrdiff_t ld, std::ptrdiff_t rows, std::ptrdiff_t cols);
    /** to = from (count doubles), returning the largest |entry| as maxAbs does: one pass over from. */
    double (*copyMaxAbs)(const double* from, double* to, std::ptrdiff_t count);
    /** GPT-2's gelu_new in place: v = 0.5·v·(1 + tanh(√(2/π)·(v + 0.044715·v³))), Eigen's vectorised tanh. */
    void (*gelu)(float* v, std::ptrdiff_t count);
};

/** The kernels of the highest level this processor has. */
const ProductKernels& productKernels();

/** Every level this processor can run, the highest first, the baseline last: for tests and benchmarks that
 *  compare them. */
std::vector<const ProductKernels*> runnableProductKernels();

}  // namespace core
