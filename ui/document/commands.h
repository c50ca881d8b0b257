#pragma once
/** The undo commands of the document. */

#include "document.h"

#include <QUndoCommand>

namespace ui {

/** Ids for QUndoCommand::id(): commands with the same id may merge. */
enum CommandId { SetCellId = 1, TokenTextId = 2 };

/** One cell of one matrix; consecutive edits of the same cell merge into one step, and a merge
 *  that brings the cell back to where it started makes the step obsolete. */
class SetCellCommand : public QUndoCommand {
public:
    SetCellCommand(Document* document, MatrixId matrix, int row, int col, double before, double after);
    void undo() override;
    void redo() override;
    int id() const override { return SetCellId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* m_document;
    MatrixId m_matrix;
    int m_row, m_col;
    double m_before, m_after;
};

/** One whole matrix replaced by another of the same shape (fill, scale, paste). Holds only that
 *  matrix, so that large models do not fill memory with copies. */
class SetMatrixCommand : public QUndoCommand {
public:
    SetMatrixCommand(Document* document, MatrixId matrix, core::Matrix before, core::Matrix after, const QString& text);
    void undo() override;
    void redo() override;

private:
    Document* m_document;
    MatrixId m_matrix;
    core::Matrix m_before, m_after;
};

/** Any other edit: the model and token line before and after. With mergeId ≥ 0, consecutive
 *  commands of that id merge (typing in the token line is one step per burst, not per key). */
class ModelCommand : public QUndoCommand {
public:
    ModelCommand(Document* document, core::AttentionModel before, QString beforeText, core::AttentionModel after,
                 QString afterText, const QString& text, int mergeId = -1);
    void undo() override;
    void redo() override;
    int id() const override { return m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* m_document;
    core::AttentionModel m_before, m_after;
    QString m_beforeText, m_afterText;
    int m_mergeId;
};

}  // namespace ui
