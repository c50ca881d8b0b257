#include "document.h"

#include "commands.h"
#include "core/edit.h"
#include "core/presets.h"
#include "core/tokenizer.h"
#include "ui/render/displaynumber.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSaveFile>
#include <QSignalBlocker>

#include <cmath>
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

}  // namespace

QString Document::cellEditText(MatrixId id, int row, int col, double value)
{
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
    const bool startsBurst = m_burstIndex != m_undo.index() || m_undo.index() != m_undo.count()
        || !m_sinceTyping.isValid() || m_sinceTyping.elapsed() > m_typingPause.count();
    // A long paste is named by its start: the step's name is a line of the Edit menu and the status bar.
    constexpr qsizetype namedCharacters = 40;
    const QString named = text.size() > namedCharacters ? text.left(namedCharacters - 1) + QStringLiteral("…") : text;
    push(tokensEdit(model(), m_tokenText, std::move(after.tokens), std::move(after.embeddings), text, startsBurst),
         tr("Changed the tokens to “%1”").arg(named.simplified()));
    m_burstIndex = m_undo.index();
    m_sinceTyping.start();
}

void Document::requestTokenText(const QString& text)
{
    m_tokenRequest = text;
    if (text.size() <= synchronousTokenText) {
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

bool Document::setCell(MatrixId id, int row, int col, double value)
{
    const core::Matrix& m = matrix(id);
    if (!std::isfinite(value) || row < 0 || col < 0 || row >= m.rows() || col >= m.cols())
        return false;
    if (m(row, col) == value)
        return true;
    push(cellEdit(id, row, col, m(row, col), value), cellEditText(id, row, col, value));
    return true;
}

bool Document::setMatrix(MatrixId id, const core::Matrix& value, const QString& text)
{
    const core::Matrix* m = matrixOf(model(), id);
    if (!m || value.rows() != m->rows() || value.cols() != m->cols() || !core::allFinite(value))
        return false;
    if (value == *m)
        return true;
    push(matrixEdit(id, *m, value), text);
    return true;
}

void Document::setOptions(const core::Options& options)
{
    if (options == model().options)
        return;
    push(optionsEdit(model().options, options), optionsEditText(model().options, options));
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
    if (on == model().wo.has_value())
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
    announce(edit.apply(m_session.model, m_tokenText, forward));
}

void Document::announce(const ModelChange& change)
{
    emit modelChanged(change);
    m_scheduler.changed(change);
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
    m_undo.resetClean();
}

void Document::loadSession(const core::Session& session, const QString& path)
{
    m_session = session;
    m_tokenText = joinedTokens(session.model.tokens);
    m_burstIndex = -1;
    m_undo.clear();
    m_undo.setClean();
    if (m_filePath != path) {
        m_filePath = path;
        emit filePathChanged(path);
    }
    emit modifiedChanged(false);
    announce(ModelChange::of(ModelChange::Kind::Model));
}

bool Document::openFile(const QString& path, QString* error)
{
    std::string why;
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
    const std::string text = core::serializeSession(currentSession());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        const QString why = tr("%1: cannot be written: %2").arg(path, file.errorString());
        if (error)
            *error = why;
        emit message(why);
        return false;
    }
    file.write(text.data(), qint64(text.size()));
    if (!file.commit()) {
        const QString why = tr("%1: saving failed: %2").arg(path, file.errorString());
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

}  // namespace ui
