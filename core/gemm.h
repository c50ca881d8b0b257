#pragma once
/** The product the engine spends most of an edit in, on the fastest kernel this processor has. */

#include "matrix.h"

namespace core {

/** c = a · b, overwriting c: a is m × k, b is k × n, c is m × n, all row-major blocks (rows contiguous).
 *  On a processor with AVX2 a register-blocked kernel of this file computes it (Eigen's kernel in a build for
 *  plain x86-64 has only SSE2); elsewhere Eigen does. Each entry is a plain sum of rounded products over k
 *  in order, so the two agree to rounding, and non-finite values follow IEEE arithmetic as in any plain
 *  sum (0 · ∞ = NaN, ∞ − ∞ = NaN). */
void multiply(Eigen::Ref<const Matrix> a, Eigen::Ref<const Matrix> b, Eigen::Ref<Matrix> c);

/** True when the processor has AVX2 and FMA: multiply() then takes its AVX2 kernel, and the engine's
 *  softmax its AVX2 and FMA exponentials. */
bool haveAvx2Fma();

}  // namespace core
