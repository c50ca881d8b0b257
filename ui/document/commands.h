#pragma once
/** The undo commands of the document. Each step is an Edit: a delta of the model that it applies
 *  forward (redo) or backward (undo) and that reports the change it made. It keeps only what it
 *  changes, and says how many bytes that takes, so that the document can bound the history. */

#include "modelchange.h"
#include "modelsession.h"
#include "session.h"

#include "core/models/gpt2forward.h"
#include "core/attention/model.h"

#include <QString>
#include <QUndoCommand>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ui {

class Document;

/** Ids for QUndoCommand::id(): commands with the same id may merge. */
enum CommandId { SetCellId = 1, TokenTextId = 2, AppendId = 3 };

/** A delta of a session: made by a session of one kind for that kind. */
class Edit {
public:
    virtual ~Edit() = default;
    /** Applies the edit to session (forward) or takes it back; returns what changed. */
    virtual EditResult apply(Session& session, bool forward) = 0;
    /** Bytes this edit keeps beyond its own object (matrices, tokens, texts). */
    virtual std::size_t heapBytes() const = 0;
    /** Edits with the same id ≥ 0 may merge (QUndoCommand::id()). */
    virtual int mergeId() const { return -1; }
    /** Takes next (an edit of the same mergeId that follows this one) into this one; false when it
     *  cannot. */
    virtual bool merge(const Edit& /*next*/) { return false; }
    /** True when applying the edit changes nothing (a merge came back to the start). */
    virtual bool isNull() const { return false; }
};

/** The undo step of an Edit. Merges in the Tiled way, and a merge that comes back to where it
 *  started makes the step obsolete. */
class DocumentCommand : public QUndoCommand {
public:
    DocumentCommand(Document* document, std::shared_ptr<Edit> edit, const QString& text,
                    QUndoCommand* parent = nullptr);
    void undo() override;
    void redo() override;
    int id() const override { return m_edit->mergeId(); }
    bool mergeWith(const QUndoCommand* other) override;

    /** Bytes this step keeps: the command, its text and its edit's data. */
    std::size_t byteSize() const;

private:
    friend QUndoCommand* copyOfCommand(const QUndoCommand* command, QUndoCommand* parent);
    Document* m_document;
    std::shared_ptr<Edit> m_edit;  ///< shared by the copy made when the history is rebuilt
};

/** Bytes an undo step keeps: a DocumentCommand's own count, or a macro's and its children's. */
std::size_t commandBytes(const QUndoCommand* command);
/** A new step doing what command does, sharing its edits (for a history rebuilt without its oldest
 *  steps); a macro is copied with its children. */
QUndoCommand* copyOfCommand(const QUndoCommand* command, QUndoCommand* parent = nullptr);

/** One cell of one matrix: two numbers. Consecutive edits of the same cell merge. */
std::shared_ptr<Edit> cellEdit(MatrixId id, int row, int col, double before, double after);
/** A matrix whose values changed, shape kept: only the rectangle that holds every changed cell is
 *  kept, before and after (a paste of a few rows keeps those rows, a fill the whole matrix). before and after
 *  may be the matrix's table (tableOf(): with its bias as the last row). */
std::shared_ptr<Edit> matrixEdit(MatrixId id, const core::Matrix& before, const core::Matrix& after);
/** The options, before and after. */
std::shared_ptr<Edit> optionsEdit(const core::Options& before, const core::Options& after);
/** W_O added (core::defaultOutputProjection(): (h·d_v) × d_model, without a bias, made again on redo) or removed (the removed matrix is
 *  kept, and b_O with it: a bias without W_O has nothing to add to). */
std::shared_ptr<Edit> outputProjectionEdit(const core::AttentionModel& model, bool on);
/** New tokens and token line: the tokens, X and the text before and after. Consecutive ones merge
 *  unless the later one startsBurst, so that typing is one step per burst. Tokens and X are kept only
 *  when they change. */
std::shared_ptr<Edit> tokensEdit(const core::AttentionModel& model, const QString& beforeText,
                                 std::vector<std::string> tokens, core::Matrix embeddings, const QString& afterText,
                                 bool startsBurst = false);
/** New dimensions: every matrix (the biases too) and the head count before and after, not the tokens. */
std::shared_ptr<Edit> shapeEdit(const core::AttentionModel& before, core::AttentionModel after);

/** Model sessions: checkpoint weight cells and zeroed heads, before and after (a typed cell, a paste, a scale, a head
 *  zeroed, a reset). One cell alone merges with the next edit of the same cell. */
std::shared_ptr<Edit> modelWeightsEdit(std::vector<Gpt2CellChange> cells, std::vector<AblationChange> ablations);
/** Model sessions: the typed text, before (with its tokens exactly) and after; consecutive ones merge unless the later
 *  startsBurst. */
std::shared_ptr<Edit> modelTextEdit(ModelText before, const QString& after, bool startsBurst);
/** Model sessions: tokens the model appended, the text and its tokens before and after; steps of one batch merge. */
std::shared_ptr<Edit> modelAppendEdit(ModelText before, ModelText after, int batch);

}  // namespace ui
