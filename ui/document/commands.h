#pragma once
/** The undo commands of the document. */

#include "document.h"

#include <QUndoCommand>

namespace ui {

/** One cell of one matrix; consecutive edits of the same cell merge into one step. */
class SetCellCommand : public QUndoCommand {
public:
    SetCellCommand(Document* document, MatrixId matrix, int row, int col, double before, double after);
    void undo() override;
    void redo() override;
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* m_document;
    MatrixId m_matrix;
    int m_row, m_col;
    double m_before, m_after;
};

/** Any other edit: the model and token line before and after. */
class ModelCommand : public QUndoCommand {
public:
    ModelCommand(Document* document, core::AttentionModel before, QString beforeText, core::AttentionModel after,
                 QString afterText, const QString& text);
    void undo() override;
    void redo() override;

private:
    Document* m_document;
    core::AttentionModel m_before, m_after;
    QString m_beforeText, m_afterText;
};

}  // namespace ui
