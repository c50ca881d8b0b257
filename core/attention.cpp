#include "attention.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace core {

namespace {

/** Softmax of each row of m · factor (factor > 0), in place, without forming m · factor: the row maximum is
 *  subtracted before scaling, so a tiny temperature cannot overflow the scores into ties or NaN. */
void scaledSoftmaxRows(Eigen::Ref<Matrix> m, bool causal, double factor)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    const Eigen::Index cols = m.cols();
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        const Eigen::Index limit = causal ? std::min(i + 1, cols) : cols;
        auto row = m.row(i);
        if (limit < cols)
            row.tail(cols - limit).setZero();
        if (limit == 0)
            continue;
        auto live = row.head(limit);

        // pass 1: the row maximum (NaN counts as −∞, so it can never win)
        double max = -inf;
        for (Eigen::Index j = 0; j < limit; ++j)
            if (live(j) > max)
                max = live(j);

        if (max == inf || max == -inf) {
            // Overflowed scores: the softmax's limit puts all weight on the +∞ entries, or, when
            // every entry is −∞ or NaN, spreads it evenly.
            const bool top = max == inf;
            double count = 0;
            for (Eigen::Index j = 0; j < limit; ++j) {
                const bool wins = top ? live(j) == inf : true;
                live(j) = wins ? 1.0 : 0.0;
                count += live(j);
            }
            live /= count;
            continue;
        }

        // pass 2: exp((s − max) · factor) and its sum; the maximum gives exactly 1, NaN gives 0.
        // std::exp, not Eigen's vectorised exp, so that far-below-maximum entries underflow to exactly 0.
        double sum = 0;
        for (Eigen::Index j = 0; j < limit; ++j) {
            const double s = live(j);
            double e = 0;
            if (s == max) {
                e = 1;
            } else if (!std::isnan(s)) {
                const double arg = (s - max) * factor;
                e = std::isnan(arg) ? 0.0 : std::exp(arg);
            }
            live(j) = e;
            sum += e;
        }
        // pass 3: normalise (the sum is ≥ 1)
        live /= sum;
    }
}

}  // namespace

void softmaxRows(Eigen::Ref<Matrix> m, bool causal)
{
    scaledSoftmaxRows(m, causal, 1.0);
}

Trace compute(const AttentionModel& model)
{
    if (auto error = validate(model))
        throw std::invalid_argument(*error);

    Trace t;
    t.model = model;
    t.x = model.x();

    const int n = model.n();
    const int h = model.heads();
    const int dk = model.dK();
    const int dv = model.dV();
    const bool causal = model.options.mask == Mask::Causal;
    const double s = model.options.scale ? 1.0 / std::sqrt(double(dk)) : 1.0;
    t.scoreFactor = s / model.options.temperature;

    // step 1: Q = X·W_Q, K = X·W_K, V = X·W_V for all heads at once (n × h·d)
    Matrix q, k, v;
    q.noalias() = t.x * model.wq;
    k.noalias() = t.x * model.wk;
    v.noalias() = t.x * model.wv;

    t.concat.resize(n, Eigen::Index(h) * dv);
    t.heads.resize(std::size_t(h));
    for (int head = 0; head < h; ++head) {
        HeadTrace& ht = t.heads[std::size_t(head)];
        ht.queries = q.middleCols(Eigen::Index(head) * dk, dk);
        ht.keys = k.middleCols(Eigen::Index(head) * dk, dk);
        ht.values = v.middleCols(Eigen::Index(head) * dv, dv);

        // step 2: scores = Q·Kᵀ (n × n)
        ht.scores.resize(n, n);
        ht.scores.noalias() = ht.queries * ht.keys.transpose();

        // steps 3–4: scale, then softmax of each row (masked entries exactly 0)
        ht.weights = ht.scores;
        scaledSoftmaxRows(ht.weights, causal, t.scoreFactor);

        // step 5: each value row weighted and summed: outputs = weights·V (n × d_v)
        ht.outputs.resize(n, dv);
        ht.outputs.noalias() = ht.weights * ht.values;
        if (!ht.values.allFinite()) {
            // A weight of exactly 0 (masked or underflowed) adds nothing, even to a value that overflowed:
            // the product above would give 0 · ∞ = NaN.
            for (int i = 0; i < n; ++i) {
                ht.outputs.row(i).setZero();
                for (int j = 0; j < n; ++j)
                    if (ht.weights(i, j) != 0)
                        ht.outputs.row(i) += ht.weights(i, j) * ht.values.row(j);
            }
        }
        t.concat.middleCols(Eigen::Index(head) * dv, dv) = ht.outputs;
    }

    if (model.wo)
        t.output.noalias() = t.concat * *model.wo;
    else
        t.output = t.concat;
    return t;
}

std::shared_ptr<const Trace> computeShared(const AttentionModel& model)
{
    return std::make_shared<const Trace>(compute(model));
}

}  // namespace core
