#include "core/formats/safetensors.h"

#include "core/formats/jsonread.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

namespace core {

std::string shapeText(const std::vector<std::uint64_t>& shape)
{
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

namespace {

std::string offsetsText(std::uint64_t begin, std::uint64_t end)
{
    return shapeText({begin, end});
}

/** A JSON value as a non-negative integer, or nothing (negative numbers, fractions, other types). */
std::optional<std::uint64_t> unsignedValue(const nlohmann::json& value)
{
    if (value.is_number_unsigned())
        return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
        return std::uint64_t(value.get<std::int64_t>());
    return std::nullopt;
}

/** Checks one tensor entry; on failure sets error to what is wrong (without the file's label). */
std::optional<TensorInfo> parseTensor(const std::string& name, const nlohmann::json& entry, std::string& error)
{
    const std::string where = "tensor " + messageExcerpt(name) + ": ";
    if (!entry.is_object()) {
        error = where + "its entry is not a JSON object";
        return std::nullopt;
    }
    TensorInfo tensor;
    tensor.name = name;

    const auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string()) {
        error = where + "\"dtype\" is missing or not a string";
        return std::nullopt;
    }
    const std::string& dtypeText = dtype->get_ref<const std::string&>();
    if (dtypeText == "F32")
        tensor.dtype = Dtype::F32;
    else if (dtypeText == "F16")
        tensor.dtype = Dtype::F16;
    else if (dtypeText == "BF16")
        tensor.dtype = Dtype::BF16;
    else {
        error = where + "dtype " + jsonExcerpt(*dtype) + " is not supported (F32, F16 or BF16 expected)";
        return std::nullopt;
    }

    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array()) {
        error = where + "\"shape\" is missing or not an array";
        return std::nullopt;
    }
    std::uint64_t bytes = dtypeSize(tensor.dtype);
    bool overflow = false;
    for (const auto& dim : *shape) {
        const auto size = unsignedValue(dim);
        if (!size || *size > std::uint64_t(PTRDIFF_MAX)) {
            error = where + "shape entry " + jsonExcerpt(dim) + " is not a non-negative integer of at most 63 bits";
            return std::nullopt;
        }
        tensor.shape.push_back(*size);
        overflow = overflow || __builtin_mul_overflow(bytes, *size, &bytes);
    }
    // A zero anywhere makes an empty tensor whatever the other dimensions say.
    if (overflow && std::find(tensor.shape.begin(), tensor.shape.end(), 0u) == tensor.shape.end()) {
        error = where + "shape " + shapeText(tensor.shape) + " has more bytes than 64 bits can count";
        return std::nullopt;
    }
    if (overflow)
        bytes = 0;

    const auto offsets = entry.find("data_offsets");
    const auto begin = offsets != entry.end() && offsets->is_array() && offsets->size() == 2
                           ? unsignedValue((*offsets)[0])
                           : std::nullopt;
    const auto end = begin ? unsignedValue((*offsets)[1]) : std::nullopt;
    if (!begin || !end) {
        error = where + "\"data_offsets\" is missing or not two non-negative integers";
        return std::nullopt;
    }
    tensor.begin = *begin;
    tensor.end = *end;
    if (tensor.begin > tensor.end) {
        error = where + "data_offsets " + offsetsText(tensor.begin, tensor.end) + " end before they begin";
        return std::nullopt;
    }
    if (tensor.end - tensor.begin != bytes) {
        error = where + "data_offsets " + offsetsText(tensor.begin, tensor.end) + " do not fit its shape " +
                shapeText(tensor.shape) + " (" + dtypeName(tensor.dtype) + " needs " + std::to_string(bytes) +
                " bytes)";
        return std::nullopt;
    }
    return tensor;
}

std::uint16_t readU16(const char* p)
{
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    return std::uint16_t(b[0] | (b[1] << 8));
}

} // namespace

const char* dtypeName(Dtype dtype)
{
    switch (dtype) {
    case Dtype::F32:
        return "F32";
    case Dtype::F16:
        return "F16";
    case Dtype::BF16:
        return "BF16";
    }
    return "?";
}

std::size_t dtypeSize(Dtype dtype)
{
    return dtype == Dtype::F32 ? 4 : 2;
}

std::uint64_t TensorInfo::elements() const
{
    std::uint64_t n = 1;
    for (const std::uint64_t d : shape)
        n *= d;
    return n;
}

Eigen::Index TensorInfo::rows() const
{
    return shape.size() < 2 ? 1 : Eigen::Index(shape[0]);
}

Eigen::Index TensorInfo::cols() const
{
    if (shape.empty())
        return 1;
    if (shape.size() == 1)
        return Eigen::Index(shape[0]);
    return shape[0] == 0 ? 0 : Eigen::Index(elements() / shape[0]);
}

const TensorInfo* SafetensorsHeader::find(std::string_view name) const
{
    for (const TensorInfo& t : tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

std::optional<SafetensorsHeader> parseSafetensors(std::string_view bytes, const std::string& label, std::string& error)
{
    const auto fail = [&](const std::string& what) {
        error = label + ": " + what;
        return std::nullopt;
    };
    if (bytes.size() < 8)
        return fail("is " + std::to_string(bytes.size()) +
                    " bytes long, shorter than the 8-byte header length that starts a safetensors file");
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i)
        length = (length << 8) | static_cast<unsigned char>(bytes[std::size_t(i)]);
    if (length > bytes.size() - 8)
        return fail("header length " + std::to_string(length) + " is past the end of the file (" +
                    std::to_string(bytes.size() - 8) + " bytes follow it)");
    if (length > maxSafetensorsHeaderBytes)
        return fail("header length " + std::to_string(length) + " is above the limit of " +
                    std::to_string(maxSafetensorsHeaderBytes) + " bytes");

    const std::string_view text = bytes.substr(8, std::size_t(length));
    std::string why;
    const JsonLimits limits{.maxBytes = maxSafetensorsHeaderBytes, .maxValues = maxSafetensorsHeaderBytes / 16};
    const auto read = readJson(text, "the header", limits, why);
    if (!read)
        return fail(why);
    const nlohmann::json& json = *read;
    if (!json.is_object())
        return fail("the header is not a JSON object");

    SafetensorsHeader header;
    header.dataStart = 8 + length;
    header.dataSize = bytes.size() - header.dataStart;
    for (const auto& [name, entry] : json.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                return fail("\"__metadata__\" is not a JSON object");
            continue;
        }
        std::string what;
        auto tensor = parseTensor(name, entry, what);
        if (!tensor)
            return fail(what);
        header.tensors.push_back(std::move(*tensor));
    }

    // The tensors must tile the data section: sorted by offsets, each begins where the last ended.
    std::stable_sort(header.tensors.begin(), header.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    std::uint64_t reached = 0;
    const TensorInfo* previous = nullptr;
    for (const TensorInfo& t : header.tensors) {
        const std::string where = "tensor " + messageExcerpt(t.name) + ": data_offsets " + offsetsText(t.begin, t.end);
        if (t.end > header.dataSize)
            return fail(where + " run past the end of the data section (" + std::to_string(header.dataSize) + " bytes)");
        if (t.begin < reached)
            return fail(where + " overlap tensor " + messageExcerpt(previous->name) + " " +
                        offsetsText(previous->begin, previous->end));
        if (t.begin > reached)
            return fail(where + " leave a gap of " + std::to_string(t.begin - reached) + " bytes after " +
                        (previous ? "tensor " + messageExcerpt(previous->name) : std::string("the header")));
        reached = t.end;
        if (t.end > t.begin || !previous)
            previous = &t;
    }
    if (reached != header.dataSize)
        return fail(std::to_string(header.dataSize - reached) + " bytes after the last tensor belong to no tensor");
    return header;
}

float halfToFloat(std::uint16_t bits)
{
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    std::uint32_t mantissa = bits & 0x3ffu;
    std::uint32_t out;
    if (exponent == 0x1f) {
        out = sign | 0x7f800000u | (mantissa << 13); // infinity, or NaN keeping its payload
    } else if (exponent != 0) {
        out = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        out = sign; // ±0
    } else {
        // A subnormal half, m · 2^-24, is a normal float: shift the leading 1 into the implicit bit.
        int e = 127 - 15 + 1;
        while (!(mantissa & 0x400u)) {
            mantissa <<= 1;
            --e;
        }
        out = sign | (std::uint32_t(e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
    return std::bit_cast<float>(out);
}

float bfloat16ToFloat(std::uint16_t bits)
{
    return std::bit_cast<float>(std::uint32_t(bits) << 16);
}

void convertToFloat(Dtype dtype, const char* bytes, std::size_t count, float* out)
{
    if (count == 0)
        return;
    switch (dtype) {
    case Dtype::F32:
        if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(out, bytes, count * 4);
        } else {
            for (std::size_t i = 0; i < count; ++i) {
                const auto* b = reinterpret_cast<const unsigned char*>(bytes + 4 * i);
                out[i] = std::bit_cast<float>(std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 |
                                              std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24);
            }
        }
        return;
    case Dtype::F16:
        for (std::size_t i = 0; i < count; ++i)
            out[i] = halfToFloat(readU16(bytes + 2 * i));
        return;
    case Dtype::BF16:
        for (std::size_t i = 0; i < count; ++i)
            out[i] = bfloat16ToFloat(readU16(bytes + 2 * i));
        return;
    }
}

std::shared_ptr<const SafetensorsFile> SafetensorsFile::open(const std::string& path, std::string& error)
{
    auto mapped = MappedFile::open(path, error);
    if (!mapped)
        return nullptr;
    auto header = parseSafetensors(mapped->bytes(), path, error);
    if (!header)
        return nullptr;
    std::shared_ptr<SafetensorsFile> file(new SafetensorsFile);
    file->m_file = std::move(mapped);
    file->m_header = std::move(*header);
    return file;
}

std::string_view SafetensorsFile::rawBytes(const TensorInfo& tensor) const
{
    return m_file->bytes().substr(std::size_t(m_header.dataStart + tensor.begin),
                                  std::size_t(tensor.end - tensor.begin));
}

std::optional<FloatMatrix> SafetensorsFile::toFloat(std::string_view name, std::string& error) const
{
    const TensorInfo* tensor = m_header.find(name);
    if (!tensor) {
        error = path() + ": no tensor " + messageExcerpt(name);
        return std::nullopt;
    }
    FloatMatrix m(tensor->rows(), tensor->cols());
    convertToFloat(tensor->dtype, rawBytes(*tensor).data(), std::size_t(m.size()), m.data());
    return m;
}

} // namespace core
