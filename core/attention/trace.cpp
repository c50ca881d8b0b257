#include "core/attention/trace.h"

#include <cassert>
#include <cmath>

namespace core {

namespace {

/** score · s / T. When s / T overflows (a subnormal temperature) the product is formed as (score · s) / T,
 *  so that a score of 0 stays 0 instead of 0 · ∞ = NaN. */
double scaledScore(const Trace& t, double score)
{
    if (std::isfinite(t.scoreFactor))
        return score * t.scoreFactor;
    const int dk = t.model->dK();
    const double s = t.model->options.scale && dk > 0 ? 1.0 / std::sqrt(double(dk)) : 1.0;
    return score * s / t.model->options.temperature;
}

struct StepName { Step step; const char* key; };
constexpr StepName stepNames[] = {
    {Step::X, "x"},           {Step::Queries, "queries"}, {Step::Keys, "keys"},
    {Step::Values, "values"}, {Step::Scores, "scores"},   {Step::ScaledScores, "scaled_scores"},
    {Step::Weights, "weights"}, {Step::Outputs, "outputs"}, {Step::Concat, "concat"},
    {Step::Output, "output"},   {Step::WeightQuery, "w_q"},   {Step::WeightKey, "w_k"},
    {Step::WeightValue, "w_v"}, {Step::WeightOutput, "w_o"},
    {Step::QueriesUnrotated, "queries_unrotated"}, {Step::KeysUnrotated, "keys_unrotated"},
};

}  // namespace

const char* stepKey(Step step)
{
    for (const auto& s : stepNames)
        if (s.step == step)
            return s.key;
    return "";
}

std::optional<Step> stepFromKey(const std::string& key)
{
    for (const auto& s : stepNames)
        if (key == s.key)
            return s.step;
    return std::nullopt;
}

bool isPerHead(Step step)
{
    switch (step) {
    case Step::Queries: case Step::Keys: case Step::Values: case Step::Scores:
    case Step::ScaledScores: case Step::Weights: case Step::Outputs:
    case Step::QueriesUnrotated: case Step::KeysUnrotated:
        return true;
    default:
        return false;
    }
}

const std::vector<Step>& computedSteps()
{
    static const std::vector<Step> steps = {Step::X, Step::Queries, Step::Keys, Step::Values, Step::Scores,
                                            Step::ScaledScores, Step::Weights, Step::Outputs, Step::Concat,
                                            Step::Output};
    return steps;
}

const Matrix* Trace::inputMatrix(Step s) const
{
    switch (s) {
    case Step::X: return &x();
    case Step::Concat: return &concat;
    case Step::Output: return &output;
    case Step::WeightQuery: return &model->wq;
    case Step::WeightKey: return &model->wk;
    case Step::WeightValue: return &model->wv;
    case Step::WeightOutput: return model->wo ? &*model->wo : nullptr;
    default: return nullptr;
    }
}

/** scores (any block of a head's scores) scaled as trace's scaled scores are. */
template <typename Scores>
Matrix scaled(const Trace& trace, const Scores& scores)
{
    if (std::isfinite(trace.scoreFactor))
        return scores * trace.scoreFactor;
    return scores.unaryExpr([&trace](double v) { return scaledScore(trace, v); });
}

Matrix Trace::scaledScores(int head) const
{
    return scaled(*this, heads.at(std::size_t(head)).scores);
}

Matrix Trace::scaledScoresRow(int head, Eigen::Index query) const
{
    return scaled(*this, heads.at(std::size_t(head)).scores.row(query));
}

Matrix Trace::weightedValues(int head, int query) const
{
    const HeadTrace& ht = heads.at(std::size_t(head));
    assert(query >= 0 && query < n());
    // row j = weights(query, j) · v_j
    return ht.weights.row(query).transpose().asDiagonal() * ht.values;
}

Matrix Trace::step(Step s, int head) const
{
    Matrix m;
    stepInto(s, head, m);
    return m;
}

void Trace::stepInto(Step s, int head, Matrix& into) const
{
    const Matrix* stored = storedMatrix(s, head);
    if (!stored) {
        into.resize(0, 0);
        return;
    }
    if (s == Step::ScaledScores && !std::isfinite(scoreFactor)) {
        into = scaledScores(head);
        return;
    }
    into.resize(stored->rows(), stored->cols());
    if (s == Step::ScaledScores)
        into.noalias() = *stored * scoreFactor;
    else
        into = *stored;
}

const Matrix* Trace::storedMatrix(Step s, int head, double* factor) const
{
    const bool scaled = s == Step::ScaledScores;
    if (scaled && !std::isfinite(scoreFactor))
        return nullptr;
    *factor = scaled ? scoreFactor : 1.0;
    return storedMatrix(s, head);
}

std::pair<int, int> Trace::stepShape(Step s, int head) const
{
    const Matrix* m = storedMatrix(s, head);
    return m ? std::pair<int, int>(int(m->rows()), int(m->cols())) : std::pair<int, int>(0, 0);
}

double Trace::value(Step s, int head, int row, int col) const
{
    const Matrix* m = storedMatrix(s, head);
    if (!m)
        return 0.0;
    return s == Step::ScaledScores ? scaledScore(*this, (*m)(row, col)) : (*m)(row, col);
}

const Matrix* Trace::storedMatrix(Step s, int head) const
{
    if (!isPerHead(s))
        return inputMatrix(s);
    const HeadTrace& ht = heads.at(std::size_t(head));
    switch (s) {
    case Step::Queries: return &ht.queries;
    case Step::Keys: return &ht.keys;
    case Step::Values: return &ht.values;
    case Step::Scores:
    case Step::ScaledScores: return &ht.scores;
    case Step::Weights: return &ht.weights;
    case Step::Outputs: return &ht.outputs;
    case Step::QueriesUnrotated: return &ht.queriesUnrotated;
    case Step::KeysUnrotated: return &ht.keysUnrotated;
    default: return nullptr;
    }
}

}  // namespace core
