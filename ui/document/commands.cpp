#include "commands.h"

#include <QCoreApplication>

namespace ui {

SetCellCommand::SetCellCommand(Document* document, MatrixId matrix, int row, int col, double before, double after)
    : m_document(document), m_matrix(matrix), m_row(row), m_col(col), m_before(before), m_after(after)
{
    setText(QCoreApplication::translate("Document", "Edit %1(%2, %3)")
                .arg(matrixKey(matrix))
                .arg(row + 1)
                .arg(col + 1));
}

void SetCellCommand::undo()
{
    m_document->applyCell(m_matrix, m_row, m_col, m_before);
}

void SetCellCommand::redo()
{
    m_document->applyCell(m_matrix, m_row, m_col, m_after);
}

bool SetCellCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const SetCellCommand*>(other);
    if (o->m_document != m_document || o->m_matrix != m_matrix || o->m_row != m_row || o->m_col != m_col)
        return false;
    m_after = o->m_after;
    setObsolete(m_after == m_before);
    return true;
}

SetMatrixCommand::SetMatrixCommand(Document* document, MatrixId matrix, core::Matrix before, core::Matrix after,
                                   const QString& text)
    : m_document(document), m_matrix(matrix), m_before(std::move(before)), m_after(std::move(after))
{
    setText(text);
}

void SetMatrixCommand::undo()
{
    m_document->applyMatrix(m_matrix, m_before);
}

void SetMatrixCommand::redo()
{
    m_document->applyMatrix(m_matrix, m_after);
}

ModelCommand::ModelCommand(Document* document, core::AttentionModel before, QString beforeText,
                           core::AttentionModel after, QString afterText, const QString& text, int mergeId)
    : m_document(document), m_before(std::move(before)), m_after(std::move(after)),
      m_beforeText(std::move(beforeText)), m_afterText(std::move(afterText)), m_mergeId(mergeId)
{
    setText(text);
}

void ModelCommand::undo()
{
    m_document->applyModel(m_before, m_beforeText);
}

void ModelCommand::redo()
{
    m_document->applyModel(m_after, m_afterText);
}

bool ModelCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = static_cast<const ModelCommand*>(other);
    if (m_mergeId < 0 || o->m_document != m_document)
        return false;
    m_after = o->m_after;
    m_afterText = o->m_afterText;
    setObsolete(m_after == m_before && m_afterText == m_beforeText);
    return true;
}

}  // namespace ui
