/** The instruments of SPEC §8 on a real model's pass: the logit lens and direct logit attribution after an edit,
 *  the full activation patching set against as many partial forward passes, and greedy generation.
 *
 *  bench_instruments FOLDER TOKENS REPETITIONS
 *
 *  FOLDER is a checkpoint of any family the program reads (scripts/bench writes a GPT-2-small-shaped one). The text
 *  is the benchmarks' paragraph (benchrun.h) cut to TOKENS tokens. Prints one JSON object:
 *  - pass_ms: an edit of W_Q(0, 0) in the last layer, run() up to the new logits; lens_last_ms and attribution_ms:
 *    then the lens of every layer and position (redoing only the rows the edit changed, core::LensMemo) and the
 *    attribution of the top token at the last position; lens_first_ms: the lens after an edit of the first layer;
 *    lens_whole_ms: the lens without a memo; unembed_ms: its output head's product alone;
 *  - patching_ms: the full set (the stream entering every layer at every position, every head's output) of a
 *    corrupted text (one token changed, halfway), and partial_passes_ms: as many runs of a pass from the patched
 *    layer up, each timed as an edit in that layer (which recomputes from it, every row);
 *  - generate_ms: 32 tokens appended greedily to the text. */

#include "benchrun.h"
#include "core/models/instruments.h"
#include "core/session/modelsession.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using bench::Clock;
using bench::median;
using bench::msSince;
using bench::paragraph;

constexpr int generated = 32;

int fail(const std::string& error)
{
    std::fprintf(stderr, "bench_instruments: %s\n", error.c_str());
    return 2;
}

/** Moves W_Q(0, 0) of layer by ±1/8 (alternating with r) and runs the pass up to its new logits: a pass from layer
 *  up, every row. Its milliseconds. */
double editAndRun(core::ModelPass& pass, int layer, int r, std::string& error)
{
    const float value = pass.weightValue(layer, core::ModelWeight::Query, 0, 0) + (r % 2 ? -0.125f : 0.125f);
    const auto start = Clock::now();
    pass.setEdit(layer, core::ModelWeight::Query, 0, 0, value, error);
    pass.run();
    return msSince(start);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_instruments FOLDER TOKENS REPETITIONS\n");
        return 2;
    }
    const int tokens = std::atoi(argv[2]), repetitions = std::max(1, std::atoi(argv[3]));
    std::string error;
    const std::shared_ptr<core::ModelPass> pass = core::loadModelPass(argv[1], error);
    if (!pass)
        return fail(error);
    const core::ModelShape shape = pass->shape();
    std::vector<int> ids = pass->encode(paragraph);
    if (int(ids.size()) < tokens)
        return fail("the text has only " + std::to_string(ids.size()) + " tokens");
    ids.resize(std::size_t(tokens));
    if (!pass->setTokens(ids, error))
        return fail(error);
    pass->run();
    const int last = shape.layers - 1;

    // The lens (kept between edits, as the window keeps it) and the attribution after an edit of the last and of the
    // first layer, beside the pass itself; and the whole lens without what it kept.
    core::LensMemo memo;
    std::vector<double> passMs, lensLastMs, lensFirstMs, lensWholeMs, unembedMs, attributionMs;
    for (int r = 0; r < repetitions; ++r) {
        for (const int layer : {last, 0}) {
            const double ms = editAndRun(*pass, layer, r, error);
            if (layer == last)
                passMs.push_back(ms);
            const int target = core::topCandidates(pass->logits(), 1).front().id;
            auto start = Clock::now();
            core::logitLens(*pass, target, &memo);
            (layer == last ? lensLastMs : lensFirstMs).push_back(msSince(start));
            if (layer != last)
                continue;
            start = Clock::now();
            const core::Attribution a = core::directLogitAttribution(*pass, target, tokens - 1);
            attributionMs.push_back(msSince(start));
            start = Clock::now();
            const auto lens = core::logitLens(*pass, target);
            lensWholeMs.push_back(msSince(start));
            if (lens.empty() || a.heads.empty())
                return fail("no lens or attribution");
            start = Clock::now();
            core::FloatMatrix stacked(Eigen::Index(shape.layers + 1) * tokens, pass->stream(0).cols());
            for (int l = 0; l <= shape.layers; ++l)
                stacked.middleRows(Eigen::Index(l) * tokens, tokens) = pass->stream(l);
            const core::FloatMatrix logits = pass->unembed(stacked);
            unembedMs.push_back(msSince(start));
        }
    }
    pass->clearEdit(last, core::ModelWeight::Query, 0, 0);
    pass->run();

    // A pass from each layer up, as a patched run of that layer recomputes at most.
    std::vector<double> fromLayer;
    for (int layer = 0; layer < shape.layers; ++layer) {
        std::vector<double> runs;
        for (int r = 0; r < std::min(repetitions, 5); ++r)
            runs.push_back(editAndRun(*pass, layer, r, error));
        pass->clearEdit(layer, core::ModelWeight::Query, 0, 0);
        fromLayer.push_back(median(runs));
    }
    pass->run();
    double partialMs = 0;
    for (const double ms : fromLayer)
        partialMs += ms * (tokens + shape.heads);  // each layer: a run per position and one per head

    // The full patching set: the answer and the wrong token are the clean text's two most probable next tokens.
    const auto top = core::topCandidates(pass->logits(), 2);
    std::vector<int> corrupt = ids;
    corrupt[std::size_t(tokens / 2)] = (corrupt[std::size_t(tokens / 2)] + 1) % shape.vocabSize;
    std::vector<double> patchingMs;
    for (int r = 0; r < std::max(1, repetitions / 4); ++r) {
        const auto start = Clock::now();
        if (!core::activationPatching(*pass, corrupt, top[0].id, top[1].id, error))
            return fail(error);
        patchingMs.push_back(msSince(start));
    }

    // Greedy generation from the text, the pass run anew each time.
    std::vector<double> generateMs;
    for (int r = 0; r < std::max(1, repetitions / 2); ++r) {
        pass->setTokens(ids, error);
        pass->run();
        const auto start = Clock::now();
        if (!core::generate(*pass, generated, core::Sampling{}, error))
            return fail(error);
        generateMs.push_back(msSince(start));
    }
    std::string idList, generatedList;
    for (const int id : ids)
        idList += (idList.empty() ? "" : ",") + std::to_string(id);
    for (std::size_t i = ids.size(); i < pass->tokens().size(); ++i)
        generatedList += (generatedList.empty() ? "" : ",") + std::to_string(pass->tokens()[i]);

    std::printf("{\"architecture\": \"%s\", \"token_ids\": \"%s\", \"tokens\": %d, \"layers\": %d, \"heads\": %d, "
                "\"pass_ms\": %.3f, \"lens_last_ms\": %.3f, \"lens_first_ms\": %.3f, \"lens_whole_ms\": %.3f, "
                "\"unembed_ms\": %.3f, \"attribution_ms\": %.3f, \"patching_runs\": %d, "
                "\"patching_ms\": %.1f, \"partial_passes_ms\": %.1f, \"generated\": %d, \"generated_ids\": \"%s\", "
                "\"generate_ms\": %.2f, \"runs\": %d}\n",
                shape.architecture.c_str(), idList.c_str(), tokens, shape.layers, shape.heads, median(passMs),
                median(lensLastMs), median(lensFirstMs),
                median(lensWholeMs), median(unembedMs), median(attributionMs), shape.layers * (tokens + shape.heads), median(patchingMs),
                partialMs, generated, generatedList.c_str(), median(generateMs), repetitions);
    return 0;
}
