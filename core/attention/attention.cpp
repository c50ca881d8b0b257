#include "core/attention/attention.h"
#include "core/attention/rotary.h"

#include "core/tensor/gemm.h"
#include "core/tensor/softmax.h"
#include "core/tensor/threadpool.h"
#include "core/tensor/simd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace core {

namespace {

using Index = Eigen::Index;

// --- planning: what an edit reaches -------------------------------------------------------------------------

/** What differs between the model a trace was computed from and a new one. Its values are reusable when the
 *  new one has the same tokens, shapes, mask and positional encoding (scale and temperature may differ); its
 *  packed weights and their magnitudes whenever a weight is the same, whatever else changed (new tokens, say). */
struct Changes {
    bool reusable = false;
    std::vector<Index> rows;          ///< rows of X that differ
    std::vector<Index> qCols, kCols;  ///< columns of W_Q and W_K (or of b_Q and b_K) that differ (all heads)
    std::vector<Index> vCols;         ///< columns of W_V (or of b_V) that differ
    /** W_Q, W_K, W_V (each with its bias) and W_O (both without one counts as the same): the same bits. */
    bool qSame = false, kSame = false, vSame = false, woSame = false;
    bool factor = false;              ///< s / T differs

    bool weightsSame() const { return qSame && kSame && vSame && woSame; }
};

/** Where a computation starts: what differs from the trace it starts from, and that trace when what is kept
 *  must be copied from it (null: the trace being filled already holds it). */
struct StartingPoint {
    Changes changes;
    const Trace* from = nullptr;
};

std::vector<Index> differingRows(const Matrix& a, const Matrix& b)
{
    std::vector<Index> rows;
    for (Index r = 0; r < a.rows(); ++r)
        if (a.row(r) != b.row(r))
            rows.push_back(r);
    return rows;
}

/** True when a and b hold the same bits (same shapes): the common case of a weight an edit did not touch, told
 *  by one fast pass instead of a comparison column by column. */
bool identical(const Matrix& a, const Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
        && std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

/** True when weight a and its bias hold the same bits as weight b and its bias (or neither has one). */
bool identicalWeight(const Matrix& a, const Matrix& b, const std::optional<Matrix>& biasA,
                     const std::optional<Matrix>& biasB)
{
    return identical(a, b) && biasA.has_value() == biasB.has_value() && (!biasA || identical(*biasA, *biasB));
}

/** True when both models have no W_O, or the same bits in it. */
bool identicalOutputWeight(const AttentionModel& a, const AttentionModel& b)
{
    return a.wo.has_value() == b.wo.has_value() && (!a.wo || identical(*a.wo, *b.wo));
}

/** The columns in which weight a or its bias differs from weight b or its bias (both with or both without; they
 *  are not identicalWeight()). */
std::vector<Index> differingCols(const Matrix& a, const Matrix& b, const std::optional<Matrix>& biasA,
                                 const std::optional<Matrix>& biasB)
{
    std::vector<char> differs(std::size_t(a.cols()), 0);
    for (Index r = 0; r < a.rows(); ++r)
        for (Index c = 0; c < a.cols(); ++c)
            differs[std::size_t(c)] |= char(a(r, c) != b(r, c));
    if (biasA)  // a bias entry is one more row of its column
        for (Index c = 0; c < a.cols(); ++c)
            differs[std::size_t(c)] |= char((*biasA)(0, c) != (*biasB)(0, c));
    std::vector<Index> cols;
    for (Index c = 0; c < a.cols(); ++c)
        if (differs[std::size_t(c)])
            cols.push_back(c);
    return cols;
}

/** True when the model turns, normalises or shares its heads' q, k or v (SPEC §6): a pass of it computes everything
 *  again, and its trace is not the start of another's (HeadPlan knows only the plain steps). */
bool hasHeadOptions(const AttentionModel& m)
{
    return m.options.positionalEncoding == PositionalEncoding::Rotary || m.options.qkNorm || m.kvHeads() != m.heads();
}

Changes changesSince(const Trace& previous, const AttentionModel& model, double scoreFactor)
{
    Changes c;
    if (!previous.model)
        return c;
    const AttentionModel& p = *previous.model;
    const bool plain = !hasHeadOptions(p) && !hasHeadOptions(model);
    if (&p == &model) {  // the very same (immutable) model: nothing differs but perhaps s / T
        c.reusable = plain && previous.headCount() == model.heads();
        c.qSame = c.kSame = c.vSame = c.woSame = true;
        c.factor = previous.scoreFactor != scoreFactor;
        return c;
    }
    // One fast pass over each weight: a new text keeps them all, an edit all but one.
    c.qSame = identicalWeight(p.wq, model.wq, p.bq, model.bq);
    c.kSame = identicalWeight(p.wk, model.wk, p.bk, model.bk);
    c.vSame = identicalWeight(p.wv, model.wv, p.bv, model.bv);
    c.woSame = identicalOutputWeight(p, model);
    if (p.tokens != model.tokens || p.options.heads != model.options.heads || p.options.mask != model.options.mask
        || p.options.positionalEncoding != model.options.positionalEncoding
        || p.embeddings.cols() != model.embeddings.cols() || p.wq.cols() != model.wq.cols()
        || p.wv.cols() != model.wv.cols() || previous.headCount() != model.heads()
        || p.bq.has_value() != model.bq.has_value() || p.bk.has_value() != model.bk.has_value()
        || p.bv.has_value() != model.bv.has_value() || !plain)
        return c;
    c.reusable = true;
    c.rows = differingRows(p.embeddings, model.embeddings);
    if (!c.qSame)
        c.qCols = differingCols(p.wq, model.wq, p.bq, model.bq);
    if (!c.kSame)
        c.kCols = differingCols(p.wk, model.wk, p.bk, model.bk);
    if (!c.vSame)
        c.vCols = differingCols(p.wv, model.wv, p.bv, model.bv);
    c.factor = previous.scoreFactor != scoreFactor;
    return c;
}

/** The entries of cols in [first, first + count), shifted to start at 0. */
std::vector<Index> colsOfHead(const std::vector<Index>& cols, Index first, Index count)
{
    std::vector<Index> out;
    for (Index c : cols)
        if (c >= first && c < first + count)
            out.push_back(c - first);
    return out;
}

/** What one head redoes when it starts from the previous trace's head. */
struct HeadPlan {
    bool fullQ = true, fullK = true, fullV = true;  ///< the whole projection
    std::vector<Index> qCols, kCols, vCols;         ///< else these columns (of the head's block) …
    std::vector<Index> rows;                        ///< … and these rows of Q, K and V
    bool fullScores = true;                         ///< else only the scores' rows and columns `rows`
    bool softmax = true;                            ///< every row of the weights
    bool fullOutputs = true;                        ///< else only the output columns vCols
};

HeadPlan planHead(const Changes& c, int head, int n, int dk, int dv)
{
    HeadPlan p;
    if (!c.reusable)
        return p;
    // A few rows or columns are redone exactly; past a quarter of them the whole product is as cheap.
    const bool fewRows = c.rows.size() * 4 <= std::size_t(n);
    p.rows = fewRows ? c.rows : std::vector<Index>{};
    p.qCols = colsOfHead(c.qCols, Index(head) * dk, dk);
    p.kCols = colsOfHead(c.kCols, Index(head) * dk, dk);
    p.vCols = colsOfHead(c.vCols, Index(head) * dv, dv);
    p.fullQ = !fewRows || p.qCols.size() * 4 > std::size_t(dk);
    p.fullK = !fewRows || p.kCols.size() * 4 > std::size_t(dk);
    p.fullV = !fewRows || p.vCols.size() * 4 > std::size_t(dv);
    const bool qkColumns = !p.qCols.empty() || !p.kCols.empty();
    p.fullScores = p.fullQ || p.fullK || qkColumns;
    const bool scoresChange = p.fullScores || !p.rows.empty();
    p.softmax = scoresChange || c.factor;
    // Only W_V's columns changed: those output columns are weights · those value columns (compute()
    // still takes the full product when a value overflowed: 0 · ∞ needs its careful path).
    p.fullOutputs = p.softmax || p.fullV || !p.rows.empty();
    return p;
}

/** out = in·w (inMax bounds in's magnitudes), plus the columns [first, first + out.cols()) of bias when there is one: one block of rows of a
 *  projection, the bias added while the block is still in cache (a model without biases does nothing more). */
void project(const MatrixCRef& in, double inMax, const SharedFactor& w, const std::optional<Matrix>& bias,
             Index first, Eigen::Ref<Matrix> out)
{
    multiply(in, inMax, w, out);
    if (bias)
        out.rowwise() += bias->row(0).segment(first, out.cols());
}

/** Below this many FLOPs a step runs on the calling thread alone: waking a worker and waiting for it costs more
 *  than it saves. Each step (a projection, the blocks of steps 3–6, the output) is weighed on its own, so that a
 *  small pass hands nothing to another thread and a larger one only its large products. */
constexpr double threadedFlops = 1e7;

/** Threads worth using for a step of this much work: 1 below threadedFlops, else at least 2 and up to the cores
 *  there are, each with half of threadedFlops or more. */
int threadsFor(double flops)
{
    if (flops < threadedFlops)
        return 1;
    return std::clamp(int(2 * flops / threadedFlops), 1, coreCount());
}

/** What each head redoes after changes (everything when the previous trace cannot be reused). */
std::vector<HeadPlan> planHeads(const Changes& changes, const AttentionModel& model)
{
    std::vector<HeadPlan> plans(static_cast<std::size_t>(model.heads()));
    for (int head = 0; head < model.heads(); ++head)
        plans[std::size_t(head)] = planHead(changes, head, model.n(), model.dK(), model.dV());
    return plans;
}

// --- buffers ---------------------------------------------------------------------------------------------

/** Buffers from this size on are worth backing with huge pages. */
constexpr std::size_t hugePageBytes = std::size_t(4) << 20;

/** Asks the kernel to back a fresh, not yet touched buffer with huge pages: a large matrix is otherwise
 *  faulted in 4 KiB page by page on first write, which costs more than the products that fill it.
 *  Only advice: nothing changes when it is refused. */
void preferHugePages(Matrix& m)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const std::size_t bytes = std::size_t(m.size()) * sizeof(double);
    if (bytes < hugePageBytes)
        return;
    const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const auto begin = std::uintptr_t(m.data()) & ~(page - 1);
    const auto end = (std::uintptr_t(m.data()) + bytes + page - 1) & ~(page - 1);
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)m;
#endif
}

/** A trace to fill, in the storage of recycle when there is one (and it is not previous): a spent trace's
 *  buffers are already faulted in, so filling them costs no page zeroing. recycle is left without them. The
 *  trace keeps recycle's model, magnitudes and score factor until step 1 replaces them, so that what recycle
 *  holds can still be compared with the new model (startingPoint()). */
Trace spareStorage(Trace* recycle, const Trace* previous)
{
    Trace t;
    if (recycle && recycle != previous) {
        t.model = std::move(recycle->model);
        t.magnitudes = recycle->magnitudes;
        t.packed = std::move(recycle->packed);
        t.encodedX = std::move(recycle->encodedX);
        t.heads = std::move(recycle->heads);
        t.scoreFactor = recycle->scoreFactor;
        recycle->heads.clear();
    }
    return t;
}

/** Sizes m (rows × cols), on huge pages when it is large, with a copy of *from when it is kept (not computed
 *  again) and there is a from; kept without one, m already holds its values (a recycled trace's, in place).
 *  From a previous trace only what is kept is copied: fresh buffers on huge pages take a copy faster than the
 *  previous ones could be shared. */
void allocate(Matrix& m, Index rows, Index cols, bool keep, const Matrix* from)
{
    m.resize(rows, cols);
    preferHugePages(m);  // only matrices of 4 MiB and more
    if (keep && from)
        m = *from;
}

/** Every matrix of one head, allocated before any thread starts; old is the previous trace's head when the
 *  plan starts from it. */
void allocateHead(HeadTrace& ht, const HeadPlan& plan, const HeadTrace* old, Index n, Index dk, Index dv, bool rotary)
{
    allocate(ht.queries, n, dk, !plan.fullQ, old ? &old->queries : nullptr);  // n × d_k
    allocate(ht.keys, n, dk, !plan.fullK, old ? &old->keys : nullptr);        // n × d_k
    allocate(ht.values, n, dv, !plan.fullV, old ? &old->values : nullptr);    // n × d_v
    allocate(ht.scores, n, n, !plan.fullScores, old ? &old->scores : nullptr);  // n × n
    allocate(ht.weights, n, n, !plan.softmax, old ? &old->weights : nullptr);   // n × n
    allocate(ht.outputs, n, dv, !plan.fullOutputs, old ? &old->outputs : nullptr);  // n × d_v
    if (!rotary) {  // a recycled trace's from a rotary model
        ht.queriesUnrotated.resize(0, 0);
        ht.keysUnrotated.resize(0, 0);
    }
}

// --- one computation ---------------------------------------------------------------------------------------

/** s / T: what step 4 multiplies the scores by (s = 1/√d_k when scale is on, else 1; T the temperature). */
double scoreFactor(const AttentionModel& model)
{
    const double s = model.options.scale ? 1.0 / std::sqrt(double(model.dK())) : 1.0;
    return s / model.options.temperature;
}

/** copyMeasuring() for an optional matrix (0 when there is none). */
double copyMeasuringOptional(const std::optional<Matrix>& from, std::optional<Matrix>& to)
{
    if (!from) {
        to.reset();
        return 0;
    }
    if (!to)
        to.emplace();
    return copyMeasuring(*from, *to);
}

/** maxAbs() of an optional matrix (0 when there is none). */
double maxAbsOptional(const std::optional<Matrix>& m)
{
    return m ? maxAbs(*m) : 0.0;
}

/** Throws validate()'s message unless every magnitude (and so every number) is finite. */
void checkFinite(const AttentionModel& model, const Magnitudes& m, bool biasesFinite)
{
    if (!(biasesFinite && std::isfinite(m.x) && std::isfinite(m.wq) && std::isfinite(m.wk) && std::isfinite(m.wv)
          && std::isfinite(m.wo)))
        throw std::invalid_argument(*validate(model));  // its message names the first such number
}

/** A copy of model into `to` (in its storage when the shapes are the same), measured as it is read: one pass
 *  over the weights checks them finite (validate()'s scan) and finds the magnitudes the products need. Throws
 *  validate()'s message when a number is ±∞ or NaN. */
Magnitudes copyMeasuringModel(const AttentionModel& model, AttentionModel& to)
{
    // Every member of the model (what operator== compares, and the origin label).
    to.tokens = model.tokens;
    to.options = model.options;
    to.origin = model.origin;
    to.qNorm = model.qNorm;  // one row each, checked by validateShapes()
    to.kNorm = model.kNorm;
    to.qkNormEpsilon = model.qkNormEpsilon;
    to.rotaryFrequencies = model.rotaryFrequencies;
    Magnitudes m;
    m.x = copyMeasuring(model.embeddings, to.embeddings);
    m.wq = copyMeasuring(model.wq, to.wq);
    m.wk = copyMeasuring(model.wk, to.wk);
    m.wv = copyMeasuring(model.wv, to.wv);
    m.wo = copyMeasuringOptional(model.wo, to.wo);
    bool finite = true;
    for (auto [from, into] : {std::pair{&model.bq, &to.bq}, std::pair{&model.bk, &to.bk},
                              std::pair{&model.bv, &to.bv}, std::pair{&model.bo, &to.bo}})
        finite = std::isfinite(copyMeasuringOptional(*from, *into)) && finite;
    checkFinite(model, m, finite);
    return m;
}

/** The same without a copy, for a model the trace shares: one pass that reads every number, except those of the
 *  weights (with their biases) that `same` says are those of a trace whose magnitudes are `known`: theirs are
 *  taken, and they were finite there. */
Magnitudes measure(const AttentionModel& model, const Changes& same, const Magnitudes& known)
{
    Magnitudes m;
    m.x = maxAbs(model.embeddings);
    m.wq = same.qSame ? known.wq : maxAbs(model.wq);
    m.wk = same.kSame ? known.wk : maxAbs(model.wk);
    m.wv = same.vSame ? known.wv : maxAbs(model.wv);
    m.wo = same.woSame ? known.wo : maxAbsOptional(model.wo);
    bool finite = true;
    for (const auto& [bias, kept] : {std::pair{&model.bq, same.qSame}, std::pair{&model.bk, same.kSame},
                                     std::pair{&model.bv, same.vSame}, std::pair{&model.bo, false}})
        if (!kept)
            finite = std::isfinite(maxAbsOptional(*bias)) && finite;
    checkFinite(model, m, finite);
    return m;
}

/** The deleter of a trace's own copy of a model (compute() of a model its caller keeps): what tells that copy,
 *  whose storage a later copy may take, from a shared model. */
struct OwnCopy {
    void operator()(AttentionModel* m) const { delete m; }
};

/** Step 1: the trace's model and X (n × d_model), the embeddings plus the positional encoding when it is on.
 *  A shared model is taken as it is and checked and measured only where start's changes reach; otherwise the
 *  trace copies model into the spare's storage, measuring as it reads. Throws validate()'s message on ±∞ or NaN. */
void inputX(const AttentionModel& model, std::shared_ptr<const AttentionModel> shared, const Trace* previous,
            const StartingPoint& start, Trace& t)
{
    if (shared) {
        if (previous && previous->model == shared)
            t.magnitudes = previous->magnitudes;
        else if (t.model != shared)  // compared with start.from, or else with the spare t still holds
            t.magnitudes = measure(*shared, start.changes, start.from ? start.from->magnitudes : t.magnitudes);
        t.model = std::move(shared);
    } else {
        std::shared_ptr<AttentionModel> copy;
        // The spare's own copy (made by this branch, mutable: its deleter says so), which nobody else sees any
        // more: its storage. A shared model, which may have been made const, is never written.
        if (t.model && std::get_deleter<OwnCopy>(t.model) && t.model.use_count() == 1)
            copy = std::const_pointer_cast<AttentionModel>(std::move(t.model));
        else
            copy = std::shared_ptr<AttentionModel>(new AttentionModel, OwnCopy{});
        t.model.reset();
        t.magnitudes = copyMeasuringModel(model, *copy);
        t.model = std::move(copy);
    }
    if (model.options.positionalEncoding == PositionalEncoding::Sinusoidal) {  // rotary turns q and k instead
        model.xInto(t.encodedX);
        t.magnitudes.x = maxAbs(t.encodedX);
    } else {
        t.encodedX.resize(0, 0);
    }
}

/** The rows of a task of steps 3–6: query rows [r0, r0 + rows) of one head. */
struct Block {
    int head;
    Index r0, rows;
};

/** One run of compute() after step 1: the model, the trace it fills, what each head redoes, and the factors
 *  packed for the products. Each step is one member; the steps run in the order of compute(). */
class Pass {
public:
    /** Plans every head from changes and allocates every matrix of t's heads; what the plans keep is copied
     *  from `from`, or already in t's storage when from is null (a recycled trace updated in place). */
    Pass(const AttentionModel& model, const Magnitudes& magnitudes, const Changes& changes, const Trace* from,
         Trace& t);

    /** Step 2: Q = X·W_Q + b_Q, K = X·W_K + b_K (n × d_k), V = X·W_V + b_V (n × d_v) of every head (each bias
     *  when the model has it), whole or the rows and columns an edit reaches. */
    void projections();
    /** Step 2 with SPEC §6's options: each head's q and k rows RMS-normalised (qk_norm), kept as they are then and
     *  turned by their position (rotary); each head sharing a K/V head given a copy of its keys and values. */
    void headOptions();
    /** W_Q, W_K, W_V and W_O packed (Trace::packed) where this pass multiplies all of X by them and the trace did
     *  not take them over packed already: before projections(). */
    void packWeights();
    /** Step 3 for a head that redoes only the rows of the scores of some edited tokens: those rows and
     *  columns (a column crosses every block, so this comes before them). */
    void scoresOfEditedTokens();
    /** Kᵀ of each head whose scores are all computed and V of each whose outputs are, measured once for all the
     *  blocks that multiply them; a head whose V has an entry ±∞ or NaN computes all its outputs. */
    void shareKeysAndValues();
    /** Calls step(block) for every head and block of query rows whose steps 3–6 the pass computes, on the
     *  pool's threads, the largest blocks of a causal mask first. */
    template <typename Step>
    void forEachBlock(const Step& step) const;
    /** Step 3 for a block: scores = Q·Kᵀ (rows × n; masked entries too, the trace shows them). */
    void scores(const Block& b);
    /** Steps 4–5 for a block: weights = softmax of each row of scores · s / T (rows × n, masked entries
     *  exactly 0). The scale is applied after the row maximum is subtracted, so that a tiny temperature cannot
     *  overflow the scores into ties or NaN. */
    void scaledSoftmax(const Block& b);
    /** Step 6 for a block: outputs = weights·V (rows × d_v). */
    void weightedValues(const Block& b);
    /** Step 6 for a head whose W_V alone changed in a few columns: those columns of the outputs. */
    void outputsOfEditedValueColumns();
    /** Step 7: concat = [outputs of every head] (n × h·d_v); output = concat·W_O + b_O (n × d_out; b_O when the
     *  model has it), or concat. */
    void concatAndOutput();

private:
    /** The first row of block `block` of the n rows. */
    Index firstRow(Index block) const { return block * blockRows; }
    /** The rows of the block that starts at row r0 (the last block may be shorter). */
    Index rowsOf(Index r0) const { return std::min<Index>(blockRows, m_n - r0); }
    /** Rows per task of a product with a right factor of `cols` columns shared by all rows (W_Q, W_K, W_V,
     *  W_O): as few tasks as there are threads, so that the factor is packed as seldom as possible, but no
     *  more than fit a thread's scratch (scratchCells) with their `cols` columns, unless that is below
     *  blockRows. */
    Index chunkRows(Index cols, int threads) const;
    /** Parts of its columns a product of every row by a weight is split into, up to `units` (heads, or groups
     *  of 8 columns): one per thread when the rows are few (one block), so that each thread multiplies all of them
     *  by its own columns and no two pack the same columns of the weight; else 1 (the threads split the rows). */
    int columnParts(int threads, int units) const
    {
        return threads > 1 && m_n <= blockRows ? std::max(1, std::min(threads, units)) : 1;
    }
    /** How step 2 splits one of W_Q, W_K, W_V (which = 0, 1, 2) for the heads whose plan redoes it whole. */
    struct Projection {
        int which = 0;
        int first = 0, heads = 0;  ///< heads [first, first + heads) (between them some may keep theirs)
        int threads = 1, parts = 1;
        Index chunk = 0;
        int tasks = 0;  ///< chunks of rows × parts of columns; 0 when no head redoes it
        double flops = 0;
    };
    /** threads: as many as the projection's own work is worth, or at least this many (the step's). */
    Projection wholeProjection(int which, int threads = 1) const;
    /** True when head's plan redoes projection `which` (0 Q, 1 K, 2 V) whole; head counts K/V heads for K and V. */
    bool redoesWhole(int which, int head) const
    {
        const HeadPlan& plan = m_plans[std::size_t(queryHead(which, head))];
        return which == 0 ? plan.fullQ : which == 1 ? plan.fullK : plan.fullV;
    }
    /** Heads of projection `which`: query heads for Q, K/V heads for K and V. */
    int headsOf(int which) const { return which == 0 ? m_heads : m_kvHeads; }
    /** The query head whose trace holds head `head` of projection `which`: for K and V the first of its group. */
    int queryHead(int which, int head) const { return which == 0 ? head : head * m_group; }
    /** One task of a projection: one product of a chunk of rows of X with a part of its columns, each head's
     *  columns copied out of it. */
    void projectionTask(const Projection& p, int task);
    /** The first column of part `part` of `parts` of the count columns from first: at a head's first column, or
     *  with panels at a multiple of their column group, so that each part's product can read them. */
    Index partColumn(Index first, Index count, int part, int parts, Index width,
                     const PackedDoubleWeight* panels) const;

    /** Query rows per task: a block of scores is still in cache for its softmax and weights·V, and repacking
     *  K and V once per block costs about 1% of the block's products. */
    static constexpr Index blockRows = 128;

    const AttentionModel& m_model;
    const Magnitudes m_magnitudes;
    Trace& m_t;
    const Matrix& m_x;  ///< n × d_model
    const int m_n, m_heads, m_dk, m_dv;
    const int m_kvHeads, m_group;  ///< K/V heads; query head i reads K/V head i / m_group
    const bool m_causal;
    const int m_blockThreads;  ///< threads steps 3–6 are worth (their products: 2·n·n·(h·d_k + h·d_v) FLOPs)
    const int m_blocks;   ///< blocks of query rows per head
    std::vector<HeadPlan> m_plans;
    std::vector<double> m_valuesMax;  ///< per head: the largest |entry| of V (±∞ or NaN when one is)
    std::vector<SharedFactor> m_keysT{static_cast<std::size_t>(m_heads)};       ///< Kᵀ (d_k × n) of each head
    std::vector<SharedFactor> m_values{static_cast<std::size_t>(m_heads)};      ///< V (n × d_v) of each head
};

Pass::Pass(const AttentionModel& model, const Magnitudes& magnitudes, const Changes& changes, const Trace* from,
           Trace& t)
    : m_model(model), m_magnitudes(magnitudes), m_t(t), m_x(t.x()), m_n(model.n()), m_heads(model.heads()),
      m_dk(model.dK()), m_dv(model.dV()), m_kvHeads(model.kvHeads()), m_group(m_heads / m_kvHeads),
      m_causal(model.options.mask == Mask::Causal),
      m_blockThreads(threadsFor(2.0 * m_n * m_n * double(model.wq.cols() + Index(m_heads) * m_dv))),
      m_blocks(int((m_n + blockRows - 1) / blockRows)),
      m_valuesMax(std::size_t(m_heads), 0)
{
    m_plans = planHeads(changes, model);
    t.heads.resize(std::size_t(m_heads));
    for (int head = 0; head < m_heads; ++head)
        allocateHead(t.heads[std::size_t(head)], m_plans[std::size_t(head)],
                     changes.reusable && from ? &from->heads[std::size_t(head)] : nullptr, m_n, m_dk, m_dv,
                     model.options.positionalEncoding == PositionalEncoding::Rotary);
}

/** Cells of the scratch each thread keeps for the result of one chunk of a projection of several heads: 1 MiB,
 *  or blockRows rows of the widest weight (4 MiB). */
constexpr Index scratchCells = Index(1) << 17;

Index Pass::chunkRows(Index cols, int threads) const
{
    const Index perThread = (m_n + threads - 1) / threads;
    return std::min(std::max(scratchCells / std::max<Index>(cols, 1), blockRows), perThread);
}

Pass::Projection Pass::wholeProjection(int which, int threads) const
{
    Projection p;
    p.which = which;
    const Index width = which == 2 ? m_dv : m_dk;
    auto redoes = [&](int head) { return redoesWhole(which, head); };
    int first = 0, last = headsOf(which) - 1;
    while (first < headsOf(which) && !redoes(first))
        ++first;
    while (last >= first && !redoes(last))
        --last;
    if (first > last)
        return p;
    p.first = first;
    p.heads = last - first + 1;
    p.flops = 2.0 * double(m_n) * double(m_x.cols()) * double(Index(p.heads) * width);
    p.threads = std::max(threads, threadsFor(p.flops));
    p.parts = columnParts(p.threads, p.heads);
    p.chunk = p.parts > 1 ? m_n : chunkRows(Index(p.heads) * width, p.threads);
    p.tasks = int((m_n + p.chunk - 1) / p.chunk) * p.parts;
    return p;
}

Index Pass::partColumn(Index first, Index count, int part, int parts, Index width,
                       const PackedDoubleWeight* panels) const
{
    if (part == 0 || part == parts)
        return first + (part == 0 ? 0 : count);
    if (!panels)
        return first + count / width * part / parts * width;
    const Index group = panels->columnGroup;
    return std::max(first, (first + count * part / parts) / group * group);
}

void Pass::projectionTask(const Projection& p, int task)
{
    const int which = p.which;
    const Index width = which == 2 ? m_dv : m_dk;
    auto redoes = [&](int head) { return redoesWhole(which, head); };
    const Matrix& w = which == 0 ? m_model.wq : which == 1 ? m_model.wk : m_model.wv;
    const std::optional<Matrix>& bias = which == 0 ? m_model.bq : which == 1 ? m_model.bk : m_model.bv;
    const double wMax = which == 0 ? m_magnitudes.wq : which == 1 ? m_magnitudes.wk : m_magnitudes.wv;
    const PackedDoubleWeight* panels =
        (which == 0 ? m_t.packed.wq : which == 1 ? m_t.packed.wk : m_t.packed.wv).get();
    auto out = [&](int head) -> Matrix& {
        HeadTrace& ht = m_t.heads[std::size_t(queryHead(which, head))];
        return which == 0 ? ht.queries : which == 1 ? ht.keys : ht.values;
    };
    const Index r0 = Index(task / p.parts) * p.chunk, rows = std::min(p.chunk, m_n - r0);
    const int part = task % p.parts;
    const Index first = Index(p.first) * width, count = Index(p.heads) * width;
    const Index c0 = partColumn(first, count, part, p.parts, width, panels);
    const Index c1 = partColumn(first, count, part + 1, p.parts, width, panels);
    if (c1 == c0)
        return;
    // The block of columns, its magnitude bounded by the whole weight's (found once for the model).
    const SharedFactor factor(w.middleCols(c0, c1 - c0), wMax, panels, c0);
    const auto xRows = m_x.middleRows(r0, rows);  // rows × d_model
    const int h0 = int(c0 / width), h1 = int((c1 + width - 1) / width);  // the heads [h0, h1) it reaches
    if (c0 == Index(h0) * width && c1 - c0 == width) {  // one head: straight into it (one between heads that
        if (redoes(h0))                                   // redo may keep its values)
            project(xRows, m_magnitudes.x, factor, bias, c0, out(h0).middleRows(r0, rows));
        return;
    }
    thread_local std::vector<double> scratch;
    if (scratch.size() < std::size_t(rows * (c1 - c0)))
        scratch.resize(std::size_t(rows * (c1 - c0)));
    Eigen::Map<Matrix> all(scratch.data(), rows, c1 - c0);
    multiply(xRows, m_magnitudes.x, factor, all);
    for (int head = h0; head < h1; ++head) {
        if (!redoes(head))
            continue;
        // the head's columns in this part (with panels a part may end inside a head)
        const Index from = std::max(c0, Index(head) * width), to = std::min(c1, Index(head + 1) * width);
        auto block = all.middleCols(from - c0, to - from);
        auto into = out(head).block(r0, from - Index(head) * width, rows, to - from);
        if (bias)
            into = block.rowwise() + bias->row(0).segment(from, to - from);
        else
            into = block;
    }
}

/** Weights of more cells are not packed: the panels would double what a very wide model holds. */
constexpr Index packedCellsMax = Index(1) << 22;  // 32 MiB

void Pass::packWeights()
{
    if (m_n <= 4)  // the products of a few rows read the weights as they are (products.h: dgemm)
        return;
    std::shared_ptr<const PackedDoubleWeight>* slots[4] = {&m_t.packed.wq, &m_t.packed.wk, &m_t.packed.wv,
                                                            &m_t.packed.wo};
    const Matrix* weights[4] = {&m_model.wq, &m_model.wk, &m_model.wv, m_model.wo ? &*m_model.wo : nullptr};
    int wanted[4] = {}, count = 0;  // the weights this pass packs
    Index cells = 0;
    for (int which = 0; which < 4; ++which) {
        const bool whole = which < 3 ? wholeProjection(which).tasks > 0 : weights[3] != nullptr;
        if (whole && !*slots[which] && weights[which]->size() <= packedCellsMax) {
            wanted[count++] = which;
            cells += weights[which]->size();
        }
    }
    std::shared_ptr<PackedDoubleWeight> made[4];
    // a copy of the weights: a second thread pays from a few hundred KiB on
    parallelFor(count, cells >= (Index(1) << 16) ? std::min(count, coreCount()) : 1, [&](int i) {
        const Matrix& w = *weights[wanted[i]];
        auto panels = std::make_shared<PackedDoubleWeight>();
        productKernels().packDoubleWeight(w.data(), w.outerStride(), w.rows(), w.cols(), *panels);
        made[i] = std::move(panels);
    });
    for (int i = 0; i < count; ++i)
        *slots[wanted[i]] = std::move(made[i]);
}

void Pass::projections()
{
    // Whole projections, every head that redoes one in one product (or one per part of the heads), the tasks of
    // all three handed to the threads at once: one wait for them instead of three …
    // The three are weighed together: three products each too small for a second thread may be worth one together.
    Projection whole[3] = {wholeProjection(0), wholeProjection(1), wholeProjection(2)};
    const int together = threadsFor(whole[0].flops + whole[1].flops + whole[2].flops);
    if (together > std::max({whole[0].threads, whole[1].threads, whole[2].threads}))
        for (int which = 0; which < 3; ++which)
            whole[which] = wholeProjection(which, together);
    const int tasks = whole[0].tasks + whole[1].tasks + whole[2].tasks;
    const int threads = std::max({whole[0].threads, whole[1].threads, whole[2].threads});
    parallelFor(tasks, threads, [&](int task) {
        int which = 0;
        while (task >= whole[which].tasks)
            task -= whole[which++].tasks;
        projectionTask(whole[which], task);
    });
    // … or the rows and columns an edit touched
    for (int head = 0; head < m_heads; ++head) {
        const HeadPlan& plan = m_plans[std::size_t(head)];
        HeadTrace& ht = m_t.heads[std::size_t(head)];
        auto update = [&](bool full, Matrix& out, const Matrix& w, const std::optional<Matrix>& bias, Index first,
                          Index width, const std::vector<Index>& cols) {
            if (full)
                return;
            const auto wh = w.middleCols(first, width);  // d_model × width
            for (Index r : plan.rows) {
                out.row(r).noalias() = m_x.row(r) * wh;
                if (bias)
                    out.row(r) += bias->middleCols(first, width);
            }
            for (Index c : cols) {
                out.col(c).noalias() = m_x * wh.col(c);
                if (bias)
                    out.col(c).array() += (*bias)(0, first + c);
            }
        };
        update(plan.fullQ, ht.queries, m_model.wq, m_model.bq, Index(head) * m_dk, m_dk, plan.qCols);
        update(plan.fullK, ht.keys, m_model.wk, m_model.bk, Index(head) * m_dk, m_dk, plan.kCols);
        update(plan.fullV, ht.values, m_model.wv, m_model.bv, Index(head) * m_dv, m_dv, plan.vCols);
    }
}

/** Each row x of m (n × d_k) as x / √(mean(x²) + ε) · w (w one row, or none for ones): qk_norm. */
void rmsNormRows(Matrix& m, const std::optional<Matrix>& w, double epsilon)
{
    for (Index r = 0; r < m.rows(); ++r) {
        auto row = m.row(r);
        row *= 1.0 / std::sqrt(row.squaredNorm() / double(row.size()) + epsilon);
        if (w)
            row.array() *= w->row(0).array();
    }
}

/** cos and sin of the rotary angles p·f_i, position p a row (from 0), pair i a column: n × d_r/2 each. f_i is
 *  θ^(−2i/d_r), or the model's own frequencies (a rope_scaling): rotaryFrequencies(). */
struct Turns {
    Matrix cos, sin;
};

Turns rotaryTurns(const AttentionModel& model, int n)
{
    const std::vector<double> f = rotaryFrequencies(model);
    const int half = int(f.size());
    Turns t{Matrix(n, half), Matrix(n, half)};
    for (int p = 0; p < n; ++p)
        for (int i = 0; i < half; ++i) {
            const double angle = double(p) * f[std::size_t(i)];
            t.cos(p, i) = std::cos(angle);
            t.sin(p, i) = std::sin(angle);
        }
    return t;
}

/** Turns the pairs (x_i, x_{i+d_r/2}), i < d_r/2, of each row of m (n × d_k) by its position's angles (rotate-half
 *  layout); the dimensions from d_r on stay. */
void turnRows(Matrix& m, const Turns& t)
{
    const Index half = t.cos.cols();
    for (Index p = 0; p < m.rows(); ++p)
        for (Index i = 0; i < half; ++i) {
            const double a = m(p, i), b = m(p, i + half), c = t.cos(p, i), s = t.sin(p, i);
            m(p, i) = a * c - b * s;
            m(p, i + half) = b * c + a * s;
        }
}

void Pass::headOptions()
{
    const bool rotary = m_model.options.positionalEncoding == PositionalEncoding::Rotary;
    const Turns turns = rotary ? rotaryTurns(m_model, m_n) : Turns{};
    // q or k of one head: normalised, kept as it is, turned
    auto prepare = [&](Matrix& m, Matrix& unrotated, const std::optional<Matrix>& norm) {
        if (m_model.options.qkNorm)
            rmsNormRows(m, norm, m_model.qkNormEpsilon);
        if (!rotary)
            return;
        unrotated = m;
        turnRows(m, turns);
    };
    const int threads = threadsFor(20.0 * double(m_n) * double(m_heads + m_kvHeads) * double(m_dk));
    parallelFor(m_heads, threads, [&](int head) {
        HeadTrace& ht = m_t.heads[std::size_t(head)];
        prepare(ht.queries, ht.queriesUnrotated, m_model.qNorm);
        if (head % m_group == 0)  // the K/V head's keys, in the trace of the first query head that reads them
            prepare(ht.keys, ht.keysUnrotated, m_model.kNorm);
    });
    if (m_group == 1)
        return;
    parallelFor(m_heads, threads, [&](int head) {
        if (head % m_group == 0)
            return;
        HeadTrace& ht = m_t.heads[std::size_t(head)];
        const HeadTrace& shared = m_t.heads[std::size_t(head - head % m_group)];
        ht.keys = shared.keys;
        ht.keysUnrotated = shared.keysUnrotated;
        ht.values = shared.values;
    });
}

void Pass::scoresOfEditedTokens()
{
    for (int head = 0; head < m_heads; ++head) {
        const HeadPlan& plan = m_plans[std::size_t(head)];
        HeadTrace& ht = m_t.heads[std::size_t(head)];
        if (plan.fullScores)
            continue;
        for (Index r : plan.rows) {
            ht.scores.row(r).noalias() = ht.queries.row(r) * ht.keys.transpose();
            ht.scores.col(r).noalias() = ht.queries * ht.keys.row(r).transpose();
        }
    }
}

void Pass::shareKeysAndValues()
{
    parallelFor(2 * m_heads, m_blockThreads, [&](int task) {
        const int head = task / 2;
        HeadPlan& plan = m_plans[std::size_t(head)];
        const HeadTrace& ht = m_t.heads[std::size_t(head)];
        if (task % 2 == 0 && plan.fullScores)
            m_keysT[std::size_t(head)].referTransposed(ht.keys);
        if (task % 2 == 1) {
            // A value that overflowed needs step 6's careful path (0 · ∞), which only the whole product takes.
            const double vMax = m_valuesMax[std::size_t(head)] = maxAbs(ht.values);
            if (!std::isfinite(vMax))
                plan.fullOutputs = true;
            if (plan.fullOutputs)
                m_values[std::size_t(head)].refer(ht.values, vMax);
        }
    });
}

template <typename Step>
void Pass::forEachBlock(const Step& step) const
{
    parallelFor(m_heads * m_blocks, m_blockThreads, [&](int task) {
        const Index r0 = firstRow(m_blocks - 1 - task % m_blocks);
        step(Block{task / m_blocks, r0, rowsOf(r0)});
    });
}

void Pass::scores(const Block& b)
{
    if (!m_plans[std::size_t(b.head)].fullScores)
        return;
    HeadTrace& ht = m_t.heads[std::size_t(b.head)];
    multiply(ht.queries.middleRows(b.r0, b.rows), m_keysT[std::size_t(b.head)], ht.scores.middleRows(b.r0, b.rows));
}

void Pass::scaledSoftmax(const Block& b)
{
    if (!m_plans[std::size_t(b.head)].softmax)
        return;
    HeadTrace& ht = m_t.heads[std::size_t(b.head)];
    maskedSoftmaxRows(ht.scores.middleRows(b.r0, b.rows), ht.weights.middleRows(b.r0, b.rows), b.r0, m_causal,
                      m_t.scoreFactor);
}

void Pass::weightedValues(const Block& b)
{
    if (!m_plans[std::size_t(b.head)].fullOutputs)
        return;
    HeadTrace& ht = m_t.heads[std::size_t(b.head)];
    // Under the mask, the weights past the block's last row are all 0: only the first `live` columns count.
    const Index live = m_causal ? b.r0 + b.rows : m_n;
    const auto w = ht.weights.block(b.r0, 0, b.rows, live);  // rows × live
    // Weights lie in [0, 1] (a softmax): no pass over them for their magnitude.
    multiply(w, 1.0, m_values[std::size_t(b.head)], ht.outputs.middleRows(b.r0, b.rows));
    if (std::isfinite(m_valuesMax[std::size_t(b.head)]))
        return;
    // A weight of exactly 0 (masked or underflowed) adds nothing, even to a value that overflowed: the product
    // above would give 0 · ∞ = NaN.
    for (Index i = 0; i < b.rows; ++i) {
        auto out = ht.outputs.row(b.r0 + i);
        out.setZero();
        for (Index j = 0; j < live; ++j)
            if (w(i, j) != 0)
                out += w(i, j) * ht.values.row(j);
    }
}

void Pass::outputsOfEditedValueColumns()
{
    // Masked weights are exactly 0, so the whole rows of weights may take part.
    for (int head = 0; head < m_heads; ++head) {
        const HeadPlan& plan = m_plans[std::size_t(head)];
        HeadTrace& ht = m_t.heads[std::size_t(head)];
        if (!plan.fullOutputs)
            for (Index c : plan.vCols)
                ht.outputs.col(c).noalias() = ht.weights * ht.values.col(c);
    }
}

void Pass::concatAndOutput()
{
    m_t.concat.resize(m_n, Index(m_heads) * m_dv);
    for (int head = 0; head < m_heads; ++head)
        m_t.concat.middleCols(Index(head) * m_dv, m_dv) = m_t.heads[std::size_t(head)].outputs;
    if (!m_model.wo) {
        m_t.output = m_t.concat;
        return;
    }
    const Index dOut = m_model.wo->cols();
    m_t.output.resize(m_n, dOut);
    const int threads = threadsFor(2.0 * double(m_n) * double(m_t.concat.cols()) * double(dOut));
    const int parts = columnParts(threads, int(dOut / 8));  // columns in multiples of 8
    const Index chunk = parts > 1 ? m_n : chunkRows(dOut, threads);
    const double concatMax = parts > 1 ? maxAbs(m_t.concat) : 0.0;
    const PackedDoubleWeight* panels = m_t.packed.wo.get();
    // with panels, columns from a multiple of their group, so that each part's product can read them
    const Index group = panels ? std::max<Index>(panels->columnGroup, 1) : 8;
    parallelFor(int((m_n + chunk - 1) / chunk) * parts, threads, [&](int task) {
        const Index r0 = Index(task / parts) * chunk, rows = std::min(chunk, m_n - r0);
        const int part = task % parts;
        const Index c0 = part == 0 ? 0 : dOut / group * part / parts * group;
        const Index c1 = part + 1 == parts ? dOut : dOut / group * (part + 1) / parts * group;
        if (c1 == c0)
            return;
        // h·d_v × its columns of d_out
        const SharedFactor wo(m_model.wo->middleCols(c0, c1 - c0), m_magnitudes.wo, panels, c0);
        const auto concat = m_t.concat.middleRows(r0, rows);
        project(concat, parts > 1 ? concatMax : maxAbs(concat), wo, m_model.bo, c0,
                m_t.output.block(r0, c0, rows, c1 - c0));
    });
}

/** True when plan `a` computes nothing whole that plan `b` keeps, and at most a few more rows: starting
 *  from a's trace then costs a few rows or columns more than b, against a copy of b's kept matrices. */
bool noFuller(const HeadPlan& a, const HeadPlan& b)
{
    return (!a.fullQ || b.fullQ) && (!a.fullK || b.fullK) && (!a.fullV || b.fullV) && (!a.fullScores || b.fullScores)
        && (!a.softmax || b.softmax) && (!a.fullOutputs || b.fullOutputs) && a.rows.size() <= 2 * b.rows.size() + 8;
}

/** Where a pass starts: the spare (the trace before previous) updated in place when that redoes nothing whole
 *  that starting from previous would keep (no copy of n × n scores for a one-cell edit), else previous; without
 *  a previous, nothing (the spare lends only its storage). */
StartingPoint startingPoint(const AttentionModel& model, double factor, const Trace* previous, const Trace& spare)
{
    StartingPoint s;
    if (!previous)
        return s;
    s.changes = changesSince(*previous, model, factor);
    s.from = previous;
    if (!s.changes.reusable || spare.heads.empty())
        return s;
    Changes own = changesSince(spare, model, factor);
    if (!own.reusable)
        return s;
    const std::vector<HeadPlan> fromSpare = planHeads(own, model), fromPrevious = planHeads(s.changes, model);
    for (std::size_t h = 0; h < fromSpare.size(); ++h)
        if (!noFuller(fromSpare[h], fromPrevious[h]))
            return s;
    s.changes = std::move(own);
    s.from = nullptr;
    return s;
}

/** The packed weights a new trace may take over before its pass: all of those of a trace of that very shared
 *  (immutable) model, previous or the spare; else each weight that start's changes leave as it was in the trace
 *  they compare with (previous, or the spare updated in place), whether or not its values are reusable: a new
 *  text multiplies by the same weights. */
PackedWeights lentWeights(const std::shared_ptr<const AttentionModel>& shared, const Trace* previous,
                          const Trace& spare, const StartingPoint& start)
{
    if (shared && previous && previous->model == shared)
        return previous->packed;
    if (shared && spare.model == shared)
        return spare.packed;
    const Changes& c = start.changes;
    const PackedWeights& from = start.from ? start.from->packed : spare.packed;
    PackedWeights kept;
    if (c.qSame)
        kept.wq = from.wq;
    if (c.kSame)
        kept.wk = from.wk;
    if (c.vSame)
        kept.wv = from.wv;
    if (c.woSame)
        kept.wo = from.wo;
    return kept;
}

/** compute() of model, which the trace shares when `shared` (pointing at model) is given, else copies. */
Trace computeModel(const AttentionModel& model, std::shared_ptr<const AttentionModel> shared,
                   const Trace* previous, Trace* recycle)
{
    if (validateShapes(model))
        throw std::invalid_argument(*validate(model));  // the same message as validate() gives
    Trace t = spareStorage(recycle, previous);
    // Compared while t still holds the spare's model: whether the spare's values are the better start.
    const StartingPoint start = startingPoint(model, scoreFactor(model), previous, t);

    // 1. X = the embeddings, plus the positional encoding when it is on                 n × d_model
    //    (validate()'s check of every number is made as the trace takes the model)
    PackedWeights lent = lentWeights(shared, previous, t, start);
    inputX(model, std::move(shared), previous, start, t);
    t.packed = std::move(lent);
    t.scoreFactor = scoreFactor(model);  // s / T, the scale of step 4
    // what each head redoes; every matrix of every head allocated
    Pass pass(model, t.magnitudes, start.changes, start.from, t);
    pass.packWeights();

    // 2. Q = X·W_Q + b_Q, K = X·W_K + b_K, V = X·W_V + b_V (biases when given), each head its block of
    //    columns                                                                 n × d_k, n × d_k, n × d_v
    pass.projections();
    if (hasHeadOptions(model))  // SPEC §6: q/k norm, rotary positions, shared K/V heads
        pass.headOptions();
    // 3.–6. per head and block of query rows, so that a block's scores are still in cache for its
    // weighted values
    pass.scoresOfEditedTokens();
    pass.shareKeysAndValues();
    pass.forEachBlock([&pass](const Block& b) {
        pass.scores(b);          // 3. scores = Q·Kᵀ                                         rows × n
        pass.scaledSoftmax(b);   // 4.–5. weights = softmax of each row of scores · s / T    rows × n
        pass.weightedValues(b);  // 6. outputs = weights·V                                   rows × d_v
    });
    pass.outputsOfEditedValueColumns();
    // 7. concat = [outputs of every head], output = concat·W_O + b_O or concat     n × h·d_v, n × d_out
    pass.concatAndOutput();
    return t;
}

}  // namespace

Trace compute(const AttentionModel& model, const Trace* previous, Trace* recycle)
{
    return computeModel(model, nullptr, previous, recycle);
}

Trace compute(std::shared_ptr<const AttentionModel> model, const Trace* previous, Trace* recycle)
{
    if (!model)
        throw std::invalid_argument("no model");
    const AttentionModel& m = *model;
    return computeModel(m, std::move(model), previous, recycle);
}

std::shared_ptr<Trace> computeShared(std::shared_ptr<const AttentionModel> model, const Trace* previous,
                                     Trace* recycle)
{
    return std::make_shared<Trace>(compute(std::move(model), previous, recycle));
}

}  // namespace core
