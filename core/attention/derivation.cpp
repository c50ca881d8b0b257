#include "core/attention/derivation.h"

#include "core/attention/rotary.h"

#include <cmath>

namespace core {

std::string subscript(int number)
{
    static const char* digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    std::string s;
    for (char c : std::to_string(number))
        s += c == '-' ? "₋" : digits[c - '0'];
    return s;
}

namespace {

std::string cell(const char* name, int row, int col)
{
    return std::string(name) + "(" + std::to_string(row + 1) + "," + std::to_string(col + 1) + ")";
}

/** A factor inside a product: negatives in parentheses. */
std::string factor(double v, int precision)
{
    const std::string s = formatNumber(v, precision);
    return v < 0 ? "(" + s + ")" : s;
}

template <typename F>
std::string joinTerms(const Derivation& d, const char* separator, F&& format)
{
    std::string s;
    for (std::size_t t = 0; t < d.terms.size(); ++t) {
        if (t)
            s += separator;
        s += format(d.terms[t]);
    }
    if (d.totalTerms > int(d.terms.size()))
        s += std::string(separator) + "… (" + std::to_string(d.totalTerms - int(d.terms.size())) + " more)";
    return s;
}

void dotProduct(Derivation& d, const MatrixCRef& a, Eigen::Index row, const MatrixCRef& b, Eigen::Index col)
{
    d.kind = Derivation::Kind::DotProduct;
    d.totalTerms = int(a.cols());
    for (Eigen::Index t = 0; t < a.cols() && t < Derivation::maxTerms; ++t)
        d.terms.push_back({a(row, t), b(t, col)});
}

/** The bias of column col, when there is one, as the last term of a dot product: "… + b_Q[2]". */
void addBias(Derivation& d, const std::optional<Matrix>& bias, const char* name, int col)
{
    if (!bias)
        return;
    d.bias = (*bias)(0, col);
    d.symbolic += std::string(" + ") + name + "[" + std::to_string(col + 1) + "]";
}

/** exp(s − max) as the engine's softmax takes it in the limit: at an overflowed maximum the +∞ scores
 *  share the row (each counts 1, every other score 0); NaN counts as −∞; a row with nothing above −∞
 *  is shared evenly. Finite rows: plain exp(s − max). */
double softmaxTerm(double s, double max)
{
    if (std::isnan(s))
        s = -INFINITY;
    if (max == INFINITY)
        return s == INFINITY ? 1.0 : 0.0;
    if (max == -INFINITY)
        return 1.0;
    return std::exp(s - max);
}

}  // namespace

std::string Derivation::text(int precision) const
{
    if (name.empty())
        return {};
    std::string s = name;
    if (headCount > 1 && isPerHead(cell.step))
        s += " [head " + std::to_string(cell.head + 1) + "]";
    const std::string v = formatNumber(value, precision);
    auto products = [&](const Term& t) { return factor(t.a, precision) + "·" + factor(t.b, precision); };
    switch (kind) {
    case Kind::Input:
        return s + " = " + v;
    case Kind::Sum:
        return s + " = " + symbolic + " = " + formatNumber(numeratorArg, precision) + " + "
            + factor(scaleFactor, precision) + " = " + v;
    case Kind::DotProduct:
    case Kind::WeightedSum:
        return s + " = " + symbolic + " = " + joinTerms(*this, " + ", products)
            + (bias ? " + " + factor(*bias, precision) : std::string()) + " = " + v;
    case Kind::Scale: {
        std::string ops, nums;
        if (dk > 0) {
            ops += " / √d_k";
            nums += " / √" + std::to_string(dk);
        }
        if (temperature != 1.0) {
            ops += " / T";
            nums += " / " + formatNumber(temperature, precision);
        }
        return s + " = " + symbolic + ops + " = " + formatNumber(numeratorArg, precision) + nums + " = " + v;
    }
    case Kind::Softmax: {
        if (masked)
            return s + " = 0 (causal mask: key " + std::to_string(cell.col + 1) + " comes after query "
                + std::to_string(cell.row + 1) + ")";
        const std::string m = formatNumber(rowMax, precision);
        auto exps = [&](const Term& t) { return "exp(" + formatNumber(t.a, precision) + " − " + m + ")"; };
        return s + " = " + symbolic + " = exp(" + formatNumber(numeratorArg, precision) + " − " + m + ") / ("
            + joinTerms(*this, " + ", exps) + ") = " + formatNumber(softmaxTerm(numeratorArg, rowMax), precision)
            + " / " + formatNumber(denominator, precision) + " = " + v;
    }
    case Kind::Copy:
        return s + " = " + symbolic + " = " + v;
    case Kind::Rotation: {
        if (terms.size() < 2)
            return s + " = " + symbolic + " = " + v;
        const std::string angle = formatNumber(numeratorArg, precision);
        return s + " = " + symbolic + " = " + factor(terms[0].a, precision) + "·cos(" + angle + ")"
            + (partnerAdds ? " + " : " − ") + factor(terms[1].a, precision) + "·sin(" + angle + ") = " + v;
    }
    }
    return s + " = " + v;
}

Derivation derive(const Trace& trace, const CellRef& c)
{
    Derivation d;
    d.cell = c;
    d.headCount = trace.headCount();
    if (isPerHead(c.step) && (c.head < 0 || c.head >= trace.headCount()))
        return d;
    const auto [rows, cols] = trace.stepShape(c.step, c.head);
    if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols)
        return d;
    d.value = trace.value(c.step, c.head, c.row, c.col);

    const AttentionModel& model = *trace.model;
    const int i = c.row, j = c.col, h = c.head;
    const int dk = model.dK(), dv = model.dV();
    const std::string si = subscript(i + 1), sj = subscript(j + 1);

    switch (c.step) {
    case Step::X:
        d.name = cell("x", i, j);
        if (model.options.positionalEncoding == PositionalEncoding::Sinusoidal) {
            d.kind = Derivation::Kind::Sum;
            d.symbolic = cell("e", i, j) + " + " + "PE(" + std::to_string(i) + "," + std::to_string(j) + ")";
            d.numeratorArg = model.embeddings(i, j);
            d.scaleFactor = d.value - d.numeratorArg;
        }
        break;
    case Step::WeightQuery: d.name = cell("W_Q", i, j); break;
    case Step::WeightKey: d.name = cell("W_K", i, j); break;
    case Step::WeightValue: d.name = cell("W_V", i, j); break;
    case Step::WeightOutput: d.name = cell("W_O", i, j); break;
    case Step::Queries:
    case Step::Keys:
    case Step::Values:
    case Step::QueriesUnrotated:
    case Step::KeysUnrotated: {
        const bool rotary = model.options.positionalEncoding == PositionalEncoding::Rotary;
        const bool isQuery = c.step == Step::Queries || c.step == Step::QueriesUnrotated;
        const bool isValue = c.step == Step::Values;
        const bool turned = rotary && (c.step == Step::Queries || c.step == Step::Keys);
        // Keys and values are their K/V head's: query head h reads K/V head h / (heads / kv_heads).
        const int block = isQuery ? h : h / std::max(1, model.heads() / model.kvHeads());
        const int width = isValue ? dv : dk;
        const int global = block * width + j;
        const Matrix& w = isQuery ? model.wq : isValue ? model.wv : model.wk;
        const char* letter = isQuery ? "q" : isValue ? "v" : "k";
        const char* wname = isQuery ? "W_Q" : isValue ? "W_V" : "W_K";
        const Step wstep = isQuery ? Step::WeightQuery : isValue ? Step::WeightValue : Step::WeightKey;
        d.name = cell(turned ? (isQuery ? "q′" : "k′") : letter, i, j);
        d.sources = {{Step::X, 0, i, -1}, {wstep, 0, -1, global}};
        if (turned) {
            // q′ = the unrotated row turned by its position i (rotate-half: pair (c, c + d_r/2)).
            const HeadTrace& ht = trace.heads[std::size_t(h)];
            const Matrix& u = isQuery ? ht.queriesUnrotated : ht.keysUnrotated;
            const std::vector<double> f = rotaryFrequencies(model);
            const int half = int(f.size());
            if (j >= 2 * half || u.rows() <= i || u.cols() <= j) {
                d.kind = Derivation::Kind::Copy;
                d.symbolic = cell(letter, i, j) + " (not turned: past the rotated " + std::to_string(2 * half) + ")";
                break;
            }
            const int pair = j < half ? j : j - half;
            const int partner = j < half ? j + half : j - half;
            d.kind = Derivation::Kind::Rotation;
            d.partnerAdds = j >= half;
            d.numeratorArg = double(i) * f[std::size_t(pair)];
            d.symbolic = cell(letter, i, j) + "·cos(" + std::to_string(i) + "·θ" + subscript(pair + 1) + ")"
                + (d.partnerAdds ? " + " : " − ") + cell(letter, i, partner) + "·sin(" + std::to_string(i) + "·θ"
                + subscript(pair + 1) + ")";
            d.terms = {{u(i, j), std::cos(d.numeratorArg)}, {u(i, partner), std::sin(d.numeratorArg)}};
            d.totalTerms = 2;
            d.sources.insert(d.sources.begin(), CellRef{isQuery ? Step::QueriesUnrotated : Step::KeysUnrotated, h, i, -1});
            break;
        }
        if (model.options.qkNorm && !isValue)
            break;  // normalised after the product: the value as it is (an input of the rotation and scores)
        const std::optional<Matrix>& b = isQuery ? model.bq : isValue ? model.bv : model.bk;
        d.symbolic = "x" + si + "·" + wname + "[:," + std::to_string(global + 1) + "]";
        dotProduct(d, trace.x(), i, w, global);
        addBias(d, b, isQuery ? "b_Q" : isValue ? "b_V" : "b_K", global);
        break;
    }
    case Step::Scores: {
        const HeadTrace& ht = trace.heads[std::size_t(h)];
        d.name = cell("score", i, j);
        d.symbolic = "q" + si + "·k" + sj;
        d.kind = Derivation::Kind::DotProduct;
        d.totalTerms = int(ht.queries.cols());
        for (Eigen::Index t = 0; t < ht.queries.cols() && t < Derivation::maxTerms; ++t)
            d.terms.push_back({ht.queries(i, t), ht.keys(j, t)});
        d.sources = {{Step::Queries, h, i, -1}, {Step::Keys, h, j, -1}};
        break;
    }
    case Step::ScaledScores:
        d.kind = Derivation::Kind::Scale;
        d.name = cell("scaled", i, j);
        d.symbolic = cell("score", i, j);
        d.numeratorArg = trace.heads[std::size_t(h)].scores(i, j);
        d.scaleFactor = trace.scoreFactor;
        d.dk = model.options.scale ? dk : 0;
        d.temperature = model.options.temperature;
        d.sources = {{Step::Scores, h, i, j}};
        break;
    case Step::Weights: {
        d.kind = Derivation::Kind::Softmax;
        d.name = cell("w", i, j);
        d.symbolic = "exp(" + cell("s", i, j) + " − max) / Σₖ exp(s(" + std::to_string(i + 1) + ",k) − max)";
        const bool causal = model.options.mask == Mask::Causal;
        const int limit = causal ? i + 1 : trace.n();
        d.masked = causal && j > i;
        // The scaled scores as the trace forms them (0 stays 0 when s / T overflowed); NaN is not a maximum.
        auto scaled = [&](int k) { return trace.value(Step::ScaledScores, h, i, k); };
        double max = -INFINITY;
        for (int k = 0; k < limit; ++k)
            if (const double s = scaled(k); s > max)
                max = s;
        d.rowMax = max;
        d.numeratorArg = scaled(j);
        d.totalTerms = limit;
        double sum = 0;
        for (int k = 0; k < limit; ++k) {
            const double s = scaled(k);
            const double e = softmaxTerm(s, max);
            sum += e;
            if (k < Derivation::maxTerms)
                d.terms.push_back({s, e});
        }
        d.denominator = sum;
        d.sources = {{Step::ScaledScores, h, i, -1}};
        break;
    }
    case Step::Outputs: {
        const HeadTrace& ht = trace.heads[std::size_t(h)];
        d.kind = Derivation::Kind::WeightedSum;
        d.name = cell("z", i, j);
        d.symbolic = "Σⱼ w(" + std::to_string(i + 1) + ",j)·v(j," + std::to_string(j + 1) + ")";
        d.totalTerms = trace.n();
        for (int k = 0; k < trace.n() && k < Derivation::maxTerms; ++k)
            d.terms.push_back({ht.weights(i, k), ht.values(k, j)});
        d.sources = {{Step::Weights, h, i, -1}, {Step::Values, h, -1, j}};
        break;
    }
    case Step::Concat: {
        d.kind = Derivation::Kind::Copy;
        d.name = cell("concat", i, j);
        d.otherHead = dv > 0 ? j / dv : 0;
        const int local = dv > 0 ? j % dv : j;
        d.symbolic = cell("z", i, local) + (d.headCount > 1 ? " of head " + std::to_string(d.otherHead + 1) : "");
        d.sources = {{Step::Outputs, d.otherHead, i, local}};
        break;
    }
    case Step::Output:
        d.name = cell("out", i, j);
        if (model.wo) {
            d.symbolic = "concat" + si + "·W_O[:," + std::to_string(j + 1) + "]";
            dotProduct(d, trace.concat, i, *model.wo, j);
            addBias(d, model.bo, "b_O", j);
            d.sources = {{Step::Concat, 0, i, -1}, {Step::WeightOutput, 0, -1, j}};
        } else {
            d.kind = Derivation::Kind::Copy;
            d.symbolic = cell("concat", i, j);
            d.sources = {{Step::Concat, 0, i, j}};
        }
        break;
    }
    return d;
}

}  // namespace core
