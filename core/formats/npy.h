#pragma once
/** NumPy .npy files: one 1-D or 2-D array of float64 or float32, either byte order, C or Fortran order.
 *
 *  The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor version byte,
 *  the header's length (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0), the header
 *  (a Python dict literal {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), } padded with
 *  spaces and ended by '\n'), then the raw data. */

#include "core/tensor/matrix.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace core {

enum class NpyDtype { Float64, Float32 };

/** How an array is laid out in a file. */
struct NpyLayout {
    NpyDtype dtype = NpyDtype::Float64;
    bool bigEndian = false;
    bool fortranOrder = false;

    bool operator==(const NpyLayout&) const = default;
};

/** What a file held: a 1-D array of length k becomes a 1 × k row. */
struct NpyArray {
    Matrix values;       ///< rows × cols
    NpyLayout layout;    ///< as the file stored it
    int dimensions = 2;  ///< 1 or 2, as the file's shape said
};

/** The largest array decodeNpy() accepts, in entries. */
constexpr std::size_t maxNpyEntries = std::size_t(1) << 26;

/** Reads an .npy file's bytes. Refuses, with a message naming what is wrong, a bad magic, an
 *  unsupported version, a header that is not a dict or lacks descr, fortran_order or shape, a
 *  dtype other than '<f8', '>f8', '<f4', '>f4', a shape that is not 1-D or 2-D, an empty or
 *  absurdly large array, data shorter or longer than the shape says and, unless allowNonFinite,
 *  an entry that is NaN or infinite (naming its row and column). */
std::optional<NpyArray> decodeNpy(std::string_view bytes, std::string& error, bool allowNonFinite = false);

/** The .npy bytes of m (rows × cols, always written as a 2-D array): version 1.0, the header padded
 *  to a multiple of 64 bytes as NumPy writes it. Float32 rounds each entry to the nearest float. */
std::string encodeNpy(const MatrixCRef& m, const NpyLayout& layout = {});

}  // namespace core
