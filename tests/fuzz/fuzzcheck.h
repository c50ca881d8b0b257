#pragma once
/** Invariant checks shared by the harnesses: a broken one prints why and aborts, which libFuzzer
 *  reports as a crash and saves the input. */

#include "core/attention/attention.h"
#include "core/attention/model.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond)) {                                                          \
            std::fprintf(stderr, "invariant broken: %s: ", #cond);              \
            std::fprintf(stderr, __VA_ARGS__);                                  \
            std::fprintf(stderr, "\n");                                         \
            std::abort();                                                       \
        }                                                                       \
    } while (false)

namespace fuzzcheck {

/** The part of rest up to the first NUL (all of it when there is none); rest moves past the NUL. */
inline std::string_view takePart(std::string_view& rest)
{
    const std::size_t nul = rest.find('\0');
    const std::string_view part = rest.substr(0, nul);
    rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    return part;
}

/** A refusal names the file, and is one short line with no terminal control (what it quotes is escaped). */
inline void checkRefusal(const std::string& error, std::initializer_list<const char*> labels)
{
    bool named = false;
    for (const char* label : labels)
        named = named || error.starts_with(std::string(label) + ": ");
    FUZZ_CHECK(named, "refused without naming the file: '%s'", error.c_str());
    FUZZ_CHECK(error.size() < 1000, "a refusal of %zu bytes", error.size());
    for (const char c : error)
        FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "a control byte 0x%02x in the refusal",
                   unsigned(static_cast<unsigned char>(c)));
}

/** Models up to this many cells of n·(n + d_model)·h are computed; larger ones are only validated. */
constexpr long maxComputeCells = 1L << 16;

inline bool smallEnough(const core::AttentionModel& m)
{
    const long n = m.n(), d = m.dModel(), h = m.heads();
    return n * (n + d) * h <= maxComputeCells && m.wq.cols() * n <= maxComputeCells
        && m.wv.cols() * n <= maxComputeCells && (!m.wo || m.wo->size() <= maxComputeCells);
}

/** Computes a model that validates and checks SPEC §1's promises about the weights: finite, in [0, 1],
 *  masked entries exactly 0, rows summing to 1. */
inline void computeAndCheck(const core::AttentionModel& m)
{
    if (!smallEnough(m))
        return;
    const core::Trace t = core::compute(m);
    FUZZ_CHECK(int(t.heads.size()) == m.heads(), "%zu heads", t.heads.size());
    const bool causal = m.options.mask == core::Mask::Causal;
    for (std::size_t h = 0; h < t.heads.size(); ++h) {
        const core::Matrix& w = t.heads[h].weights;
        FUZZ_CHECK(w.rows() == m.n() && w.cols() == m.n(), "weights are %ld x %ld", long(w.rows()), long(w.cols()));
        for (Eigen::Index i = 0; i < w.rows(); ++i) {
            double sum = 0;
            for (Eigen::Index j = 0; j < w.cols(); ++j) {
                const double v = w(i, j);
                FUZZ_CHECK(std::isfinite(v) && v >= 0 && v <= 1, "head %zu weight (%ld,%ld) = %g", h, long(i), long(j), v);
                if (causal && j > i)
                    FUZZ_CHECK(v == 0, "masked weight (%ld,%ld) = %g", long(i), long(j), v);
                sum += v;
            }
            FUZZ_CHECK(std::fabs(sum - 1) <= 1e-9 * double(w.cols() + 1), "head %zu row %ld sums to %.17g", h, long(i), sum);
        }
        // An output is finite wherever every value it weighs above 0 is (a weighted mean of them).
        const core::Matrix& v = t.heads[h].values;
        for (Eigen::Index i = 0; i < w.rows(); ++i)
            for (Eigen::Index c = 0; c < v.cols(); ++c) {
                bool finite = true;
                for (Eigen::Index j = 0; j < w.cols(); ++j)
                    finite = finite && (w(i, j) == 0 || std::fabs(v(j, c)) <= 1e307);
                if (finite)
                    FUZZ_CHECK(std::isfinite(t.heads[h].outputs(i, c)), "head %zu output (%ld,%ld) = %g", h, long(i),
                               long(c), t.heads[h].outputs(i, c));
            }
    }
}

}  // namespace fuzzcheck
