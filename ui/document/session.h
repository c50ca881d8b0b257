#pragma once
/** Session: what a Document holds, the state of one kind of session and the edits of that kind. The document keeps
 *  the undo stack, the file and the signals; it asks its session for the step of each request and applies steps to
 *  it, without asking which kind it holds. PlainSession is a session of SPEC §2 (an AttentionModel of its own). */

#include "modelchange.h"
#include "modelrunner.h"

#include "core/attention/model.h"
#include "core/session/modelsession.h"
#include "core/session/sessionfile.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ui {

class Edit;
class ModelSession;
class PlainSession;

/** What a request becomes: the edit to push (null: nothing changes), or a refusal (error set, edit null). */
struct Step {
    std::shared_ptr<Edit> edit;
    QString error;
    QString name;  ///< the undo step's name when the session gives one (else the document names it)
    bool refused() const { return !error.isEmpty(); }
    static Step refusal(const QString& why) { return {nullptr, why, {}}; }
};

/** A text prepared for the token line, on any thread: what makes its step from the session it is pushed to (the
 *  session then, startsBurst), or why it is refused. */
struct PreparedText {
    std::function<Step(const class Session& session, bool startsBurst)> step;
    QString error;
};

/** What an edit did to a session: the change of the shown model (none when only the hidden state changed) and
 *  whether the session must run again before its shown model is current (a model session's forward pass). */
struct EditResult {
    EditResult() = default;
    EditResult(const ModelChange& change) : change(change) {}  // NOLINT: an edit of the shown model alone
    EditResult(std::optional<ModelChange> change, bool rerun) : change(std::move(change)), rerun(rerun) {}
    std::optional<ModelChange> change;
    bool rerun = false;
};

class Session : public QObject {
    Q_OBJECT
public:
    ~Session() override;

    /** The attention model the views show: the whole session, or a model's shown layer. */
    const core::AttentionModel& model() const { return m_model; }
    /** The token line's text. */
    const QString& tokenText() const { return m_tokenText; }
    /** The file's keys the program does not read (a title, the view), kept for the save. */
    const nlohmann::json& extras() const { return m_extras; }
    /** The model session, for the views that show what only a checkpoint has; null for a plain one. */
    virtual const ModelSession* modelSession() const { return nullptr; }
    virtual ModelSession* modelSession() { return nullptr; }
    /** The plain session (its file's extras); null for a model's. */
    virtual const PlainSession* plainSession() const { return nullptr; }

    /** Prepares text for the token line: the returned job runs on any thread and reads no session. */
    virtual std::function<PreparedText()> prepareText(const QString& text) const = 0;
    /** True when preparing text takes long enough to go to a worker. */
    virtual bool preparesOnWorker(const QString& text) const = 0;
    /** The value a cell keeps when set to value (a checkpoint's weights are float32). */
    virtual double storedValue(double value) const { return value; }
    /** The step that sets cell (row, col) of the table of id to value (storedValue already). */
    virtual Step cellStep(MatrixId id, int row, int col, double value) const = 0;
    /** The step that gives the matrix of id, or its table (with the bias row), value; same shape, finite. */
    virtual Step matrixStep(MatrixId id, const core::Matrix& value) const = 0;
    /** The steps that change what a plain session alone may change: refused by a model session. */
    virtual Step optionsStep(const core::Options& options) const = 0;
    virtual Step shapeStep(core::AttentionModel resized) const = 0;
    virtual Step outputProjectionStep(bool on) const = 0;

    /** What writes the session as its file would be written to savePath (filePath: the file it was opened from),
     *  with the keys of extra added to its own; the job runs on any thread, on its own copy of the session. */
    virtual std::function<std::string()> serializing(const QString& savePath, const QString& filePath,
                                                     const nlohmann::json& extra = nlohmann::json::object()) const = 0;

    // What a checkpoint's session has and a plain one does not: one layer, no prediction, steps refused.
    /** The shown layer, 0-based, and how many there are. */
    virtual int shownLayer() const { return 0; }
    virtual int layerCount() const { return 1; }
    /** Shows layer (0-based): the views follow once it is computed. False when out of range or shown already. */
    virtual bool setShownLayer(int /*layer*/) { return false; }
    /** Which position's next token is predicted: −1 the last one, else 0-based. */
    virtual int predictionPosition() const { return -1; }
    virtual void setPredictionPosition(int /*position*/) {}
    /** The step that zeroes head (0-based) of the shown layer as a whole. */
    virtual Step zeroHeadStep(int head) const;
    /** The step that gives the shown layer's changes (or every layer's) back to the checkpoint. */
    virtual Step resetStep(bool everyLayer) const;
    /** True while the computation of the current state has not been delivered. */
    virtual bool isRunning() const { return false; }

    /** The shown model and the token line, for the edits of this kind (through the document only). */
    core::AttentionModel& model() { return m_model; }
    QString& tokenText() { return m_tokenText; }
    /** After an edit was applied (forward or back): runs what the result asks for. */
    virtual void edited(const EditResult& /*result*/) {}

signals:
    /** The shown model changed without an edit (a model's pass delivered its layer): the document announces it.
     *  validatedCopy as for Scheduler::changed(). */
    void shownModelChanged(const ui::ModelChange& change, std::shared_ptr<const core::AttentionModel> validatedCopy);
    /** The token line's text changed without an edit of the plain kind (a model session's text). */
    void tokenTextChanged();
    /** Something the status bar may show. */
    void message(const QString& text);
    /** A new prediction of the next token. */
    void predictionChanged(const ui::Prediction& prediction);
    /** predictionPosition() changed: chosen, or fallen back to the last one (−1). */
    void predictionPositionChanged(int position);
    /** A model session's lens or attribution changed (ModelSession::lens()). */
    void instrumentsChanged();
    /** shownLayer() changed; the shown model follows with shownModelChanged. */
    void shownLayerChanged(int layer);

protected:
    Session(core::AttentionModel model, QString tokenText, nlohmann::json extras);

    core::AttentionModel m_model;
    QString m_tokenText;
    nlohmann::json m_extras;
};

/** A session of SPEC §2: the attention model is the whole state; its edits change it cell by cell. */
class PlainSession final : public Session {
    Q_OBJECT
public:
    explicit PlainSession(core::Session session);

    const PlainSession* plainSession() const override { return this; }

    /** The session as a file holds it. */
    core::Session fileSession() const { return {m_model, m_extras}; }

    std::function<PreparedText()> prepareText(const QString& text) const override;
    bool preparesOnWorker(const QString& text) const override;
    Step cellStep(MatrixId id, int row, int col, double value) const override;
    Step matrixStep(MatrixId id, const core::Matrix& value) const override;
    Step optionsStep(const core::Options& options) const override;
    Step shapeStep(core::AttentionModel resized) const override;
    Step outputProjectionStep(bool on) const override;
    std::function<std::string()> serializing(const QString& savePath, const QString& filePath,
                                             const nlohmann::json& extra) const override;
};

/** core::readSession for the window: nothing, with error set (when given), when the file is refused. */
std::optional<core::AnySession> readSessionFile(const QString& path, QString* error);

/** The tokens joined by spaces: the token line of a session given as tokens. */
QString joinedTokens(const std::vector<std::string>& tokens);

}  // namespace ui
