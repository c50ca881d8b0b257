/** Pasted-block parser: no input crashes it; a block it accepts is finite, rectangular, and reads
 *  back from its own text unchanged; pasting it anywhere clips instead of writing past the edges. */

#include "fuzzcheck.h"

#include "core/attention/edit.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    // The first two bytes choose where to paste (−8 … 7) and the target's shape (1 … 16 each);
    // the rest is the pasted text.
    if (size < 2)
        return 0;
    const int row = (data[0] & 0x0F) - 8, col = (data[0] >> 4) - 8;
    const int rows = (data[1] & 0x0F) + 1, cols = (data[1] >> 4) + 1;
    const std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);
    core::BlockError error;
    const auto block = core::parseBlock(text, error);
    if (!block) {
        FUZZ_CHECK(!error.message().empty(), "refused without a message");
        return 0;
    }
    FUZZ_CHECK(block->rows() >= 1 && block->cols() >= 1, "an empty block was accepted");
    FUZZ_CHECK(block->allFinite(), "a non-finite number was accepted");

    const std::string written = core::formatBlock(*block);
    const auto reread = core::parseBlock(written, error);
    FUZZ_CHECK(reread, "its own text is refused: %s", error.message().c_str());
    FUZZ_CHECK(reread->rows() == block->rows() && reread->cols() == block->cols() && *reread == *block,
               "the block changed in a round trip");

    if (row < 0 || col < 0)
        return 0;  // pasted() takes a cell of the target
    const core::Matrix target = core::Matrix::Constant(rows, cols, -7.0);
    const core::Paste paste = core::pasted(target, *block, row, col);
    const core::Matrix& out = paste.matrix;
    const bool clipped = paste.clipped;
    FUZZ_CHECK(out.rows() == rows && out.cols() == cols, "pasting changed the shape");
    const bool fits = row + block->rows() <= rows && col + block->cols() <= cols;
    FUZZ_CHECK(clipped == !fits, "clipped is %d for a block that %s", int(clipped), fits ? "fits" : "does not fit");
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const bool inside = r >= row && c >= col && r - row < block->rows() && c - col < block->cols();
            FUZZ_CHECK(out(r, c) == (inside ? (*block)(r - row, c - col) : -7.0), "cell (%d,%d) wrong", r, c);
        }
    return 0;
}
