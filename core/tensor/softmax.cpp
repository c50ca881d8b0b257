#include "core/tensor/softmax.h"

#include "core/tensor/simd.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace core {

using Index = Eigen::Index;

namespace {

using RowMap = Eigen::Map<RowVector>;
using ConstRowMap = Eigen::Map<const RowVector>;

/** The limit of the softmax when the row's maximum is not finite: all weight on the +∞ entries, or spread
 *  evenly when every entry is −∞ or NaN. */
SoftmaxNorm overflowedRow(const ConstRowMap& in, RowMap& out, double max)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    const bool top = max == inf;
    double count = 0;
    for (Index j = 0; j < in.size(); ++j) {
        out(j) = !top || in(j) == inf ? 1.0 : 0.0;
        count += out(j);
    }
    out /= count;
    return {max, count};
}

/** out = exp((in − max) · factor) per entry with std::exp, for NaN, an infinite factor or exponents below
 *  vectorExpFloor in place; the maximum gives exactly 1 even when 0 · factor is NaN. Returns the sum. */
double scalarExponentials(const ConstRowMap& in, RowMap& out, double max, double factor)
{
    double sum = 0;
    for (Index j = 0; j < in.size(); ++j) {
        const double s = in(j);
        double e = 0;
        if (s == max) {
            e = 1;
        } else if (!std::isnan(s)) {
            const double arg = (s - max) * factor;
            e = std::isnan(arg) ? 0.0 : std::exp(arg);
        }
        out(j) = e;
        sum += e;
    }
    return sum;
}

}  // namespace

SoftmaxNorm softmaxRow(const double* inData, double* outData, Index limit, Index cols, double factor)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (limit < cols)
        RowMap(outData + limit, cols - limit).setZero();
    if (limit == 0)
        return {};
    const ConstRowMap in(inData, limit);
    RowMap out(outData, limit);

    // pass 1: the row maximum (NaN counts as −∞, so it can never win) and the smallest exponent (NaN when any
    // entry is)
    const SimdKernels* kernels = simdKernels();
    double max = 0, lowest = 0;
    if (kernels) {
        const RowRange range = kernels->rowRange(inData, limit);
        max = range.max;
        lowest = range.nan ? std::numeric_limits<double>::quiet_NaN() : (range.min - max) * factor;
    } else {
        max = in.maxCoeff<Eigen::PropagateNumbers>();
        lowest = (in.minCoeff<Eigen::PropagateNaN>() - max) * factor;
    }
    if (!(std::fabs(max) < inf))
        return overflowedRow(in, out, max);

    // pass 2: exp((s − max) · factor) and its sum
    double sum = 0;
    const bool separate = inData != outData;
    if (!std::isnan(lowest) && std::isfinite(factor) && (lowest >= vectorExpFloor || separate)) {
        if (lowest >= vectorExpFloor && kernels) {
            sum = kernels->expShifted(inData, outData, limit, max, factor);
            kernels->scale(outData, limit, 1.0 / sum);
            return {max, sum};
        }
        out = ((in.array() - max) * factor).exp();
        if (lowest < vectorExpFloor) {
            // Far below the maximum std::exp goes subnormal, then exactly 0; the vectorised exp does not.
            for (Index j = 0; j < limit; ++j) {
                const double arg = (in(j) - max) * factor;
                if (arg < vectorExpFloor)
                    out(j) = std::exp(arg);
            }
        }
        sum = out.sum();
    } else {
        sum = scalarExponentials(in, out, max, factor);
    }
    // pass 3: normalise (the sum is ≥ 1)
    out /= sum;
    return {max, sum};
}

void maskedSoftmaxRows(MatrixCRef scores, Eigen::Ref<Matrix> weights, Index firstQuery, bool causal, double factor)
{
    const Index cols = weights.cols();
    for (Index r = 0; r < weights.rows(); ++r)
        softmaxRow(scores.row(r).data(), weights.row(r).data(), causal ? std::min(firstQuery + r + 1, cols) : cols,
                   cols, factor);
}

void softmaxRows(Eigen::Ref<Matrix> m, bool causal)
{
    maskedSoftmaxRows(m, m, 0, causal, 1.0);
}

}  // namespace core
