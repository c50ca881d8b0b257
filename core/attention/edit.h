#pragma once
/** Edits of a model that keep what still fits: the arithmetic behind the window's actions. */

#include "core/attention/model.h"

#include <string>
#include <vector>

namespace core {

/** Embedding rows for new tokens: a row the user gave (one that differs from its token's derived
 *  row) stays with its token text, in order of appearance; every other token gets its derived row.
 *  Returns newTokens.size() × model.dModel(). */
Matrix embeddingsForTokens(const AttentionModel& model, const std::vector<std::string>& newTokens);

/** The model with new dimensions. Every value whose cell still exists is kept; new cells are
 *  derived (embeddings) or zero (weights), with ones on the diagonal of new weight columns so that
 *  a widened head is not all zeros; a new head's W_Q, W_K and W_V are Glorot-uniform, each seeded by its
 *  name and head, so that they differ. W_O follows h·d_v and keeps d_out. The biases follow their weights'
 *  columns head by head (new entries zero); b_O keeps d_out and stays. A new number of heads sets kv_heads back to one
 *  K/V head per head (W_K and W_V keep the old K/V heads' blocks); q/k norm weights follow d_k (new entries one). */
AttentionModel resized(const AttentionModel& model, int dModel, int dk, int dv, int heads);

/** The model with kvHeads K/V heads (SPEC §6 kv_heads; it must divide the heads): K/V head g takes the columns of W_K,
 *  W_V and their biases that its first query head read before, so grouping heads keeps each group's first head as it
 *  was, and ungrouping gives every head its group's keys and values. The model unchanged when kvHeads does not divide
 *  the heads. */
AttentionModel withKvHeads(const AttentionModel& model, int kvHeads);

/** The per-head width the usual convention gives h heads over d_model: d_k = d_v = d_model / h, or
 *  nothing when h does not divide d_model (or either is not positive). */
std::optional<int> conventionalHeadWidth(int dModel, int heads);

/** W_O as it is added: (h·d_v) × d_model, so that the output has d_model columns, with ones on its
 *  diagonal (the identity when h·d_v = d_model). */
Matrix defaultOutputProjection(const AttentionModel& model);

/** The model with W_O of dOut columns (d_out): cells that still exist are kept, new columns are zero
 *  with a one where they meet the diagonal; b_O, when there is one, follows with new entries zero.
 *  The model unchanged when it has no W_O. */
AttentionModel withOutputWidth(const AttentionModel& model, int dOut);

/** A block pasted into a matrix: the matrix after it, and the rows and columns of the block that landed. */
struct Paste {
    Matrix matrix;
    Eigen::Index rows = 0, cols = 0;
    bool clipped = false;  ///< some of the block's cells lay past the matrix's edges and were dropped
};

/** The matrix with a rectangular block pasted at (row, col); cells past the edges are dropped. */
Paste pasted(const Matrix& target, const Matrix& block, int row, int col);

/** Parses a block of text copied from a spreadsheet, a program or a text file: rows by line, cells by tab,
 *  semicolon or comma, or else by runs of spaces; the brackets of numpy's print ("[[1. 2.]" / " [3. 4.]]") are
 *  skipped. Returns nothing and a message naming the row and column of the first cell that is not a finite
 *  number, or when the rows are ragged. */
struct BlockError {
    enum class Kind {
        NotANumber,  ///< the cell at (row, column) is not a finite number
        Ragged,      ///< row `row` has `cells` cells, the first row `firstRowCells`
        Empty,       ///< no numbers at all
    } kind = Kind::Empty;
    int row = 0, column = 0;  ///< 1-based lines and cells of the text
    int cells = 0, firstRowCells = 0;
    std::string cell;  ///< the text of the cell that is not a number, trimmed

    /** In English, e.g. `row 1, column 2: "x" is not a finite number` (the window words it in its language). */
    std::string message() const;
};
std::optional<Matrix> parseBlock(const std::string& text, BlockError& error);

/** Cells as text, tab-separated, one row a line, numbers that read back to the same double. */
std::string formatBlock(const MatrixCRef& block);

}  // namespace core
