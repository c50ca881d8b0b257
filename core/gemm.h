#pragma once
/** The product the engine spends most of an edit in, on the fastest kernel this processor has. */

#include "matrix.h"

#include <vector>

namespace core {

/** The right factor of a product, laid out once for the kernel of multiply(): its columns in panels of eight,
 *  a few hundred rows at a time, each panel contiguous. A block of rows of the left factor then goes over one
 *  panel while it stays in the first-level cache, instead of reading the matrix row by row with a stride of
 *  its width (at 2048 columns, every row of a panel falls in the same cache set). Pack a factor that many
 *  blocks multiply once, before they start; packing again reuses the storage. */
class PackedMatrix {
public:
    PackedMatrix() = default;
    explicit PackedMatrix(MatrixCRef b) { pack(b); }

    /** Lays out b (k × n). */
    void pack(MatrixCRef b);
    /** Lays out btᵀ, given bt (n × k): Q·Kᵀ packs K this way, without forming Kᵀ first. */
    void packTransposed(MatrixCRef bt);

    Eigen::Index rows() const { return m_rows; }
    Eigen::Index cols() const { return m_cols; }

private:
    friend void multiply(MatrixCRef a, const PackedMatrix& b, Eigen::Ref<Matrix> c);
    void resize(Eigen::Index rows, Eigen::Index cols);

    std::vector<double> m_panels;  ///< with the AVX2 kernel: the panels, zero-padded to eight columns
    Matrix m_plain;                ///< without it: the factor itself, for Eigen
    Eigen::Index m_rows = 0, m_cols = 0;
};

/** c = a · b, overwriting c: a is m × k, b is k × n, c is m × n, all row-major blocks (rows contiguous).
 *  On a processor with AVX2 a register-blocked kernel (simd.h) computes it (Eigen's kernel in a build for
 *  plain x86-64 has only SSE2); elsewhere Eigen does. Each entry is a plain sum of rounded products over k
 *  in order, so the two agree to rounding, and non-finite values follow IEEE arithmetic as in any plain
 *  sum (0 · ∞ = NaN, ∞ − ∞ = NaN). */
void multiply(MatrixCRef a, MatrixCRef b, Eigen::Ref<Matrix> c);

/** The same with b packed beforehand; a may have fewer columns than b has rows, and then only b's first
 *  a.cols() rows take part (a causal block of weights times the values of the tokens it can see). */
void multiply(MatrixCRef a, const PackedMatrix& b, Eigen::Ref<Matrix> c);

/** True when the processor has AVX2 and FMA: multiply() then takes its AVX2 kernel, and the engine's
 *  softmax its AVX2 and FMA exponentials. */
bool haveAvx2Fma();

}  // namespace core
