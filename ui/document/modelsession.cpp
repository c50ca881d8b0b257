#include "modelstate.h"

#include "core/threadpool.h"
#include "core/tokentext.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <exception>
#include <thread>

namespace ui {

std::optional<core::Gpt2Weight> gpt2WeightOf(MatrixId id, int row, int dModel)
{
    const bool bias = row == dModel;
    switch (id) {
    case MatrixId::Embeddings: return std::nullopt;
    case MatrixId::Query: return bias ? core::Gpt2Weight::QueryBias : core::Gpt2Weight::Query;
    case MatrixId::Key: return bias ? core::Gpt2Weight::KeyBias : core::Gpt2Weight::Key;
    case MatrixId::Value: return bias ? core::Gpt2Weight::ValueBias : core::Gpt2Weight::Value;
    case MatrixId::Output: return bias ? core::Gpt2Weight::OutputBias : core::Gpt2Weight::Output;
    }
    return std::nullopt;
}

MatrixId matrixIdOf(core::Gpt2Weight weight)
{
    switch (weight) {
    case core::Gpt2Weight::Query:
    case core::Gpt2Weight::QueryBias: return MatrixId::Query;
    case core::Gpt2Weight::Key:
    case core::Gpt2Weight::KeyBias: return MatrixId::Key;
    case core::Gpt2Weight::Value:
    case core::Gpt2Weight::ValueBias: return MatrixId::Value;
    case core::Gpt2Weight::Output:
    case core::Gpt2Weight::OutputBias: return MatrixId::Output;
    }
    return MatrixId::Query;
}

int tableRowOf(core::Gpt2Weight weight, int row, int dModel)
{
    return core::gpt2WeightRows(weight, dModel) == 1 ? dModel : row;
}

core::AttentionModel shownLayerModel(core::Gpt2Forward& forward, int layer, const QString& modelName)
{
    forward.run();
    core::AttentionModel model = forward.layerModel(layer);
    for (std::string& token : model.tokens)
        token = core::readableToken(token);
    model.origin = core::AttentionModel::Origin{modelName.toStdString(), layer + 1, forward.config().layers};
    return model;
}

bool isModelSessionFile(const QString& path)
{
    QFile file(path);
    // A session file of a model lists only its edits: never near this size (the plain reader has its own limit).
    constexpr qint64 largest = qint64(512) << 20;
    if (!file.open(QIODevice::ReadOnly) || file.size() > largest)
        return false;
    return core::isModelSessionText(file.readAll().toStdString());
}

QString modelName(const QString& folder)
{
    const QString name = QFileInfo(QDir::cleanPath(folder)).fileName();
    return name.isEmpty() ? folder : name;
}

QString modelSessionTitle(const QString& folder, int layer)
{
    return QCoreApplication::translate("ModelState", "%1, layer %2").arg(modelName(folder)).arg(layer);
}

core::ModelSessionNames windowModelNames()
{
    core::ModelSessionNames names;
    names.modelFolder = QCoreApplication::translate("ModelState", "Model folder").toStdString();
    names.text = QCoreApplication::translate("ModelState", "Text").toStdString();
    names.layer = QCoreApplication::translate("ModelState", "Layer").toStdString();
    return names;
}

std::optional<LoadedModel> loadModelSession(const core::ModelSession& session, const std::string& sessionPath,
                                            const core::ModelSessionNames& names, std::string& error,
                                            const core::StopCheck& stop)
{
    auto opened = core::openModelSession(session, sessionPath, error, stop, names);
    if (!opened)
        return std::nullopt;
    if (core::stopNow(stop)) {
        error = core::stoppedMessage;
        return std::nullopt;
    }
    LoadedModel loaded{std::move(*opened), {}};
    loaded.layer = shownLayerModel(*loaded.opened.forward, loaded.opened.session.layer - 1,
                                   modelName(QString::fromStdString(loaded.opened.folder)));
    return loaded;
}

ModelRunner::ModelRunner(std::function<Request()> snapshot, std::function<void(ModelRunResult)> deliver)
    : m_snapshot(std::move(snapshot)),
      m_deliver(std::move(deliver)),
      m_job(
          [this]() -> LatestJob<ModelRunResult>::Job {
              if (!m_forward)
                  return {};
              // This job's number, as LatestJob counts it once the job starts: what tells its first result, which
              // arrives while it runs, from one of an older job.
              const quint64 job = m_job.jobsStarted() + 1;
              ShowFirst show = [this, job](std::shared_ptr<ShownFirst> shown) {
                  QMetaObject::invokeMethod(
                      &m_context, [this, job, shown] { showFirst(job, *shown); }, Qt::QueuedConnection);
              };
              return [forward = m_forward, unedited = m_unedited, request = m_snapshot(), show = std::move(show)] {
                  return run(*forward, *unedited, request, show);
              };
          },
          [this](ModelRunResult result) { delivered(std::move(result)); })
{
}

ModelRunner::~ModelRunner() = default;

void ModelRunner::reset(std::shared_ptr<core::Gpt2Forward> forward)
{
    m_job.cancel();
    // A job in flight keeps its own passes alive; the next one starts on these.
    m_forward = std::move(forward);
    m_unedited = m_forward ? std::make_shared<core::Gpt2Forward>(m_forward->sharedCheckpoint()) : nullptr;
}

void ModelRunner::showFirst(quint64 job, ShownFirst& shown)
{
    // Not when a newer request overtook the job, nor once its last result came (which then took the layer).
    if (!m_job.isCurrent(job) || shown.taken)
        return;
    shown.taken = true;
    m_deliver(std::move(shown.result));
}

void ModelRunner::delivered(ModelRunResult result)
{
    if (result.shownFirst) {
        // The first result was never delivered (the last came before the event that carried it): what it had
        // for the views comes with the last.
        ShownFirst& shown = *result.shownFirst;
        if (!shown.taken) {
            shown.taken = true;
            result.layer = std::move(shown.result.layer);
            result.validatedLayer = std::move(shown.result.validatedLayer);
        }
        result.shownFirst.reset();
    }
    m_deliver(std::move(result));
}

namespace {

/** The ten most probable tokens of logits (the pass forward's after position), with their probabilities in
 *  unedited (the same pass's logits without the edits) when given. */
Prediction predictionOf(const core::Gpt2Forward& forward, const core::FloatMatrix& logits, int position,
                        bool edited, const core::FloatMatrix* unedited)
{
    Prediction p;
    p.position = position;
    p.edited = edited;
    p.comparing = edited && !unedited;
    const std::vector<core::Gpt2Candidate> top = core::topCandidates(logits, 10);
    if (top.empty())  // the logits overflowed float32
        p.overflowLayer = forward.overflowLayer(position);
    std::vector<int> ids;
    for (const core::Gpt2Candidate& c : top)
        ids.push_back(c.id);
    const std::vector<double> withoutEdits =
        edited && unedited ? core::candidateProbabilities(*unedited, ids) : std::vector<double>();
    for (std::size_t i = 0; i < top.size(); ++i) {
        const std::string token = core::readableToken(forward.checkpoint().tokenizer().token(top[i].id));
        p.entries.push_back({top[i].id, token, top[i].probability,
                             withoutEdits.empty() ? top[i].probability : withoutEdits[i]});
    }
    return p;
}

/** What the views see of the finished pass forward beside the prediction: the shown layer's model, when the request
 *  asks for it, checked and copied for the views, and the overview's grid. */
void addViews(ModelRunResult& result, core::Gpt2Forward& forward, const ModelRunner::Request& request)
{
    QStringList tokens;
    for (int id : forward.tokens())
        tokens << QString::fromStdString(core::readableToken(forward.checkpoint().tokenizer().token(id)));
    // The shown layer's model and the overview's grid only read the finished pass, and not each other: built side
    // by side (about 4 and 3 ms for GPT-2 small at 64 tokens), and then the layer's check and its copy for the
    // views (about 2 and 3 ms), they no longer add up before the views see the pass.
    core::parallelFor(2, 2, [&](int task) {
        if (task == 0) {
            if (request.wantLayer)
                result.layer = shownLayerModel(forward, request.layer, request.modelName);
        } else {
            result.grid = std::make_shared<const render::AttentionGrid>(
                render::attentionGridFromModel(forward, tokens, render::gridCellSide, request.grid.get()));
        }
    });
    if (result.layer) {
        bool valid = false;
        auto copy = std::make_shared<core::AttentionModel>();
        core::parallelFor(2, 2, [&](int task) {
            if (task == 0)
                valid = !core::validate(*result.layer);
            else
                *copy = *result.layer;
        });
        if (valid)
            result.validatedLayer = std::move(copy);
    }
}

}  // namespace

ModelRunResult ModelRunner::run(core::Gpt2Forward& forward, core::Gpt2Forward& unedited, const Request& request,
                                const ShowFirst& showFirst)
{
    std::string ignored;
    if (forward.tokens() != request.ids)
        forward.setTokens(request.ids, ignored);
    if (unedited.tokens() != request.ids)
        unedited.setTokens(request.ids, ignored);
    // The first edit after a pass without any: that pass is the one without edits, taken instead of run again.
    if (!request.edits.empty() && forward.upToDate() && !unedited.upToDate() && forward.edits().empty()) {
        unedited.takeSharedLayers(forward);
        unedited.run();
    }
    // Bring the pass's edits to the request's: both lists are ordered by layer, weight, row and column.
    const std::vector<core::Gpt2Edit> have = forward.edits();
    const auto key = [](const core::Gpt2Edit& e) { return std::tuple(e.layer, e.weight, e.row, e.col); };
    std::size_t i = 0, j = 0;
    while (i < have.size() || j < request.edits.size()) {
        if (j == request.edits.size() || (i < have.size() && key(have[i]) < key(request.edits[j]))) {
            const core::Gpt2Edit& e = have[i++];
            forward.clearEdit(e.layer, e.weight, e.row, e.col);
            continue;
        }
        const core::Gpt2Edit& want = request.edits[j++];
        if (i < have.size() && key(have[i]) == key(want)) {
            if (have[i++].value == want.value)
                continue;
        }
        forward.setEdit(want.layer, want.weight, want.row, want.col, want.value, ignored);
    }
    const bool edited = !request.edits.empty();
    const int n = forward.n();
    const int position = request.position >= 0 && request.position < n ? request.position : n - 1;
    // Without edits the pass without them is this one: it runs only once there are edits to compare with.
    if (edited && !unedited.upToDate() && !forward.upToDate()) {
        // Both passes have work: the edited one runs first, alone, so that the views need not wait for the other.
        forward.run();
        const core::FloatMatrix logits = forward.logitsAt(position);
        // Shown at once, built on a thread of its own while this one runs the pass without edits, which takes the
        // layers below the lowest edit from the edited one.
        auto shown = std::make_shared<ShownFirst>();
        std::shared_ptr<const render::AttentionGrid> grid;
        unedited.takeSharedLayers(forward);
        std::exception_ptr failed;
        std::thread side([&] {
            try {
                ModelRunResult first;
                first.prediction = predictionOf(forward, logits, position, true, nullptr);
                addViews(first, forward, request);
                grid = first.grid;  // the last result carries it too
                shown->result = std::move(first);
                showFirst(shown);  // from here on the runner's thread may take shown->result at any time
            } catch (...) {
                failed = std::current_exception();
            }
        });
        try {
            unedited.run();
        } catch (...) {
            side.join();
            throw;
        }
        side.join();
        if (failed)
            std::rethrow_exception(failed);
        const core::FloatMatrix before = unedited.logitsAt(position);
        ModelRunResult result;
        result.prediction = predictionOf(forward, logits, position, true, &before);
        result.grid = std::move(grid);
        result.shownFirst = std::move(shown);
        return result;
    }
    // One pass with work: whichever runs second takes the layers below the lowest edit from the first.
    if (edited) {
        if (unedited.upToDate())
            forward.takeSharedLayers(unedited);
        else
            unedited.takeSharedLayers(forward);
        unedited.run();
    }
    forward.run();
    const core::FloatMatrix logits = forward.logitsAt(position);
    const core::FloatMatrix before = edited ? unedited.logitsAt(position) : core::FloatMatrix();
    ModelRunResult result;
    result.prediction = predictionOf(forward, logits, position, edited, edited ? &before : nullptr);
    addViews(result, forward, request);
    return result;
}

}  // namespace ui
