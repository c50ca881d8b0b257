/** A real model's forward pass: load, the whole pass, and an edit of one W_Q cell up to new logits.
 *
 *  bench_model FOLDER TOKENS REPETITIONS
 *
 *  FOLDER is a checkpoint of any family the program reads (scripts/bench writes a GPT-2-small-shaped one and two
 *  Llama-shaped ones with random weights). The text is a fixed English paragraph cut to TOKENS tokens, its ids
 *  folded into the vocabulary where the tokenizer's is larger. Prints one JSON object: the load time, the
 *  medians of the forward pass and of an edit of W_Q(0, 0) in the last and in the first layer (the time of
 *  run() after setEdit, which ends with the new logits), and the resident memory after all of it. The
 *  repetitions of the three timed kinds are interleaved, so a slow moment of the machine falls on all alike. */

#include "benchrun.h"
#include "core/session/modelsession.h"
#include "core/tensor/gemm.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using bench::Clock;
using bench::median;
using bench::msSince;
using bench::paragraph;

/** A field of /proc/self/status in KiB (VmRSS, VmHWM), or −1 off Linux. */
long statusKib(const std::string& field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field + ":", 0) == 0)
            return std::atol(line.c_str() + field.size() + 1);
    return -1;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_model FOLDER TOKENS REPETITIONS\n");
        return 2;
    }
    const int tokens = std::atoi(argv[2]), repetitions = std::max(1, std::atoi(argv[3]));

    const auto loadStart = Clock::now();
    std::string error;
    const std::shared_ptr<core::ModelPass> pass = core::loadModelPass(argv[1], error);
    const double loadMs = msSince(loadStart);
    if (!pass) {
        std::fprintf(stderr, "bench_model: %s\n", error.c_str());
        return 2;
    }
    core::ModelPass& forward = *pass;
    const core::ModelShape shape = forward.shape();
    std::vector<int> ids = forward.encode(paragraph);
    if (int(ids.size()) < tokens) {
        std::fprintf(stderr, "bench_model: the text has only %zu tokens\n", ids.size());
        return 2;
    }
    ids.resize(std::size_t(tokens));
    for (int& id : ids)
        id %= shape.vocabSize;
    if (!forward.setTokens(ids, error)) {
        std::fprintf(stderr, "bench_model: %s\n", error.c_str());
        return 2;
    }
    forward.run();  // untimed: the buffers are allocated once

    const int last = shape.layers - 1;
    // The whole pass: a new first token makes every row of every layer dirty (a pass keeps the rows before the
    // first token that changed), so the runs alternate it with another.
    std::vector<int> otherStart = ids;
    otherStart[0] = (ids[0] + 1) % shape.vocabSize;
    std::vector<double> full, editLast, editFirst;
    for (int r = 0; r < repetitions; ++r) {
        forward.setTokens(r % 2 ? ids : otherStart, error);
        auto start = Clock::now();
        forward.run();
        full.push_back(msSince(start));

        for (const int layer : {last, 0}) {
            const float value = forward.weightValue(layer, core::ModelWeight::Query, 0, 0) + (r % 2 ? -0.125f : 0.125f);
            start = Clock::now();
            forward.setEdit(layer, core::ModelWeight::Query, 0, 0, value, error);
            forward.run();
            (layer == last ? editLast : editFirst).push_back(msSince(start));
        }
    }
    volatile float sink = forward.logits()(0, 0);
    (void)sink;

    std::string idList;
    for (const int id : ids)
        idList += (idList.empty() ? "" : ",") + std::to_string(id);
    std::printf("{\"architecture\": \"%s\", \"token_ids\": \"%s\", \"tokens\": %d, \"layers\": %d, \"width\": %d, "
                "\"heads\": %d, \"kv_heads\": %d, \"vocab\": %d, \"load_ms\": %.3f, "
                "\"forward_ms\": %.4f, \"edit_last_ms\": %.4f, \"edit_first_ms\": %.4f, \"runs\": %d, "
                "\"rss_kib\": %ld, \"peak_kib\": %ld, \"products\": \"%s\"}\n",
                shape.architecture.c_str(), idList.c_str(), tokens, shape.layers, shape.dModel, shape.heads,
                shape.kvHeads, shape.vocabSize, loadMs, median(full), median(editLast), median(editFirst),
                repetitions, statusKib("VmRSS"), statusKib("VmHWM"), core::productLevel());
    return 0;
}
