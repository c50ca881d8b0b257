#pragma once
/** Document: the one owner of the session's state, its undo history and its file. Every edit is an
 *  undoable command whose edit is the only way the model changes; each change is announced as a
 *  ModelChange value, and its Scheduler recomputes the trace (off the GUI thread when large,
 *  coalesced, stamped) that the document announces after it. */

#include "latestjob.h"
#include "modelchange.h"
#include "modelsession.h"
#include "scheduler.h"
#include "session.h"

#include "core/session/sessionfile.h"
#include "core/attention/trace.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QUndoStack>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>

namespace ui {

class DocumentCommand;
class Edit;

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    /** The session the document holds, of either kind. */
    const Session& session() const { return *m_session; }
    /** The session when it is a plain one (SPEC §2), else null. */
    const PlainSession* plainSession() const { return m_session->plainSession(); }
    /** The session when it is a model's (SPEC §5), else null. */
    const ModelSession* modelSession() const { return m_session->modelSession(); }
    bool isModelSession() const { return modelSession() != nullptr; }
    const core::AttentionModel& model() const { return m_session->model(); }
    /** The matrix behind an editor; W_O is empty when the model has none. */
    const core::Matrix& matrix(MatrixId id) const;
    /** The latest trace that matches the model, or the last good one while a recompute runs;
     *  null before the first computation finishes or when the model cannot be computed. */
    std::shared_ptr<const core::Trace> trace() const { return m_scheduler.trace(); }
    /** Why the current model cannot be computed; empty when it can. */
    QString error() const { return m_scheduler.error(); }
    /** True while a recompute of the current model has not finished. */
    bool isComputing() const { return m_scheduler.isComputing(); }

    /** The text of the token line: what the user typed, or the tokens joined by spaces. */
    QString tokenText() const { return m_session->tokenText(); }

    QUndoStack* undoStack() { return &m_undo; }
    QString filePath() const { return m_filePath; }
    bool isModified() const { return !m_undo.isClean(); }

    /** The most the undo history keeps, as its steps count their bytes: 256 MiB. A 4096-token trace
     *  takes about 300 MiB, so the history stays the size of one computation's working set at most,
     *  and thousands of steps of a few large matrices still fit below it. */
    static constexpr std::size_t undoMemoryBound = std::size_t(256) << 20;
    /** Bytes the undo history keeps now, summed from its steps' own accounting. After each new step
     *  the oldest steps are dropped while this passes undoMemoryBound (the newest always stays). */
    std::size_t undoBytes() const;

    // Edits: each pushes one undo command (consecutive edits of one cell merge).
    /** Re-tokenizes the text; rows the user gave stay with their tokens. Refused (false, error says
     *  why, nothing changes): no token, more than Limits::maxTokens, or more than the memory budget. */
    bool setTokenText(const QString& text, QString* error = nullptr);
    /** The same for the token line: a long text is tokenized and its embeddings derived on a worker
     *  so that the window stays responsive; of texts requested meanwhile only the newest is applied.
     *  tokenTextResult reports the outcome of each text that was not overtaken. */
    void requestTokenText(const QString& text);
    /** Ends the token line's current typing burst: the next text is a new undo step (the line lost
     *  its focus, Enter was pressed). */
    void endTypingBurst() { m_burstIndex = -1; }
    /** How long typing may pause within one undo step of the token line; 1 s unless set (tests). */
    void setTypingPause(std::chrono::milliseconds pause) { m_typingPause = pause; }
    std::chrono::milliseconds typingPause() const { return m_typingPause; }
    /** True while the newest requested token text waits for the worker (the line shows it, the model not yet). */
    bool isTokenTextPending() const { return m_tokenJob.isPending(); }
    /** True while the worker tokenizes a text, even one already overtaken (tests). */
    bool isTokenizing() const { return m_tokenJob.isRunning(); }
    /** The name of the undo step that sets cell (row, col) of id to value, as people read it:
     *  "Changed W_Q row 2, column 2 to 0.5" (1-based, the matrix's title, the number as displayed); a weight's
     *  bias row (row rows()): "Changed b_Q column 2 to 0.5". */
    QString cellEditText(MatrixId id, int row, int col, double value) const;
    /** The name of the undo step from options before to after: what changed, in the past tense
     *  ("Turned on the causal mask", "Changed the temperature to 0.5"). */
    static QString optionsEditText(const core::Options& before, const core::Options& after);
    /** The name of the undo step from model's dimensions to the given ones ("Changed the heads to 2,
     *  d_k to 2, d_v to 2"); only what differs is named. */
    static QString dimensionsEditText(const core::AttentionModel& model, int dModel, int dk, int dv, int heads);
    /** Sets one cell; refuses (false) a non-finite value or a cell out of range. */
    bool setCell(MatrixId id, int row, int col, double value);
    /** Replaces a whole matrix of the same shape (fill, scale, paste); text names the action. value may also be the
     *  matrix's table (tableOf(): its bias as one more row), which sets the bias too, in the same step. Refused
     *  (false) for another shape or a value that is not finite. */
    bool setMatrix(MatrixId id, const core::Matrix& value, const QString& text);
    void setOptions(const core::Options& options);
    /** New dimensions; values that still fit are kept. False with a message when refused. */
    bool setDimensions(int dModel, int dk, int dv, int heads, QString* error = nullptr);
    /** Adds W_O as core::defaultOutputProjection() ((h·d_v) × d_model, ones on the diagonal) or
     *  removes it, with b_O. */
    void setOutputProjection(bool on);
    /** Gives W_O (and b_O) dOut columns, d_out; values that still fit are kept. False with a message
     *  when refused (no W_O, or dOut out of range). */
    bool setOutputWidth(int dOut, QString* error = nullptr);
    /** Shares the K/V heads among the query heads (core::withKvHeads) as one undo step. False with a message when
     *  refused (kvHeads does not divide the heads, or the session fixes its shape). */
    bool setKvHeads(int kvHeads, QString* error = nullptr);

    // Model sessions (SPEC §5): the session is a checkpoint's shown layer; model() is that layer.
    /** The shown layer, 0-based (0 for a plain session), and how many there are (1 for a plain session). */
    int shownLayer() const { return m_session->shownLayer(); }
    int layerCount() const { return m_session->layerCount(); }
    /** Shows layer (0-based): the views follow once the forward pass has given it. A view choice the file
     *  keeps, not an undo step. */
    void setShownLayer(int layer);
    /** Sets the shown layer's rows of W_O of head (0-based) to 0, one undo step: the head's output no longer
     *  reaches the residual stream (an ablation). False for a plain session or a head out of range. */
    bool zeroHead(int head);
    /** Gives the shown layer's edited cells, or every layer's, their checkpoint values, one undo step. */
    bool resetLayer();
    bool resetAll();
    /** Which position's next token the model session predicts: −1 the last one (the default), else 0-based. A
     *  chosen position that a new text no longer has becomes −1. Not an undo step. */
    void setPredictionPosition(int position);
    int predictionPosition() const { return m_session->predictionPosition(); }
    /** Appends count tokens the model chooses (ModelSession::appendStep), one after another, each from the pass of
     *  the text before it, as one undo step ("Appended “ Mary”"). Refused (false, error says why) without a model
     *  session; a refusal on the way (the positions full, an overflow) ends it and says why in message(), and so
     *  does any other step or an undo made meanwhile. */
    bool appendTokens(int count, QString* error = nullptr);
    /** Ends an Append of several tokens after the ones written. */
    void stopAppending();
    /** True while an Append waits for a pass to choose its next token. */
    bool isAppending() const { return m_appendLeft > 0; }
    /** How Append chooses (ModelSession::setSampling); nothing without a model session. */
    void setSampling(const core::Sampling& sampling);
    /** A model session's logit lens and direct logit attribution of the newest pass (ModelSession::lens()); null in
     *  a plain session. */
    std::shared_ptr<const LensResult> lens() const;
    std::shared_ptr<const AttributionResult> attribution() const;
    /** A view of an instrument is shown or hidden: the passes make it only while one is shown (kept for the
     *  sessions loaded later). */
    void setInstrumentShown(Instrument which, bool shown);
    /** lens() or attribution() as the command line's --export-lens / --export-attribution write it (JSON, or CSV);
     *  empty when there is none. */
    std::string instrumentFile(Instrument which, bool csv) const;
    /** The instruments' token: −1 the most probable at predictionPosition(), else its id. Not an undo step. */
    void setInstrumentTarget(int id);
    int instrumentTarget() const;
    /** The id of a text that is exactly one token of the model, else nothing with error saying why. */
    std::optional<int> singleToken(const QString& text, QString* error) const;
    /** Where the Block view looks in a model session (0-based), or nothing while it is hidden
     *  (ModelSession::setBlockPosition); nothing for a plain session. */
    void setBlockPosition(std::optional<int> position);
    /** Takes a model session loaded on a worker (loadModelSession()); path is its file, empty for a folder
     *  opened as it is. The undo history is cleared. */
    void loadModel(LoadedModel loaded, const QString& path);
    /** Blocks until the forward pass and the shown layer's trace of the current state are there (tests). */
    bool waitForModel(int timeoutMs = -1);

    // Files.
    /** Replaces the session (undo history cleared); path empty for an unsaved one. */
    void loadSession(const core::Session& session, const QString& path);
    /** Loads a session recovered from an autosave: like loadSession, but the document counts as
     *  modified until it is saved, so nothing asks less than it would have before the crash. */
    void loadRecovered(const core::Session& session, const QString& path);
    /** The document as loaded counts as modified until it is saved: a model session recovered from an autosave
     *  (loaded with loadModel, as any model session). */
    void markRecovered();
    /** Opens a session file; on failure the document is untouched and error says why. A model session file
     *  is loaded on this thread (the window loads one on a worker, see ModelLoader). */
    bool openFile(const QString& path, QString* error);
    /** Saves atomically; on failure the old file is intact, the document stays modified. */
    bool saveFile(const QString& path, QString* error, const nlohmann::json& extra = nlohmann::json::object());

    /** Blocks until the current model's trace is ready or the model is refused (tests and the
     *  command line). Returns false when timeoutMs (negative: no limit) ran out first. */
    bool waitForTrace(int timeoutMs = -1) { return m_scheduler.waitForTrace(timeoutMs); }
    /** How many computations were started (synchronous and on the worker); for tests and profiling. */
    quint64 computationsStarted() const { return m_scheduler.computationsStarted(); }

signals:
    /** The model changed (any edit, undo, redo or load) as change says; the trace follows later. */
    void modelChanged(const ui::ModelChange& change);
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
    /** A model session's new prediction (an empty one when a plain session replaced the model's). */
    void predictionChanged(const ui::Prediction& prediction);
    /** lens() or attribution() changed (a new pass, or a session without them). */
    void instrumentsChanged();
    /** instrumentTarget() changed. */
    void instrumentTargetChanged(int id);
    /** predictionPosition() changed: chosen, or fallen back to the last one (−1) with a text that no longer has it. */
    void predictionPositionChanged(int position);
    /** A model session's text changed (an edit, undo, redo or load): the token line shows tokenText(). The tokens
     *  follow with modelChanged once the forward pass has run. */
    void tokenTextChanged();
    /** The shown layer changed (the views follow with modelChanged once the pass has given it). */
    void shownLayerChanged(int layer);
    /** Something the status bar may show. */
    void message(const QString& text);
    /** An Append of tokens started or ended (isAppending()). */
    void appendingChanged(bool appending);

private:
    friend class DocumentCommand;
    /** The one way the session changes after a load: an undo command applies its edit (forward on redo), then
     *  the change is announced and the session runs what the edit asks for. */
    void applyEdit(Edit& edit, bool forward);
    /** validatedCopy: see Scheduler::changed(). */
    void announce(const ModelChange& change, std::shared_ptr<const core::AttentionModel> validatedCopy = nullptr);
    /** Pushes step's edit as one undo step named text (or step's own name); false when step is refused, with error
     *  set when given. */
    bool push(Step step, const QString& text = QString(), QString* error = nullptr);
    void trimHistory();
    /** Replaces the session (a new one's start: no undo steps, clean, the file path set). */
    void setSession(std::unique_ptr<Session> session, const QString& path);

    void tokenJobFinished(PreparedText prepared);
    /** Appends the next token of an Append when the session can choose it. */
    void appendNext();
    /** Pushes the token line's step for prepared text. */
    bool pushText(const PreparedText& prepared, QString* error);
    /** True when the next step of the token line starts a new undo step; burstPushed() after pushing one. */
    bool startsTypingBurst() const;
    void burstPushed();

    std::unique_ptr<Session> m_session;
    QString m_filePath;
    QUndoStack m_undo;
    bool m_rebuildingHistory = false;  ///< the history is being rebuilt: its steps apply nothing
    core::Matrix m_noMatrix;
    Scheduler m_scheduler{[this]() -> const core::AttentionModel& { return m_session->model(); }};
    QString m_tokenRequest;  ///< the newest text asked of the token line's worker
    /** The undo index just after the token line's last step, while its burst may go on; −1: ended. */
    int m_burstIndex = -1;
    QElapsedTimer m_sinceTyping;  ///< since the token line's last step
    std::chrono::milliseconds m_typingPause{1000};
    LatestJob<PreparedText> m_tokenJob;
    int m_appendLeft = 0;       ///< tokens the current Append has still to write
    int m_appendBatch = 0;      ///< the current Append's number: its steps merge
    int m_appendWritten = 0;    ///< tokens it wrote
    QString m_appendStart;      ///< the text it started from
    bool m_appendPushing = false;  ///< its own step is being pushed (any other step ends it)
    bool m_lensShown = false, m_attributionShown = false;
};

}  // namespace ui
