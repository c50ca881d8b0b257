#pragma once
/** ModelChange: what one edit, undo, redo or load changed in the document's model. Undo commands
 *  apply one, the document announces it, and views and the scheduler update only what it reaches. */

#include "core/tensor/matrix.h"

#include <QMetaType>
#include <QString>

namespace core {
struct AttentionModel;
}

namespace ui {

/** The matrices a user edits. */
enum class MatrixId { Embeddings, Query, Key, Value, Output };

/** Session-file key of a matrix ("embeddings", "weights.query", …). */
QString matrixKey(MatrixId id);
/** The name people know a matrix by, in the interface language ("X", "W_Q", …). */
QString matrixTitle(MatrixId id);
/** The name of a weight's bias ("b_Q", …), in the interface language; empty for X. */
QString biasTitle(MatrixId id);
/** The matrix of a model; null for W_O when the model has none. */
core::Matrix* matrixOf(core::AttentionModel& model, MatrixId id);
const core::Matrix* matrixOf(const core::AttentionModel& model, MatrixId id);
/** The bias row of a weight (b_Q of W_Q, …), null when the model has none (and for X). In a matrix's table
 *  and in a ModelChange the bias is the row just below the weight's last: row rows() of the weight. */
core::Matrix* biasOf(core::AttentionModel& model, MatrixId id);
const core::Matrix* biasOf(const core::AttentionModel& model, MatrixId id);
/** The cell (row, col) of the table of id: the weight's, or its bias's at row rows(); null outside both. */
double* cellOf(core::AttentionModel& model, MatrixId id, int row, int col);
const double* cellOf(const core::AttentionModel& model, MatrixId id, int row, int col);
/** Rows of the table of id: the matrix's, and one more for its bias when it has one. */
int tableRows(const core::AttentionModel& model, MatrixId id);
/** The table of id as one matrix (tableRows × cols): the weight's rows, then its bias as the last row when it has
 *  one. Empty for W_O when the model has none. */
core::Matrix tableOf(const core::AttentionModel& model, MatrixId id);

struct ModelChange {
    enum class Kind {
        Cell,     ///< one cell of `matrix`: row, col, before → after
        Block,    ///< a rectangle of `matrix`: rows × cols from (row, col); its shape is kept
        Matrix,   ///< every cell of `matrix`; its shape is kept
        Options,  ///< the options (mask, scaling, temperature, positional encoding, heads)
        Tokens,   ///< the tokens, the rows of X and the token line; the weights are kept
        Shape,    ///< the dimensions or W_O: matrices of new shapes
        Model,    ///< anything at all (a session loaded)
    };
    Kind kind = Kind::Model;
    MatrixId matrix = MatrixId::Embeddings;  ///< for Cell, Block and Matrix
    int row = 0;                             ///< Cell: the cell; Block: its top row
    int col = 0;                             ///< Cell: the cell; Block: its left column
    int rows = 0;                            ///< Block: its height
    int cols = 0;                            ///< Block: its width
    double before = 0.0;                     ///< Cell: the value it had
    double after = 0.0;                      ///< Cell: the value it has now

    static ModelChange cell(MatrixId id, int row, int col, double before, double after)
    {
        return {Kind::Cell, id, row, col, 1, 1, before, after};
    }
    static ModelChange block(MatrixId id, int row, int col, int rows, int cols)
    {
        return {Kind::Block, id, row, col, rows, cols, 0.0, 0.0};
    }
    static ModelChange wholeMatrix(MatrixId id) { return {Kind::Matrix, id, 0, 0, 0, 0, 0.0, 0.0}; }
    static ModelChange of(Kind kind) { return {kind, MatrixId::Embeddings, 0, 0, 0, 0, 0.0, 0.0}; }

    /** True when the change set values of one matrix and kept every shape (Cell, Block, Matrix). */
    bool isValuesOf(MatrixId id) const
    {
        return (kind == Kind::Cell || kind == Kind::Block || kind == Kind::Matrix) && matrix == id;
    }
    /** True when the matrix id may hold other values or have another shape after this change. */
    bool reaches(MatrixId id) const
    {
        switch (kind) {
        case Kind::Cell:
        case Kind::Block:
        case Kind::Matrix: return matrix == id;
        case Kind::Options: return false;
        case Kind::Tokens: return id == MatrixId::Embeddings;
        case Kind::Shape:
        case Kind::Model: return true;
        }
        return true;
    }
};

}  // namespace ui

Q_DECLARE_METATYPE(ui::ModelChange)
