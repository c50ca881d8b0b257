#include "attention.h"

#include "gemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AE_AVX2_KERNELS 1
#endif

namespace core {

namespace {

using Index = Eigen::Index;
using RowMap = Eigen::Map<RowVector>;
using ConstRowMap = Eigen::Map<const RowVector>;

/** Query rows per task of steps 2–5: a block of scores is still in cache for its softmax and weights·V,
 *  and repacking K and V once per block costs about 1% of the block's products. */
constexpr Index blockRows = 128;

/** Below this many FLOPs one thread does everything: starting a thread costs more than it saves. */
constexpr double threadedFlops = 1e7;

/** The vectorised exps agree with std::exp to an ulp or two down to here; below it std::exp goes subnormal and
 *  then exactly 0, which they do not, so such entries are taken from std::exp. */
constexpr double vectorExpFloor = -708.0;

/** Buffers from this size on are worth backing with huge pages. */
constexpr std::size_t hugePageBytes = std::size_t(4) << 20;

/** FLOPs of the products of compute(), the measure of when threads pay. */
double productFlops(const AttentionModel& m)
{
    const double n = m.n(), d = m.dModel(), hk = double(m.wq.cols()), hv = double(m.wv.cols());
    const double out = m.wo ? double(m.wo->cols()) : 0.0;
    return 2 * n * d * (2 * hk + hv) + 2 * n * n * (hk + hv) + 2 * n * hv * out;
}

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

/** Threads worth starting for this much work: 1 below threadedFlops, else up to the cores there are. */
int threadsFor(double flops)
{
    if (flops < threadedFlops)
        return 1;
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    return std::clamp(int(flops / threadedFlops), 1, cores);
}

/** Runs task(i) for every i in [0, count) on up to `threads` threads, the caller's among them; each thread
 *  takes the next index nobody has claimed. The first exception a task throws is rethrown here. */
template <typename Task>
void parallelFor(int count, int threads, const Task& task)
{
    std::atomic<int> next{0};
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto worker = [&] {
        for (int i; (i = next.fetch_add(1)) < count;) {
            try {
                task(i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(failureMutex);
                if (!failure)
                    failure = std::current_exception();
                next = count;
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min(threads, count); ++t) {
        try {
            pool.emplace_back(worker);
        } catch (const std::system_error&) {
            break;  // no more threads: the ones running take the remaining tasks
        }
    }
    worker();
    for (auto& thread : pool)
        thread.join();
    if (failure)
        std::rethrow_exception(failure);
}

#if defined(AE_AVX2_KERNELS)
/** What pass 1 of the softmax needs of a row, in one sweep: its largest entry not NaN (−∞ when there is
 *  none), its smallest, and whether any entry is NaN. */
struct RowRange {
    double max, min;
    bool nan;
};

__attribute__((target("avx2"))) RowRange rangeAvx2(const double* in, Index count)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    // max_pd / min_pd return their second operand when either is NaN: a NaN entry never replaces the running
    // extremes, and the unordered compare records it instead.
    __m256d hi = _mm256_set1_pd(-inf), lo = _mm256_set1_pd(inf), nan = _mm256_setzero_pd();
    Index j = 0;
    for (; j + 4 <= count; j += 4) {
        const __m256d x = _mm256_loadu_pd(in + j);
        hi = _mm256_max_pd(x, hi);
        lo = _mm256_min_pd(x, lo);
        nan = _mm256_or_pd(nan, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
    }
    alignas(32) double his[4], los[4];
    _mm256_store_pd(his, hi);
    _mm256_store_pd(los, lo);
    RowRange r{std::max({his[0], his[1], his[2], his[3]}), std::min({los[0], los[1], los[2], los[3]}),
               _mm256_movemask_pd(nan) != 0};
    for (; j < count; ++j) {
        if (std::isnan(in[j])) {
            r.nan = true;
            continue;
        }
        r.max = std::max(r.max, in[j]);
        r.min = std::min(r.min, in[j]);
    }
    return r;
}

/** exp(x) for four x in [vectorExpFloor, 0]: exp(x) = 2^k · exp(r) with x = k·ln 2 + r, |r| ≤ ln 2 / 2, and
 *  exp(r) from its Taylor series to r¹³ (error below 1e-17), evaluated in four independent parts (Estrin's
 *  scheme) so that four products are in flight instead of a chain of thirteen. k comes from adding
 *  1.5·2⁵² + 1023: the sum's low bits are then k + 1023, which shifted into the exponent field is 2^k.
 *  exp(0) is exactly 1. Agrees with std::exp to an ulp or two. */
__attribute__((target("avx2,fma"))) inline __m256d expAvx2(__m256d x)
{
    constexpr double ln2Hi = 6.93147180369123816490e-01, ln2Lo = 1.90821492927058770002e-10;
    const __m256d shifter = _mm256_set1_pd(6755399441055744.0 + 1023.0);
    const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(1.4426950408889634), shifter);
    const __m256d k = _mm256_sub_pd(t, shifter);
    const __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(ln2Lo), _mm256_fnmadd_pd(k, _mm256_set1_pd(ln2Hi), x));
    const auto c = _mm256_set1_pd;
    const __m256d r2 = _mm256_mul_pd(r, r), r4 = _mm256_mul_pd(r2, r2), r8 = _mm256_mul_pd(r4, r4);
    // 1/0! … 1/13! in pairs c_i + c_{i+1}·r, then pairs of pairs, then the halves
    const __m256d p01 = _mm256_fmadd_pd(r, c(1.0), c(1.0)), p23 = _mm256_fmadd_pd(r, c(1.0 / 6), c(0.5));
    const __m256d p45 = _mm256_fmadd_pd(r, c(1.0 / 120), c(1.0 / 24)), p67 = _mm256_fmadd_pd(r, c(1.0 / 5040), c(1.0 / 720));
    const __m256d p89 = _mm256_fmadd_pd(r, c(1.0 / 362880), c(1.0 / 40320));
    const __m256d p1011 = _mm256_fmadd_pd(r, c(1.0 / 39916800), c(1.0 / 3628800));
    const __m256d p1213 = _mm256_fmadd_pd(r, c(1.0 / 6227020800), c(1.0 / 479001600));
    const __m256d p03 = _mm256_fmadd_pd(r2, p23, p01), p47 = _mm256_fmadd_pd(r2, p67, p45);
    const __m256d p811 = _mm256_fmadd_pd(r2, p1011, p89);
    const __m256d p07 = _mm256_fmadd_pd(r4, p47, p03), p813 = _mm256_fmadd_pd(r4, p1213, p811);
    const __m256d p = _mm256_fmadd_pd(r8, p813, p07);
    return _mm256_mul_pd(p, _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(t), 52)));
}

/** out[j] = exp((in[j] − max) · factor) for j < count, eight at a time; returns their sum. Every exponent must
 *  lie in [vectorExpFloor, 0]. */
__attribute__((target("avx2,fma"))) double expShiftedAvx2(const double* in, double* out, Index count, double max,
                                                         double factor)
{
    const __m256d vmax = _mm256_set1_pd(max), vfactor = _mm256_set1_pd(factor);
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    Index j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m256d e0 = expAvx2(_mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(in + j), vmax), vfactor));
        const __m256d e1 = expAvx2(_mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(in + j + 4), vmax), vfactor));
        _mm256_storeu_pd(out + j, e0);
        _mm256_storeu_pd(out + j + 4, e1);
        acc0 = _mm256_add_pd(acc0, e0);
        acc1 = _mm256_add_pd(acc1, e1);
    }
    if (j + 4 <= count) {
        const __m256d e = expAvx2(_mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(in + j), vmax), vfactor));
        _mm256_storeu_pd(out + j, e);
        acc0 = _mm256_add_pd(acc0, e);
        j += 4;
    }
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, _mm256_add_pd(acc0, acc1));
    double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (; j < count; ++j) {
        out[j] = std::exp((in[j] - max) * factor);
        sum += out[j];
    }
    return sum;
}

/** out[j] ·= scale for j < count, four at a time. */
__attribute__((target("avx2"))) void scaleAvx2(double* out, Index count, double scale)
{
    const __m256d s = _mm256_set1_pd(scale);
    Index j = 0;
    for (; j + 4 <= count; j += 4)
        _mm256_storeu_pd(out + j, _mm256_mul_pd(_mm256_loadu_pd(out + j), s));
    for (; j < count; ++j)
        out[j] *= scale;
}
#endif

/** out = softmax(in · factor) over the first `limit` of `cols` entries, 0 after them; out may be in.
 *  The row maximum is subtracted before scaling, so a tiny temperature cannot overflow the scores into ties
 *  or NaN; the maximum gives exactly exp(0) = 1 and NaN counts as −∞. */
void softmaxRow(const double* inData, double* outData, Index limit, Index cols, double factor)
{
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (limit < cols)
        RowMap(outData + limit, cols - limit).setZero();
    if (limit == 0)
        return;
    const ConstRowMap in(inData, limit);
    RowMap out(outData, limit);

    // pass 1: the row maximum (NaN counts as −∞, so it can never win) and the smallest exponent (NaN when any
    // entry is)
    double max = 0, lowest = 0;
#if defined(AE_AVX2_KERNELS)
    if (haveAvx2Fma()) {
        const RowRange range = rangeAvx2(inData, limit);
        max = range.max;
        lowest = range.nan ? std::numeric_limits<double>::quiet_NaN() : (range.min - max) * factor;
    } else
#endif
    {
        max = in.maxCoeff<Eigen::PropagateNumbers>();
        lowest = (in.minCoeff<Eigen::PropagateNaN>() - max) * factor;
    }
    if (!(std::fabs(max) < inf)) {
        // Overflowed scores: the softmax's limit puts all weight on the +∞ entries, or, when every entry is
        // −∞ or NaN, spreads it evenly.
        const bool top = max == inf;
        double count = 0;
        for (Index j = 0; j < limit; ++j) {
            const bool wins = top ? in(j) == inf : true;
            out(j) = wins ? 1.0 : 0.0;
            count += out(j);
        }
        out /= count;
        return;
    }

    // pass 2: exp((s − max) · factor) and its sum
    double sum = 0;
    const bool separate = inData != outData;
    if (!std::isnan(lowest) && std::isfinite(factor) && (lowest >= vectorExpFloor || separate)) {
#if defined(AE_AVX2_KERNELS)
        if (lowest >= vectorExpFloor && haveAvx2Fma()) {
            scaleAvx2(outData, limit, 1.0 / expShiftedAvx2(inData, outData, limit, max, factor));
            return;
        }
#endif
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
        // NaN, an infinite factor, or far-below-maximum exponents in place: std::exp per entry, so that
        // those underflow exactly as std::exp does; the maximum gives exactly 1 even when 0 · factor is NaN.
        for (Index j = 0; j < limit; ++j) {
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
    }
    // pass 3: normalise (the sum is ≥ 1)
    out /= sum;
}

}  // namespace

void softmaxRows(Eigen::Ref<Matrix> m, bool causal)
{
    for (Index i = 0; i < m.rows(); ++i) {
        double* row = m.row(i).data();
        softmaxRow(row, row, causal ? std::min(i + 1, m.cols()) : m.cols(), m.cols(), 1.0);
    }
}

namespace {

/** What differs between the model a trace was computed from and a new one, when the new one can reuse
 *  that trace: same tokens, shapes, mask and positional encoding (scale and temperature may differ). */
struct Changes {
    bool reusable = false;
    std::vector<Index> rows;          ///< rows of X that differ
    std::vector<Index> qCols, kCols;  ///< columns of W_Q and W_K that differ (all heads)
    std::vector<Index> vCols;         ///< columns of W_V that differ
    bool factor = false;              ///< s / T differs
};

std::vector<Index> differingRows(const Matrix& a, const Matrix& b)
{
    std::vector<Index> rows;
    for (Index r = 0; r < a.rows(); ++r)
        if (a.row(r) != b.row(r))
            rows.push_back(r);
    return rows;
}

std::vector<Index> differingCols(const Matrix& a, const Matrix& b)
{
    std::vector<char> differs(std::size_t(a.cols()), 0);
    for (Index r = 0; r < a.rows(); ++r)
        for (Index c = 0; c < a.cols(); ++c)
            differs[std::size_t(c)] |= char(a(r, c) != b(r, c));
    std::vector<Index> cols;
    for (Index c = 0; c < a.cols(); ++c)
        if (differs[std::size_t(c)])
            cols.push_back(c);
    return cols;
}

Changes changesSince(const Trace& previous, const AttentionModel& model, double scoreFactor)
{
    Changes c;
    const AttentionModel& p = previous.model;
    if (p.tokens != model.tokens || p.options.heads != model.options.heads || p.options.mask != model.options.mask
        || p.options.positionalEncoding != model.options.positionalEncoding
        || p.embeddings.cols() != model.embeddings.cols() || p.wq.cols() != model.wq.cols()
        || p.wv.cols() != model.wv.cols() || previous.headCount() != model.heads())
        return c;
    c.reusable = true;
    c.rows = differingRows(p.embeddings, model.embeddings);
    c.qCols = differingCols(p.wq, model.wq);
    c.kCols = differingCols(p.wk, model.wk);
    c.vCols = differingCols(p.wv, model.wv);
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

}  // namespace

Trace compute(const AttentionModel& model, const Trace* previous, Trace* recycle)
{
    if (auto error = validate(model))
        throw std::invalid_argument(*error);

    Trace t;
    if (recycle && recycle != previous) {
        // A spent trace's buffers: already faulted in, so filling them costs no page zeroing.
        t.model = std::move(recycle->model);
        t.encodedX = std::move(recycle->encodedX);
        t.heads = std::move(recycle->heads);
        recycle->heads.clear();
    }
    t.model = model;  // into the storage taken over, when the shapes are the same
    if (model.options.positionalEncoding != PositionalEncoding::None)
        model.xInto(t.encodedX);
    else
        t.encodedX.resize(0, 0);
    const Matrix& x = t.x();

    const int n = model.n();
    const int h = model.heads();
    const int dk = model.dK();
    const int dv = model.dV();
    const bool causal = model.options.mask == Mask::Causal;
    const double s = model.options.scale ? 1.0 / std::sqrt(double(dk)) : 1.0;
    t.scoreFactor = s / model.options.temperature;
    const int threads = threadsFor(productFlops(model));
    const int blocks = int((n + blockRows - 1) / blockRows);
    const Changes changes = previous ? changesSince(*previous, model, t.scoreFactor) : Changes{};

    std::vector<HeadPlan> plans(static_cast<std::size_t>(h));
    for (int head = 0; head < h; ++head)
        plans[std::size_t(head)] = planHead(changes, head, n, dk, dv);

    // Everything the trace holds is allocated before any thread starts; the n × n matrices on huge pages.
    // From a previous trace, only what will not be computed again is copied (fresh buffers on huge pages
    // take a copy faster than the previous ones could be shared).
    t.heads.resize(std::size_t(h));
    for (int head = 0; head < h; ++head) {
        HeadTrace& ht = t.heads[std::size_t(head)];
        const HeadPlan& plan = plans[std::size_t(head)];
        const HeadTrace* old = changes.reusable ? &previous->heads[std::size_t(head)] : nullptr;
        auto allocate = [&](Matrix& m, Index rows, Index cols, bool keep, const Matrix* from) {
            m.resize(rows, cols);
            preferHugePages(m);  // only matrices of 4 MiB and more
            if (keep && from)
                m = *from;
        };
        allocate(ht.queries, n, dk, !plan.fullQ, old ? &old->queries : nullptr);
        allocate(ht.keys, n, dk, !plan.fullK, old ? &old->keys : nullptr);
        allocate(ht.values, n, dv, !plan.fullV, old ? &old->values : nullptr);
        allocate(ht.scores, n, n, !plan.fullScores, old ? &old->scores : nullptr);
        allocate(ht.weights, n, n, !plan.softmax, old ? &old->weights : nullptr);
        allocate(ht.outputs, n, dv, !plan.fullOutputs, old ? &old->outputs : nullptr);
    }

    // step 1: Q = X·W_Q, K = X·W_K, V = X·W_V; whole projections per head and block of rows (each head's
    // weights packed once for all its blocks) …
    std::vector<PackedMatrix> packedWeights{static_cast<std::size_t>(3 * h)};
    parallelFor(3 * h, threads, [&](int task) {
        const int head = task / 3, which = task % 3;
        const HeadPlan& plan = plans[std::size_t(head)];
        const bool full[] = {plan.fullQ, plan.fullK, plan.fullV};
        const Matrix* w[] = {&model.wq, &model.wk, &model.wv};
        const Index width = which == 2 ? dv : dk;
        if (full[which])
            packedWeights[std::size_t(task)].pack(w[which]->middleCols(Index(head) * width, width));
    });
    parallelFor(h * blocks, threads, [&](int task) {
        const int head = task / blocks;
        const HeadPlan& plan = plans[std::size_t(head)];
        const Index r0 = (task % blocks) * blockRows, rows = std::min<Index>(blockRows, n - r0);
        HeadTrace& ht = t.heads[std::size_t(head)];
        const auto xRows = x.middleRows(r0, rows);  // rows × d_model
        const PackedMatrix* w = &packedWeights[std::size_t(3 * head)];
        if (plan.fullQ)
            multiply(xRows, w[0], ht.queries.middleRows(r0, rows));
        if (plan.fullK)
            multiply(xRows, w[1], ht.keys.middleRows(r0, rows));
        if (plan.fullV)
            multiply(xRows, w[2], ht.values.middleRows(r0, rows));
    });
    // … or the rows and columns an edit touched
    for (int head = 0; head < h; ++head) {
        const HeadPlan& plan = plans[std::size_t(head)];
        HeadTrace& ht = t.heads[std::size_t(head)];
        auto update = [&](bool full, Matrix& out, const Matrix& w, Index first, Index width,
                          const std::vector<Index>& cols) {
            if (full)
                return;
            const auto wh = w.middleCols(first, width);
            for (Index r : plan.rows)
                out.row(r).noalias() = x.row(r) * wh;
            for (Index c : cols)
                out.col(c).noalias() = x * wh.col(c);
        };
        update(plan.fullQ, ht.queries, model.wq, Index(head) * dk, dk, plan.qCols);
        update(plan.fullK, ht.keys, model.wk, Index(head) * dk, dk, plan.kCols);
        update(plan.fullV, ht.values, model.wv, Index(head) * dv, dv, plan.vCols);
    }

    std::vector<char> valuesFinite(std::size_t(h), 0);
    for (int head = 0; head < h; ++head) {
        valuesFinite[std::size_t(head)] = allFinite(t.heads[std::size_t(head)].values);
        if (!valuesFinite[std::size_t(head)])
            plans[std::size_t(head)].fullOutputs = true;
    }

    // An edit of a few rows of X: those rows and columns of the scores, before the softmax needs them
    for (int head = 0; head < h; ++head) {
        const HeadPlan& plan = plans[std::size_t(head)];
        HeadTrace& ht = t.heads[std::size_t(head)];
        if (plan.fullScores)
            continue;
        for (Index r : plan.rows) {
            ht.scores.row(r).noalias() = ht.queries.row(r) * ht.keys.transpose();
            ht.scores.col(r).noalias() = ht.queries * ht.keys.row(r).transpose();
        }
    }

    // Kᵀ of each head whose scores are all computed and V of each whose outputs are, packed once for all the
    // blocks of query rows that multiply them.
    std::vector<PackedMatrix> keysT{static_cast<std::size_t>(h)}, values{static_cast<std::size_t>(h)};
    parallelFor(2 * h, threads, [&](int task) {
        const int head = task / 2;
        const HeadPlan& plan = plans[std::size_t(head)];
        const HeadTrace& ht = t.heads[std::size_t(head)];
        if (task % 2 == 0 && plan.fullScores)
            keysT[std::size_t(head)].packTransposed(ht.keys);
        if (task % 2 == 1 && plan.fullOutputs)
            values[std::size_t(head)].pack(ht.values);
    });

    // steps 2–5 per head and block of query rows, the largest blocks of a causal mask first
    parallelFor(h * blocks, threads, [&](int task) {
        const int head = task / blocks;
        const HeadPlan& plan = plans[std::size_t(head)];
        const Index r0 = (blocks - 1 - task % blocks) * blockRows, rows = std::min<Index>(blockRows, n - r0);
        HeadTrace& ht = t.heads[std::size_t(head)];

        // step 2: scores = Q·Kᵀ (rows × n; masked entries too, the trace shows them)
        if (plan.fullScores)
            multiply(ht.queries.middleRows(r0, rows), keysT[std::size_t(head)], ht.scores.middleRows(r0, rows));

        // steps 3–4: scaled, then softmax of each row into weights (masked entries exactly 0)
        if (plan.softmax)
            for (Index i = r0; i < r0 + rows; ++i)
                softmaxRow(ht.scores.row(i).data(), ht.weights.row(i).data(), causal ? i + 1 : n, n, t.scoreFactor);

        // step 5: outputs = weights·V (rows × d_v); under the mask, columns past the block's last row are 0
        if (!plan.fullOutputs)
            return;
        const Index live = causal ? r0 + rows : n;
        const auto w = ht.weights.block(r0, 0, rows, live);
        multiply(w, values[std::size_t(head)], ht.outputs.middleRows(r0, rows));
        if (!valuesFinite[std::size_t(head)]) {
            // A weight of exactly 0 (masked or underflowed) adds nothing, even to a value that overflowed:
            // the product above would give 0 · ∞ = NaN.
            for (Index i = 0; i < rows; ++i) {
                auto out = ht.outputs.row(r0 + i);
                out.setZero();
                for (Index j = 0; j < live; ++j)
                    if (w(i, j) != 0)
                        out += w(i, j) * ht.values.row(j);
            }
        }
    });

    // Only columns of W_V changed: those columns of the outputs (masked weights are exactly 0)
    for (int head = 0; head < h; ++head) {
        const HeadPlan& plan = plans[std::size_t(head)];
        HeadTrace& ht = t.heads[std::size_t(head)];
        if (!plan.fullOutputs)
            for (Index c : plan.vCols)
                ht.outputs.col(c).noalias() = ht.weights * ht.values.col(c);
    }

    t.concat.resize(n, Index(h) * dv);
    for (int head = 0; head < h; ++head)
        t.concat.middleCols(Index(head) * dv, dv) = t.heads[std::size_t(head)].outputs;

    if (model.wo) {
        t.output.resize(n, model.wo->cols());
        const PackedMatrix wo(*model.wo);
        parallelFor(blocks, threads, [&](int block) {
            const Index r0 = block * blockRows, rows = std::min<Index>(blockRows, n - r0);
            multiply(t.concat.middleRows(r0, rows), wo, t.output.middleRows(r0, rows));
        });
    } else {
        t.output = t.concat;
    }
    return t;
}

std::shared_ptr<Trace> computeShared(const AttentionModel& model, const Trace* previous, Trace* recycle)
{
    return std::make_shared<Trace>(compute(model, previous, recycle));
}

}  // namespace core
