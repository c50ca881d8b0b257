#include "core/models/decoderforward.h"

#include "core/tensor/gemm.h"
#include "core/tensor/products.h"
#include "core/tensor/softmax.h"
#include "core/tensor/threadpool.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <numbers>

namespace core {

namespace {

using Index = Eigen::Index;

/** Rows of a weight multiplied per task of the pool: a multiple of every level's tile of rows (6, 3, 2), and few
 *  enough that an F16 block widened to float32 stays in cache (192 rows of a 4096-wide weight are 3 MB). */
constexpr Index rowsPerTask = 192;

/** out = x · wᵀ + bias: x is n × in, w out × in as stored, bias 1 × out (or absent); out n × out. Blocks of rows of
 *  the weight on the pool's threads; BF16 and float32 rows are read as stored and widened in registers, F16 rows
 *  widened to float32 a block at a time first. */
void linear(const FloatMatrix& x, const StoredTensor& w, const StoredTensor& bias, FloatMatrix& out)
{
    out.resize(x.rows(), w.rows);
    const ProductKernels& kernels = productKernels();
    const int tasks = int((w.rows + rowsPerTask - 1) / rowsPerTask);
    parallelFor(tasks, coreCount(), [&](int t) {
        const Index r0 = Index(t) * rowsPerTask, count = std::min(rowsPerTask, w.rows - r0);
        float* c = out.data() + r0;
        if (w.dtype == Dtype::BF16 && std::endian::native == std::endian::little) {
            kernels.rowsProduct(x.data(), x.cols(), w.bytes + std::size_t(r0 * w.cols) * 2, RowStorage::BF16, w.cols, c,
                                out.cols(), x.rows(), count, x.cols());
            return;
        }
        // each thread widens into its own buffer, kept between products: no allocation, page faults or zeroing
        thread_local std::vector<float> buffer;
        kernels.rowsProduct(x.data(), x.cols(), w.rowsAsFloat(r0, count, buffer), RowStorage::F32, w.cols, c,
                            out.cols(), x.rows(), count, x.cols());
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

namespace {

/** The layer's tensors an edit may reach, copied to float32 when the layer is first edited. */
constexpr StoredTensor DecoderLayer::*editable[] = {
    &DecoderLayer::qkv,       &DecoderLayer::qkvBias,  &DecoderLayer::query,     &DecoderLayer::queryBias,
    &DecoderLayer::key,       &DecoderLayer::keyBias,  &DecoderLayer::value,     &DecoderLayer::valueBias,
    &DecoderLayer::output,    &DecoderLayer::outputBias, &DecoderLayer::queryNorm, &DecoderLayer::keyNorm};

} // namespace

std::optional<std::string> checkDecoderCell(const DecoderConfig& c, ModelWeight weight, int row, int col)
{
    const int q = c.heads * c.headDim, kv = c.kvHeads * c.headDim;
    const std::string name = modelWeightName(weight);
    int rows = 1, cols = 0;
    bool present = true;
    switch (weight) {
    case ModelWeight::Query: rows = c.dModel, cols = q; break;
    case ModelWeight::Key:
    case ModelWeight::Value: rows = c.dModel, cols = kv; break;
    case ModelWeight::Output: rows = q, cols = c.dModel; break;
    case ModelWeight::QueryBias: cols = q, present = c.qkvBias; break;
    case ModelWeight::KeyBias:
    case ModelWeight::ValueBias: cols = kv, present = c.qkvBias; break;
    case ModelWeight::OutputBias: cols = c.dModel, present = c.outputBias; break;
    case ModelWeight::QueryNorm:
    case ModelWeight::KeyNorm: cols = c.headDim, present = c.qkNorm; break;
    }
    if (!present)
        return name + ": " + c.architecture + " as config.json describes it has no such weight";
    if (row < 0 || row >= rows)
        return "row " + std::to_string(row) + " is outside 0 … " + std::to_string(rows - 1) + " (" + name + " has " +
               std::to_string(rows) + (rows == 1 ? " row)" : " rows)");
    if (col < 0 || col >= cols)
        return "col " + std::to_string(col) + " is outside 0 … " + std::to_string(cols - 1) + " (" + name + " has " +
               std::to_string(cols) + " columns)";
    return std::nullopt;
}

DecoderForward::Place DecoderForward::place(ModelWeight weight, int row, int col) const
{
    const DecoderConfig& c = config();
    const Index hd = c.headDim;
    // NeoX's fused rows are per head, [head][q, k, v][head_dim]: column col of W_Q, W_K or W_V (part 0, 1, 2) is
    // row (col / hd)·3hd + part·hd + col % hd of query_key_value.
    const auto fused = [&](int part) { return Index(col) / hd * 3 * hd + part * hd + Index(col) % hd; };
    switch (weight) {
    case ModelWeight::Query:
        return c.fusedQkv ? Place{&DecoderLayer::qkv, fused(0), row} : Place{&DecoderLayer::query, col, row};
    case ModelWeight::Key:
        return c.fusedQkv ? Place{&DecoderLayer::qkv, fused(1), row} : Place{&DecoderLayer::key, col, row};
    case ModelWeight::Value:
        return c.fusedQkv ? Place{&DecoderLayer::qkv, fused(2), row} : Place{&DecoderLayer::value, col, row};
    case ModelWeight::Output: return {&DecoderLayer::output, col, row};
    case ModelWeight::QueryBias:
        return c.fusedQkv ? Place{&DecoderLayer::qkvBias, 0, fused(0)} : Place{&DecoderLayer::queryBias, 0, col};
    case ModelWeight::KeyBias:
        return c.fusedQkv ? Place{&DecoderLayer::qkvBias, 0, fused(1)} : Place{&DecoderLayer::keyBias, 0, col};
    case ModelWeight::ValueBias:
        return c.fusedQkv ? Place{&DecoderLayer::qkvBias, 0, fused(2)} : Place{&DecoderLayer::valueBias, 0, col};
    case ModelWeight::OutputBias: return {&DecoderLayer::outputBias, 0, col};
    case ModelWeight::QueryNorm: return {&DecoderLayer::queryNorm, 0, col};
    case ModelWeight::KeyNorm: return {&DecoderLayer::keyNorm, 0, col};
    }
    return {&DecoderLayer::query, 0, 0};
}

const DecoderLayer& DecoderForward::weights(int layer) const
{
    const auto it = m_editedLayers.find(layer);
    return it == m_editedLayers.end() ? m_checkpoint->layers()[std::size_t(layer)] : it->second.weights;
}

namespace {

float valueAt(const StoredTensor& t, Index row, Index col)
{
    std::vector<float> buffer;
    return t.rowsAsFloat(row, 1, buffer)[col];
}

} // namespace

float DecoderForward::weightValue(int layer, ModelWeight weight, int row, int col) const
{
    const Place p = place(weight, row, col);
    return valueAt(weights(layer).*p.tensor, p.row, p.col);
}

float DecoderForward::checkpointValue(int layer, ModelWeight weight, int row, int col) const
{
    const Place p = place(weight, row, col);
    return valueAt(m_checkpoint->layers()[std::size_t(layer)].*p.tensor, p.row, p.col);
}

bool DecoderForward::setEdit(int layer, ModelWeight weight, int row, int col, float value, std::string& error)
{
    if (layer < 0 || layer >= config().layers) {
        error = "layer " + std::to_string(layer) + " is outside 0 … " + std::to_string(config().layers - 1);
        return false;
    }
    if (auto problem = checkDecoderCell(config(), weight, row, col)) {
        error = *problem;
        return false;
    }
    const auto cell = std::tuple{layer, weight, row, col};
    const float original = checkpointValue(layer, weight, row, col);
    markDirty(layer);
    if (std::bit_cast<std::uint32_t>(value) == std::bit_cast<std::uint32_t>(original)) {
        m_edits.erase(cell);
        const auto next = m_edits.lower_bound({layer, ModelWeight::Query, 0, 0});
        if (next == m_edits.end() || std::get<0>(next->first) != layer) {
            m_editedLayers.erase(layer);
            return true;
        }
    } else {
        m_edits[cell] = value;
    }
    auto it = m_editedLayers.find(layer);
    if (it == m_editedLayers.end()) {
        // The layer's attention weights copied to float32 once, its view pointing at the copies (which never move).
        it = m_editedLayers.emplace(layer, EditedLayer{{}, m_checkpoint->layers()[std::size_t(layer)]}).first;
        EditedLayer& e = it->second;
        e.copies.reserve(std::size(editable));
        for (StoredTensor DecoderLayer::*member : editable)
            e.copies.push_back((e.weights.*member).present() ? (e.weights.*member).toFloat() : FloatMatrix());
        e.pointAtCopies();
    }
    EditedLayer& e = it->second;
    const Place p = place(weight, row, col);
    const auto index = std::size_t(std::find(std::begin(editable), std::end(editable), p.tensor) - std::begin(editable));
    e.copies[index](p.row, p.col) = value;
    return true;
}

void DecoderForward::clearEdit(int layer, ModelWeight weight, int row, int col)
{
    if (!m_edits.count({layer, weight, row, col}))
        return;
    std::string ignored;
    setEdit(layer, weight, row, col, checkpointValue(layer, weight, row, col), ignored);
}

void DecoderForward::clearEdits()
{
    if (!m_edits.empty())
        markDirty(std::get<0>(m_edits.begin()->first));
    m_edits.clear();
    m_editedLayers.clear();
}

std::vector<ModelEdit> DecoderForward::edits() const
{
    std::vector<ModelEdit> out;
    for (const auto& [cell, value] : m_edits)
        out.push_back({std::get<0>(cell), std::get<1>(cell), std::get<2>(cell), std::get<3>(cell), value});
    return out;
}

DecoderForward::DecoderForward(std::shared_ptr<const DecoderCheckpoint> checkpoint,
                               std::shared_ptr<const HfTokenizer> tokenizer)
    : m_checkpoint(std::move(checkpoint)), m_tokenizer(std::move(tokenizer))
{
    const DecoderConfig& c = config();
    m_inverseFrequencies = c.inverseFrequencies();
    m_stream.resize(std::size_t(c.layers) + 1);
    m_q.resize(std::size_t(c.layers));
    m_k.resize(std::size_t(c.layers));
    m_v.resize(std::size_t(c.layers));
    m_z.resize(std::size_t(c.layers));
    m_attended.resize(std::size_t(c.layers));
    m_attention.resize(std::size_t(c.layers) * std::size_t(c.heads));
}

ModelShape DecoderForward::shape() const
{
    const DecoderConfig& c = config();
    return {.architecture = c.architecture, .layers = c.layers, .heads = c.heads, .kvHeads = c.kvHeads,
            .dModel = c.dModel, .headDim = c.headDim, .positions = c.positions, .vocabSize = c.vocabSize,
            .layersKey = "num_hidden_layers", .headsKey = "num_attention_heads",
            .positionsKey = "max_position_embeddings", .norm = c.norm == NormKind::Rms ? "RMSNorm" : "LayerNorm",
            .rotaryDims = c.rotaryDims, .ropeTheta = c.ropeTheta,
            .mlp = c.mlp == MlpKind::GatedSilu ? "SwiGLU" : "GELU", .parallelResidual = c.parallelResidual};
}

std::shared_ptr<ModelPass> DecoderForward::freshPass() const
{
    return std::make_shared<DecoderForward>(m_checkpoint, m_tokenizer);
}

std::vector<int> DecoderForward::encode(std::string_view text, bool special) const
{
    return m_tokenizer ? m_tokenizer->encode(text, special) : std::vector<int>();
}

std::string DecoderForward::decode(const std::vector<int>& ids) const
{
    return m_tokenizer ? m_tokenizer->decode(ids) : std::string();
}

std::string DecoderForward::vocabularyToken(int id) const
{
    return m_tokenizer ? m_tokenizer->token(id) : std::to_string(id);
}

std::string DecoderForward::readable(int id) const
{
    return m_tokenizer ? m_tokenizer->readable(id) : std::to_string(id);
}

std::optional<std::string> DecoderForward::checkCell(ModelWeight weight, int row, int col) const
{
    return checkDecoderCell(config(), weight, row, col);
}

bool DecoderForward::setTokens(std::vector<int> ids, std::string& error)
{
    if (const auto problem = tokensProblem(ids)) {
        error = *problem;
        return false;
    }
    if (ids != m_ids)
        markDirty(-1);
    m_ids = std::move(ids);
    return true;
}

void DecoderForward::setAblated(int layer, int head, bool zeroed)
{
    if (zeroed ? m_ablations.insert({layer, head}).second : m_ablations.erase({layer, head}) > 0)
        markDirty(layer);
}

void DecoderForward::markDirty(int layer)
{
    if (layer <= m_dirtyFrom)
        m_attentionKept = false;
    m_dirtyFrom = std::min(m_dirtyFrom, layer);
}

int DecoderForward::takeSharedLayers(const ModelPass& pass)
{
    const auto* other = dynamic_cast<const DecoderForward*>(&pass);
    if (!other || other == this || !other->upToDate() || other->m_checkpoint != m_checkpoint || other->m_ids != m_ids)
        return 0;
    // Below the lowest layer either pass edits or zeroes a head, both compute the same from the same tokens.
    const auto lowestChange = [&](const DecoderForward& f) {
        int lowest = config().layers;
        if (!f.m_edits.empty())
            lowest = std::min(lowest, std::get<0>(f.m_edits.begin()->first));
        if (!f.m_ablations.empty())
            lowest = std::min(lowest, f.m_ablations.begin()->first);
        return lowest;
    };
    const int below = std::min(lowestChange(*this), lowestChange(*other));
    if (below <= std::max(m_dirtyFrom, 0))
        return 0; // what lies below is computed already, or nothing is shared
    for (int l = 0; l <= below; ++l)
        m_stream[std::size_t(l)] = other->stream(l);
    for (int l = 0; l < below; ++l) {
        const auto i = std::size_t(l);
        m_q[i] = other->m_q[i];
        m_k[i] = other->m_k[i];
        m_v[i] = other->m_v[i];
        m_z[i] = other->m_z[i];
        m_attended[i] = other->m_attended[i];
        for (int h = 0; h < config().heads; ++h)
            m_attention[i * std::size_t(config().heads) + std::size_t(h)] =
                other->m_attention[i * std::size_t(config().heads) + std::size_t(h)];
    }
    m_dirtyFrom = below;
    m_attentionKept = false;
    return below;
}

bool DecoderForward::run(const StopCheck& stop)
{
    if (m_ids.empty() || upToDate())
        return true;
    if (m_dirtyFrom < 0) {
        const StoredTensor& embedding = m_checkpoint->embedding();
        FloatMatrix& x = m_stream[0];
        x.resize(n(), config().dModel);
        std::vector<float> buffer;
        for (Index i = 0; i < n(); ++i)
            x.row(i) = Eigen::Map<const Eigen::RowVectorXf>(embedding.rowsAsFloat(m_ids[std::size_t(i)], 1, buffer),
                                                            x.cols());
        m_dirtyFrom = 0;
    }
    for (int layer = m_dirtyFrom; layer < config().layers; ++layer) {
        if (stopNow(stop)) {
            if (layer > m_dirtyFrom)
                m_attentionKept = false;
            m_dirtyFrom = layer;
            return false;
        }
        runLayer(layer, layer == m_dirtyFrom && m_attentionKept);
    }
    m_dirtyFrom = config().layers;
    m_attentionKept = false;
    if (stopNow(stop))
        return false;
    if (m_logitsWanted)
        m_logits = logitsOfRow(n() - 1);
    else
        m_logits.resize(0, 0);
    m_dirtyFrom = clean;
    return true;
}

FloatMatrix DecoderForward::layerInput(int layer) const
{
    const DecoderLayer& w = weights(layer);
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
    return allHeads(m_q[std::size_t(layer)], weights(layer).queryNorm, rotated);
}

Matrix DecoderForward::keys(int layer, bool rotated) const
{
    return allHeads(m_k[std::size_t(layer)], weights(layer).keyNorm, rotated);
}

Matrix DecoderForward::values(int layer) const
{
    return m_v[std::size_t(layer)].cast<double>();
}

Matrix DecoderForward::weightMatrix(int layer, ModelWeight weight) const
{
    const DecoderConfig& c = config();
    const DecoderLayer& w = weights(layer);
    const Index hd = c.headDim;
    const auto rowForm = [](const StoredTensor& t) { return t.present() ? Matrix(t.toFloat().cast<double>()) : Matrix(); };
    // q_proj and its kin are out × in: W = tensorᵀ; a bias or norm vector is one row already
    const auto transposed = [](const StoredTensor& t) {
        return t.present() ? Matrix(t.toFloat().cast<double>().transpose()) : Matrix();
    };
    // NeoX's fused rows [head][q, k, v][head_dim]: part's rows of every head, side by side as columns (or a row)
    const auto fusedPart = [&](const StoredTensor& t, int part) {
        if (!t.present())
            return Matrix();
        const Matrix all = t.toFloat().cast<double>();
        const bool row = all.rows() == 1;
        Matrix out = row ? Matrix(1, c.heads * hd) : Matrix(all.cols(), c.heads * hd);
        for (Index h = 0; h < c.heads; ++h) {
            const Index from = (3 * h + part) * hd;
            if (row)
                out.middleCols(h * hd, hd) = all.middleCols(from, hd);
            else
                out.middleCols(h * hd, hd) = all.middleRows(from, hd).transpose();
        }
        return out;
    };
    switch (weight) {
    case ModelWeight::Query: return c.fusedQkv ? fusedPart(w.qkv, 0) : transposed(w.query);
    case ModelWeight::Key: return c.fusedQkv ? fusedPart(w.qkv, 1) : transposed(w.key);
    case ModelWeight::Value: return c.fusedQkv ? fusedPart(w.qkv, 2) : transposed(w.value);
    case ModelWeight::Output: return transposed(w.output);
    case ModelWeight::QueryBias: return c.fusedQkv ? fusedPart(w.qkvBias, 0) : rowForm(w.queryBias);
    case ModelWeight::KeyBias: return c.fusedQkv ? fusedPart(w.qkvBias, 1) : rowForm(w.keyBias);
    case ModelWeight::ValueBias: return c.fusedQkv ? fusedPart(w.qkvBias, 2) : rowForm(w.valueBias);
    case ModelWeight::OutputBias: return rowForm(w.outputBias);
    case ModelWeight::QueryNorm: return rowForm(w.queryNorm);
    case ModelWeight::KeyNorm: return rowForm(w.keyNorm);
    }
    return {};
}

AttentionModel DecoderForward::layerModel(int layer) const
{
    const DecoderConfig& c = config();
    AttentionModel m;
    for (int id : m_ids)
        m.tokens.push_back(vocabularyToken(id));
    m.embeddings = layerInput(layer).cast<double>();
    m.wq = weightMatrix(layer, ModelWeight::Query);
    m.wk = weightMatrix(layer, ModelWeight::Key);
    m.wv = weightMatrix(layer, ModelWeight::Value);
    m.wo = weightMatrix(layer, ModelWeight::Output);
    const auto optional = [&](ModelWeight weight) {
        Matrix b = weightMatrix(layer, weight);
        return b.size() ? std::optional<Matrix>(std::move(b)) : std::nullopt;
    };
    m.bq = optional(ModelWeight::QueryBias);
    m.bk = optional(ModelWeight::KeyBias);
    m.bv = optional(ModelWeight::ValueBias);
    m.bo = optional(ModelWeight::OutputBias);
    // a zeroed head's rows of W_O count as 0, as the pass zeroes its output
    for (auto it = m_ablations.lower_bound({layer, 0}); it != m_ablations.end() && it->first == layer; ++it)
        m.wo->middleRows(Index(it->second) * c.headDim, c.headDim).setZero();
    m.options.heads = c.heads;
    m.options.kvHeads = c.kvHeads;
    m.options.scale = true;
    m.options.mask = Mask::Causal;
    if (c.rotaryDims > 0) {
        m.options.positionalEncoding = PositionalEncoding::Rotary;
        m.options.ropeTheta = c.ropeTheta;
        // the fraction whose even part of ⌊fraction·head_dim⌋ is rotaryDims, whatever the rounding of the quotient
        double fraction = double(c.rotaryDims) / double(c.headDim);
        while (int(fraction * c.headDim) < c.rotaryDims)
            fraction = std::nextafter(fraction, 2.0);
        m.options.rotaryFraction = std::min(fraction, 1.0);
        m.rotaryFrequencies = m_inverseFrequencies;
    }
    if (c.qkNorm) {
        m.options.qkNorm = true;
        m.qNorm = optional(ModelWeight::QueryNorm);
        m.kNorm = optional(ModelWeight::KeyNorm);
        m.qkNormEpsilon = c.normEpsilon;
    }
    return m;
}

void DecoderForward::runLayer(int layer, bool attentionKept)
{
    const DecoderConfig& c = config();
    const DecoderLayer& w = weights(layer);
    const std::size_t l = std::size_t(layer);
    const Index hd = c.headDim;
    const FloatMatrix& x = m_stream[l];
    if (!attentionKept)
        runAttention(layer);
    FloatMatrix& z = m_z[l];
    for (auto it = m_headPatches.lower_bound({layer, 0}); it != m_headPatches.end() && it->first.first == layer; ++it)
        z.middleCols(Index(it->first.second) * hd, hd) = it->second;
    // a zeroed head's columns of W_O count as 0: its columns of z reach nothing
    FloatMatrix& attended = m_attended[l];
    const auto zeroed = m_ablations.lower_bound({layer, 0});
    if (zeroed == m_ablations.end() || zeroed->first != layer) {
        linear(z, w.output, w.outputBias, attended);
    } else {
        FloatMatrix reaching = z;
        for (auto it = zeroed; it != m_ablations.end() && it->first == layer; ++it)
            reaching.middleCols(Index(it->second) * hd, hd).setZero();
        linear(reaching, w.output, w.outputBias, attended);
    }
    // the MLP on the stream after attention, or beside it on x (parallel residual); of the last layer only the last
    // row's, which the logits need, until the others are asked for (a row's MLP is the same alone or among others)
    const bool last = layer == c.layers - 1 && x.rows() > 1;
    const Index rows = last ? 1 : x.rows();
    const FloatMatrix afterAttention = x.bottomRows(rows) + attended.bottomRows(rows);
    FloatMatrix& out = m_stream[l + 1];
    out.resize(x.rows(), x.cols());
    out.bottomRows(rows) = afterAttention + mlp(layer, c.parallelResidual ? FloatMatrix(x.bottomRows(rows)) : afterAttention).output;
    if (layer == c.layers - 1)
        m_finalRows.pending = last;
}

void DecoderForward::finishFinalRows() const
{
    const std::lock_guard<std::mutex> hold(m_finalRows.lock);
    if (!m_finalRows.pending)
        return;
    const int layer = config().layers - 1;
    const FloatMatrix& x = m_stream[std::size_t(layer)];
    const Index rows = x.rows() - 1;
    const FloatMatrix afterAttention = x.topRows(rows) + m_attended[std::size_t(layer)].topRows(rows);
    m_stream.back().topRows(rows) =
        afterAttention + mlp(layer, config().parallelResidual ? FloatMatrix(x.topRows(rows)) : afterAttention).output;
    m_finalRows.pending = false;
}

void DecoderForward::runAttention(int layer)
{
    const DecoderConfig& c = config();
    const DecoderLayer& w = weights(layer);
    const std::size_t l = std::size_t(layer);
    const Index count = n(), hd = c.headDim;
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
    FloatMatrix& concat = m_z[l];
    concat.resize(count, c.heads * hd);
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
}

MlpRow DecoderForward::mlp(int layer, const FloatMatrix& x, bool all) const
{
    const DecoderConfig& c = config();
    const DecoderLayer& w = weights(layer);
    MlpRow parts;
    const FloatMatrix h = normRows(x, c.norm, w.mlpNorm, w.mlpNormBias, c.normEpsilon);
    FloatMatrix up, gate;
    linear(h, w.up, w.upBias, up);
    if (all)
        parts.up = up;
    if (c.mlp == MlpKind::GatedSilu) {
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
    linear(up, w.down, w.downBias, parts.output);
    if (all) {
        parts.input = x;
        parts.normed = h;
        parts.gate = std::move(gate);
        parts.activation = std::move(up);
    }
    return parts;
}

MlpRow DecoderForward::mlpRow(int layer, int position) const
{
    const std::size_t l = std::size_t(layer);
    FloatMatrix x = m_stream[l].middleRows(position, 1);
    if (!config().parallelResidual)
        x += m_attended[l].middleRows(position, 1);
    return mlp(layer, x, true);
}

FloatMatrix DecoderForward::logitsOfRow(Index row) const
{
    // the last row is always computed; another may wait for the last layer's MLP (finishFinalRows)
    const FloatMatrix& last = row == n() - 1 ? m_stream.back() : stream(config().layers);
    const FloatMatrix h = normRows(last.middleRows(row, 1), config().norm, m_checkpoint->finalNorm(),
                                   m_checkpoint->finalNormBias(), config().normEpsilon);
    FloatMatrix out;
    linear(h, m_checkpoint->head(), {}, out);
    return out;
}

FloatMatrix DecoderForward::logitsAt(int position) const
{
    return position == n() - 1 ? m_logits : logitsOfRow(position);
}

void DecoderForward::EditedLayer::pointAtCopies()
{
    for (std::size_t i = 0; i < copies.size(); ++i) {
        StoredTensor& view = weights.*editable[i];
        if (copies[i].size() > 0)
            view = {reinterpret_cast<const char*>(copies[i].data()), Dtype::F32, view.rows, view.cols};
    }
}

std::unique_ptr<ModelPass> DecoderForward::clone() const
{
    return std::unique_ptr<ModelPass>(new DecoderForward(*this));
}

FloatMatrix DecoderForward::outputWeight(int layer) const
{
    return weights(layer).output.toFloat().transpose();
}

LayerBiases DecoderForward::outputBiases(int layer) const
{
    const DecoderLayer& w = weights(layer);
    const auto row = [&](const StoredTensor& t) {
        return t.present() ? t.toFloat() : FloatMatrix(FloatMatrix::Zero(1, config().dModel));
    };
    return {row(w.outputBias), row(w.downBias)};
}

FinalNormForm DecoderForward::finalNormForm() const
{
    const StoredTensor& bias = m_checkpoint->finalNormBias();
    return {config().norm == NormKind::Layer, config().normEpsilon, m_checkpoint->finalNorm().toFloat(),
            bias.present() ? bias.toFloat() : FloatMatrix(FloatMatrix::Zero(1, config().dModel))};
}

FloatMatrix DecoderForward::finalNorm(const FloatMatrix& streamRows) const
{
    return normRows(streamRows, config().norm, m_checkpoint->finalNorm(), m_checkpoint->finalNormBias(),
                    config().normEpsilon);
}

FloatMatrix DecoderForward::unembed(const FloatMatrix& streamRows) const
{
    FloatMatrix out;
    linear(finalNorm(streamRows), m_checkpoint->head(), {}, out);
    return out;
}

FloatMatrix DecoderForward::unembeddingRow(int id) const
{
    std::vector<float> buffer;
    const Index d = config().dModel;
    return Eigen::Map<const FloatMatrix>(m_checkpoint->head().rowsAsFloat(id, 1, buffer), 1, d);
}

void DecoderForward::patchStream(int layer, int position, const FloatMatrix& row)
{
    if (layer == config().layers)
        finishFinalRows();
    m_stream[std::size_t(layer)].row(position) = row;
    markDirty(layer);
}

void DecoderForward::patchHeadOutput(int layer, int head, FloatMatrix z)
{
    m_headPatches[{layer, head}] = std::move(z);
    if (layer < m_dirtyFrom) {
        // nothing before the layer changed: its attention stays, its output projection and what follows run again
        m_dirtyFrom = layer;
        m_attentionKept = true;
    }
}

} // namespace core
