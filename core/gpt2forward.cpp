#include "gpt2forward.h"

#include "simd.h"
#include "threadpool.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <numeric>

namespace core {

namespace {

using Index = Eigen::Index;
using FloatRow = Eigen::Matrix<float, 1, Eigen::Dynamic>;

constexpr Index columnsPerTask = 256;

/** The float32 product compiled for AVX2 and FMA when this processor has both, else null: Eigen's of the
 *  baseline build then multiplies. Either way every pass over the same weights rounds the same way. */
decltype(SimdKernels::sgemm) floatProduct()
{
    const SimdKernels* kernels = simdKernels();
    return kernels ? kernels->sgemm : nullptr;
}

/** out = a · b + bias: a is n × k, b is k × m, bias 1 × m, out n × m; column blocks on the pool's threads. */
void affine(const FloatMatrix& a, const FloatMatrixMap& b, const FloatMatrixMap& bias, FloatMatrix& out)
{
    out.resize(a.rows(), b.cols());
    const Index cols = b.cols();
    const auto sgemm = floatProduct();
    const int tasks = int((cols + columnsPerTask - 1) / columnsPerTask);
    parallelFor(tasks, coreCount(), [&](int t) {
        const Index c0 = Index(t) * columnsPerTask, w = std::min(columnsPerTask, cols - c0);
        auto block = out.middleCols(c0, w);
        if (sgemm)
            sgemm(a.data(), a.cols(), b.data() + c0, b.cols(), false, block.data(), out.cols(), a.rows(), w, a.cols());
        else
            block.noalias() = a * b.middleCols(c0, w);
        block.rowwise() += bias.middleCols(c0, w).row(0);
    });
}

/** LayerNorm of every row of x (n × d): mean and biased variance in double, then · weight + bias. */
FloatMatrix layerNorm(const FloatMatrix& x, const FloatTensor& weight, const FloatTensor& bias, double epsilon)
{
    const Index d = x.cols();
    FloatMatrix out(x.rows(), d);
    const float* w = weight.data;
    const float* b = bias.data;
    for (Index r = 0; r < x.rows(); ++r) {
        const float* in = x.row(r).data();
        double sum = 0;
        for (Index c = 0; c < d; ++c)
            sum += in[c];
        const double mean = sum / double(d);
        double squares = 0;
        for (Index c = 0; c < d; ++c)
            squares += (in[c] - mean) * (in[c] - mean);
        const double inverse = 1.0 / std::sqrt(squares / double(d) + epsilon);
        float* o = out.row(r).data();
        for (Index c = 0; c < d; ++c)
            o[c] = float((in[c] - mean) * inverse * w[c] + b[c]);
    }
    return out;
}

/** gelu_new, GPT-2's tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), in place. */
void geluNew(FloatMatrix& x)
{
    const float c = float(std::sqrt(2.0 / M_PI));
    float* v = x.data();
    const Index count = x.size();
    for (Index i = 0; i < count; ++i)
        v[i] = 0.5f * v[i] * (1.0f + std::tanh(c * (v[i] + 0.044715f * v[i] * v[i] * v[i])));
}

FloatMatrixMap rowOf(const FloatMatrix& m)
{
    return {m.data(), m.rows(), m.cols()};
}

} // namespace

const char* gpt2WeightName(Gpt2Weight weight)
{
    switch (weight) {
    case Gpt2Weight::Query: return "query";
    case Gpt2Weight::Key: return "key";
    case Gpt2Weight::Value: return "value";
    case Gpt2Weight::Output: return "output";
    case Gpt2Weight::QueryBias: return "query_bias";
    case Gpt2Weight::KeyBias: return "key_bias";
    case Gpt2Weight::ValueBias: return "value_bias";
    case Gpt2Weight::OutputBias: return "output_bias";
    }
    return "";
}

std::optional<Gpt2Weight> gpt2WeightFromName(std::string_view name)
{
    for (Gpt2Weight w : {Gpt2Weight::Query, Gpt2Weight::Key, Gpt2Weight::Value, Gpt2Weight::Output,
                         Gpt2Weight::QueryBias, Gpt2Weight::KeyBias, Gpt2Weight::ValueBias, Gpt2Weight::OutputBias})
        if (name == gpt2WeightName(w))
            return w;
    return std::nullopt;
}

int gpt2WeightRows(Gpt2Weight weight, int dModel)
{
    return weight >= Gpt2Weight::QueryBias ? 1 : dModel;
}

std::optional<std::string> checkGpt2Cell(const Gpt2Config& config, Gpt2Weight weight, int row, int col)
{
    const int rows = gpt2WeightRows(weight, config.dModel);
    const std::string name = gpt2WeightName(weight);
    if (row < 0 || row >= rows)
        return "row " + std::to_string(row) + " is outside 0 … " + std::to_string(rows - 1) + " ("
               + (rows == 1 ? name + " has one row" : name + " is n_embd × n_embd, " + std::to_string(rows) + " rows")
               + ")";
    if (col < 0 || col >= config.dModel)
        return "col " + std::to_string(col) + " is outside 0 … " + std::to_string(config.dModel - 1) + " (" + name
               + " has n_embd = " + std::to_string(config.dModel) + " columns)";
    return std::nullopt;
}

Gpt2Forward::Gpt2Forward(std::shared_ptr<const Gpt2Checkpoint> checkpoint)
    : m_checkpoint(std::move(checkpoint))
{
    const Gpt2Config& c = config();
    m_stream.resize(std::size_t(c.layers) + 1);
    m_attention.resize(std::size_t(c.layers) * std::size_t(c.heads));
}

bool Gpt2Forward::setTokens(std::vector<int> ids, std::string& error)
{
    const Gpt2Config& c = config();
    if (ids.empty()) {
        error = "no tokens: the text is empty";
        return false;
    }
    if (int(ids.size()) > c.positions) {
        error = "the text is " + std::to_string(ids.size()) + " tokens long, more than the model's n_positions ("
                + std::to_string(c.positions) + ")";
        return false;
    }
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= c.vocabSize) {
            error = "token " + std::to_string(i) + ": id " + std::to_string(ids[i]) + " is outside the vocabulary (0 … "
                    + std::to_string(c.vocabSize - 1) + ")";
            return false;
        }
    m_ids = std::move(ids);
    m_dirtyFrom = -1;
    return true;
}

Gpt2Forward::Place Gpt2Forward::place(Gpt2Weight weight, int row, int col, int dModel)
{
    const Index d = dModel;
    switch (weight) {
    case Gpt2Weight::Query: return {0, row, col};
    case Gpt2Weight::Key: return {0, row, d + col};
    case Gpt2Weight::Value: return {0, row, 2 * d + col};
    case Gpt2Weight::Output: return {2, row, col};
    case Gpt2Weight::QueryBias: return {1, 0, col};
    case Gpt2Weight::KeyBias: return {1, 0, d + col};
    case Gpt2Weight::ValueBias: return {1, 0, 2 * d + col};
    case Gpt2Weight::OutputBias: return {3, 0, col};
    }
    return {0, 0, 0};
}

Gpt2Forward::LayerWeights Gpt2Forward::weights(int layer) const
{
    const auto it = m_editedLayers.find(layer);
    if (it != m_editedLayers.end())
        return {rowOf(it->second.attn), rowOf(it->second.attnBias), rowOf(it->second.proj),
                rowOf(it->second.projBias)};
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    return {b.attnWeight.matrix(), b.attnBias.matrix(), b.attnProjWeight.matrix(), b.attnProjBias.matrix()};
}

float Gpt2Forward::originalValue(int layer, Gpt2Weight weight, int row, int col) const
{
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    const Place p = place(weight, row, col, config().dModel);
    const FloatTensor* tensors[] = {&b.attnWeight, &b.attnBias, &b.attnProjWeight, &b.attnProjBias};
    return tensors[p.tensor]->matrix()(p.row, p.col);
}

float Gpt2Forward::weightValue(int layer, Gpt2Weight weight, int row, int col) const
{
    const LayerWeights w = weights(layer);
    const Place p = place(weight, row, col, config().dModel);
    const FloatMatrixMap* tensors[] = {&w.attn, &w.attnBias, &w.proj, &w.projBias};
    return (*tensors[p.tensor])(p.row, p.col);
}

bool Gpt2Forward::setEdit(int layer, Gpt2Weight weight, int row, int col, float value, std::string& error)
{
    if (layer < 0 || layer >= config().layers) {
        error = "layer " + std::to_string(layer) + " is outside 0 … " + std::to_string(config().layers - 1);
        return false;
    }
    if (auto problem = checkGpt2Cell(config(), weight, row, col)) {
        error = *problem;
        return false;
    }
    const Cell cell{layer, weight, row, col};
    const float original = originalValue(layer, weight, row, col);
    const bool restore = std::bit_cast<std::uint32_t>(value) == std::bit_cast<std::uint32_t>(original);
    if (restore && !m_edits.count(cell))
        return true;
    if (restore) {
        m_edits.erase(cell);
        const auto next = m_edits.lower_bound(Cell{layer, Gpt2Weight::Query, 0, 0});
        if (next == m_edits.end() || std::get<0>(next->first) != layer) {
            m_editedLayers.erase(layer);
            markDirty(layer);
            return true;
        }
    } else {
        m_edits[cell] = value;
    }
    auto it = m_editedLayers.find(layer);
    if (it == m_editedLayers.end()) {
        const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
        it = m_editedLayers
                 .emplace(layer, EditedLayer{b.attnWeight.matrix(), b.attnBias.matrix(), b.attnProjWeight.matrix(),
                                             b.attnProjBias.matrix()})
                 .first;
    }
    EditedLayer& copy = it->second;
    const Place p = place(weight, row, col, config().dModel);
    FloatMatrix* tensors[] = {&copy.attn, &copy.attnBias, &copy.proj, &copy.projBias};
    (*tensors[p.tensor])(p.row, p.col) = value;
    markDirty(layer);
    return true;
}

void Gpt2Forward::clearEdit(int layer, Gpt2Weight weight, int row, int col)
{
    if (!m_edits.count(Cell{layer, weight, row, col}))
        return;
    std::string ignored;
    setEdit(layer, weight, row, col, originalValue(layer, weight, row, col), ignored);
}

void Gpt2Forward::clearEdits()
{
    if (m_editedLayers.empty())
        return;
    markDirty(m_editedLayers.begin()->first);
    m_edits.clear();
    m_editedLayers.clear();
}

std::vector<Gpt2Edit> Gpt2Forward::edits() const
{
    std::vector<Gpt2Edit> out;
    out.reserve(m_edits.size());
    for (const auto& [cell, value] : m_edits)
        out.push_back({std::get<0>(cell), std::get<1>(cell), std::get<2>(cell), std::get<3>(cell), value});
    return out;
}

void Gpt2Forward::markDirty(int layer)
{
    m_dirtyFrom = std::min(m_dirtyFrom, layer);
}

void Gpt2Forward::run()
{
    if (m_ids.empty() || upToDate())
        return;
    if (m_dirtyFrom < 0) {
        embed();
        m_dirtyFrom = 0;
    }
    for (int layer = m_dirtyFrom; layer < config().layers; ++layer)
        runLayer(layer);
    runFinal();
    m_dirtyFrom = clean;
}

void Gpt2Forward::embed()
{
    const FloatMatrixMap wte = m_checkpoint->wte().matrix(), wpe = m_checkpoint->wpe().matrix();
    FloatMatrix& x = m_stream[0];
    x.resize(n(), config().dModel);
    for (int i = 0; i < n(); ++i)
        x.row(i) = wte.row(m_ids[std::size_t(i)]) + wpe.row(i);
}

FloatMatrix Gpt2Forward::layerInput(int layer) const
{
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    return layerNorm(m_stream[std::size_t(layer)], b.ln1Weight, b.ln1Bias, config().layerNormEpsilon);
}

void Gpt2Forward::runHead(int layer, int head, const FloatMatrix& qkv, FloatMatrix& concat)
{
    const Index d = config().dModel, dk = config().headSize(), count = n();
    // queries, keys and values of this head (with their biases), n × d_k each
    const Matrix q = qkv.middleCols(Index(head) * dk, dk).cast<double>();
    const Matrix k = qkv.middleCols(d + Index(head) * dk, dk).cast<double>();
    const Matrix v = qkv.middleCols(2 * d + Index(head) * dk, dk).cast<double>();
    // scaled scores q·kᵀ/√d_k, then each row's softmax over the keys it may see (j ≤ i)
    Matrix weights = (q * k.transpose()) * (1.0 / std::sqrt(double(dk)));
    for (Index i = 0; i < count; ++i) {
        double* row = weights.row(i).data();
        const double max = *std::max_element(row, row + i + 1);
        double sum = 0;
        for (Index j = 0; j <= i; ++j)
            sum += row[j] = std::exp(row[j] - max);
        for (Index j = 0; j <= i; ++j)
            row[j] /= sum;
        std::fill(row + i + 1, row + count, 0.0);
    }
    concat.middleCols(Index(head) * dk, dk) = (weights * v).cast<float>();
    m_attention[std::size_t(layer) * std::size_t(config().heads) + std::size_t(head)] = weights.cast<float>();
}

void Gpt2Forward::runLayer(int layer)
{
    const LayerWeights w = weights(layer);
    const FloatMatrix& x = m_stream[std::size_t(layer)];
    // attention: qkv = ln_1(x)·c_attn + b (n × 3d), each head's weights and outputs, then c_proj and the residual
    FloatMatrix qkv;
    affine(layerInput(layer), w.attn, w.attnBias, qkv);
    FloatMatrix concat(n(), config().dModel);
    parallelFor(config().heads, coreCount(), [&](int head) { runHead(layer, head, qkv, concat); });
    FloatMatrix projected;
    affine(concat, w.proj, w.projBias, projected);
    m_stream[std::size_t(layer) + 1] = finishLayer(layer, x + projected);
}

FloatMatrix Gpt2Forward::finishLayer(int layer, const FloatMatrix& afterAttention) const
{
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    FloatMatrix hidden, out;
    affine(layerNorm(afterAttention, b.ln2Weight, b.ln2Bias, config().layerNormEpsilon), b.fcWeight.matrix(),
           b.fcBias.matrix(), hidden);
    geluNew(hidden);
    affine(hidden, b.mlpProjWeight.matrix(), b.mlpProjBias.matrix(), out);
    return afterAttention + out;
}

void Gpt2Forward::runFinal()
{
    const FloatMatrix& last = m_stream.back();
    const FloatMatrix h =
        layerNorm(last.bottomRows(1), m_checkpoint->lnFWeight(), m_checkpoint->lnFBias(), config().layerNormEpsilon);
    // logits = h · wteᵀ: one dot product per vocabulary row, rows in blocks on the pool's threads
    const FloatMatrixMap wte = m_checkpoint->wte().matrix();
    m_logits.resize(1, wte.rows());
    constexpr Index rowsPerTask = 4096;
    const int tasks = int((wte.rows() + rowsPerTask - 1) / rowsPerTask);
    const auto sgemm = floatProduct();
    parallelFor(tasks, coreCount(), [&](int t) {
        const Index r0 = Index(t) * rowsPerTask, count = std::min(rowsPerTask, wte.rows() - r0);
        if (sgemm)
            sgemm(h.data(), h.cols(), wte.data() + r0 * wte.cols(), wte.cols(), true, m_logits.data() + r0,
                  m_logits.cols(), 1, count, h.cols());
        else
            m_logits.middleCols(r0, count).noalias() = h * wte.middleRows(r0, count).transpose();
    });
}

std::vector<Gpt2Candidate> Gpt2Forward::topTokens(int count) const
{
    return topCandidates(m_logits, count);
}

AttentionModel Gpt2Forward::layerModel(int layer) const
{
    const LayerWeights w = weights(layer);
    const Index d = config().dModel;
    AttentionModel m;
    for (int id : m_ids)
        m.tokens.push_back(m_checkpoint->tokenizer().token(id));
    m.embeddings = layerInput(layer).cast<double>();
    m.wq = w.attn.middleCols(0, d).cast<double>();
    m.wk = w.attn.middleCols(d, d).cast<double>();
    m.wv = w.attn.middleCols(2 * d, d).cast<double>();
    m.wo = w.proj.cast<double>();
    m.bq = w.attnBias.middleCols(0, d).cast<double>();
    m.bk = w.attnBias.middleCols(d, d).cast<double>();
    m.bv = w.attnBias.middleCols(2 * d, d).cast<double>();
    m.bo = w.projBias.cast<double>();
    m.options.heads = config().heads;
    m.options.scale = true;
    m.options.temperature = 1.0;
    m.options.mask = Mask::Causal;
    m.options.positionalEncoding = PositionalEncoding::None;
    return m;
}

FloatMatrix Gpt2Forward::logitsAt(int position) const
{
    if (position == n() - 1)
        return m_logits;
    const FloatMatrix& last = m_stream.back();
    const FloatMatrix h = layerNorm(last.middleRows(position, 1), m_checkpoint->lnFWeight(), m_checkpoint->lnFBias(),
                                    config().layerNormEpsilon);
    const FloatMatrixMap wte = m_checkpoint->wte().matrix();
    FloatMatrix out(1, wte.rows());
    // The same product, in the same blocks, as the pass takes for the last position: equal rows round alike.
    constexpr Index rowsPerTask = 4096;
    const int tasks = int((wte.rows() + rowsPerTask - 1) / rowsPerTask);
    const auto sgemm = floatProduct();
    parallelFor(tasks, coreCount(), [&](int t) {
        const Index r0 = Index(t) * rowsPerTask, count = std::min(rowsPerTask, wte.rows() - r0);
        if (sgemm)
            sgemm(h.data(), h.cols(), wte.data() + r0 * wte.cols(), wte.cols(), true, out.data() + r0, out.cols(), 1,
                  count, h.cols());
        else
            out.middleCols(r0, count).noalias() = h * wte.middleRows(r0, count).transpose();
    });
    return out;
}

namespace {

/** The largest entry and the sum of exp(entry − largest), in double. */
std::pair<double, double> softmaxNorm(const FloatMatrix& logits)
{
    const float* v = logits.data();
    const double max = *std::max_element(v, v + logits.size());
    double sum = 0;
    for (Index i = 0; i < logits.size(); ++i)
        sum += std::exp(double(v[i]) - max);
    return {max, sum};
}

} // namespace

std::vector<Gpt2Candidate> topCandidates(const FloatMatrix& logits, int count)
{
    if (logits.size() == 0)
        return {};
    const auto [max, sum] = softmaxNorm(logits);
    const float* v = logits.data();
    std::vector<int> ids(static_cast<std::size_t>(logits.size()));
    std::iota(ids.begin(), ids.end(), 0);
    const auto take = std::min<std::size_t>(std::size_t(std::max(count, 0)), ids.size());
    std::partial_sort(ids.begin(), ids.begin() + std::ptrdiff_t(take), ids.end(),
                      [&](int a, int b) { return v[a] > v[b] || (v[a] == v[b] && a < b); });
    std::vector<Gpt2Candidate> out;
    for (std::size_t i = 0; i < take; ++i)
        out.push_back({ids[i], std::exp(double(v[ids[i]]) - max) / sum});
    return out;
}

double candidateProbability(const FloatMatrix& logits, int id)
{
    if (id < 0 || id >= logits.size())
        return 0;
    const auto [max, sum] = softmaxNorm(logits);
    return std::exp(double(logits.data()[id]) - max) / sum;
}

} // namespace core
