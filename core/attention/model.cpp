#include "core/attention/model.h"

#include "core/attention/embedding.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

namespace core {

Matrix AttentionModel::x() const
{
    Matrix out;
    xInto(out);
    return out;
}

void AttentionModel::xInto(Matrix& out) const
{
    out = embeddings;
    if (options.positionalEncoding == PositionalEncoding::Sinusoidal)  // rotary adds nothing to X
        out += sinusoidalEncoding(int(embeddings.rows()), int(embeddings.cols()));
}

bool AttentionModel::operator==(const AttentionModel& other) const
{
    auto same = [](const Matrix& a, const Matrix& b) {
        return a.rows() == b.rows() && a.cols() == b.cols() && (a.size() == 0 || a == b);
    };
    auto sameOptional = [&](const std::optional<Matrix>& a, const std::optional<Matrix>& b) {
        return a.has_value() == b.has_value() && (!a || same(*a, *b));
    };
    return tokens == other.tokens && same(embeddings, other.embeddings) && same(wq, other.wq)
        && same(wk, other.wk) && same(wv, other.wv) && sameOptional(wo, other.wo) && sameOptional(bq, other.bq)
        && sameOptional(bk, other.bk) && sameOptional(bv, other.bv) && sameOptional(bo, other.bo)
        && sameOptional(qNorm, other.qNorm) && sameOptional(kNorm, other.kNorm)
        && qkNormEpsilon == other.qkNormEpsilon && rotaryFrequencies == other.rotaryFrequencies
        && options == other.options;
}

namespace {

std::string shapeMessage(const char* key, const char* what, long expected, long got, const char* meaning)
{
    return std::string(key) + ": expected " + std::to_string(expected) + " " + what + " (" + meaning
        + "), got " + std::to_string(got);
}

std::optional<std::string> nonFinite(const char* key, const Matrix& m)
{
    if (allFinite(m))  // the loop below only finds where
        return std::nullopt;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            if (!std::isfinite(m(r, c)))
                return std::string(key) + "[" + std::to_string(r) + "][" + std::to_string(c)
                    + "]: expected a finite number";
    return std::nullopt;
}

/** A bias with its key and the weight whose columns it has. */
struct Bias {
    const char* key;
    const std::optional<Matrix>& bias;
    const Matrix* weight;  ///< null for b_O without W_O
    const char* meaning;   ///< what the columns are
};

std::array<Bias, 4> biases(const AttentionModel& m)
{
    const bool grouped = m.kvHeads() != m.heads();
    return {Bias{"weights.query_bias", m.bq, &m.wq, "h·d_k"},
            Bias{"weights.key_bias", m.bk, &m.wk, grouped ? "kv_heads·d_k" : "h·d_k"},
            Bias{"weights.value_bias", m.bv, &m.wv, grouped ? "kv_heads·d_v" : "h·d_v"},
            Bias{"weights.output_bias", m.bo, m.wo ? &*m.wo : nullptr, "d_out"}};
}

/** Each bias is one row with its weight's columns; b_O needs W_O. */
std::optional<std::string> biasShape(const AttentionModel& m)
{
    for (const Bias& b : biases(m)) {
        if (!b.bias)
            continue;
        if (!b.weight)
            return std::string(b.key) + ": given without weights.output; an output bias needs the output projection";
        if (b.bias->rows() != 1)
            return shapeMessage(b.key, "row", 1, long(b.bias->rows()), "a bias is one row");
        if (b.bias->cols() != b.weight->cols())
            return shapeMessage(b.key, b.weight->cols() == 1 ? "column" : "columns", long(b.weight->cols()),
                                long(b.bias->cols()), b.meaning);
    }
    return std::nullopt;
}

/** The checks of rotary positions and q/k norm (SPEC §6), for heads of width dk. */
std::optional<std::string> headOptions(const AttentionModel& m, long dk)
{
    const Options& o = m.options;
    if (o.positionalEncoding == PositionalEncoding::Rotary) {
        if (!(o.ropeTheta > 0) || !std::isfinite(o.ropeTheta))
            return std::string("options.rope_theta: expected a finite number > 0");
        if (!(o.rotaryFraction > 0 && o.rotaryFraction <= 1))
            return std::string("options.rotary_fraction: expected a number > 0 and at most 1");
        const int dr = rotaryWidth(m);
        if (dr < 2)
            return "options.rotary_fraction: turns " + std::to_string(dr) + " of d_k = " + std::to_string(dk)
                + " dimensions; expected at least 2";
        if (m.rotaryFrequencies) {
            const std::vector<double>& f = *m.rotaryFrequencies;
            if (long(f.size()) != dr / 2)
                return "rotary frequencies: expected " + std::to_string(dr / 2) + " (d_r / 2), got "
                    + std::to_string(f.size());
            for (std::size_t i = 0; i < f.size(); ++i)
                if (!std::isfinite(f[i]))
                    return "rotary frequencies[" + std::to_string(i) + "]: expected a finite number";
        }
    }
    if (!(m.qkNormEpsilon > 0) || !std::isfinite(m.qkNormEpsilon))
        return std::string("options.qk_norm_epsilon: expected a finite number > 0");
    for (auto [key, norm] : {std::pair{"weights.query_norm", &m.qNorm}, std::pair{"weights.key_norm", &m.kNorm}}) {
        if (!*norm)
            continue;
        if ((*norm)->rows() != 1)
            return shapeMessage(key, "row", 1, long((*norm)->rows()), "a norm's weights are one row");
        if ((*norm)->cols() != dk)
            return shapeMessage(key, dk == 1 ? "column" : "columns", dk, long((*norm)->cols()), "d_k");
        if (auto e = nonFinite(key, **norm))
            return e;
    }
    return std::nullopt;
}

/** The checks of validate() before its scan of the numbers. */
std::optional<std::string> shapesAndOptions(const AttentionModel& m)
{
    const Options& o = m.options;
    const long n = long(m.tokens.size());
    if (n < 1)
        return std::string("tokens: expected at least 1 token, got 0");
    if (n > Limits::maxTokens)
        return "tokens: expected at most " + std::to_string(Limits::maxTokens) + " tokens, got " + std::to_string(n);
    if (m.embeddings.rows() != n)
        return shapeMessage("embeddings", "rows", n, long(m.embeddings.rows()), "one per token");
    const long d = long(m.embeddings.cols());
    if (d < 1)
        return std::string("embeddings: expected at least 1 column (d_model), got 0");
    if (d > Limits::maxDModel)
        return "embeddings: expected at most " + std::to_string(Limits::maxDModel) + " columns (d_model), got "
            + std::to_string(d);
    if (o.heads < 1 || o.heads > Limits::maxHeads)
        return "options.heads: expected a whole number from 1 to " + std::to_string(Limits::maxHeads) + ", got "
            + std::to_string(o.heads);
    if (!(o.temperature > 0) || !std::isfinite(o.temperature))
        return std::string("options.temperature: expected a finite number > 0");

    if (o.kvHeads < 0 || o.kvHeads > Limits::maxHeads)
        return "options.kv_heads: expected a whole number from 1 to " + std::to_string(Limits::maxHeads) + ", got "
            + std::to_string(o.kvHeads);
    if (o.heads % m.kvHeads() != 0)
        return "options.kv_heads: " + std::to_string(o.kvHeads) + " does not divide heads (" + std::to_string(o.heads)
            + ")";
    const bool grouped = m.kvHeads() != o.heads;  // K and V have heads of their own (SPEC §6 kv_heads)
    struct W { const char* key; const Matrix* m; int heads; };
    for (W w : {W{"weights.query", &m.wq, o.heads}, W{"weights.key", &m.wk, m.kvHeads()},
                W{"weights.value", &m.wv, m.kvHeads()}}) {
        if (w.m->rows() != d)
            return shapeMessage(w.key, "rows", d, long(w.m->rows()), "d_model");
        if (w.m->cols() < 1)
            return std::string(w.key) + ": expected at least 1 column, got 0";
        if (w.m->cols() > Limits::maxWidth)
            return std::string(w.key) + ": expected at most " + std::to_string(Limits::maxWidth) + " columns, got "
                + std::to_string(w.m->cols());
        if (w.m->cols() % w.heads != 0)
            return std::string(w.key) + ": " + std::to_string(w.m->cols()) + " columns do not divide into "
                + std::to_string(w.heads)
                + (w.heads == o.heads ? " heads (options.heads)" : " K/V heads (options.kv_heads)");
    }
    const long dk = long(m.wq.cols()) / o.heads;
    if (m.wk.cols() != long(m.kvHeads()) * dk)
        return grouped ? shapeMessage("weights.key", "columns", long(m.kvHeads()) * dk, long(m.wk.cols()),
                                      "kv_heads·d_k, d_k from weights.query")
                       : shapeMessage("weights.key", "columns", long(m.wq.cols()), long(m.wk.cols()),
                                      "h·d_k, as weights.query");
    if (auto e = headOptions(m, dk))
        return e;
    if (m.wo) {
        const long concat = long(o.heads) * m.dV();  // h·d_v, W_V's columns without K/V heads of its own
        if (m.wo->rows() != concat)
            return shapeMessage("weights.output", "rows", concat, long(m.wo->rows()), "h·d_v");
        if (m.wo->cols() < 1 || m.wo->cols() > Limits::maxWidth)
            return "weights.output: expected 1 to " + std::to_string(Limits::maxWidth) + " columns, got "
                + std::to_string(m.wo->cols());
    }
    return biasShape(m);
}

/** The check of validate() after its scan of the numbers. */
std::optional<std::string> budget(const AttentionModel& m)
{
    const std::size_t bytes = estimatedTraceBytes(m);
    if (bytes > Limits::memoryBudgetBytes)
        return "tokens: " + std::to_string(m.tokens.size()) + " tokens with " + std::to_string(m.options.heads)
            + " heads need about " + std::to_string(bytes >> 20) + " MiB, more than the memory budget of "
            + std::to_string(Limits::memoryBudgetBytes >> 20) + " MiB";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> validate(const AttentionModel& m)
{
    if (auto e = shapesAndOptions(m)) return e;
    if (auto e = nonFinite("embeddings", m.embeddings)) return e;
    if (auto e = nonFinite("weights.query", m.wq)) return e;
    if (auto e = nonFinite("weights.key", m.wk)) return e;
    if (auto e = nonFinite("weights.value", m.wv)) return e;
    if (m.wo)
        if (auto e = nonFinite("weights.output", *m.wo)) return e;
    for (const Bias& b : biases(m))
        if (b.bias)
            if (auto e = nonFinite(b.key, *b.bias)) return e;
    return budget(m);
}

std::optional<std::string> validateShapes(const AttentionModel& m)
{
    if (auto e = shapesAndOptions(m)) return e;
    return budget(m);
}

std::size_t estimatedTraceBytes(const AttentionModel& m)
{
    const std::size_t n = m.tokens.size();
    const std::size_t h = std::size_t(std::max(m.options.heads, 1));
    const std::size_t d = std::size_t(m.embeddings.cols());
    const std::size_t qk = std::size_t(m.wq.cols()), kvk = std::size_t(m.wk.cols()), v = std::size_t(m.wv.cols());
    const std::size_t hv = m.dV() > 0 ? h * std::size_t(m.dV()) : v;  // concat: every query head's d_v
    const std::size_t out = m.wo ? std::size_t(m.wo->cols()) : hv;
    // What the trace holds: its copy of the model (X before encoding, the weights and biases), X, every head's
    // Q, K, V (heads sharing a K/V head each hold a copy), Q and K before the rotation, outputs, scores and
    // weights (n × n each), concat and output.
    const std::size_t biases = (m.bq ? qk : 0) + (m.bk ? kvk : 0) + (m.bv ? v : 0) + (m.bo ? out : 0);
    const std::size_t model = n * d + d * (qk + kvk + v) + (m.wo ? hv * out : 0) + biases;
    const std::size_t unrotated = m.options.positionalEncoding == PositionalEncoding::Rotary ? 2 * n * qk : 0;
    const std::size_t cells = model + n * d + n * (2 * qk + 2 * hv) + unrotated + 2 * h * n * n + n * hv + n * out;
    // While it computes, each thread's products pack a block of 128 rows (of X or of the weights) and one
    // head's K or V: at most 128 · max(n, d_model) + 2 · n · (widest head) cells per thread; each thread keeps
    // a scratch for the projections of all heads, at most n or 128 rows of the widest weight, or 2^17 cells;
    // and 2 MiB for the threads' stacks and the allocator.
    const std::size_t width = std::max<std::size_t>({qk / h, hv / h, 1});
    const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t widest = std::max(qk, v);
    const std::size_t scratch = std::min(n * widest, std::max<std::size_t>(std::size_t(1) << 17, 128 * widest));
    const std::size_t transient = threads * (128 * std::max(n, d) + 2 * n * width + scratch);
    return (cells + transient) * sizeof(double) + (std::size_t(2) << 20);
}

int rotaryWidth(const AttentionModel& m)
{
    if (m.options.positionalEncoding != PositionalEncoding::Rotary)
        return 0;
    const double turned = std::floor(m.options.rotaryFraction * double(m.dK()));
    return turned >= 0 && turned <= double(m.dK()) ? int(turned) / 2 * 2 : 0;
}

const char* toString(Mask mask)
{
    return mask == Mask::Causal ? "causal" : "none";
}

const char* toString(PositionalEncoding pe)
{
    return pe == PositionalEncoding::Sinusoidal ? "sinusoidal" : pe == PositionalEncoding::Rotary ? "rotary" : "none";
}

std::optional<Mask> maskFromString(const std::string& s)
{
    if (s == "none") return Mask::None;
    if (s == "causal") return Mask::Causal;
    return std::nullopt;
}

std::optional<PositionalEncoding> positionalEncodingFromString(const std::string& s)
{
    if (s == "none") return PositionalEncoding::None;
    if (s == "sinusoidal") return PositionalEncoding::Sinusoidal;
    if (s == "rotary") return PositionalEncoding::Rotary;
    return std::nullopt;
}

}  // namespace core
