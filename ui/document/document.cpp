#include "document.h"

#include "commands.h"
#include "core/edit.h"
#include "core/modelsession.h"
#include "core/presets.h"
#include "core/tokenizer.h"
#include "ui/render/atomicwrite.h"
#include "ui/render/displaynumber.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSignalBlocker>
#include <QThread>

#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace ui {

namespace {

/** Token line texts up to this many characters are tokenized at once (typing); longer ones (a paste)
 *  on a worker. */
constexpr qsizetype synchronousTokenText = 2000;

QString joinedTokens(const std::vector<std::string>& tokens)
{
    QStringList list;
    for (const auto& t : tokens)
        list << QString::fromStdString(t);
    return list.join(QLatin1Char(' '));
}

/** model with the tokens of text (rows the user gave stay with their tokens), or nothing and why
 *  not: no token, too many, or a model the engine would refuse (the memory budget) where it
 *  accepted the one before. */
std::optional<core::AttentionModel> retokenized(const core::AttentionModel& model, const QString& text, QString* error)
{
    auto tokens = core::tokenize(text.toStdString());
    if (tokens.empty()) {
        *error = Document::tr("Type at least one token: attention needs something to attend to.");
        return std::nullopt;
    }
    if (int(tokens.size()) > core::Limits::maxTokens) {
        *error = Document::tr("%1 tokens is more than the %2 this program accepts.")
                     .arg(tokens.size())
                     .arg(core::Limits::maxTokens);
        return std::nullopt;
    }
    core::AttentionModel after = model;
    if (tokens != model.tokens) {
        after.embeddings = core::embeddingsForTokens(model, tokens);
        after.tokens = std::move(tokens);
    }
    if (auto e = core::validate(after); e && !core::validate(model)) {
        *error = QString::fromStdString(*e);
        return std::nullopt;
    }
    return after;
}

/** What a model session's pass changed in the shown layer's model, from before to after (the layer it delivered for
 *  the current state). The same layer again (a new text, an edit in a layer below it) has the weights shown
 *  already: the edits of the shown layer reach its model as they are made (Edit::applyToModel), and a result is
 *  delivered only for the current state. Then only X changed, and the tokens with a new text; the views of the
 *  weights need not read theirs again. Another layer: anything. */
ModelChange layerChange(const core::AttentionModel& before, const core::AttentionModel& after)
{
    const bool sameLayer = before.origin && after.origin && before.origin->model == after.origin->model
        && before.origin->layer == after.origin->layer && before.origin->layers == after.origin->layers;
    if (!sameLayer)
        return ModelChange::of(ModelChange::Kind::Model);
    Q_ASSERT(before.wq == after.wq && before.wk == after.wk && before.wv == after.wv && before.wo == after.wo
             && before.bq == after.bq && before.bk == after.bk && before.bv == after.bv && before.bo == after.bo
             && before.options == after.options);
    return before.tokens == after.tokens ? ModelChange::wholeMatrix(MatrixId::Embeddings)
                                         : ModelChange::of(ModelChange::Kind::Tokens);
}

}  // namespace

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
        parts << (after.positionalEncoding == core::PositionalEncoding::Sinusoidal
                      ? tr("Turned on the sinusoidal positional encoding")
                      : tr("Turned off the positional encoding"));
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
          [this]() -> LatestJob<TokenJobResult>::Job {
              return [text = m_tokenRequest, model = m_session.model]() {
                  TokenJobResult result;
                  result.after = retokenized(model, text, &result.error);
                  return result;
              };
          },
          [this](TokenJobResult result) { tokenJobFinished(std::move(result)); })
{
    connect(&m_scheduler, &Scheduler::traceReady, this, &Document::traceChanged);
    connect(&m_scheduler, &Scheduler::errorChanged, this, &Document::errorChanged);
    connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
    loadSession(*core::preset("illustrated"), QString());
}

Document::~Document() = default;

const core::Matrix& Document::matrix(MatrixId id) const
{
    const core::Matrix* m = matrixOf(m_session.model, id);
    return m ? *m : m_noMatrix;
}

bool Document::setTokenText(const QString& text, QString* error)
{
    if (m_modelState)
        return setModelText(text, error);
    QString why;
    auto after = retokenized(model(), text, &why);
    if (!after) {
        if (error)
            *error = why;
        return false;
    }
    if (text != m_tokenText)
        pushTokens(std::move(*after), text);
    return true;
}

void Document::pushTokens(core::AttentionModel after, const QString& text)
{
    // One undo step per burst of typing: a pause, leaving the line, or any other step in between
    // (an undo, an edit elsewhere) starts the next one.
    // A long paste is named by its start: the step's name is a line of the Edit menu and the status bar.
    constexpr qsizetype namedCharacters = 40;
    const QString named = text.size() > namedCharacters ? text.left(namedCharacters - 1) + QStringLiteral("…") : text;
    push(tokensEdit(model(), m_tokenText, std::move(after.tokens), std::move(after.embeddings), text,
                    startsTypingBurst()),
         tr("Changed the tokens to “%1”").arg(named.simplified()));
    burstPushed();
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
    // A model's text is at most n_positions tokens: its encoding takes well under a millisecond.
    if (text.size() <= synchronousTokenText || m_modelState) {
        m_tokenJob.cancel();  // overtakes any long text still on the worker
        QString error;
        const bool applied = setTokenText(text, &error);
        emit tokenTextResult(text, applied ? QString() : error);
        return;
    }
    m_tokenJob.request();
}

void Document::tokenJobFinished(TokenJobResult result)
{
    const QString text = m_tokenRequest;
    if (!result.after) {
        emit tokenTextResult(text, result.error);
        return;
    }
    if (text != m_tokenText)
        pushTokens(std::move(*result.after), text);
    emit tokenTextResult(text, QString());
}

std::optional<Gpt2CellChange> Document::modelCellChange(MatrixId id, int row, int col, double value) const
{
    const int d = m_modelState->config().dModel;
    const auto weight = gpt2WeightOf(id, row, d);
    const float v = float(value);  // the checkpoint's weights are float32
    if (!weight || !std::isfinite(v))
        return std::nullopt;
    const int layer = m_modelState->layer;
    const int weightRow = row == d ? 0 : row;  // a bias is one row
    return Gpt2CellChange{layer, *weight, weightRow, col, m_modelState->overlay.weightValue(layer, *weight, weightRow, col), v};
}

bool Document::setCell(MatrixId id, int row, int col, double value)
{
    // Row rows() of a weight's table is its bias (b_Q, …) when the model has one.
    const double* cell = cellOf(m_session.model, id, row, col);
    if (!std::isfinite(value) || !cell)
        return false;
    if (m_modelState) {
        const auto change = modelCellChange(id, row, col, value);
        return change && pushModelCells({*change}, cellEditText(id, row, col, double(change->after)));
    }
    if (*cell == value)
        return true;
    push(cellEdit(id, row, col, *cell, value), cellEditText(id, row, col, value));
    return true;
}

std::vector<std::string> Document::vocabularyTokens() const
{
    if (!m_modelState)
        return {};
    return core::vocabularyTokens(m_modelState->checkpoint(), m_modelState->ids);
}

bool Document::pushModelCells(std::vector<Gpt2CellChange> cells, const QString& text)
{
    std::erase_if(cells, [](const Gpt2CellChange& c) {
        return std::bit_cast<std::uint32_t>(c.before) == std::bit_cast<std::uint32_t>(c.after);
    });
    if (cells.empty())
        return true;
    push(gpt2CellsEdit(std::move(cells)), text);
    return true;
}

bool Document::setMatrix(MatrixId id, const core::Matrix& value, const QString& text)
{
    const core::Matrix* m = matrixOf(model(), id);
    // The matrix alone, or its table: the weight's rows and its bias row below them.
    const bool table = m && value.rows() == tableRows(model(), id) && value.rows() > m->rows();
    if (!m || (value.rows() != m->rows() && !table) || value.cols() != m->cols() || !core::allFinite(value))
        return false;
    if (m_modelState) {
        if (id == MatrixId::Embeddings)
            return false;  // X is the layer's LayerNorm output, not a weight
        std::vector<Gpt2CellChange> cells;
        for (int r = 0; r < int(value.rows()); ++r)
            for (int c = 0; c < int(value.cols()); ++c) {
                const auto change = modelCellChange(id, r, c, value(r, c));
                if (!change)
                    return false;
                if (double(change->after) != *cellOf(model(), id, r, c))
                    cells.push_back(*change);
            }
        return pushModelCells(std::move(cells), text);
    }
    const core::Matrix before = table ? tableOf(model(), id) : *m;
    if (value == before)
        return true;
    push(matrixEdit(id, before, value), text);
    return true;
}

void Document::setOptions(const core::Options& options)
{
    if (m_modelState || options == model().options)  // a checkpoint fixes its options
        return;
    push(optionsEdit(model().options, options), optionsEditText(model().options, options));
}

bool Document::setDimensions(int dModel, int dk, int dv, int heads, QString* error)
{
    if (dModel == model().dModel() && dk == model().dK() && dv == model().dV() && heads == model().heads())
        return true;
    if (m_modelState) {
        if (error)
            *error = tr("The checkpoint fixes the dimensions of a model session.");
        return false;
    }
    core::AttentionModel after = core::resized(model(), dModel, dk, dv, heads);
    if (auto e = core::validate(after)) {
        if (error)
            *error = QString::fromStdString(*e);
        return false;
    }
    const QString text = dimensionsEditText(model(), dModel, dk, dv, heads);
    push(shapeEdit(model(), std::move(after)), text);
    return true;
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
    push(shapeEdit(model(), std::move(after)), tr("Changed d_out to %1").arg(dOut));
    return true;
}

void Document::setOutputProjection(bool on)
{
    if (m_modelState || on == model().wo.has_value())
        return;
    if (on) {
        const core::Matrix added = core::defaultOutputProjection(model());
        push(outputProjectionEdit(model(), true), tr("Added W_O (%1 × %2)").arg(added.rows()).arg(added.cols()));
    } else {
        push(outputProjectionEdit(model(), false), tr("Removed W_O"));
    }
}

void Document::applyEdit(Edit& edit, bool forward)
{
    if (m_rebuildingHistory)
        return;  // the steps being pushed again are applied already
    if (!m_modelState) {
        announce(edit.apply(m_session.model, m_tokenText, forward));
        return;
    }
    const QString text = m_tokenText;
    const ModelEditResult result = edit.applyToModel(*m_modelState, m_session.model, m_tokenText, forward);
    if (m_tokenText != text)
        emit tokenTextChanged();
    if (m_predictionPosition >= int(m_modelState->ids.size())) {
        m_predictionPosition = -1;  // the chosen token is gone: the last one, until another is chosen
        emit predictionPositionChanged(m_predictionPosition);
    }
    if (result.change)
        announce(*result.change);
    runModel(result.relayer);
}

void Document::announce(const ModelChange& change, std::shared_ptr<const core::AttentionModel> validatedCopy)
{
    emit modelChanged(change);
    m_scheduler.changed(change, std::move(validatedCopy));
    // A text waiting for the token line's worker applies to this model, not to the one before.
    if (m_tokenJob.isPending())
        m_tokenJob.request();
}

void Document::push(std::shared_ptr<Edit> edit, const QString& text)
{
    m_undo.push(new DocumentCommand(this, std::move(edit), text));
    trimHistory();
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
    const bool wasModel = m_modelState != nullptr;
    m_runner.reset(nullptr);
    m_modelState.reset();
    m_relayerWanted = false;
    m_predictionPosition = -1;
    m_prediction = {};
    m_modelGrid.reset();
    if (wasModel)
        emit predictionChanged();
    m_session = session;
    m_tokenText = joinedTokens(session.model.tokens);
    startHistory(path);
    announce(ModelChange::of(ModelChange::Kind::Model));
}

void Document::startHistory(const QString& path)
{
    m_burstIndex = -1;
    m_undo.clear();
    m_undo.setClean();
    if (m_filePath != path) {
        m_filePath = path;
        emit filePathChanged(path);
    }
    emit modifiedChanged(false);
}

bool Document::openFile(const QString& path, QString* error)
{
    std::string why;
    if (isModelSessionFile(path)) {
        auto session = core::readModelSessionFile(path.toStdString(), why);
        auto loaded = session ? loadModelSession(*session, path.toStdString(), core::ModelSessionNames(), why) : std::nullopt;
        if (!loaded) {
            if (error)
                *error = QString::fromStdString(why);
            return false;
        }
        loadModel(std::move(*loaded), QFileInfo(path).absoluteFilePath());
        return true;
    }
    auto session = core::readSessionFile(path.toStdString(), why);
    if (!session) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    loadSession(*session, QFileInfo(path).absoluteFilePath());
    return true;
}

bool Document::saveFile(const QString& path, QString* error)
{
    const std::string text = m_modelState ? core::serializeModelSession(currentModelSession(path))
                                          : core::serializeSession(currentSession());
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

core::Session Document::currentSession() const
{
    return m_session;
}

// Model sessions.

bool Document::setModelText(const QString& text, QString* error)
{
    const std::vector<int> ids = m_modelState->checkpoint().tokenizer().encode(text.toStdString());
    QString why;
    const int limit = m_modelState->config().positions;
    if (ids.empty())
        why = tr("Type at least one token: attention needs something to attend to.");
    else if (int(ids.size()) > limit)
        why = tr("The text is %1 tokens; %2 reads at most %3 (its n_positions). The text is kept as it was.")
                  .arg(ids.size())
                  .arg(modelName(m_modelState->folder))
                  .arg(limit);
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return false;
    }
    if (text != m_tokenText) {
        push(modelTextEdit(m_tokenText, text, startsTypingBurst()),
             tr("Changed the text to “%1”").arg((text.size() > 40 ? text.left(39) + QStringLiteral("…") : text).simplified()));
        burstPushed();
    }
    return true;
}

void Document::setShownLayer(int layer)
{
    if (!m_modelState || layer < 0 || layer >= layerCount() || layer == m_modelState->layer)
        return;
    m_modelState->layer = layer;
    emit shownLayerChanged(layer);
    runModel(true);
}

bool Document::isCellEdited(MatrixId id, int row, int col) const
{
    if (!m_modelState)
        return false;
    const int d = m_modelState->config().dModel;
    const auto weight = gpt2WeightOf(id, row, d);
    if (!weight || row < 0 || row > d || col < 0 || col >= d)
        return false;
    const int r = row == d ? 0 : row;
    const core::Gpt2Forward& o = m_modelState->overlay;
    return std::bit_cast<std::uint32_t>(o.weightValue(m_modelState->layer, *weight, r, col))
        != std::bit_cast<std::uint32_t>(o.checkpointValue(m_modelState->layer, *weight, r, col));
}

int Document::editCount() const
{
    return m_modelState ? int(m_modelState->overlay.edits().size()) : 0;
}

bool Document::zeroHead(int head)
{
    if (!m_modelState || head < 0 || head >= m_modelState->config().heads)
        return false;
    const int layer = m_modelState->layer, d = m_modelState->config().dModel;
    const int dv = d / m_modelState->config().heads;
    std::vector<Gpt2CellChange> cells;
    for (int r = head * dv; r < (head + 1) * dv; ++r)
        for (int c = 0; c < d; ++c)
            cells.push_back({layer, core::Gpt2Weight::Output, r, c,
                             m_modelState->overlay.weightValue(layer, core::Gpt2Weight::Output, r, c), 0.0f});
    return pushModelCells(std::move(cells), tr("Zeroed head %1 of layer %2").arg(head + 1).arg(layer + 1));
}

bool Document::resetLayer()
{
    if (!m_modelState)
        return false;
    std::vector<Gpt2CellChange> cells;
    for (const core::Gpt2Edit& e : m_modelState->overlay.edits())
        if (e.layer == m_modelState->layer)
            cells.push_back({e.layer, e.weight, e.row, e.col, e.value,
                             m_modelState->overlay.checkpointValue(e.layer, e.weight, e.row, e.col)});
    return pushModelCells(std::move(cells), tr("Reset layer %1 to the checkpoint").arg(m_modelState->layer + 1));
}

bool Document::resetAll()
{
    if (!m_modelState)
        return false;
    std::vector<Gpt2CellChange> cells;
    for (const core::Gpt2Edit& e : m_modelState->overlay.edits())
        cells.push_back({e.layer, e.weight, e.row, e.col, e.value,
                         m_modelState->overlay.checkpointValue(e.layer, e.weight, e.row, e.col)});
    return pushModelCells(std::move(cells), tr("Reset every layer to the checkpoint"));
}

void Document::setPredictionPosition(int position)
{
    if (position == m_predictionPosition)
        return;
    m_predictionPosition = position;
    emit predictionPositionChanged(position);
    if (m_modelState)
        runModel(false);
}

void Document::runModel(bool relayer)
{
    m_relayerWanted = m_relayerWanted || relayer;
    m_runner.request();
}

ModelRunner::Request Document::modelRequest()
{
    ModelRunner::Request r;
    r.ids = m_modelState->ids;
    r.edits = m_modelState->overlay.edits();
    r.layer = m_modelState->layer;
    r.position = m_predictionPosition;
    r.wantLayer = m_relayerWanted;
    r.modelName = modelName(m_modelState->folder);
    r.grid = m_modelGrid;
    return r;
}

void Document::modelRunDone(ModelRunResult result)
{
    if (!m_modelState)
        return;
    m_prediction = std::move(result.prediction);
    m_modelGrid = std::move(result.grid);
    if (result.layer) {
        m_relayerWanted = false;
        const ModelChange change = layerChange(m_session.model, *result.layer);
        m_session.model = std::move(*result.layer);
        announce(change, std::move(result.validatedLayer));
    }
    // A prediction still `comparing` is the edited pass shown first: the same job brings the comparison
    // (isRunningModel() stays true until then).
    emit predictionChanged();
}

void Document::loadModel(LoadedModel loaded, const QString& path)
{
    const core::OpenedModelSession& opened = loaded.opened;
    auto state = std::make_unique<ModelState>(opened.forward->sharedCheckpoint());
    state->folder = QString::fromStdString(opened.folder);
    state->modelPath = opened.session.modelPath;
    state->text = opened.session.text;
    state->ids = opened.forward->tokens();
    state->layer = opened.session.layer - 1;
    state->extras = opened.session.extras;
    std::string ignored;
    for (const core::Gpt2Edit& e : opened.forward->edits())
        state->overlay.setEdit(e.layer, e.weight, e.row, e.col, e.value, ignored);

    m_tokenJob.cancel();
    m_runner.reset(opened.forward);
    m_modelState = std::move(state);
    m_relayerWanted = false;
    m_predictionPosition = -1;
    m_prediction = {};
    m_modelGrid.reset();
    m_session = core::Session{};
    m_session.model = std::move(loaded.layer);
    m_tokenText = QString::fromStdString(m_modelState->text);
    startHistory(path);
    emit shownLayerChanged(m_modelState->layer);
    announce(ModelChange::of(ModelChange::Kind::Model));
    emit tokenTextChanged();
    runModel(false);
}

core::ModelSession Document::currentModelSession(const QString& savePath) const
{
    core::ModelSession session;
    if (!m_modelState)
        return session;
    // A relative model.path is kept while the file stays in its folder; saved elsewhere, the folder is written
    // as it was found.
    const bool relative = !m_modelState->modelPath.empty() && QDir::isRelativePath(QString::fromStdString(m_modelState->modelPath));
    const bool sameFolder = !m_filePath.isEmpty() && !savePath.isEmpty()
        && QFileInfo(savePath).absoluteDir() == QFileInfo(m_filePath).absoluteDir();
    session.modelPath = relative && (sameFolder || savePath.isEmpty()) ? m_modelState->modelPath
                                                                        : QDir(m_modelState->folder).absolutePath().toStdString();
    session.layer = m_modelState->layer + 1;
    session.text = m_modelState->text;
    session.extras = m_modelState->extras;
    for (const core::Gpt2Edit& e : m_modelState->overlay.edits())
        session.edits.push_back({e.layer + 1, e.weight, e.row, e.col, double(e.value)});
    return session;
}

bool Document::waitForModel(int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    const auto left = [&] { return timeoutMs < 0 ? -1 : std::max(0, timeoutMs - int(clock.elapsed())); };
    while (m_runner.isPending() || isComputing()) {
        if (timeoutMs >= 0 && clock.elapsed() > timeoutMs)
            return false;
        if (m_runner.isPending()) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
            QThread::msleep(1);
        }
        else if (!waitForTrace(left()))
            return false;
    }
    return true;
}

}  // namespace ui
