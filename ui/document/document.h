#pragma once
/** Document: the one owner of the session's state. Every edit is an undoable command; after each
 *  one the model is recomputed (off the GUI thread when large, coalesced, stamped) and the new
 *  trace announced. */

#include "core/sessionfile.h"
#include "core/trace.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>
#include <optional>
#include <vector>

namespace ui {

/** The matrices a user edits. */
enum class MatrixId { Embeddings, Query, Key, Value, Output };

/** Session-file key of a matrix ("embeddings", "weights.query", …). */
QString matrixKey(MatrixId id);
/** The matrix of a model; null for W_O when the model has none. */
core::Matrix* matrixOf(core::AttentionModel& model, MatrixId id);
const core::Matrix* matrixOf(const core::AttentionModel& model, MatrixId id);

/** One cell set by an edit, an undo or a redo. */
struct CellChange {
    MatrixId id = MatrixId::Embeddings;
    int row = 0;
    int col = 0;
    double before = 0.0;
    double after = 0.0;
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    const core::Session& session() const { return m_session; }
    const core::AttentionModel& model() const { return m_session.model; }
    /** The matrix behind an editor; W_O is empty when the model has none. */
    const core::Matrix& matrix(MatrixId id) const;
    /** The latest trace that matches the model, or the last good one while a recompute runs;
     *  null before the first computation finishes or when the model cannot be computed. */
    std::shared_ptr<const core::Trace> trace() const { return m_trace; }
    /** Why the current model cannot be computed; empty when it can. */
    QString error() const { return m_error; }
    /** True while a recompute of the current model has not finished. */
    bool isComputing() const { return m_computing; }

    /** While modelChanged is being emitted for a change of one cell: that cell; empty for any other
     *  change (views may then update only what the cell reaches). */
    const std::optional<CellChange>& changedCell() const { return m_changedCell; }

    /** The text of the token line: what the user typed, or the tokens joined by spaces. */
    QString tokenText() const { return m_tokenText; }

    QUndoStack* undoStack() { return &m_undo; }
    QString filePath() const { return m_filePath; }
    bool isModified() const { return !m_undo.isClean(); }

    // Edits: each pushes one undo command (consecutive edits of one cell merge).
    /** Re-tokenizes the text; rows the user gave stay with their tokens. Refused (false, error says
     *  why, nothing changes): no token, more than Limits::maxTokens, or more than the memory budget. */
    bool setTokenText(const QString& text, QString* error = nullptr);
    /** The same for the token line: a long text is tokenized and its embeddings derived on a worker
     *  so that the window stays responsive; of texts requested meanwhile only the newest is applied.
     *  tokenTextResult reports the outcome of each text that was not overtaken. */
    void requestTokenText(const QString& text);
    /** True while the newest requested token text waits for the worker (the line shows it, the model not yet). */
    bool isTokenTextPending() const { return m_tokenPending; }
    /** True while the worker tokenizes a text, even one already overtaken (tests). */
    bool isTokenizing() const { return m_tokenJob != 0; }
    /** Sets one cell; refuses (false) a non-finite value or a cell out of range. */
    bool setCell(MatrixId id, int row, int col, double value);
    /** Replaces a whole matrix of the same shape (fill, scale, paste); text names the action. */
    bool setMatrix(MatrixId id, const core::Matrix& value, const QString& text);
    void setOptions(const core::Options& options);
    /** New dimensions; values that still fit are kept. False with a message when refused. */
    bool setDimensions(int dModel, int dk, int dv, int heads, QString* error = nullptr);
    /** Adds (an identity-like W_O) or removes the output projection. */
    void setOutputProjection(bool on);
    /** Replaces the whole model without an undo step (the commands call it; edits use the setters). */
    void applyModel(const core::AttentionModel& model, const QString& tokenText);
    /** Sets one cell without an undo step (the commands call it); false when out of range. */
    bool applyCell(MatrixId id, int row, int col, double value);
    /** Replaces one matrix of the same shape without an undo step (the commands call it). */
    bool applyMatrix(MatrixId id, const core::Matrix& value);

    // Files.
    /** Replaces the session (undo history cleared); path empty for an unsaved one. */
    void loadSession(const core::Session& session, const QString& path);
    /** Loads a session recovered from an autosave: like loadSession, but the document counts as
     *  modified until it is saved, so nothing asks less than it would have before the crash. */
    void loadRecovered(const core::Session& session, const QString& path);
    /** Opens a session file; on failure the document is untouched and error says why. */
    bool openFile(const QString& path, QString* error);
    /** Saves atomically; on failure the old file is intact, the document stays modified. */
    bool saveFile(const QString& path, QString* error);
    /** The session as it would be saved now. */
    core::Session currentSession() const;

    /** Blocks until the current model's trace is ready or the model is refused (tests and the
     *  command line). Returns false when timeoutMs (negative: no limit) ran out first. */
    bool waitForTrace(int timeoutMs = -1);
    /** How many computations were started (synchronous and on the worker); for tests and profiling. */
    quint64 computationsStarted() const { return m_started; }

signals:
    /** The model changed (any edit, undo, redo or load); the trace follows later. */
    void modelChanged();
    /** A new trace, matching the current model; stale results are never announced.
     *  Null when the model cannot be computed (errorChanged says why). */
    void traceChanged(std::shared_ptr<const core::Trace> trace);
    /** The model cannot be computed; message says why. Empty message: it can again. */
    void errorChanged(const QString& message);
    void filePathChanged(const QString& path);
    void modifiedChanged(bool modified);
    /** The outcome of requestTokenText(text): error empty when the text was applied (or was the
     *  current one), else why it was refused; the document is then unchanged. */
    void tokenTextResult(const QString& text, const QString& error);
    /** Something the status bar may show. */
    void message(const QString& text);

private:
    /** cell: the change was this one cell (a finite number in a model already found valid cannot make it
     *  invalid; the worker can set it in its own copy of the last trace's model). */
    void recompute(const CellChange* cell = nullptr);
    void startWorker();
    void workerFinished();
    /** m_trace becomes trace, computed for request stamp (null: nothing to show). */
    void setTrace(std::shared_ptr<const core::Trace> trace, quint64 stamp);
    /** Keeps spent as the next computation's buffers when nothing else holds it and it is not too large. */
    void keepAsSpare(std::shared_ptr<const core::Trace> spent);
    void setError(const QString& message);
    void startTokenJob();
    void tokenJobFinished();

    core::Session m_session;
    QString m_tokenText;
    QString m_filePath;
    QString m_error;
    QUndoStack m_undo;
    std::shared_ptr<const core::Trace> m_trace;
    std::shared_ptr<core::Trace> m_spare;  ///< a spent trace whose buffers the next computation reuses
    core::Matrix m_noMatrix;

    // Recompute bookkeeping: at most one computation in flight; the newest request wins.
    QFutureWatcher<std::shared_ptr<const core::Trace>> m_watcher;
    quint64 m_requested = 0;  ///< stamp of the newest model
    quint64 m_running = 0;    ///< stamp of the computation in flight, 0 when none
    quint64 m_served = 0;     ///< stamp of the newest result delivered
    quint64 m_started = 0;    ///< computations started, for tests
    bool m_computing = false;
    bool m_valid = false;  ///< the model passed core::validate() at the last recompute
    // The cells set since the model m_trace was computed from, each with the request it made: the worker
    // sets them in a copy of that model instead of the GUI thread copying the whole model (16 MiB at
    // 4096 tokens) per edit. Any other change after m_traceStamp makes the worker take a full copy.
    struct LoggedCell {
        quint64 stamp;
        CellChange change;
    };
    std::vector<LoggedCell> m_cellLog;
    quint64 m_traceStamp = 0;        ///< the request m_trace was computed for
    quint64 m_wholeChangeStamp = 0;  ///< the newest request made by a change other than one cell
    std::optional<CellChange> m_changedCell;

    // Token line jobs: tokenizing and deriving embeddings for a long text, newest text wins.
    struct TokenJobResult {
        std::optional<core::AttentionModel> after;  ///< the model with the new tokens
        QString error;                              ///< why not, when after is empty
    };
    QFutureWatcher<TokenJobResult> m_tokenWatcher;
    QString m_tokenRequest;     ///< the newest text asked for
    quint64 m_tokenStamp = 0;   ///< stamp of the newest text asked for
    quint64 m_tokenJob = 0;     ///< stamp of the text on the worker, 0 when none
    quint64 m_modelVersion = 0; ///< bumped by every change of the model
    quint64 m_tokenJobModel = 0; ///< the model version the job started from
    bool m_tokenPending = false; ///< the newest text waits for the worker
};

}  // namespace ui
