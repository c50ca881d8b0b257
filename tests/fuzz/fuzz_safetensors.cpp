/** Safetensors header parser: no bytes crash it or make it read outside them; what it accepts tiles the
 *  data section exactly with tensors whose sizes fit their shapes, and every value converts to float32. */

#include "fuzzcheck.h"

#include "core/formats/safetensors.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    std::string error;
    const auto header = core::parseSafetensors(bytes, "fuzz.safetensors", error);
    if (!header) {
        FUZZ_CHECK(error.starts_with("fuzz.safetensors: ") && error.size() > 18, "refused without a message: '%s'",
                   error.c_str());
        return 0;
    }
    FUZZ_CHECK(header->dataStart >= 8 && header->dataStart <= size, "data starts at %llu of %zu",
               (unsigned long long)header->dataStart, size);
    FUZZ_CHECK(header->dataStart + header->dataSize == size, "the data section does not end with the file");
    std::uint64_t reached = 0;
    for (const core::TensorInfo& t : header->tensors) {
        FUZZ_CHECK(t.begin == reached, "tensor %s begins at %llu, not %llu", t.name.c_str(),
                   (unsigned long long)t.begin, (unsigned long long)reached);
        FUZZ_CHECK(t.end >= t.begin && t.end <= header->dataSize, "tensor %s ends at %llu", t.name.c_str(),
                   (unsigned long long)t.end);
        FUZZ_CHECK(t.end - t.begin == t.elements() * core::dtypeSize(t.dtype), "tensor %s: size does not fit shape",
                   t.name.c_str());
        FUZZ_CHECK(std::uint64_t(t.rows()) * std::uint64_t(t.cols()) == t.elements() || t.elements() == 0,
                   "tensor %s: %ld x %ld for %llu elements", t.name.c_str(), long(t.rows()), long(t.cols()),
                   (unsigned long long)t.elements());
        FUZZ_CHECK(header->find(t.name) != nullptr, "tensor %s cannot be found by its name", t.name.c_str());
        reached = t.end;
        // Every value converts, reading exactly the tensor's bytes.
        const std::string_view raw =
            bytes.substr(std::size_t(header->dataStart + t.begin), std::size_t(t.end - t.begin));
        std::vector<float> values(std::size_t(t.elements()));
        core::convertToFloat(t.dtype, raw.data(), values.size(), values.data());
    }
    FUZZ_CHECK(reached == header->dataSize, "%llu bytes of data belong to no tensor",
               (unsigned long long)(header->dataSize - reached));
    return 0;
}
