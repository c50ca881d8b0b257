/** The engine's forward pass against plain GEMMs of the same FLOP count, and its peak memory.
 *
 *  bench_engine [Google Benchmark flags]  times Forward/n/h, OwnGemms/n/h/threads and PlainGemm/N/threads;
 *  bench_engine --peak-memory N H         computes once and prints the process's peak resident memory. */

#include "benchmodel.h"
#include "core/tensor/allocator.h"
#include "core/attention/attention.h"
#include "core/tensor/gemm.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using bench::dHead;
using bench::dModel;
using bench::flops;
using bench::randomMatrix;

constexpr int sizes[] = {3, 64, 512, 2048, 4096};
constexpr int headCounts[] = {1, 8};

/** Runs body(row0, rows) over `threads` contiguous row ranges of [0, n), one std::thread each but the last. */
template <typename Body>
void splitRows(int n, int threads, Body body)
{
    std::vector<std::thread> pool;
    const int step = (n + threads - 1) / threads;
    for (int t = 0; t + 1 < threads && (t + 1) * step < n; ++t)
        pool.emplace_back([&, t] { body(t * step, step); });
    const int last = int(pool.size()) * step;
    body(last, n - last);
    for (auto& th : pool)
        th.join();
}

/** Untimed: a spent trace for the timed pass to write into, and one pass into such a trace before, so that
 *  the memory every later pass reuses (the packed factors' panels) is taken from the system once, as the
 *  window's second edit finds it. Without that pass each timed pass paid about 4000 page faults. */
template <typename Model>
core::Trace warmSpare(const Model& model)
{
    core::Trace spare = core::compute(model);
    core::Trace again = core::compute(model, nullptr, &spare);
    return again;
}

/** A whole forward pass as the window runs it: of one shared, immutable model, which the trace holds without a
 *  copy (its weights checked and measured once, by the untimed passes), into the buffers of the trace it
 *  replaces (warmSpare()). */
void Forward(benchmark::State& state)
{
    const auto model =
        std::make_shared<const core::AttentionModel>(bench::model(int(state.range(0)), int(state.range(1))));
    core::Trace spare = warmSpare(model);
    for (auto _ : state) {
        auto trace = core::compute(model, nullptr, &spare);
        benchmark::DoNotOptimize(trace.output.data());
        spare = std::move(trace);
    }
    state.counters["flops"] = flops(*model);
}

/** What the window computes after a one-cell edit of X: compute() from the trace shown before the edit, into
 *  the spent trace before that one (one edit behind, as the window's spare is), each pass a new value. */
void EditOneCell(benchmark::State& state)
{
    auto model = bench::model(int(state.range(0)), int(state.range(1)));
    const Eigen::Index row = model.n() / 2;
    core::Trace spare = core::compute(model);
    model.embeddings(row, 0) += 0.5;
    core::Trace shown = core::compute(model, &spare);
    for (auto _ : state) {
        model.embeddings(row, 0) += 0.5;
        auto trace = core::compute(model, &shown, &spare);
        benchmark::DoNotOptimize(trace.output.data());
        spare = std::move(shown);
        shown = std::move(trace);
    }
    state.counters["flops"] = flops(model);
}

/** The engine's GEMMs alone, into buffers allocated once, on the engine's own kernel (core::multiply) with its
 *  right factors packed as the engine packs them (the packing timed too, as in any GEMM): X·W_Q, X·W_K, X·W_V,
 *  then per block of 128 query rows and head Q_h·K_hᵀ and S·V_h, then concat·W_O. Rows split over `threads`
 *  threads. */
void OwnGemms(benchmark::State& state)
{
    const int n = int(state.range(0)), h = int(state.range(1)), threads = int(state.range(2));
    const auto model = bench::model(n, h);
    const core::Matrix x = model.x();
    core::Matrix q(n, h * dHead), k(n, h * dHead), v(n, h * dHead), concat(n, h * dHead), out(n, dModel);
    std::vector<core::Matrix> s(std::size_t(h), core::Matrix(n, n));
    core::SharedFactor wq, wk, wv, wo;
    std::vector<core::SharedFactor> keysT{static_cast<std::size_t>(h)}, values{static_cast<std::size_t>(h)};
    auto products = [&] {
        wq.refer(model.wq);
        wk.refer(model.wk);
        wv.refer(model.wv);
        splitRows(n, threads, [&](int r, int rows) {
            core::multiply(x.middleRows(r, rows), wq, q.middleRows(r, rows));
            core::multiply(x.middleRows(r, rows), wk, k.middleRows(r, rows));
            core::multiply(x.middleRows(r, rows), wv, v.middleRows(r, rows));
        });
        for (int head = 0; head < h; ++head) {
            keysT[std::size_t(head)].referTransposed(k.middleCols(head * dHead, dHead));
            values[std::size_t(head)].refer(v.middleCols(head * dHead, dHead));
        }
        splitRows(n, threads, [&](int r, int rows) {
            // In blocks of 128 query rows, as the engine goes: a block's scores are still in cache for S·V.
            for (int b = r; b < r + rows; b += 128) {
                const int bRows = std::min(128, r + rows - b);
                for (int head = 0; head < h; ++head) {
                    auto& sh = s[std::size_t(head)];
                    core::multiply(q.block(b, head * dHead, bRows, dHead), keysT[std::size_t(head)],
                                   sh.middleRows(b, bRows));
                    core::multiply(sh.middleRows(b, bRows), values[std::size_t(head)],
                                   concat.block(b, head * dHead, bRows, dHead));
                }
            }
        });
        if (model.wo) {
            wo.refer(*model.wo);
            splitRows(n, threads, [&](int r, int rows) {
                core::multiply(concat.middleRows(r, rows), wo, out.middleRows(r, rows));
            });
        }
    };
    products();  // untimed: the buffers' pages are faulted in once, as the engine's spare trace's are
    for (auto _ : state) {
        products();
        benchmark::DoNotOptimize(out.data());
        benchmark::DoNotOptimize(concat.data());
    }
    state.counters["flops"] = flops(model);
}

/** A square N × N × N double GEMM (2·N³ FLOP), rows split over `threads` threads. */
void PlainGemm(benchmark::State& state)
{
    const int N = int(state.range(0)), threads = int(state.range(1));
    const core::Matrix a = randomMatrix(N, N, 1.0, 7), b = randomMatrix(N, N, 1.0, 8);
    core::Matrix c(N, N);
    auto product = [&] {
        splitRows(N, threads, [&](int r, int rows) { c.middleRows(r, rows).noalias() = a.middleRows(r, rows) * b; });
    };
    product();  // untimed, as in OwnGemms: c's pages faulted in once
    for (auto _ : state) {
        product();
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["flops"] = 2.0 * N * N * N;
}

/** Side of the square GEMM with the FLOP count of the engine at this shape. */
int plainSide(int n, int h)
{
    return std::max(1, int(std::lround(std::cbrt(flops(n, h) / 2))));
}

/** Repetitions so that every shape gets a median of several runs without taking minutes. */
void shape(benchmark::internal::Benchmark* b, int n)
{
    b->UseRealTime()->Unit(benchmark::kMillisecond);
    if (n >= 2048)
        b->Iterations(1)->Repetitions(5);
    else
        b->MinTime(0.2)->Repetitions(7);
    b->ReportAggregatesOnly(true);
}

void registerAll()
{
    for (int h : headCounts)
        for (int n : sizes) {
            shape(benchmark::RegisterBenchmark("Forward", Forward)->Args({n, h}), n);
            shape(benchmark::RegisterBenchmark("EditOneCell", EditOneCell)->Args({n, h}), n);
            for (int threads : {1, 2}) {
                shape(benchmark::RegisterBenchmark("OwnGemms", OwnGemms)->Args({n, h, threads}), n);
                shape(benchmark::RegisterBenchmark("PlainGemm", PlainGemm)->Args({plainSide(n, h), threads})
                          ->Name("PlainGemm/" + std::to_string(n) + "/" + std::to_string(h) + "/"
                                 + std::to_string(threads)), n);
            }
        }
}

long maxRssKiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/** Builds the model, then computes once: prints the peak resident memory before and after, in KiB. */
int peakMemory(int n, int h)
{
    const auto model = bench::model(n, h);
    const long before = maxRssKiB();
    {
        auto trace = core::compute(model);
        benchmark::DoNotOptimize(trace.output.data());
    }
    std::printf("{\"n\": %d, \"heads\": %d, \"model_kib\": %ld, \"peak_kib\": %ld, \"estimate_kib\": %zu}\n", n, h,
                before, maxRssKiB(), core::estimatedTraceBytes(model) >> 10);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    core::keepFreedMemory();  // before any thread starts
    if (argc == 4 && std::strcmp(argv[1], "--peak-memory") == 0)
        return peakMemory(std::atoi(argv[2]), std::atoi(argv[3]));
    registerAll();
    benchmark::AddCustomContext("products", core::productLevel());
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
