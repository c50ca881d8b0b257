#pragma once
/** Safetensors files (the format Hugging Face distributes weights in), read without trusting them.
 *
 *  The format: 8 bytes, a little-endian unsigned length N; N bytes of UTF-8 JSON, an object mapping
 *  each tensor's name to {"dtype": "F32", "shape": [768, 2304], "data_offsets": [begin, end]}
 *  (offsets in bytes, relative to the data section) plus an optional "__metadata__" object; then the
 *  data section, the tensors' raw little-endian values in row-major order.
 *
 *  Everything is checked before a byte of data is read: the header's length against the file, the
 *  JSON, every dtype, shape and pair of offsets, and that the tensors tile the data section exactly
 *  (no overlap, no gap, nothing past its end or left over after the last tensor). */

#include "core/formats/mappedfile.h"

#include <Eigen/Core>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

/// Dense float32 matrix, row-major as safetensors stores it. Model weights stay in float32.
using FloatMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// A read-only view of float32 values held elsewhere (a mapped file or a checkpoint's own buffer).
using FloatMatrixMap = Eigen::Map<const FloatMatrix>;

/** The element types accepted. Any other dtype of the format (I64, F64, BOOL, …) is refused. */
enum class Dtype { F32, F16, BF16 };

/** "F32", "F16" or "BF16". */
const char* dtypeName(Dtype dtype);
/** Bytes per element: 4 or 2. */
std::size_t dtypeSize(Dtype dtype);

/** A shape as messages write it: "[768, 2304]". */
std::string shapeText(const std::vector<std::uint64_t>& shape);

/** One tensor as the header describes it. */
struct TensorInfo {
    std::string name;
    Dtype dtype = Dtype::F32;
    std::vector<std::uint64_t> shape; ///< empty for a scalar
    std::uint64_t begin = 0;          ///< data_offsets, relative to the data section
    std::uint64_t end = 0;

    /** Product of the shape (1 for a scalar); the header check guarantees it does not overflow. */
    std::uint64_t elements() const;
    /** The matrix the values form: a scalar 1 × 1, a vector 1 × k, shape [a, b, c…] a × (b·c·…). */
    Eigen::Index rows() const;
    Eigen::Index cols() const;
};

/** A checked header: the tensors in the order of their offsets, and where the data section starts. */
struct SafetensorsHeader {
    std::vector<TensorInfo> tensors;
    std::uint64_t dataStart = 0; ///< 8 + N: the data section's first byte in the file
    std::uint64_t dataSize = 0;  ///< the data section's length in bytes

    /** The tensor called name, or nullptr. */
    const TensorInfo* find(std::string_view name) const;
};

/** The largest JSON header accepted, in bytes: GPT-2's is under 100 KB, and a header of millions of entries would
 *  cost gigabytes to read (the format's reference implementation allows 100 MB). */
constexpr std::uint64_t maxSafetensorsHeaderBytes = std::uint64_t(16) << 20;

/** Checks a whole file's bytes and returns its header. Refuses, with error "<label>: <what is wrong>",
 *  a file shorter than 8 bytes, a header length past the file or above the limit, a header that is not
 *  a JSON object within readJson's bounds (a tensor named twice among them), a "__metadata__" that is not an object, a tensor entry that is not an object with a
 *  known dtype (F32, F16, BF16), a shape of non-negative integers whose product (in bytes) fits 64
 *  bits, and data_offsets [begin, end] with begin ≤ end and end − begin = elements × dtype size; and
 *  tensors that overlap, leave a gap between them, run past the data section's end or leave bytes after
 *  the last one. Reads only bytes, never past them. */
std::optional<SafetensorsHeader> parseSafetensors(std::string_view bytes, const std::string& label, std::string& error);

/** Little-endian values of dtype converted to float32 exactly: F16 and BF16 bit for bit (subnormals,
 *  infinities and NaN payloads included). bytes holds count × dtypeSize(dtype) bytes; out holds count. */
void convertToFloat(Dtype dtype, const char* bytes, std::size_t count, float* out);

/** One IEEE half-precision value (its bits) as float32, exactly. */
float halfToFloat(std::uint16_t bits);
/** One bfloat16 value (its bits) as float32, exactly. */
float bfloat16ToFloat(std::uint16_t bits);

/** An open, checked safetensors file: mapped read-only, shared, immutable. */
class SafetensorsFile {
public:
    /** Maps the file at path and checks it (parseSafetensors); nullptr with error "<path>: …" when it
     *  cannot be read or does not pass. */
    static std::shared_ptr<const SafetensorsFile> open(const std::string& path, std::string& error);

    const std::string& path() const { return m_file->path(); }
    const SafetensorsHeader& header() const { return m_header; }

    /** The raw bytes of a tensor of the header, inside the mapping. */
    std::string_view rawBytes(const TensorInfo& tensor) const;
    /** Gives back the resident memory of a tensor's bytes whose values are kept elsewhere
     *  (MappedFile::releasePages): rawBytes() stays valid and is read again from the file when touched. */
    void releasePages(const TensorInfo& tensor) const { m_file->releasePages(rawBytes(tensor)); }

    /** The tensor converted to float32, rows() × cols() as stored. Empty with error when no tensor of
     *  that name exists. */
    std::optional<FloatMatrix> toFloat(std::string_view name, std::string& error) const;

private:
    SafetensorsFile() = default;

    std::shared_ptr<const MappedFile> m_file;
    SafetensorsHeader m_header;
};

} // namespace core
