#include "core/models/decoderforward.h"

#include "core/tensor/gemm.h"
#include "core/tensor/products.h"
#include "core/tensor/softmax.h"
#include "core/tensor/threadpool.h"

#include <cmath>
#include <numbers>

namespace core {

namespace {

using Index = Eigen::Index;

/** Rows of a weight widened and multiplied per task of the pool: 256 × 4096 floats, 4 MB, at most. */
constexpr Index rowsPerTask = 256;

/** out = x · wᵀ + bias: x is n × in, w out × in as stored, bias 1 × out (or absent); out n × out. The weight is read
 *  in blocks of rows, each widened to float32 once (in place when it is stored so), on the pool's threads. */
void linear(const FloatMatrix& x, const StoredTensor& w, const StoredTensor& bias, FloatMatrix& out)
{
    out.resize(x.rows(), w.rows);
    const int tasks = int((w.rows + rowsPerTask - 1) / rowsPerTask);
    parallelFor(tasks, coreCount(), [&](int t) {
        const Index r0 = Index(t) * rowsPerTask, count = std::min(rowsPerTask, w.rows - r0);
        std::vector<float> buffer;
        const float* b = w.rowsAsFloat(r0, count, buffer);
        productKernels().sgemm(x.data(), x.cols(), b, w.cols, true, out.data() + r0, out.cols(), x.rows(), count,
                               x.cols());
    });
    if (bias.present())
        out.rowwise() += bias.toFloat().row(0);
}

/** The norm of every row of x (n × d) with its statistics in double: RMSNorm x / √(mean x² + ε) · w, or LayerNorm
 *  (x − mean) / √(biased variance + ε) · w + b. */
FloatMatrix normRows(const FloatMatrix& x, NormKind kind, const StoredTensor& weight, const StoredTensor& bias,
                     double epsilon)
{
    const Index d = x.cols();
    const FloatMatrix w = weight.toFloat();
    const FloatMatrix b = bias.present() ? bias.toFloat() : FloatMatrix::Zero(1, d);
    FloatMatrix out(x.rows(), d);
    for (Index r = 0; r < x.rows(); ++r) {
        const float* in = x.row(r).data();
        double mean = 0;
        if (kind == NormKind::Layer) {
            for (Index c = 0; c < d; ++c)
                mean += in[c];
            mean /= double(d);
        }
        double squares = 0;
        for (Index c = 0; c < d; ++c)
            squares += (in[c] - mean) * (in[c] - mean);
        const double inverse = 1.0 / std::sqrt(squares / double(d) + epsilon);
        for (Index c = 0; c < d; ++c)
            out(r, c) = float((in[c] - mean) * inverse * w(0, c) + b(0, c));
    }
    return out;
}

/** RMSNorm of every row of m (n × head_dim) in place, in double, with weight (1 × head_dim). */
void rmsNormRows(Matrix& m, const FloatMatrix& weight, double epsilon)
{
    for (Index r = 0; r < m.rows(); ++r) {
        const double inverse = 1.0 / std::sqrt(m.row(r).squaredNorm() / double(m.cols()) + epsilon);
        for (Index c = 0; c < m.cols(); ++c)
            m(r, c) = m(r, c) * inverse * double(weight(0, c));
    }
}

/** Turns the first dims columns of row p of m by position p: for i < dims/2 the pair (x_i, x_{i+dims/2}) by the
 *  angle p·inverse[i] (rotate-half RoPE). */
void rotateRows(Matrix& m, const std::vector<double>& inverse)
{
    const Index half = Index(inverse.size());
    for (Index p = 0; p < m.rows(); ++p)
        for (Index i = 0; i < half; ++i) {
            const double angle = double(p) * inverse[std::size_t(i)], c = std::cos(angle), s = std::sin(angle);
            const double a = m(p, i), b = m(p, i + half);
            m(p, i) = a * c - b * s;
            m(p, i + half) = b * c + a * s;
        }
}

/** GELU of v: the exact 0.5·v·(1 + erf(v/√2)), or the tanh form. */
double gelu(double v, GeluForm form)
{
    if (form == GeluForm::Erf)
        return 0.5 * v * (1 + std::erf(v / std::numbers::sqrt2));
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
}

} // namespace

DecoderForward::DecoderForward(std::shared_ptr<const DecoderCheckpoint> checkpoint)
    : m_checkpoint(std::move(checkpoint))
{
    const DecoderConfig& c = config();
    m_inverseFrequencies = c.inverseFrequencies();
    m_stream.resize(std::size_t(c.layers) + 1);
    m_q.resize(std::size_t(c.layers));
    m_k.resize(std::size_t(c.layers));
    m_v.resize(std::size_t(c.layers));
    m_attention.resize(std::size_t(c.layers) * std::size_t(c.heads));
}

bool DecoderForward::setTokens(std::vector<int> ids, std::string& error)
{
    if (const auto problem = tokenIdsProblem(ids, config().positions, "max_position_embeddings", config().vocabSize)) {
        error = *problem;
        return false;
    }
    m_ids = std::move(ids);
    return true;
}

void DecoderForward::setAblated(int layer, int head, bool zeroed)
{
    if (zeroed)
        m_ablations.insert({layer, head});
    else
        m_ablations.erase({layer, head});
}

bool DecoderForward::run(const StopCheck& stop)
{
    if (m_ids.empty())
        return true;
    const StoredTensor& embedding = m_checkpoint->embedding();
    FloatMatrix& x = m_stream[0];
    x.resize(n(), config().dModel);
    std::vector<float> buffer;
    for (Index i = 0; i < n(); ++i)
        x.row(i) = Eigen::Map<const Eigen::RowVectorXf>(embedding.rowsAsFloat(m_ids[std::size_t(i)], 1, buffer),
                                                        x.cols());
    for (int layer = 0; layer < config().layers; ++layer) {
        if (stopNow(stop))
            return false;
        runLayer(layer);
    }
    if (stopNow(stop))
        return false;
    m_logits = logitsOfRow(n() - 1);
    return true;
}

FloatMatrix DecoderForward::layerInput(int layer) const
{
    const DecoderLayer& w = m_checkpoint->layers()[std::size_t(layer)];
    return normRows(m_stream[std::size_t(layer)], config().norm, w.attnNorm, w.attnNormBias, config().normEpsilon);
}

Matrix DecoderForward::headRows(const FloatMatrix& projection, int head, const StoredTensor* norm, bool rotated) const
{
    const Index hd = config().headDim;
    Matrix m = projection.middleCols(Index(head) * hd, hd).cast<double>();
    if (norm && norm->present())
        rmsNormRows(m, norm->toFloat(), config().normEpsilon);
    if (rotated)
        rotateRows(m, m_inverseFrequencies);
    return m;
}

Matrix DecoderForward::allHeads(const FloatMatrix& projection, const StoredTensor& norm, bool rotated) const
{
    const Index hd = config().headDim;
    Matrix out(projection.rows(), projection.cols());
    for (Index h = 0; h < projection.cols() / hd; ++h)
        out.middleCols(h * hd, hd) = headRows(projection, int(h), &norm, rotated);
    return out;
}

Matrix DecoderForward::queries(int layer, bool rotated) const
{
    return allHeads(m_q[std::size_t(layer)], m_checkpoint->layers()[std::size_t(layer)].queryNorm, rotated);
}

Matrix DecoderForward::keys(int layer, bool rotated) const
{
    return allHeads(m_k[std::size_t(layer)], m_checkpoint->layers()[std::size_t(layer)].keyNorm, rotated);
}

Matrix DecoderForward::values(int layer) const
{
    return m_v[std::size_t(layer)].cast<double>();
}

void DecoderForward::runLayer(int layer)
{
    const DecoderConfig& c = config();
    const DecoderLayer& w = m_checkpoint->layers()[std::size_t(layer)];
    const std::size_t l = std::size_t(layer);
    const Index count = n(), hd = c.headDim;
    const FloatMatrix& x = m_stream[l];
    const FloatMatrix a = layerInput(layer);
    FloatMatrix &q = m_q[l], &k = m_k[l], &v = m_v[l];
    // projections: q (n × heads·hd), k and v (n × kv·hd), with their biases
    if (c.fusedQkv) {
        // NeoX's rows are per head: [head][q, k, v][hd]
        FloatMatrix qkv;
        linear(a, w.qkv, w.qkvBias, qkv);
        q.resize(count, c.heads * hd);
        k.resize(count, c.heads * hd);
        v.resize(count, c.heads * hd);
        for (Index h = 0; h < c.heads; ++h) {
            q.middleCols(h * hd, hd) = qkv.middleCols(3 * h * hd, hd);
            k.middleCols(h * hd, hd) = qkv.middleCols(3 * h * hd + hd, hd);
            v.middleCols(h * hd, hd) = qkv.middleCols(3 * h * hd + 2 * hd, hd);
        }
    } else {
        linear(a, w.query, w.queryBias, q);
        linear(a, w.key, w.keyBias, k);
        linear(a, w.value, w.valueBias, v);
    }
    // each head: its q and K/V head's k (normed, turned), softmax(causal(q·kᵀ/√hd)), then weights·v
    FloatMatrix concat(count, c.heads * hd);
    const int group = c.groupSize();
    std::vector<Matrix> kvKeys(std::size_t(c.kvHeads)), kvValues(std::size_t(c.kvHeads));
    parallelFor(c.kvHeads, coreCount(), [&](int g) {
        kvKeys[std::size_t(g)] = headRows(k, g, &w.keyNorm, true);
        kvValues[std::size_t(g)] = v.middleCols(Index(g) * hd, hd).cast<double>();
    });
    parallelFor(c.heads, coreCount(), [&](int h) {
        const Matrix qh = headRows(q, h, &w.queryNorm, true);
        const std::size_t g = std::size_t(h / group);
        SharedFactor keysT;
        keysT.referTransposed(kvKeys[g]);
        Matrix weights(count, count);
        multiply(qh, keysT, weights);
        maskedSoftmaxRows(weights, weights, 0, true, 1.0 / std::sqrt(double(hd)));
        Matrix out(count, hd);
        multiply(weights, kvValues[g], out);
        concat.middleCols(Index(h) * hd, hd) = out.cast<float>();
        m_attention[l * std::size_t(c.heads) + std::size_t(h)] = weights.cast<float>();
    });
    // a zeroed head's columns of W_O count as 0: its columns of concat reach nothing
    for (auto it = m_ablations.lower_bound({layer, 0}); it != m_ablations.end() && it->first == layer; ++it)
        concat.middleCols(Index(it->second) * hd, hd).setZero();
    FloatMatrix attended;
    linear(concat, w.output, w.outputBias, attended);
    attended += x;
    // the MLP on the stream after attention, or beside it on x (parallel residual)
    m_stream[l + 1] = c.parallelResidual ? FloatMatrix(attended + mlp(layer, x)) : FloatMatrix(attended + mlp(layer, attended));
}

FloatMatrix DecoderForward::mlp(int layer, const FloatMatrix& x) const
{
    const DecoderConfig& c = config();
    const DecoderLayer& w = m_checkpoint->layers()[std::size_t(layer)];
    const FloatMatrix h = normRows(x, c.norm, w.mlpNorm, w.mlpNormBias, c.normEpsilon);
    FloatMatrix up, out;
    linear(h, w.up, w.upBias, up);
    if (c.mlp == MlpKind::GatedSilu) {
        FloatMatrix gate;
        linear(h, w.gate, w.gateBias, gate);
        // silu(gate) · up
        for (Index i = 0; i < up.size(); ++i) {
            const double g = gate.data()[i];
            up.data()[i] = float(g / (1 + std::exp(-g)) * double(up.data()[i]));
        }
    } else {
        for (Index i = 0; i < up.size(); ++i)
            up.data()[i] = float(gelu(up.data()[i], c.gelu));
    }
    linear(up, w.down, w.downBias, out);
    return out;
}

FloatMatrix DecoderForward::logitsOfRow(Index row) const
{
    const FloatMatrix h = normRows(m_stream.back().middleRows(row, 1), config().norm, m_checkpoint->finalNorm(),
                                   m_checkpoint->finalNormBias(), config().normEpsilon);
    FloatMatrix out;
    linear(h, m_checkpoint->head(), {}, out);
    return out;
}

FloatMatrix DecoderForward::logitsAt(int position) const
{
    return position == n() - 1 ? m_logits : logitsOfRow(position);
}

} // namespace core
