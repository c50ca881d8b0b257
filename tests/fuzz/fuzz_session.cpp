/** Session reader: no input crashes it; what it accepts validates, computes with sane weights, and
 *  survives a write and a re-read unchanged. */

#include "fuzzcheck.h"

#include "core/session/sessionfile.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string error;
    const auto session = core::parseSession(text, error);
    if (!session) {
        FUZZ_CHECK(!error.empty(), "refused without a message");
        return 0;
    }
    const auto invalid = core::validate(session->model);
    FUZZ_CHECK(!invalid, "accepted a model that does not validate: %s", invalid->c_str());

    // write → read gives the same model and keeps the extras; writing again gives the same text
    const std::string written = core::serializeSession(*session);
    std::string again;
    const auto reread = core::parseSession(written, again);
    FUZZ_CHECK(reread, "its own output is refused: %s", again.c_str());
    FUZZ_CHECK(reread->model == session->model, "the model changed in a round trip");
    FUZZ_CHECK(reread->extras == session->extras, "the extras changed in a round trip: %s -> %s",
               session->extras.dump().c_str(), reread->extras.dump().c_str());
    FUZZ_CHECK(core::serializeSession(*reread) == written, "writing twice gives different text");

    fuzzcheck::computeAndCheck(session->model);
    return 0;
}
