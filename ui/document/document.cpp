#include "document.h"

#include "commands.h"
#include "core/attention/edit.h"
#include "core/session/modelsession.h"
#include "core/session/presets.h"
#include "ui/render/atomicwrite.h"
#include "ui/render/displaynumber.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSignalBlocker>
#include <QThread>

#include <cmath>
#include <utility>
#include <vector>

namespace ui {

QString Document::cellEditText(MatrixId id, int row, int col, double value) const
{
    const core::Matrix& weight = matrix(id);
    if (id != MatrixId::Embeddings && row == weight.rows())  // a weight's bias row
        return tr("Changed %1 column %2 to %3")
            .arg(biasTitle(id))
            .arg(col + 1)
            .arg(render::displayNumber(value, 'g', render::shortestPrecision));
    return tr("Changed %1 row %2, column %3 to %4")
        .arg(matrixTitle(id))
        .arg(row + 1)
        .arg(col + 1)
        .arg(render::displayNumber(value, 'g', render::shortestPrecision));
}

QString Document::optionsEditText(const core::Options& before, const core::Options& after)
{
    QStringList parts;
    if (before.scale != after.scale)
        parts << (after.scale ? tr("Turned on dividing the scores by √d_k") : tr("Turned off dividing the scores by √d_k"));
    if (before.temperature != after.temperature)
        parts << tr("Changed the temperature to %1")
                     .arg(render::displayNumber(after.temperature, 'g', render::shortestPrecision));
    if (before.mask != after.mask)
        parts << (after.mask == core::Mask::Causal ? tr("Turned on the causal mask") : tr("Turned off the causal mask"));
    if (before.positionalEncoding != after.positionalEncoding)
        parts << (after.positionalEncoding == core::PositionalEncoding::Sinusoidal ? tr("Turned on the sinusoidal positional encoding")
                  : after.positionalEncoding == core::PositionalEncoding::Rotary ? tr("Turned on rotary positions")
                                                                                 : tr("Turned off the positional encoding"));
    if (before.ropeTheta != after.ropeTheta)
        parts << tr("Changed the rotary θ to %1").arg(render::displayNumber(after.ropeTheta, 'g', render::shortestPrecision));
    if (before.rotaryFraction != after.rotaryFraction)
        parts << tr("Changed the rotated share to %1")
                     .arg(render::displayNumber(after.rotaryFraction, 'g', render::shortestPrecision));
    if (before.qkNorm != after.qkNorm)
        parts << (after.qkNorm ? tr("Turned on q/k norm") : tr("Turned off q/k norm"));
    if (parts.isEmpty())
        return tr("Changed the options");
    return parts.join(tr("; "));
}

QString Document::dimensionsEditText(const core::AttentionModel& model, int dModel, int dk, int dv, int heads)
{
    QStringList parts;
    if (heads != model.heads())
        parts << tr("the heads to %1").arg(heads);
    if (dModel != model.dModel())
        parts << tr("d_model to %1").arg(dModel);
    if (dk != model.dK())
        parts << tr("d_k to %1").arg(dk);
    if (dv != model.dV())
        parts << tr("d_v to %1").arg(dv);
    if (parts.isEmpty())
        return tr("Changed the dimensions");
    return tr("Changed %1").arg(parts.join(tr(", ")));
}

Document::Document(QObject* parent)
    : QObject(parent),
      m_tokenJob(
          [this]() -> LatestJob<PreparedText>::Job { return m_session->prepareText(m_tokenRequest); },
          [this](PreparedText prepared) { tokenJobFinished(std::move(prepared)); })
{
    connect(&m_scheduler, &Scheduler::traceReady, this, &Document::traceChanged);
    connect(&m_scheduler, &Scheduler::errorChanged, this, &Document::errorChanged);
    connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
    connect(&m_undo, &QUndoStack::indexChanged, this, [this] {
        if (!m_appendPushing)
            stopAppending();  // an undo or redo in between
    });
    // An Append's next token waits for the pass of the text before it; chosen after the delivery has returned.
    connect(this, &Document::predictionChanged, this, &Document::appendNext, Qt::QueuedConnection);
    loadSession(*core::preset("illustrated"), QString());
}

Document::~Document()
{
    m_tokenJob.cancel();
}

const core::Matrix& Document::matrix(MatrixId id) const
{
    const core::Matrix* m = matrixOf(model(), id);
    return m ? *m : m_noMatrix;
}

bool Document::setTokenText(const QString& text, QString* error)
{
    return pushText(m_session->prepareText(text)(), error);
}

bool Document::pushText(const PreparedText& prepared, QString* error)
{
    if (!prepared.step) {
        if (error)
            *error = prepared.error;
        return false;
    }
    // One undo step per burst of typing: a pause, leaving the line, or any other step in between (an undo, an edit
    // elsewhere) starts the next one.
    Step step = prepared.step(*m_session, startsTypingBurst());
    if (!step.edit)
        return true;
    push(std::move(step));
    burstPushed();
    return true;
}

bool Document::startsTypingBurst() const
{
    return m_burstIndex != m_undo.index() || m_undo.index() != m_undo.count() || !m_sinceTyping.isValid()
        || m_sinceTyping.elapsed() > m_typingPause.count();
}

void Document::burstPushed()
{
    m_burstIndex = m_undo.index();
    m_sinceTyping.start();
}

void Document::requestTokenText(const QString& text)
{
    m_tokenRequest = text;
    if (!m_session->preparesOnWorker(text)) {
        m_tokenJob.cancel();  // overtakes any long text still on the worker
        QString error;
        const bool applied = setTokenText(text, &error);
        emit tokenTextResult(text, applied ? QString() : error);
        return;
    }
    m_tokenJob.request();
}

void Document::tokenJobFinished(PreparedText prepared)
{
    const QString text = m_tokenRequest;
    QString error;
    pushText(prepared, &error);
    emit tokenTextResult(text, error);
}

bool Document::setCell(MatrixId id, int row, int col, double value)
{
    // Row rows() of a weight's table is its bias (b_Q, …) when the model has one.
    if (!std::isfinite(value) || !cellOf(model(), id, row, col))
        return false;
    const double stored = m_session->storedValue(value);
    return push(m_session->cellStep(id, row, col, stored), cellEditText(id, row, col, stored));
}

bool Document::setMatrix(MatrixId id, const core::Matrix& value, const QString& text)
{
    const core::Matrix* m = matrixOf(model(), id);
    // The matrix alone, or its table: the weight's rows and its bias row below them.
    const bool table = m && value.rows() == tableRows(model(), id) && value.rows() > m->rows();
    if (!m || (value.rows() != m->rows() && !table) || value.cols() != m->cols() || !core::allFinite(value))
        return false;
    return push(m_session->matrixStep(id, value), text);
}

void Document::setOptions(const core::Options& options)
{
    push(m_session->optionsStep(options), optionsEditText(model().options, options));
}

bool Document::setDimensions(int dModel, int dk, int dv, int heads, QString* error)
{
    if (dModel == model().dModel() && dk == model().dK() && dv == model().dV() && heads == model().heads())
        return true;
    core::AttentionModel after = core::resized(model(), dModel, dk, dv, heads);
    if (auto e = core::validate(after)) {
        if (error)
            *error = QString::fromStdString(*e);
        return false;
    }
    const QString text = dimensionsEditText(model(), dModel, dk, dv, heads);
    return push(m_session->shapeStep(std::move(after)), text, error);
}

bool Document::setKvHeads(int kvHeads, QString* error)
{
    if (kvHeads == model().kvHeads())
        return true;
    core::AttentionModel after = core::withKvHeads(model(), kvHeads);
    if (after.kvHeads() != kvHeads) {
        if (error)
            *error = tr("the K/V heads must divide the heads (%1)").arg(model().heads());
        return false;
    }
    return push(m_session->shapeStep(std::move(after)), tr("Set the K/V heads to %1").arg(kvHeads), error);
}

bool Document::setOutputWidth(int dOut, QString* error)
{
    if (!model().wo) {
        if (error)
            *error = tr("There is no W_O: add the output projection first.");
        return false;
    }
    if (dOut == model().wo->cols())
        return true;
    core::AttentionModel after = core::withOutputWidth(model(), dOut);
    if (auto e = core::validate(after); e || dOut < 1) {
        if (error)
            *error = e ? QString::fromStdString(*e) : tr("d_out must be at least 1.");
        return false;
    }
    return push(m_session->shapeStep(std::move(after)), tr("Changed d_out to %1").arg(dOut), error);
}

void Document::setOutputProjection(bool on)
{
    QString text = tr("Removed W_O");
    if (on) {
        const core::Matrix added = core::defaultOutputProjection(model());
        text = tr("Added W_O (%1 × %2)").arg(added.rows()).arg(added.cols());
    }
    push(m_session->outputProjectionStep(on), text);
}

void Document::applyEdit(Edit& edit, bool forward)
{
    if (m_rebuildingHistory)
        return;  // the steps being pushed again are applied already
    const EditResult result = edit.apply(*m_session, forward);
    if (result.change)
        announce(*result.change);
    m_session->edited(result);
}

void Document::announce(const ModelChange& change, std::shared_ptr<const core::AttentionModel> validatedCopy)
{
    emit modelChanged(change);
    m_scheduler.changed(change, std::move(validatedCopy));
    // A text waiting for the token line's worker applies to this model, not to the one before.
    if (m_tokenJob.isPending())
        m_tokenJob.request();
}

bool Document::push(Step step, const QString& text, QString* error)
{
    if (step.refused()) {
        if (error)
            *error = step.error;
        return false;
    }
    if (step.edit) {
        if (!m_appendPushing)
            stopAppending();  // another step in between ends an Append of several tokens
        m_undo.push(new DocumentCommand(this, std::move(step.edit), step.name.isEmpty() ? text : step.name));
        trimHistory();
    }
    return true;
}

std::size_t Document::undoBytes() const
{
    std::size_t bytes = 0;
    for (int i = 0; i < m_undo.count(); ++i)
        bytes += commandBytes(m_undo.command(i));
    return bytes;
}

void Document::trimHistory()
{
    const int count = m_undo.count();
    if (count > 0 && !m_undo.canUndo() && !m_undo.canRedo())
        return;  // a macro is open (a slider being dragged): its steps are counted once it is closed
    std::vector<std::size_t> sizes(std::size_t(count), 0);
    std::size_t total = 0;
    for (int i = 0; i < count; ++i)
        total += sizes[std::size_t(i)] = commandBytes(m_undo.command(i));
    if (total <= undoMemoryBound)
        return;
    // Drop the oldest steps until the rest fit, the newest always kept; and at least a sixteenth of
    // them, so that a long history of small steps is not rebuilt at every new one.
    int drop = 0;
    while (drop < count - 1 && (total > undoMemoryBound || drop < count / 16))
        total -= sizes[std::size_t(drop++)];
    if (drop == 0)
        return;
    // QUndoStack drops its oldest steps only under a count limit, which it lets be set only while it is
    // empty: the history is rebuilt from the edits it keeps. A push leaves no step to redo, so the
    // index is at the top; the clean state keeps its place, or is gone with the steps dropped.
    Q_ASSERT(m_undo.index() == count);
    const int clean = m_undo.cleanIndex() - drop;  // negative: dropped
    std::vector<QUndoCommand*> kept;
    for (int i = drop; i < count; ++i)
        kept.push_back(copyOfCommand(m_undo.command(i)));
    {
        // The state seen from outside stays as it was (the model, clean or not, the texts to undo and
        // redo): the stack's signals wait until it is rebuilt.
        const QSignalBlocker blocker(&m_undo);
        m_rebuildingHistory = true;
        m_undo.clear();
        for (std::size_t i = 0; i < kept.size(); ++i) {
            if (int(i) == clean)
                m_undo.setClean();
            m_undo.push(kept[i]);
        }
        if (clean == int(kept.size()))
            m_undo.setClean();
        else if (clean < 0)
            m_undo.resetClean();
        m_rebuildingHistory = false;
    }
    emit m_undo.indexChanged(m_undo.index());  // a history view lists the steps again
}

void Document::loadRecovered(const core::Session& session, const QString& path)
{
    loadSession(session, path);
    markRecovered();
}

void Document::markRecovered()
{
    m_undo.resetClean();
}

void Document::loadSession(const core::Session& session, const QString& path)
{
    setSession(std::make_unique<PlainSession>(session), path);
}

void Document::loadModel(LoadedModel loaded, const QString& path)
{
    setSession(std::make_unique<ModelSession>(std::move(loaded), path), path);
}

void Document::setSession(std::unique_ptr<Session> session, const QString& path)
{
    m_tokenJob.cancel();
    stopAppending();
    m_session = std::move(session);
    const Session* s = m_session.get();
    connect(s, &Session::shownModelChanged, this, &Document::announce);
    connect(s, &Session::tokenTextChanged, this, &Document::tokenTextChanged);
    connect(s, &Session::message, this, &Document::message);
    connect(s, &Session::predictionChanged, this, &Document::predictionChanged);
    connect(s, &Session::predictionPositionChanged, this, &Document::predictionPositionChanged);
    connect(s, &Session::shownLayerChanged, this, &Document::shownLayerChanged);
    connect(s, &Session::instrumentsChanged, this, &Document::instrumentsChanged);
    if (ModelSession* model = m_session->modelSession()) {
        model->setInstrumentShown(Instrument::Lens, m_lensShown);
        model->setInstrumentShown(Instrument::Attribution, m_attributionShown);
    }
    emit predictionChanged(Prediction());  // the old session's prediction, if any, is gone
    emit instrumentsChanged();
    emit instrumentTargetChanged(-1);
    m_burstIndex = -1;
    m_undo.clear();
    m_undo.setClean();
    if (m_filePath != path) {
        m_filePath = path;
        emit filePathChanged(path);
    }
    emit modifiedChanged(false);
    emit shownLayerChanged(m_session->shownLayer());
    announce(ModelChange::of(ModelChange::Kind::Model));
    emit tokenTextChanged();
}

bool Document::openFile(const QString& path, QString* error)
{
    auto read = readSessionFile(path, error);
    if (!read)
        return false;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (auto* plain = std::get_if<core::Session>(&*read)) {
        loadSession(*plain, absolute);
        return true;
    }
    std::string why;
    auto loaded = loadModelSession(std::get<core::ModelSession>(*read), path.toStdString(), core::ModelSessionNames(), why);
    if (!loaded) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    loadModel(std::move(*loaded), absolute);
    return true;
}

bool Document::saveFile(const QString& path, QString* error, const nlohmann::json& extra)
{
    const std::string text = m_session->serializing(path, m_filePath, extra)();
    QString reason;
    if (!render::replaceFile(path, QByteArray::fromStdString(text), &reason)) {
        const QString why = tr("%1: saving failed: %2").arg(path, reason);
        if (error)
            *error = why;
        emit message(why);
        return false;
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (absolute != m_filePath) {
        m_filePath = absolute;
        emit filePathChanged(absolute);
    }
    m_undo.setClean();
    emit message(tr("Saved %1").arg(QFileInfo(path).fileName()));
    return true;
}

// The steps and choices only a model session has: a plain one refuses them (false).

void Document::setShownLayer(int layer)
{
    m_session->setShownLayer(layer);
}

bool Document::appendTokens(int count, QString* error)
{
    if (!modelSession() || count < 1) {
        if (error)
            *error = tr("Only a model writes: open one first (File › Open Built-in Model).");
        return false;
    }
    stopAppending();
    m_appendLeft = count;
    ++m_appendBatch;
    m_appendWritten = 0;
    m_appendStart = tokenText();
    emit appendingChanged(true);
    appendNext();
    return true;
}

void Document::appendNext()
{
    ModelSession* session = m_session->modelSession();
    if (m_appendLeft == 0 || !session || !session->canChoose())
        return;  // the pass still runs: its prediction calls again
    Step step = session->appendStep(m_appendBatch, m_appendStart, m_appendWritten);
    if (step.refused()) {
        stopAppending();
        emit message(step.error);
        return;
    }
    const QString name = step.name;
    m_appendPushing = true;
    push(std::move(step));
    m_appendPushing = false;
    ++m_appendWritten;
    if (m_appendLeft > 1) {
        --m_appendLeft;
        return;
    }
    stopAppending();
    // Said where the model's tokens are not what the text typed again would give (BPE merges across the end, a
    // character cut in two): the window keeps the model's tokens, a file keeps the text.
    if (const auto from = session->rereadDifference())
        emit message(tr("%1. The model's tokens are kept; typed again or saved, the text reads as other tokens from "
                        "token %2.")
                         .arg(name)
                         .arg(*from + 1));
    else
        emit message(name);
}

void Document::stopAppending()
{
    if (m_appendLeft == 0)
        return;
    m_appendLeft = 0;
    emit appendingChanged(false);
}

void Document::setSampling(const core::Sampling& sampling)
{
    if (ModelSession* session = m_session->modelSession())
        session->setSampling(sampling);
}

bool Document::zeroHead(int head)
{
    return push(m_session->zeroHeadStep(head));
}

bool Document::resetLayer()
{
    return push(m_session->resetStep(false));
}

bool Document::resetAll()
{
    return push(m_session->resetStep(true));
}

void Document::setPredictionPosition(int position)
{
    m_session->setPredictionPosition(position);
}

std::shared_ptr<const LensResult> Document::lens() const
{
    return modelSession() ? modelSession()->lens() : nullptr;
}

std::shared_ptr<const AttributionResult> Document::attribution() const
{
    return modelSession() ? modelSession()->attribution() : nullptr;
}

std::string Document::instrumentFile(Instrument which, bool csv) const
{
    return modelSession() ? modelSession()->instrumentFile(which, csv) : std::string();
}

void Document::setInstrumentShown(Instrument which, bool shown)
{
    (which == Instrument::Lens ? m_lensShown : m_attributionShown) = shown;
    if (ModelSession* model = m_session->modelSession())
        model->setInstrumentShown(which, shown);
}

void Document::setInstrumentTarget(int id)
{
    ModelSession* model = m_session->modelSession();
    if (!model || model->instrumentTarget() == id)
        return;
    model->setInstrumentTarget(id);
    emit instrumentTargetChanged(id);
}

int Document::instrumentTarget() const
{
    return modelSession() ? modelSession()->instrumentTarget() : -1;
}

std::optional<int> Document::singleToken(const QString& text, QString* error) const
{
    if (!modelSession()) {
        if (error)
            *error = tr("Only a model has tokens to choose.");
        return std::nullopt;
    }
    return modelSession()->singleToken(text, error);
}

void Document::setBlockPosition(std::optional<int> position)
{
    if (ModelSession* model = m_session->modelSession())
        model->setBlockPosition(position);
}

bool Document::waitForModel(int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    const auto left = [&] { return timeoutMs < 0 ? -1 : std::max(0, timeoutMs - int(clock.elapsed())); };
    const auto running = [this] { return m_session->isRunning(); };
    while (running() || isComputing()) {
        if (timeoutMs >= 0 && clock.elapsed() > timeoutMs)
            return false;
        if (running()) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
            QThread::msleep(1);
        }
        else if (!waitForTrace(left()))
            return false;
    }
    return true;
}

}  // namespace ui
