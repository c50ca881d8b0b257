/** .npy reader: no input crashes it or makes it allocate past its limit; what it accepts has the
 *  promised shape and reads back from its own encoding unchanged. */

#include "fuzzcheck.h"

#include "core/formats/npy.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace {

/** Equal entry by entry, NaN equal to NaN. */
bool sameValues(const core::Matrix& a, const core::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return false;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
        const double x = a.data()[i], y = b.data()[i];
        if (!(x == y || (std::isnan(x) && std::isnan(y))))
            return false;
    }
    return true;
}

void checkAccepted(const core::NpyArray& array, bool allowNonFinite)
{
    const core::Matrix& m = array.values;
    FUZZ_CHECK(m.rows() >= 1 && m.cols() >= 1, "an empty array was accepted (%ld x %ld)", long(m.rows()), long(m.cols()));
    FUZZ_CHECK(std::size_t(m.size()) <= core::maxNpyEntries, "%ld entries", long(m.size()));
    FUZZ_CHECK(array.dimensions == 1 || array.dimensions == 2, "dimensions %d", array.dimensions);
    FUZZ_CHECK(array.dimensions == 2 || m.rows() == 1, "a 1-D array of %ld rows", long(m.rows()));
    if (!allowNonFinite)
        FUZZ_CHECK(m.allFinite(), "a non-finite entry was accepted");

    // Writing it in the layout it came in and reading that back changes nothing.
    std::string error;
    const auto again = core::decodeNpy(core::encodeNpy(m, array.layout), error, allowNonFinite);
    FUZZ_CHECK(again, "its own encoding is refused: %s", error.c_str());
    FUZZ_CHECK(again->layout == array.layout, "the layout changed in a round trip");
    FUZZ_CHECK(again->dimensions == 2, "encodeNpy wrote %d dimensions", again->dimensions);
    FUZZ_CHECK(sameValues(again->values, m), "the values changed in a round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    std::string strictError, looseError;
    const auto strict = core::decodeNpy(bytes, strictError, false);
    const auto loose = core::decodeNpy(bytes, looseError, true);
    FUZZ_CHECK(strict || !strictError.empty(), "refused without a message");
    FUZZ_CHECK(loose || !looseError.empty(), "refused without a message (non-finite allowed)");
    FUZZ_CHECK(!strict || loose, "allowing non-finite entries refused what the strict reader took: %s",
               looseError.c_str());
    if (strict) {
        checkAccepted(*strict, false);
        FUZZ_CHECK(sameValues(strict->values, loose->values), "the two readers disagree");
    }
    if (loose)
        checkAccepted(*loose, true);
    return 0;
}
