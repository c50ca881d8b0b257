/** CSV reader: no input crashes it; a matrix it accepts is finite and rectangular, reads back from
 *  its own text unchanged, and, computed as a small model, exports steps that read back too. */

#include "fuzzcheck.h"

#include "core/attention/csvio.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

/** A small model whose embeddings are m: identity weights, so every step is an honest function of m. */
core::AttentionModel modelOf(const core::Matrix& m)
{
    core::AttentionModel model;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        model.tokens.push_back("t" + std::to_string(i));
    model.embeddings = m;
    model.wq = core::Matrix::Identity(m.cols(), m.cols());
    model.wk = model.wq;
    model.wv = model.wq;
    model.options.mask = m(0, 0) < 0 ? core::Mask::Causal : core::Mask::None;
    return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    // The first byte chooses the options; the rest is the text.
    if (size < 1)
        return 0;
    static constexpr char delimiters[] = {0, ',', ';', '\t', ' ', '|', '0', '\n'};
    core::CsvReadOptions options;
    options.delimiter = delimiters[data[0] & 7];
    options.allowHeader = (data[0] & 8) != 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

    std::string error;
    const auto m = core::parseCsv(text, error, options);
    if (!m) {
        FUZZ_CHECK(!error.empty(), "refused without a message");
        return 0;
    }
    FUZZ_CHECK(m->rows() >= 1 && m->cols() >= 1, "an empty matrix was accepted");
    FUZZ_CHECK(m->allFinite(), "a non-finite number was accepted");

    for (char delimiter : {',', ';', '\t'}) {
        core::CsvReadOptions plain;
        plain.delimiter = delimiter == ',' ? char(0) : delimiter;
        const auto again = core::parseCsv(core::formatCsv(*m, delimiter), error, plain);
        FUZZ_CHECK(again, "its own text ('%c') is refused: %s", delimiter, error.c_str());
        FUZZ_CHECK(again->rows() == m->rows() && again->cols() == m->cols() && *again == *m,
                   "the matrix changed in a round trip ('%c')", delimiter);
    }

    // Export every step of a small computation; each finite step reads back as it is.
    if (m->rows() > 8 || m->cols() > 8)
        return 0;
    const core::AttentionModel model = modelOf(*m);
    fuzzcheck::computeAndCheck(model);
    const core::Trace trace = core::compute(model);
    for (const core::StepFile& file : core::stepFiles(trace)) {
        if (!file.name.ends_with(".csv") || file.text.find_first_of("ain") != std::string::npos)
            continue;  // trace.json, and steps holding inf or nan (which CSV does not carry)
        const auto back = core::parseCsv(file.text, error);
        FUZZ_CHECK(back, "%s does not read back: %s", file.name.c_str(), error.c_str());
    }
    return 0;
}
