#include "modelrunner.h"

#include "core/session/modelsession.h"
#include "core/tensor/threadpool.h"

#include <QStringList>

#include <algorithm>
#include <tuple>

namespace ui {

ModelRunner::ModelRunner(std::function<Request()> snapshot, std::function<void(ModelRunResult)> deliver)
    : m_snapshot(std::move(snapshot)),
      m_job(
          [this]() -> LatestJob<ModelRunResult>::PostingJob {
              if (!m_forward)
                  return {};
              return [forward = m_forward, unedited = m_unedited, detector = m_detector, lensMemo = m_lensMemo,
                      request = m_snapshot()](const LatestJob<ModelRunResult>::Post& post) {
                  return run(*forward, *unedited, *detector, *lensMemo, request, post);
              };
          },
          std::move(deliver), {}, LatestJob<ModelRunResult>::Posting{})
{
}

void ModelRunner::reset(std::shared_ptr<core::ModelPass> forward)
{
    m_job.cancel();
    // A job in flight keeps its own passes alive; the next one starts on these.
    m_forward = std::move(forward);
    m_unedited = m_forward ? m_forward->freshPass() : nullptr;
    m_detector = std::make_shared<Detector>();
    m_lensMemo = std::make_shared<core::LensMemo>();
    if (m_forward) {
        m_detector->pass = m_forward->freshPass();
        std::string ignored;
        if (!m_detector->pass->setTokens(core::repeatedRandomTokens(*m_detector->pass), ignored))
            m_detector->pass.reset();  // too few positions for a sequence said twice: no scores
    }
}

namespace {

/** The ten most probable tokens of logits (the pass forward's after position), with their probabilities in
 *  unedited (the same pass's logits without the edits) when given. */
Prediction predictionOf(const core::ModelPass& forward, const core::FloatMatrix& logits, int position,
                        bool edited, const core::FloatMatrix* unedited)
{
    Prediction p;
    p.position = position;
    p.edited = edited;
    p.comparing = edited && !unedited;
    p.next = std::make_shared<const core::FloatMatrix>(forward.logits());
    const std::vector<core::TokenCandidate> top = core::topCandidates(logits, 10);
    if (top.empty())  // the logits overflowed float32
        p.overflowLayer = forward.overflowLayer(position);
    std::vector<int> ids;
    for (const core::TokenCandidate& c : top)
        ids.push_back(c.id);
    const std::vector<double> withoutEdits =
        edited && unedited ? core::candidateProbabilities(*unedited, ids) : std::vector<double>();
    for (std::size_t i = 0; i < top.size(); ++i) {
        const std::string token = forward.readable(top[i].id);
        p.entries.push_back({top[i].id, token, top[i].probability,
                             withoutEdits.empty() ? top[i].probability : withoutEdits[i]});
    }
    return p;
}

/** What the views see of the finished pass forward beside the prediction: the shown layer's model, when the request
 *  asks for it, checked and copied for the views, and the overview's grid. */
void addViews(ModelRunResult& result, core::ModelPass& forward, const ModelRunner::Request& request,
              const core::HeadDetection& scores)
{
    QStringList tokens;
    for (int id : forward.tokens())
        tokens << QString::fromStdString(forward.readable(id));
    // The shown layer's model and the overview's grid only read the finished pass, and not each other: side by
    // side, and then the layer's check beside its copy for the views.
    core::parallelFor(2, 2, [&](int task) {
        if (task == 0) {
            if (request.wantLayer)
                result.layer = core::shownLayerModel(forward, request.layer, request.modelName);
        } else {
            auto grid = std::make_shared<render::AttentionGrid>(
                render::attentionGridFromModel(forward, tokens, render::gridCellSide, request.grid.get()));
            grid->induction = scores.induction;
            grid->duplicate = scores.duplicate;
            result.grid = std::move(grid);
        }
    });
    if (request.blockPosition) {
        const int position = std::clamp(*request.blockPosition, 0, forward.n() - 1);
        result.block = std::make_shared<const core::BlockView>(core::blockView(forward, request.layer, position));
    }
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

/** The lens and the attribution the request wants of the finished pass forward, for prediction's target unless
 *  the request names one; the lens redoes only the cells whose stream rows changed since memo's. */
void addInstruments(ModelRunResult& result, const core::ModelPass& forward, const ModelRunner::Request& request,
                    const Prediction& prediction, core::LensMemo& memo)
{
    if (!request.wantLens && !request.wantAttribution)
        return;
    const int target = request.target >= 0 ? request.target
        : prediction.entries.empty()     ? -1
                                         : prediction.entries.front().id;
    const auto name = [&](int id) { return QString::fromStdString(forward.readable(id)); };
    if (request.wantLens) {
        auto lens = std::make_shared<LensResult>();
        lens->cells = core::logitLens(forward, target >= 0 ? std::optional<int>(target) : std::nullopt, &memo);
        lens->target = target;
        lens->targetToken = target >= 0 ? name(target) : QString();
        lens->ids = forward.tokens();
        for (int id : lens->ids)
            lens->tokens << name(id);
        for (const auto& row : lens->cells)
            for (const core::LensCell& cell : row)
                if (cell.id >= 0 && !lens->names.contains(cell.id))
                    lens->names.insert(cell.id, name(cell.id));
        result.lens = std::move(lens);
    }
    if (request.wantAttribution && target >= 0) {
        auto a = std::make_shared<AttributionResult>();
        a->parts = core::directLogitAttribution(forward, target, prediction.position);
        a->targetToken = name(target);
        a->positionToken = name(forward.tokens()[std::size_t(prediction.position)]);
        for (std::size_t l = 0; l < a->parts.heads.size(); ++l) {
            for (double share : a->parts.heads[l])
                a->headsTotal += share;
            a->mlpsTotal += a->parts.mlps[l];
        }
        result.attribution = std::move(a);
    }
}

/** Brings forward's zeroed heads to wanted. */
void setAblations(core::ModelPass& forward, const std::set<std::pair<int, int>>& wanted)
{
    const std::set<std::pair<int, int>> have = forward.ablations();
    for (const auto& [layer, head] : have)
        if (!wanted.count({layer, head}))
            forward.setAblated(layer, head, false);
    for (const auto& [layer, head] : wanted)
        forward.setAblated(layer, head, true);
}

/** Brings forward's edits to wanted (both ordered by layer, weight, row and column), touching only what differs. */
void setEdits(core::ModelPass& forward, const std::vector<core::ModelEdit>& wanted)
{
    const std::vector<core::ModelEdit> have = forward.edits();
    const auto key = [](const core::ModelEdit& e) { return std::tuple(e.layer, e.weight, e.row, e.col); };
    std::string ignored;
    std::size_t i = 0, j = 0;
    while (i < have.size() || j < wanted.size()) {
        if (j == wanted.size() || (i < have.size() && key(have[i]) < key(wanted[j]))) {
            const core::ModelEdit& e = have[i++];
            forward.clearEdit(e.layer, e.weight, e.row, e.col);
            continue;
        }
        const core::ModelEdit& want = wanted[j++];
        if (i < have.size() && key(have[i]) == key(want)) {
            if (have[i++].value == want.value)
                continue;
        }
        forward.setEdit(want.layer, want.weight, want.row, want.col, want.value, ignored);
    }
}

/** Brings the detector's pass to the request's edits and zeroed heads and scores it again when that changed it. */
void detect(ModelRunner::Request const& request, core::ModelPass* pass, core::HeadDetection& scores)
{
    if (!pass)
        return;
    setEdits(*pass, request.edits);
    setAblations(*pass, request.ablations);
    if (pass->upToDate() && !scores.induction.empty())
        return;
    pass->run();
    scores = core::detectHeads(*pass);
}

}  // namespace

ModelRunResult ModelRunner::run(core::ModelPass& forward, core::ModelPass& unedited, Detector& detector,
                                core::LensMemo& lensMemo, const Request& request,
                                const LatestJob<ModelRunResult>::Post& post)
{
    std::string ignored;
    if (forward.tokens() != request.ids)
        forward.setTokens(request.ids, ignored);
    if (unedited.tokens() != request.ids)
        unedited.setTokens(request.ids, ignored);
    const bool edited = !request.edits.empty() || !request.ablations.empty();
    // The first edit after a pass without any: that pass is the one without edits, taken instead of run again.
    if (edited && forward.upToDate() && !unedited.upToDate() && forward.edits().empty() && forward.ablations().empty()) {
        unedited.takeSharedLayers(forward);
        unedited.run();
    }
    setEdits(forward, request.edits);
    setAblations(forward, request.ablations);
    const int n = forward.n();
    const int position = request.position >= 0 && request.position < n ? request.position : n - 1;
    // Without edits the pass without them is this one: it runs only once there are edits to compare with.
    if (edited && !unedited.upToDate() && !forward.upToDate()) {
        // Both passes have work: the edited one runs first, alone, and what the views see of it is posted while
        // the pass without edits runs beside it, from the layers below the lowest edit.
        forward.run();
        const core::FloatMatrix logits = forward.logitsAt(position);
        unedited.takeSharedLayers(forward);
        detect(request, detector.pass.get(), detector.scores);  // a new text: the detector's work is done already
        std::shared_ptr<const render::AttentionGrid> grid;
        std::shared_ptr<const LensResult> lens;
        std::shared_ptr<const AttributionResult> attribution;
        core::parallelFor(2, 2, [&](int task) {
            if (task == 1) {
                unedited.run();
                return;
            }
            ModelRunResult first;
            first.prediction = predictionOf(forward, logits, position, true, nullptr);
            addViews(first, forward, request, detector.scores);
            addInstruments(first, forward, request, first.prediction, lensMemo);
            grid = first.grid;  // the comparison carries it too
            lens = first.lens;
            attribution = first.attribution;
            post(std::move(first));
        });
        const core::FloatMatrix before = unedited.logitsAt(position);
        ModelRunResult result;
        result.prediction = predictionOf(forward, logits, position, true, &before);
        result.grid = std::move(grid);
        result.lens = std::move(lens);
        result.attribution = std::move(attribution);
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
    // The detector's pass beside this one: it has work only when the edits or zeroed heads changed.
    core::parallelFor(2, 2, [&](int task) {
        if (task == 0)
            forward.run();
        else
            detect(request, detector.pass.get(), detector.scores);
    });
    const core::FloatMatrix logits = forward.logitsAt(position);
    const core::FloatMatrix before = edited ? unedited.logitsAt(position) : core::FloatMatrix();
    ModelRunResult result;
    result.prediction = predictionOf(forward, logits, position, edited, edited ? &before : nullptr);
    addViews(result, forward, request, detector.scores);
    addInstruments(result, forward, request, result.prediction, lensMemo);
    return result;
}

}  // namespace ui
