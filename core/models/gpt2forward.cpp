#include "core/models/gpt2forward.h"

#include "core/tensor/gemm.h"
#include "core/attention/model.h"
#include "core/models/checkpointfiles.h"
#include "core/text/tokentext.h"
#include "core/tensor/products.h"
#include "core/tensor/simd.h"
#include "core/tensor/threadpool.h"
#include "core/tensor/softmax.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <numeric>

namespace core {

namespace {

using Index = Eigen::Index;
using FloatRow = Eigen::Matrix<float, 1, Eigen::Dynamic>;

/** Columns of a product's output per task of the pool, and the unit an edit of one weight column recomputes and
 *  repacks: the blocks the checkpoint packed its weights in. */
constexpr Index columnsPerTask = gpt2ColumnBlock;

/** Column blocks of a product with cols output columns. */
int blocksOf(Index cols)
{
    return int((cols + columnsPerTask - 1) / columnsPerTask);
}

/** The rows of a product that Eigen's kernels take together: these products run with their factors swapped
 *  (row-major results), and a row of the result is a column of the kernel, in groups of 8 or 4. A product over
 *  the rows from a multiple of this on gives each row the same kernel, summing in the same order, as a product
 *  over all of them, so they come out the same bit for bit (tst_gpt2forward checks it across lengths). */
constexpr Index rowBlock = 8;

/** The first row to compute when the rows from `from` of n changed: from rounded down to a whole row block, and
 *  never one row alone (a product of one row takes Eigen's matrix-vector kernel, which sums in another order);
 *  n when none changed. */
Index alignedFirstRow(Index from, Index n)
{
    if (from >= n)
        return n;
    Index first = from / rowBlock * rowBlock;
    if (n - first == 1 && first > 0)
        first -= rowBlock;
    return first;
}

/** Resizes m to rows × cols, keeping its first `keep` rows (the entries they gain on the right are zero). */
void keepRows(FloatMatrix& m, Index keep, Index rows, Index cols)
{
    if (keep == 0) {
        m.resize(rows, cols);
        return;
    }
    const Index oldCols = m.cols();
    m.conservativeResize(rows, cols);
    if (cols > oldCols)
        m.topRightCorner(std::min(keep, rows), cols - oldCols).setZero();
}

/** The column blocks of a weight packed at load (or, for an edited layer, some repacked since), block t at [t]. */
using PackedBlocks = std::vector<const PackedWeight*>;

PackedBlocks packedBlocks(const PackedColumns& packed)
{
    PackedBlocks out;
    for (const PackedWeight& p : packed)
        out.push_back(&p);
    return out;
}

/** Block t of rows [first, first + a.rows()) of out = a · b + bias (a r × k, b k × m, bias 1 × m, out sized with
 *  m columns): its columns [384·t, 384·t + 384), then gelu_new of them when asked (while they are in cache). The
 *  product multiplies by packed[t], b's block t packed, and reads b itself only for one row (products.h). The
 *  whole product, the recomputation of one block after an edit and of the last rows after new tokens all go
 *  through here, so a block comes out the same bit for bit every way. */
void affineBlock(const FloatMatrix& a, const FloatMatrixMap& b, const PackedBlocks& packed, const FloatMatrixMap& bias,
                 FloatMatrix& out, int t, bool gelu = false, Index first = 0)
{
    const Index cols = b.cols(), c0 = Index(t) * columnsPerTask, w = std::min(columnsPerTask, cols - c0);
    auto block = out.block(first, c0, a.rows(), w);
    const ProductKernels& kernels = productKernels();
    kernels.packedProduct(a.data(), a.cols(), *packed[std::size_t(t)], b.data() + c0, b.cols(), block.data(),
                          out.cols(), a.rows());
    block.rowwise() += bias.middleCols(c0, w).row(0);
    if (gelu)
        for (Index r = 0; r < block.rows(); ++r)
            kernels.gelu(block.row(r).data(), w);
}

/** Rows [first, first + a.rows()) of out = a · b + bias (gelu_new of it when asked): a is r × k, b is k × m (its
 *  blocks packed), bias 1 × m, out has m columns and is sized; column blocks on the pool's threads. */
void affineRows(const FloatMatrix& a, const FloatMatrixMap& b, const PackedBlocks& packed, const FloatMatrixMap& bias,
                FloatMatrix& out, Index first, bool gelu = false)
{
    parallelFor(blocksOf(b.cols()), coreCount(),
                [&](int t) { affineBlock(a, b, packed, bias, out, t, gelu, first); });
}

/** out = a · b + bias (gelu_new of it when asked): a is n × k, b is k × m (its blocks packed), bias 1 × m, out
 *  n × m. */
void affine(const FloatMatrix& a, const FloatMatrixMap& b, const PackedBlocks& packed, const FloatMatrixMap& bias,
            FloatMatrix& out, bool gelu = false)
{
    out.resize(a.rows(), b.cols());
    affineRows(a, b, packed, bias, out, 0, gelu);
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

FloatMatrixMap rowOf(const FloatMatrix& m)
{
    return {m.data(), m.rows(), m.cols()};
}

} // namespace

std::optional<std::string> checkGpt2Cell(const Gpt2Config& config, ModelWeight weight, int row, int col)
{
    const std::string name = modelWeightName(weight);
    if (weight == ModelWeight::QueryNorm || weight == ModelWeight::KeyNorm)
        return name + ": GPT-2 has no such weight";
    const int rows = isRowWeight(weight) ? 1 : config.dModel;
    if (row < 0 || row >= rows)
        return "row " + std::to_string(row) + " is outside 0 … " + std::to_string(rows - 1) + " ("
               + (rows == 1 ? name + " has one row" : name + " is n_embd × n_embd, " + std::to_string(rows) + " rows")
               + ")";
    if (col < 0 || col >= config.dModel)
        return "col " + std::to_string(col) + " is outside 0 … " + std::to_string(config.dModel - 1) + " (" + name
               + " has n_embd = " + std::to_string(config.dModel) + " columns)";
    return std::nullopt;
}

ModelShape Gpt2Forward::shape() const
{
    const Gpt2Config& c = config();
    return {.architecture = "GPT2LMHeadModel", .layers = c.layers, .heads = c.heads, .kvHeads = c.heads,
            .dModel = c.dModel, .headDim = c.headSize(), .positions = c.positions, .vocabSize = c.vocabSize,
            .layersKey = "n_layer", .headsKey = "n_head", .positionsKey = "n_positions", .norm = "LayerNorm",
            .mlp = "GELU"};
}

std::shared_ptr<ModelPass> Gpt2Forward::freshPass() const
{
    return std::make_shared<Gpt2Forward>(m_checkpoint);
}

std::vector<int> Gpt2Forward::encode(std::string_view text, bool) const
{
    return m_checkpoint->tokenizer().encode(text);
}

std::string Gpt2Forward::vocabularyToken(int id) const
{
    return m_checkpoint->tokenizer().token(id);
}

std::string Gpt2Forward::readable(int id) const
{
    return readableToken(vocabularyToken(id));
}

std::size_t Gpt2Forward::longestTokenBytes() const
{
    return m_checkpoint->tokenizer().longestToken();
}

std::optional<std::string> Gpt2Forward::checkCell(ModelWeight weight, int row, int col) const
{
    return checkGpt2Cell(config(), weight, row, col);
}

Gpt2Forward::Gpt2Forward(std::shared_ptr<const Gpt2Checkpoint> checkpoint)
    : m_checkpoint(std::move(checkpoint))
{
    const Gpt2Config& c = config();
    m_stream.resize(std::size_t(c.layers) + 1);
    m_qkv.resize(std::size_t(c.layers));
    m_concat.resize(std::size_t(c.layers));
    m_attention.resize(std::size_t(c.layers) * std::size_t(c.heads));
}

bool Gpt2Forward::setTokens(std::vector<int> ids, std::string& error)
{
    if (const auto problem = tokensProblem(ids)) {
        error = *problem;
        return false;
    }
    // The rows before the first id that differs stay valid wherever they are now: in every layer once the pass
    // is up to date, in the layers before the lowest dirty one otherwise (the rows a dirty layer computes from
    // its rows on are valid up there, the others not).
    const std::size_t same = std::size_t(
        std::mismatch(m_ids.begin(), m_ids.end(), ids.begin(), ids.end()).first - m_ids.begin());
    int keep = int(same), whole = clean;
    if (m_ids.empty() || (m_dirtyFrom < 0 && m_dirtyRowsFrom == 0))
        keep = 0;
    else if (m_dirtyRowsFrom > 0)
        keep = std::min(keep, m_dirtyRowsFrom), whole = m_wholeFrom;
    else if (!upToDate())
        whole = m_dirtyFrom;
    m_ids = std::move(ids);
    m_dirtyFrom = -1;
    m_dirtyColumns.reset();
    m_dirtyRowsFrom = keep;
    m_wholeFrom = keep > 0 ? whole : clean;
    return true;
}

Gpt2Forward::Place Gpt2Forward::place(ModelWeight weight, int row, int col, int dModel)
{
    const Index d = dModel;
    switch (weight) {
    case ModelWeight::Query: return {0, row, col};
    case ModelWeight::Key: return {0, row, d + col};
    case ModelWeight::Value: return {0, row, 2 * d + col};
    case ModelWeight::Output: return {2, row, col};
    case ModelWeight::QueryBias: return {1, 0, col};
    case ModelWeight::KeyBias: return {1, 0, d + col};
    case ModelWeight::ValueBias: return {1, 0, 2 * d + col};
    case ModelWeight::OutputBias: return {3, 0, col};
    case ModelWeight::QueryNorm:
    case ModelWeight::KeyNorm: break; // checkGpt2Cell refuses them
    }
    return {0, 0, 0};
}

Gpt2Forward::LayerWeights Gpt2Forward::weights(int layer) const
{
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    const auto it = m_editedLayers.find(layer);
    if (it == m_editedLayers.end())
        return {b.attnWeight.matrix(),    b.attnBias.matrix(),    b.attnProjWeight.matrix(),
                b.attnProjBias.matrix(),  packedBlocks(b.attnPacked), packedBlocks(b.attnProjPacked)};
    const EditedLayer& e = it->second;
    LayerWeights w{rowOf(e.attn),        rowOf(e.attnBias),         rowOf(e.proj),
                   rowOf(e.projBias),    packedBlocks(b.attnPacked), packedBlocks(b.attnProjPacked)};
    for (const auto& [t, packed] : e.attnBlocks)
        w.attnPacked[std::size_t(t)] = &packed;
    for (const auto& [t, packed] : e.projBlocks)
        w.projPacked[std::size_t(t)] = &packed;
    return w;
}

float Gpt2Forward::originalValue(int layer, ModelWeight weight, int row, int col) const
{
    return gpt2CheckpointValue(*m_checkpoint, layer, weight, row, col);
}

float gpt2CheckpointValue(const Gpt2Checkpoint& checkpoint, int layer, ModelWeight weight, int row, int col)
{
    const Gpt2Block& b = checkpoint.blocks()[std::size_t(layer)];
    const auto p = Gpt2Forward::place(weight, row, col, checkpoint.config().dModel);
    const FloatTensor* tensors[] = {&b.attnWeight, &b.attnBias, &b.attnProjWeight, &b.attnProjBias};
    return tensors[p.tensor]->matrix()(p.row, p.col);
}

float Gpt2Forward::weightValue(int layer, ModelWeight weight, int row, int col) const
{
    const LayerWeights w = weights(layer);
    const Place p = place(weight, row, col, config().dModel);
    const FloatMatrixMap* tensors[] = {&w.attn, &w.attnBias, &w.proj, &w.projBias};
    return (*tensors[p.tensor])(p.row, p.col);
}

bool Gpt2Forward::setEdit(int layer, ModelWeight weight, int row, int col, float value, std::string& error)
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
        const auto next = m_edits.lower_bound(Cell{layer, ModelWeight::Query, 0, 0});
        if (next == m_edits.end() || std::get<0>(next->first) != layer) {
            m_editedLayers.erase(layer);
            markEdited(layer, place(weight, row, col, config().dModel));
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
                                             b.attnProjBias.matrix(), {}, {}, {}, {}})
                 .first;
    }
    EditedLayer& copy = it->second;
    const Place p = place(weight, row, col, config().dModel);
    FloatMatrix* tensors[] = {&copy.attn, &copy.attnBias, &copy.proj, &copy.projBias};
    (*tensors[p.tensor])(p.row, p.col) = value;
    if (p.tensor == 0)
        copy.attnStale.insert(int(p.col / columnsPerTask));
    else if (p.tensor == 2)
        copy.projStale.insert(int(p.col / columnsPerTask));
    markEdited(layer, p);
    return true;
}

void Gpt2Forward::repackEdited(int layer)
{
    const auto it = m_editedLayers.find(layer);
    if (it == m_editedLayers.end())
        return;
    EditedLayer& e = it->second;
    for (const auto& weight : {std::tuple{&e.attn, &e.attnBlocks, &e.attnStale},
                               {&e.proj, &e.projBlocks, &e.projStale}}) {
        // Named without a structured binding: the lambda below captures blocks, which clang 14 refuses.
        auto& blocks = *std::get<1>(weight);
        auto& stale = *std::get<2>(weight);
        const std::vector<int> list(stale.begin(), stale.end());
        for (int t : list)
            blocks[t];  // the map's nodes made here, filled in on the pool's threads
        const FloatMatrixMap values = rowOf(*std::get<0>(weight));
        parallelFor(int(list.size()), coreCount(), [&](int i) {
            const int t = list[std::size_t(i)];
            blocks.find(t)->second = packColumnBlock(values, t);
        });
        stale.clear();
    }
}

void Gpt2Forward::clearEdit(int layer, ModelWeight weight, int row, int col)
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

void Gpt2Forward::setAblated(int layer, int head, bool zeroed)
{
    const std::pair<int, int> key{layer, head};
    if (zeroed == (m_ablations.count(key) > 0))
        return;
    if (zeroed)
        m_ablations.insert(key);
    else
        m_ablations.erase(key);
    markDirty(layer);
}

std::vector<ModelEdit> Gpt2Forward::edits() const
{
    std::vector<ModelEdit> out;
    out.reserve(m_edits.size());
    for (const auto& [cell, value] : m_edits)
        out.push_back({std::get<0>(cell), std::get<1>(cell), std::get<2>(cell), std::get<3>(cell), value});
    return out;
}

void Gpt2Forward::markDirty(int layer)
{
    if (m_dirtyRowsFrom > 0)
        m_wholeFrom = std::min(m_wholeFrom, layer);
    if (layer <= m_dirtyFrom)
        m_dirtyColumns.reset();
    m_dirtyFrom = std::min(m_dirtyFrom, layer);
}

void Gpt2Forward::markEdited(int layer, const Place& p)
{
    if (m_dirtyRowsFrom > 0) {
        markDirty(layer);  // new tokens are pending: the layer is recomputed whole anyway
        return;
    }
    if (layer > m_dirtyFrom)
        return;  // recomputed in full anyway: what enters it changes
    if (layer < m_dirtyFrom) {
        // Nothing before this layer changed: when the last run computed the layer, it keeps its q, k, v.
        const bool computed = m_dirtyFrom >= 0 && m_qkv[std::size_t(layer)].rows() == n();
        m_dirtyFrom = layer;
        m_dirtyColumns.reset();
        if (computed)
            m_dirtyColumns.emplace();
    }
    if (m_dirtyColumns && p.tensor <= 1) {  // a cell of c_attn or its bias: its column of q, k, v
        auto& cols = *m_dirtyColumns;
        const auto at = std::lower_bound(cols.begin(), cols.end(), p.col);
        if (at == cols.end() || *at != p.col)
            cols.insert(at, p.col);
    }
}

bool Gpt2Forward::run(const StopCheck& stop)
{
    if (m_ids.empty() || upToDate())
        return true;
    if (m_dirtyFrom < 0) {
        if (stopNow(stop))
            return false;
        embed(firstDirtyRow(-1));
        m_dirtyFrom = 0;
        m_dirtyColumns.reset();
    }
    for (int layer = m_dirtyFrom; layer <= config().layers; ++layer) {
        if (stopNow(stop)) {
            // Layers before this one are done; this one and every later one are left to the next run.
            if (layer > m_dirtyFrom) {
                m_dirtyFrom = layer;
                m_dirtyColumns.reset();
            }
            return false;
        }
        if (layer < config().layers)
            runLayer(layer, layer == m_dirtyFrom && m_dirtyColumns ? &*m_dirtyColumns : nullptr,
                     firstDirtyRow(layer));
    }
    runFinal();
    m_dirtyFrom = clean;
    m_dirtyColumns.reset();
    m_dirtyRowsFrom = 0;
    m_wholeFrom = clean;
    return true;
}

int Gpt2Forward::takeSharedLayers(const ModelPass& pass)
{
    const auto* gpt2 = dynamic_cast<const Gpt2Forward*>(&pass);
    if (!gpt2)
        return 0;
    const Gpt2Forward& other = *gpt2;
    if (&other == this || !other.upToDate() || other.m_checkpoint != m_checkpoint || other.m_ids != m_ids)
        return 0;
    // Below the lowest layer either pass edits, both multiply the same weights with the same tokens.
    const auto lowestEdit = [&](const Gpt2Forward& pass) {
        const int edited = pass.m_editedLayers.empty() ? config().layers : pass.m_editedLayers.begin()->first;
        return pass.m_ablations.empty() ? edited : std::min(edited, pass.m_ablations.begin()->first);
    };
    const int below = std::min(lowestEdit(*this), lowestEdit(other));
    if (below <= m_dirtyFrom)
        return 0;  // what lies below is computed already
    const std::size_t heads = std::size_t(config().heads);
    for (std::size_t l = 0; l < std::size_t(below); ++l) {
        m_stream[l] = other.m_stream[l];
        m_qkv[l] = other.m_qkv[l];
        m_concat[l] = other.m_concat[l];
        for (std::size_t h = l * heads; h < (l + 1) * heads; ++h)
            m_attention[h] = other.m_attention[h];
    }
    m_stream[std::size_t(below)] = other.m_stream[std::size_t(below)];
    // From there on, what was dirty stays so (the rows kept of new tokens are the same in both passes).
    m_dirtyFrom = below;
    m_dirtyColumns.reset();
    return below;
}

Gpt2Forward::Index Gpt2Forward::firstDirtyRow(int layer) const
{
    return layer < m_wholeFrom ? alignedFirstRow(m_dirtyRowsFrom, n()) : 0;
}

void Gpt2Forward::embed(Index first)
{
    const FloatMatrixMap wte = m_checkpoint->wte().matrix(), wpe = m_checkpoint->wpe().matrix();
    FloatMatrix& x = m_stream[0];
    keepRows(x, first, n(), config().dModel);
    for (Index i = first; i < n(); ++i)
        x.row(i) = wte.row(m_ids[std::size_t(i)]) + wpe.row(i);
}

FloatMatrix Gpt2Forward::layerInput(int layer) const
{
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    return layerNorm(m_stream[std::size_t(layer)], b.ln1Weight, b.ln1Bias, config().layerNormEpsilon);
}

void Gpt2Forward::runHead(int layer, int head, Index first)
{
    const Index d = config().dModel, dk = config().headSize(), count = n(), rows = count - first;
    const FloatMatrix& qkv = m_qkv[std::size_t(layer)];
    // queries of the rows from first on, keys and values of all (with their biases), d_k columns each
    const Matrix q = qkv.block(first, Index(head) * dk, rows, dk).cast<double>();
    const Matrix k = qkv.middleCols(d + Index(head) * dk, dk).cast<double>();
    SharedFactor keysT;
    keysT.referTransposed(k);
    const Matrix v = qkv.middleCols(2 * d + Index(head) * dk, dk).cast<double>();
    // scaled scores q·kᵀ/√d_k, then each row's softmax over the keys it may see (j ≤ i)
    Matrix weights(rows, count);
    multiply(q, keysT, weights);
    maskedSoftmaxRows(weights, weights, first, true, 1.0 / std::sqrt(double(dk)));
    Matrix out(rows, dk);
    multiply(weights, v, out);
    m_concat[std::size_t(layer)].block(first, Index(head) * dk, rows, dk) = out.cast<float>();
    m_attention[std::size_t(layer) * std::size_t(config().heads) + std::size_t(head)].bottomRows(rows) =
        weights.cast<float>();
}

void Gpt2Forward::runLayer(int layer, const std::vector<Index>* columns, Index first)
{
    repackEdited(layer);
    const LayerWeights w = weights(layer);
    FloatMatrix& qkv = m_qkv[std::size_t(layer)];
    FloatMatrix& concat = m_concat[std::size_t(layer)];
    const Index d = config().dModel, dk = config().headSize(), count = n(), rows = count - first;
    // attention: qkv = ln_1(x)·c_attn + b (n × 3d), each head's weights and outputs, then c_proj and the residual
    std::vector<int> heads;
    if (!columns) {
        keepRows(qkv, first, count, 3 * d);
        keepRows(concat, first, count, d);
        keepRows(m_stream[std::size_t(layer) + 1], first, count, d);
        for (int h = 0; h < config().heads; ++h)
            keepRows(m_attention[std::size_t(layer) * std::size_t(config().heads) + std::size_t(h)], first, count,
                     count);
        if (rows == 0)
            return;  // a shorter text: the rows kept are all there is
        const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
        affineRows(layerNorm(m_stream[std::size_t(layer)].bottomRows(rows), b.ln1Weight, b.ln1Bias,
                             config().layerNormEpsilon),
                   w.attn, w.attnPacked, w.attnBias, qkv, first);
        heads.resize(std::size_t(config().heads));
        std::iota(heads.begin(), heads.end(), 0);
    } else if (!columns->empty()) {
        // only the blocks of q, k, v with an edited column, and the heads those columns belong to
        std::vector<int> blocks;
        for (const Index c : *columns) {
            blocks.push_back(int(c / columnsPerTask));
            heads.push_back(int((c % d) / dk));
        }
        for (auto* list : {&blocks, &heads}) {
            std::sort(list->begin(), list->end());
            list->erase(std::unique(list->begin(), list->end()), list->end());
        }
        const FloatMatrix input = layerInput(layer);
        parallelFor(int(blocks.size()), coreCount(),
                    [&](int i) { affineBlock(input, w.attn, w.attnPacked, w.attnBias, qkv, blocks[std::size_t(i)]); });
    }
    parallelFor(int(heads.size()), coreCount(), [&](int i) { runHead(layer, heads[std::size_t(i)], first); });
    for (auto it = m_headPatches.lower_bound({layer, 0}); it != m_headPatches.end() && it->first.first == layer; ++it)
        concat.block(first, Index(it->first.second) * dk, rows, dk) = it->second.bottomRows(rows);
    m_stream[std::size_t(layer) + 1].bottomRows(rows) =
        finishLayer(layer, m_stream[std::size_t(layer)].bottomRows(rows) + projectHeads(layer, first, rows));
}

FloatMatrix Gpt2Forward::projectHeads(int layer, Index first, Index rows) const
{
    const LayerWeights w = weights(layer);
    const FloatMatrix& concat = m_concat[std::size_t(layer)];
    const Index dk = config().headSize();
    FloatMatrix projected;
    const auto zeroed = m_ablations.lower_bound({layer, 0});
    if (zeroed == m_ablations.end() || zeroed->first != layer) {
        affine(concat.middleRows(first, rows), w.proj, w.projPacked, w.projBias, projected);
    } else {
        // A zeroed head's rows of W_O count as 0: its columns of concat reach nothing.
        FloatMatrix reaching = concat.middleRows(first, rows);
        for (auto it = zeroed; it != m_ablations.end() && it->first == layer; ++it)
            reaching.middleCols(Index(it->second) * dk, dk).setZero();
        affine(reaching, w.proj, w.projPacked, w.projBias, projected);
    }
    return projected;
}

FloatMatrix Gpt2Forward::attentionOutput(int layer) const
{
    return projectHeads(layer, 0, n());
}

MlpRow Gpt2Forward::mlpRow(int layer, int position) const
{
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    MlpRow row;
    row.input = m_stream[std::size_t(layer)].middleRows(position, 1) + projectHeads(layer, position, 1);
    row.normed = layerNorm(row.input, b.ln2Weight, b.ln2Bias, config().layerNormEpsilon);
    affine(row.normed, b.fcWeight.matrix(), packedBlocks(b.fcPacked), b.fcBias.matrix(), row.up);
    row.activation = row.up;
    productKernels().gelu(row.activation.data(), row.activation.cols());
    affine(row.activation, b.mlpProjWeight.matrix(), packedBlocks(b.mlpProjPacked), b.mlpProjBias.matrix(),
           row.output);
    return row;
}

FloatMatrix Gpt2Forward::finishLayer(int layer, const FloatMatrix& afterAttention) const
{
    const Gpt2Block& b = m_checkpoint->blocks()[std::size_t(layer)];
    FloatMatrix hidden, out;
    affine(layerNorm(afterAttention, b.ln2Weight, b.ln2Bias, config().layerNormEpsilon), b.fcWeight.matrix(),
           packedBlocks(b.fcPacked), b.fcBias.matrix(), hidden, true);
    affine(hidden, b.mlpProjWeight.matrix(), packedBlocks(b.mlpProjPacked), b.mlpProjBias.matrix(), out);
    return afterAttention + out;
}

void Gpt2Forward::runFinal()
{
    if (m_logitsWanted)
        m_logits = unembed(m_stream.back().bottomRows(1));
    else
        m_logits.resize(0, 0);
}

FloatMatrix Gpt2Forward::finalNorm(const FloatMatrix& streamRows) const
{
    return layerNorm(streamRows, m_checkpoint->lnFWeight(), m_checkpoint->lnFBias(), config().layerNormEpsilon);
}

FloatMatrix Gpt2Forward::unembed(const FloatMatrix& streamRows) const
{
    const FloatMatrix h = finalNorm(streamRows);
    // logits = h · wteᵀ: one dot product per row and vocabulary entry, vocabulary rows in blocks on the pool's threads;
    // each entry the same sum whatever the other rows (rowsProduct), so a row's logits alone are those of many rows
    const FloatMatrixMap wte = m_checkpoint->wte().matrix();
    FloatMatrix out(h.rows(), wte.rows());
    constexpr Index rowsPerTask = 1536;
    const int tasks = int((wte.rows() + rowsPerTask - 1) / rowsPerTask);
    parallelFor(tasks, coreCount(), [&](int t) {
        const Index r0 = Index(t) * rowsPerTask, count = std::min(rowsPerTask, wte.rows() - r0);
        productKernels().rowsProduct(h.data(), h.cols(), wte.data() + r0 * wte.cols(), RowStorage::F32, wte.cols(),
                                     out.data() + r0, out.cols(), h.rows(), count, h.cols());
    });
    return out;
}

FloatMatrix Gpt2Forward::unembeddingRow(int id) const
{
    return m_checkpoint->wte().matrix().row(id);
}

FinalNormForm Gpt2Forward::finalNormForm() const
{
    return {true, config().layerNormEpsilon, m_checkpoint->lnFWeight().matrix(), m_checkpoint->lnFBias().matrix()};
}

FloatMatrix Gpt2Forward::outputWeight(int layer) const
{
    return weights(layer).proj;
}

LayerBiases Gpt2Forward::outputBiases(int layer) const
{
    return {weights(layer).projBias, m_checkpoint->blocks()[std::size_t(layer)].mlpProjBias.matrix()};
}

std::unique_ptr<ModelPass> Gpt2Forward::clone() const
{
    return std::make_unique<Gpt2Forward>(*this);
}

std::string Gpt2Forward::decode(const std::vector<int>& ids) const
{
    std::string error;
    return m_checkpoint->tokenizer().decode(ids, error).value_or(std::string());
}

void Gpt2Forward::patchStream(int layer, int position, const FloatMatrix& row)
{
    m_stream[std::size_t(layer)].row(position) = row;
    // As after new tokens from that position on: the rows before it stay valid in every layer.
    m_dirtyFrom = std::min(m_dirtyFrom, layer);
    m_dirtyColumns.reset();
    m_dirtyRowsFrom = position;
    m_wholeFrom = clean;
}

void Gpt2Forward::patchHeadOutput(int layer, int head, FloatMatrix z)
{
    m_headPatches[{layer, head}] = std::move(z);
    markEdited(layer, Place{2, 0, 0});  // as an edit of W_O: the heads' outputs are kept, the projection runs again
}

void Gpt2Forward::clearHeadPatches()
{
    if (!m_headPatches.empty())
        markDirty(m_headPatches.begin()->first.first);
    m_headPatches.clear();
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
    for (auto it = m_ablations.lower_bound({layer, 0}); it != m_ablations.end() && it->first == layer; ++it)
        m.wo->middleRows(Index(it->second) * config().headSize(), config().headSize()).setZero();
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
    // The same product, in the same blocks, as the pass takes for the last position: equal rows round alike.
    return position == n() - 1 && m_logits.size() > 0 ? m_logits : unembed(m_stream.back().middleRows(position, 1));
}

int Gpt2Forward::overflowLayer(int position) const
{
    return firstOverflowLayer(m_stream, position);
}


} // namespace core
