/** config.json and every JSON the program reads (readJson): no text crashes them, costs more than its bounds
 *  or is quoted back raw; a config they accept keeps config.json's documented bounds. */

#include "fuzzcheck.h"

#include "core/models/gpt2config.h"
#include "core/formats/jsonread.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

/** A refusal is one line that starts with the label and holds no terminal control character. */
void checkRefusal(const std::string& error, const std::string& label)
{
    FUZZ_CHECK(error.starts_with(label + ": "), "the refusal does not start with the label: %s", error.c_str());
    FUZZ_CHECK(error.size() < 1000, "a refusal of %zu bytes", error.size());
    for (const char c : error)
        FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, "a control byte 0x%02x in the refusal",
                   unsigned(static_cast<unsigned char>(c)));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string label = "config.json";

    // The generic reader: within its bounds a value, else one refusal line.
    const core::JsonLimits limits{.maxBytes = 4096, .maxDepth = 8};
    std::string error;
    const auto value = core::readJson(text, label, limits, error);
    if (value)
        FUZZ_CHECK(size <= limits.maxBytes, "a text of %zu bytes was read past the limit", size);
    else
        checkRefusal(error, label);
    if (core::jsonBoundsProblem(text, limits))
        FUZZ_CHECK(!value, "a text past the bounds was read");

    // config.json itself.
    error.clear();
    const auto config = core::parseGpt2Config(text, label, error);
    if (!config) {
        checkRefusal(error, label);
        return 0;
    }
    for (const int v : {config->layers, config->dModel, config->heads, config->positions, config->vocabSize})
        FUZZ_CHECK(v >= 1 && v <= core::maxGpt2Size, "a size %d outside 1 … maxGpt2Size", v);
    FUZZ_CHECK(config->dModel % config->heads == 0, "n_head %d does not divide n_embd %d", config->heads,
               config->dModel);
    FUZZ_CHECK(config->layerNormEpsilon > 0 && std::isfinite(config->layerNormEpsilon), "epsilon %g",
               config->layerNormEpsilon);
    return 0;
}
