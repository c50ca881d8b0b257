#include "document.h"

#include "commands.h"
#include "core/attention.h"
#include "core/edit.h"
#include "core/presets.h"
#include "core/tokenizer.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFileInfo>
#include <QSaveFile>
#include <QTimer>
#include "background.h"

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

/** Below this many multiply-adds a computation runs at once on the GUI thread: it takes well
 *  under a millisecond, and the result is there before the next paint. */
constexpr double synchronousWork = 2e5;

/** Token line texts up to this many characters are tokenized at once (typing); longer ones (a paste)
 *  on a worker. */
constexpr qsizetype synchronousTokenText = 2000;

double work(const core::AttentionModel& m)
{
    const double n = m.n(), d = m.dModel();
    return n * d * double(m.wq.cols() * 2 + m.wv.cols()) + 2.0 * n * n * double(m.wq.cols() + m.wv.cols());
}

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

QString matrixKey(MatrixId id)
{
    switch (id) {
    case MatrixId::Embeddings: return QStringLiteral("embeddings");
    case MatrixId::Query: return QStringLiteral("weights.query");
    case MatrixId::Key: return QStringLiteral("weights.key");
    case MatrixId::Value: return QStringLiteral("weights.value");
    case MatrixId::Output: return QStringLiteral("weights.output");
    }
    return {};
}

core::Matrix* matrixOf(core::AttentionModel& m, MatrixId id)
{
    switch (id) {
    case MatrixId::Embeddings: return &m.embeddings;
    case MatrixId::Query: return &m.wq;
    case MatrixId::Key: return &m.wk;
    case MatrixId::Value: return &m.wv;
    case MatrixId::Output: return m.wo ? &*m.wo : nullptr;
    }
    return nullptr;
}

const core::Matrix* matrixOf(const core::AttentionModel& m, MatrixId id)
{
    return matrixOf(const_cast<core::AttentionModel&>(m), id);
}

Document::Document(QObject* parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &Document::workerFinished);
    connect(&m_tokenWatcher, &QFutureWatcherBase::finished, this, &Document::tokenJobFinished);
    connect(this, &Document::modelChanged, this, [this] { ++m_modelVersion; });
    connect(&m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
    loadSession(*core::preset("illustrated"), QString());
}

Document::~Document()
{
    m_tokenWatcher.waitForFinished();
    m_watcher.waitForFinished();
}

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
        m_undo.push(new ModelCommand(this, model(), m_tokenText, std::move(*after), text, tr("Edit tokens"), TokenTextId));
    return true;
}

void Document::requestTokenText(const QString& text)
{
    ++m_tokenStamp;
    m_tokenRequest = text;
    if (text.size() <= synchronousTokenText) {
        m_tokenPending = false;  // overtakes any long text still on the worker
        QString error;
        const bool applied = setTokenText(text, &error);
        emit tokenTextResult(text, applied ? QString() : error);
        return;
    }
    m_tokenPending = true;
    if (m_tokenJob == 0)
        startTokenJob();
}

void Document::startTokenJob()
{
    m_tokenJob = m_tokenStamp;
    m_tokenJobModel = m_modelVersion;
    m_tokenWatcher.setFuture(runInBackground([text = m_tokenRequest, model = m_session.model]() {
        TokenJobResult result;
        result.after = retokenized(model, text, &result.error);
        return result;
    }));
}

void Document::tokenJobFinished()
{
    const quint64 stamp = m_tokenJob;
    m_tokenJob = 0;
    TokenJobResult result = m_tokenWatcher.result();
    if (!m_tokenPending)
        return;  // a short text was applied meanwhile
    if (stamp != m_tokenStamp || m_tokenJobModel != m_modelVersion) {
        startTokenJob();  // a newer text came, or the model changed under the job: only the newest counts
        return;
    }
    m_tokenPending = false;
    const QString text = m_tokenRequest;
    if (!result.after) {
        emit tokenTextResult(text, result.error);
        return;
    }
    if (text != m_tokenText)
        m_undo.push(new ModelCommand(this, model(), m_tokenText, std::move(*result.after), text, tr("Edit tokens"),
                                     TokenTextId));
    emit tokenTextResult(text, QString());
}

bool Document::setCell(MatrixId id, int row, int col, double value)
{
    const core::Matrix& m = matrix(id);
    if (!std::isfinite(value) || row < 0 || col < 0 || row >= m.rows() || col >= m.cols())
        return false;
    if (m(row, col) == value)
        return true;
    m_undo.push(new SetCellCommand(this, id, row, col, m(row, col), value));
    return true;
}

bool Document::setMatrix(MatrixId id, const core::Matrix& value, const QString& text)
{
    const core::Matrix* m = matrixOf(model(), id);
    if (!m || value.rows() != m->rows() || value.cols() != m->cols() || !core::allFinite(value))
        return false;
    if (value == *m)
        return true;
    m_undo.push(new SetMatrixCommand(this, id, *m, value, text));
    return true;
}

void Document::setOptions(const core::Options& options)
{
    if (options == model().options)
        return;
    core::AttentionModel after = model();
    after.options = options;
    m_undo.push(new ModelCommand(this, model(), m_tokenText, std::move(after), m_tokenText, tr("Change options")));
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
    m_undo.push(new ModelCommand(this, model(), m_tokenText, std::move(after), m_tokenText, tr("Change dimensions")));
    return true;
}

void Document::setOutputProjection(bool on)
{
    if (on == model().wo.has_value())
        return;
    core::AttentionModel after = model();
    if (on)
        after.wo = core::Matrix::Identity(model().wv.cols(), model().wv.cols());
    else
        after.wo.reset();
    m_undo.push(new ModelCommand(this, model(), m_tokenText, std::move(after), m_tokenText,
                                 on ? tr("Add W_O") : tr("Remove W_O")));
}

void Document::applyModel(const core::AttentionModel& model, const QString& tokenText)
{
    m_session.model = model;
    m_tokenText = tokenText;
    emit modelChanged();
    recompute();
}

bool Document::applyCell(MatrixId id, int row, int col, double value)
{
    core::Matrix* m = matrixOf(m_session.model, id);
    if (!m || row < 0 || col < 0 || row >= m->rows() || col >= m->cols())
        return false;
    const CellChange change{id, row, col, (*m)(row, col), value};
    (*m)(row, col) = value;
    m_changedCell = change;
    emit modelChanged();
    m_changedCell.reset();
    recompute(&change);
    return true;
}

bool Document::applyMatrix(MatrixId id, const core::Matrix& value)
{
    core::Matrix* m = matrixOf(m_session.model, id);
    if (!m || value.rows() != m->rows() || value.cols() != m->cols())
        return false;
    *m = value;
    emit modelChanged();
    recompute();
    return true;
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
    m_undo.clear();
    m_undo.setClean();
    if (m_filePath != path) {
        m_filePath = path;
        emit filePathChanged(path);
    }
    emit modelChanged();
    emit modifiedChanged(false);
    recompute();
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

void Document::setError(const QString& message)
{
    if (message == m_error)
        return;
    m_error = message;
    emit errorChanged(m_error);
}

void Document::recompute(const CellChange* cell)
{
    const quint64 stamp = ++m_requested;
    // Past this many cells since the trace shown, setting them one by one costs more than copying the model.
    constexpr std::size_t loggedCells = 4096;
    if (cell && m_cellLog.size() < loggedCells) {
        m_cellLog.push_back({stamp, *cell});
    } else {
        m_wholeChangeStamp = stamp;
        m_cellLog.clear();
    }
    // Validation reads every number for NaN; a finite cell in a valid model only needs itself checked.
    const bool cellOnly = cell && std::isfinite(cell->after);
    auto e = cellOnly && m_valid ? std::nullopt : core::validate(model());
    m_valid = !e;
    if (e) {
        // Nothing to show that matches the model: say why, and let the views clear.
        m_computing = false;
        setError(QString::fromStdString(*e));
        if (m_trace) {
            setTrace(nullptr, 0);
            emit traceChanged(nullptr);
        }
        return;
    }
    setError(QString());
    if (work(model()) <= synchronousWork) {
        ++m_started;
        m_computing = false;
        m_served = stamp;
        std::shared_ptr<const core::Trace> result;
        try {
            result = core::computeShared(model());
        } catch (const std::exception&) {
            result = nullptr;  // validated before; only memory can run out here
        }
        setTrace(std::move(result), stamp);
        if (!m_trace)
            setError(tr("Not enough memory to compute %1 tokens.").arg(model().n()));
        emit traceChanged(m_trace);
        return;
    }
    m_computing = true;
    if (m_running == 0)
        startWorker();
}

void Document::setTrace(std::shared_ptr<const core::Trace> trace, quint64 stamp)
{
    m_trace = std::move(trace);
    m_traceStamp = m_trace ? stamp : 0;
    // The cells set up to that request are in its model now.
    const auto done = std::find_if(m_cellLog.begin(), m_cellLog.end(), [&](const LoggedCell& c) { return c.stamp > stamp; });
    m_cellLog.erase(m_cellLog.begin(), done);
}

void Document::startWorker()
{
    ++m_started;
    m_running = m_requested;
    // The trace shown is where the worker starts: an edit of one cell redoes only what it reaches; a spent
    // trace, if one is kept, lends its buffers. When only cells changed since that trace's model, the
    // worker copies that model and sets them, and the GUI thread copies nothing large. Otherwise it takes
    // one copy of the current model (a lambda capturing the model by value would copy it again as
    // the pool stores the call).
    std::shared_ptr<const core::AttentionModel> model;
    std::vector<CellChange> cells;
    if (m_trace && m_traceStamp > 0 && m_wholeChangeStamp <= m_traceStamp) {
        cells.reserve(m_cellLog.size());
        for (const LoggedCell& c : m_cellLog)
            cells.push_back(c.change);
    } else {
        model = std::make_shared<const core::AttentionModel>(m_session.model);
    }
    m_watcher.setFuture(runInBackground([model, cells = std::move(cells), previous = m_trace,
                                           spare = std::move(m_spare)]() -> std::shared_ptr<const core::Trace> {
        try {
            if (model)
                return core::computeShared(*model, previous.get(), spare.get());
            core::AttentionModel edited = previous->model;
            for (const CellChange& c : cells)
                (*matrixOf(edited, c.id))(c.row, c.col) = c.after;
            return core::computeShared(edited, previous.get(), spare.get());
        } catch (const std::exception&) {
            return nullptr;  // validated before; only memory can run out here
        }
    }));
}

void Document::keepAsSpare(std::shared_ptr<const core::Trace> spent)
{
    // Only a trace no view holds any more, and only up to a size whose idle memory is worth the
    // page faults it saves (a 4096-token trace is about 300 MiB).
    constexpr std::size_t sparedBytes = std::size_t(768) << 20;
    if (!spent || spent.use_count() != 1 || core::estimatedTraceBytes(spent->model) > sparedBytes)
        return;
    // computeShared() made it as a non-const Trace: taking the const away again is allowed.
    m_spare = std::const_pointer_cast<core::Trace>(std::move(spent));
}

void Document::workerFinished()
{
    const quint64 stamp = m_running;
    m_running = 0;
    auto result = m_watcher.result();
    // Only the result of the newest request is announced; an older one is stale.
    if (stamp == m_requested && stamp > m_served) {
        m_served = stamp;
        m_computing = false;
        std::shared_ptr<const core::Trace> spent = m_trace;
        setTrace(std::move(result), stamp);
        if (!m_trace)
            setError(tr("Not enough memory to compute %1 tokens.").arg(model().n()));
        emit traceChanged(m_trace);
        keepAsSpare(std::move(spent));  // the views have let go of it now
        return;
    }
    keepAsSpare(std::move(result));
    // Edits arrived meanwhile and the newest one needs the worker: compute only that state.
    if (m_computing)
        startWorker();
}

bool Document::waitForTrace(int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs < 0 ? QDeadlineTimer::Forever : QDeadlineTimer(timeoutMs));
    QTimer wake;  // lets the loop look at the deadline while no other event comes
    wake.start(50);
    while (m_computing) {
        if (deadline.hasExpired())
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

}  // namespace ui
