/** The machine's practical peak for scripts/bench: an Eigen double GEMM of 2048 × 2048 × 2048, compiled for the
 *  processor the bench runs on (bench/CMakeLists.txt builds this file alone with -march=native; it links
 *  nothing of the engine, so its Eigen cannot mix with the engine's).
 *
 *  bench_peak [N] [REPETITIONS]  prints one JSON object: the median GFLOP/s of REPETITIONS products with one
 *  thread and with two (the rows split between two std::threads), and the better of the two. */

#include <Eigen/Core>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Clock = std::chrono::steady_clock;

/** c = a · b with the rows split over `threads` threads; seconds taken. */
double timed(const Matrix& a, const Matrix& b, Matrix& c, int threads)
{
    const auto start = Clock::now();
    const Eigen::Index n = a.rows(), step = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t)
        pool.emplace_back([&, t] {
            const Eigen::Index r = t * step, rows = std::min(step, n - r);
            c.middleRows(r, rows).noalias() = a.middleRows(r, rows) * b;
        });
    c.topRows(std::min(step, n)).noalias() = a.topRows(std::min(step, n)) * b;
    for (auto& th : pool)
        th.join();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 2048, repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const Matrix a = Matrix::Random(n, n), b = Matrix::Random(n, n);
    Matrix c(n, n);
    const double flop = 2.0 * n * n * double(n);
    double best = 0, rate[3] = {0, 0, 0};
    for (int threads : {1, 2}) {
        timed(a, b, c, threads);  // untimed: c's pages faulted in, the threads' stacks made
        std::vector<double> seconds;
        for (int r = 0; r < repetitions; ++r)
            seconds.push_back(timed(a, b, c, threads));
        std::sort(seconds.begin(), seconds.end());
        rate[threads] = flop / seconds[seconds.size() / 2] / 1e9;
        best = std::max(best, rate[threads]);
    }
    std::printf("{\"n\": %d, \"gflops_1\": %.2f, \"gflops_2\": %.2f, \"gflops\": %.2f, \"simd\": \"%s\"}\n", n, rate[1],
                rate[2], best, Eigen::SimdInstructionSetsInUse());
    return 0;
}
