#pragma once
/** A model session in the document (SPEC §5): the checkpoint, the text, the shown layer and the edited weight
 *  cells, and ModelRunner, which runs the forward pass for it on a worker. */

#include "latestjob.h"
#include "modelchange.h"

#include "core/gpt2forward.h"
#include "core/modelsession.h"
#include "ui/render/attentiongrid.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ui {

/** What the document keeps of a model session beside the shown layer's AttentionModel. */
struct ModelState {
    explicit ModelState(std::shared_ptr<const core::Gpt2Checkpoint> checkpoint) : overlay(std::move(checkpoint)) {}

    const core::Gpt2Checkpoint& checkpoint() const { return overlay.checkpoint(); }
    const core::Gpt2Config& config() const { return overlay.config(); }

    QString folder;            ///< the checkpoint's folder, resolved
    std::string modelPath;     ///< model.path as the file wrote it (kept on save), or the folder
    std::string text;          ///< the typed text, UTF-8
    std::vector<int> ids;      ///< its tokens
    int layer = 0;             ///< the shown layer, 0-based
    /** The edits as an overlay of the checkpoint's weights; it is never run (the worker has its own pass). */
    core::Gpt2Forward overlay;
    nlohmann::json extras = nlohmann::json::object();  ///< the file's keys the program does not read
};

/** One checkpoint weight cell a model session's step changes (layer 0-based), float32 as the weights are. */
struct Gpt2CellChange {
    int layer = 0;
    core::Gpt2Weight weight = core::Gpt2Weight::Query;
    int row = 0, col = 0;
    float before = 0, after = 0;
};

/** The checkpoint weight behind cell (row, col) of the table of id (its bias at row d_model), or nothing (X). */
std::optional<core::Gpt2Weight> gpt2WeightOf(MatrixId id, int row, int dModel);
/** The table and its row where a checkpoint weight's cell is shown. */
MatrixId matrixIdOf(core::Gpt2Weight weight);
int tableRowOf(core::Gpt2Weight weight, int row, int dModel);

/** The shown layer of state as the views see it: layerModel() with the tokens as people read them and the
 *  origin set. Runs the part of the pass it needs on forward (any thread that owns forward). */
core::AttentionModel shownLayerModel(core::Gpt2Forward& forward, int layer, const QString& modelName);

/** A model session loaded on a worker: the checkpoint, the pass run, and its shown layer for the views. */
struct LoadedModel {
    core::OpenedModelSession opened;
    core::AttentionModel layer;
};
/** core::openModelSession, its messages naming the folder, the text and the layer as names says, then the shown
 *  layer (shownLayerModel); any thread. Nothing, with error, when refused or stopped (stop as for
 *  core::openModelSession; error then core::stoppedMessage). */
std::optional<LoadedModel> loadModelSession(const core::ModelSession& session, const std::string& sessionPath,
                                            const core::ModelSessionNames& names, std::string& error,
                                            const core::StopCheck& stop = {});
/** What the window calls a model's folder, its text and its layer in a refusal of a model opened without a session
 *  file (a file's keys would mean nothing there), in the interface language. */
core::ModelSessionNames windowModelNames();
/** True when path is a readable file whose JSON has "version": 2 (a model session rather than a plain one). */
bool isModelSessionFile(const QString& path);
/** The name a model is shown by: its folder's name. */
QString modelName(const QString& folder);
/** The title of a model session whose file gives none: "gpt2, layer 5" (the folder's name, layer 1-based), in the
 *  interface language. */
QString modelSessionTitle(const QString& folder, int layer);

/** The next-token candidates of one position. */
struct Prediction {
    int position = -1;  ///< the position (0-based) whose next token this is
    struct Entry {
        int id = 0;
        std::string token;        ///< as people read it (core::readableToken)
        double probability = 0;   ///< with the edits
        double unedited = 0;      ///< the same token's probability in the checkpoint without edits (once compared)
    };
    std::vector<Entry> entries;  ///< the most probable first; none when the pass overflowed
    /** The pass overflowed float32 (its logits have a NaN or +∞, core::topCandidates): the first layer (0-based)
     *  whose output up to the position is not all finite, or the model's layer count when only the logits are not
     *  (core::Gpt2Forward::overflowLayer). */
    std::optional<int> overflowLayer;
    bool edited = false;         ///< the pass had edits
    /** The pass had edits and the one without them is still to run: the entries' unedited is not known yet (a
     *  new text shows the edited pass first, and the comparison follows). */
    bool comparing = false;
};

struct ShownFirst;

/** What the worker gives back for a request. */
struct ModelRunResult {
    std::optional<core::AttentionModel> layer;  ///< the shown layer, when the request asked for it
    /** A copy of layer when it passed core::validate on the worker (else null): the document's scheduler
     *  computes from it, so that the GUI thread neither validates nor copies the layer (tens of MB for GPT-2;
     *  that was the window's longest stall). */
    std::shared_ptr<const core::AttentionModel> validatedLayer;
    Prediction prediction;
    /** Every layer's and head's attention of the pass with the edits, for the overview and the head view. */
    std::shared_ptr<const render::AttentionGrid> grid;
    /** In the last result of a job that showed the edited pass first: that result, for the runner to take the
     *  layer from when it was never delivered (internal to ModelRunner; the document never sees it). */
    std::shared_ptr<ShownFirst> shownFirst;
};

/** The edited pass's result that a job shows before it ends, and whether the runner delivered it. */
struct ShownFirst {
    ModelRunResult result;
    bool taken = false;  ///< delivered (on the runner's thread)
};

/** Runs the forward pass of a model session on a worker, the newest state only (LatestJob). It keeps two passes
 *  on the worker side, with and without the edits; a request hands over the ids, the edits, the layer and the
 *  position, and the pass redoes only what changed since its last run.
 *
 *  When both passes have work (new tokens with edits), the job runs the edited pass and delivers its result at
 *  once, with a prediction that is still `comparing`: whatever is shown comes from it, so the views need not wait
 *  for the second pass. The pass without edits starts as soon as the edited one is done, beside the building of
 *  what the views see of it (the shown layer, the overview's grid), from the layers the two share; the job's last
 *  result completes the comparison. */
class ModelRunner {
public:
    struct Request {
        std::vector<int> ids;
        std::vector<core::Gpt2Edit> edits;
        int layer = 0;
        int position = -1;      ///< −1: the last
        bool wantLayer = false; ///< give the shown layer's model too
        QString modelName;
        /** The last pass's grid: the heads the new pass did not change keep their descriptors. */
        std::shared_ptr<const render::AttentionGrid> grid;
    };

    /** snapshot builds a request from the document's state when a job can start; deliver takes the result. */
    ModelRunner(std::function<Request()> snapshot, std::function<void(ModelRunResult)> deliver);
    ~ModelRunner();

    /** The passes to run on from now on (forward already holds the session's tokens and edits; it may have run). */
    void reset(std::shared_ptr<core::Gpt2Forward> forward);
    /** Asks for a result of the current state. */
    void request() { m_job.request(); }
    void cancel() { m_job.cancel(); }
    bool isPending() const { return m_job.isPending(); }
    /** Blocks until the newest request is delivered (tests). */
    void finish() { m_job.finish(); }
    quint64 jobsStarted() const { return m_job.jobsStarted(); }

private:
    /** Takes the result a job shows before it ends (from the worker; the runner delivers it if still wanted). */
    using ShowFirst = std::function<void(std::shared_ptr<ShownFirst>)>;
    /** Runs request on the passes (the worker's side). When both have work, the edited pass's result goes to
     *  showFirst as soon as it is built, the pass without edits runs meanwhile, and the result returned is the
     *  comparison (with the grid, and the first result in shownFirst). */
    static ModelRunResult run(core::Gpt2Forward& forward, core::Gpt2Forward& unedited, const Request& request,
                              const ShowFirst& showFirst);
    void showFirst(quint64 job, ShownFirst& shown);
    void delivered(ModelRunResult result);

    std::function<Request()> m_snapshot;
    std::function<void(ModelRunResult)> m_deliver;
    std::shared_ptr<core::Gpt2Forward> m_forward, m_unedited;
    QObject m_context;  ///< receives the results shown first (destroyed after the job, which may still post)
    LatestJob<ModelRunResult> m_job;
};

}  // namespace ui
