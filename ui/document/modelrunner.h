#pragma once
/** ModelRunner: a model session's forward pass on a worker, for the newest state only. */

#include "latestjob.h"

#include "core/models/blockview.h"
#include "core/models/headdetector.h"
#include "core/models/instruments.h"
#include "core/models/modelpass.h"
#include "ui/render/attentiongrid.h"

#include <QHash>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ui {

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
     *  (core::ModelPass::overflowLayer). */
    std::optional<int> overflowLayer;
    bool edited = false;         ///< the pass had edits
    /** The pass had edits and the one without them is still to run: the entries' unedited is not known yet (a
     *  new text shows the edited pass first, and the comparison follows). */
    bool comparing = false;
    /** The edited pass's logits after the last token (1 × vocab), which Append chooses from. */
    std::shared_ptr<const core::FloatMatrix> next;
};

/** The instruments the window shows of a pass (core/models/instruments.h), with the tokens named as people read
 *  them: made on the worker, only while a view of them is shown. */
struct LensResult {
    std::vector<std::vector<core::LensCell>> cells;  ///< [layer][position], the embeddings first
    int target = -1;
    QString targetToken;
    std::vector<int> ids;        ///< the text's tokens
    QStringList tokens;          ///< the same as people read them
    QHash<int, QString> names;   ///< every id the cells predict
};
struct AttributionResult {
    core::Attribution parts;
    QString targetToken;
    QString positionToken;       ///< the token at parts.position
    double headsTotal = 0, mlpsTotal = 0;  ///< the heads' and the MLPs' shares summed
};

/** The instruments a view may show. */
enum class Instrument { Lens, Attribution };

/** What the worker delivers for a request: once, or twice when a new text with edits shows the edited pass first
 *  (its prediction `comparing`, with the shown layer) and the comparison follows. */
struct ModelRunResult {
    std::optional<core::AttentionModel> layer;  ///< the shown layer, when the request asked for it
    /** A copy of layer when it passed core::validate on the worker (else null): the document's scheduler
     *  computes from it, so that the GUI thread neither validates nor copies the layer (tens of MB for GPT-2). */
    std::shared_ptr<const core::AttentionModel> validatedLayer;
    Prediction prediction;
    /** Every layer's and head's attention of the pass with the edits, for the overview and the head view. */
    std::shared_ptr<const render::AttentionGrid> grid;
    /** The lens and the attribution of the pass with the edits, when the request wanted them. */
    std::shared_ptr<const LensResult> lens;
    std::shared_ptr<const AttributionResult> attribution;
    /** The Block view of the shown layer at the request's block position, when it asked for one. */
    std::shared_ptr<const core::BlockView> block;
};

/** Runs the forward pass of a model session on a worker, the newest state only (LatestJob). It keeps two passes
 *  on the worker side, with and without the edits (and the head detector's, core/models/headdetector.h); a request hands over the ids, the edits, the layer and the
 *  position, and each pass redoes only what changed since its last run. When both passes have work (a new text
 *  with edits), the edited pass's result is posted first, and the comparison follows as the job's result. */
class ModelRunner {
public:
    struct Request {
        std::vector<int> ids;
        std::vector<core::ModelEdit> edits;  ///< ordered by layer, weight, row and column
        std::set<std::pair<int, int>> ablations;  ///< the heads zeroed, (layer, head) 0-based
        int layer = 0;
        int position = -1;      ///< −1: the last
        bool wantLayer = false; ///< give the shown layer's model too
        /** The Block view's position (0-based; beyond the text: the last), when the view is shown. */
        std::optional<int> blockPosition;
        std::string modelName;
        bool wantLens = false, wantAttribution = false;
        int target = -1;        ///< the instruments' token; −1: the most probable at the position
        /** The last pass's grid: the heads the new pass did not change keep their descriptors. */
        std::shared_ptr<const render::AttentionGrid> grid;
    };

    /** snapshot builds a request from the session's state when a job can start; deliver takes each result. */
    ModelRunner(std::function<Request()> snapshot, std::function<void(ModelRunResult)> deliver);

    /** The passes to run on from now on (forward already holds the session's tokens and edits; it may have run). */
    void reset(std::shared_ptr<core::ModelPass> forward);
    /** Asks for a result of the current state. */
    void request() { m_job.request(); }
    void cancel() { m_job.cancel(); }
    bool isPending() const { return m_job.isPending(); }
    /** Blocks until the newest request is delivered (tests). */
    void finish() { m_job.finish(); }
    quint64 jobsStarted() const { return m_job.jobsStarted(); }

private:
    /** The overview's head detector: a third pass, over a repeated random sequence, with the same edits, and the
     *  scores of its last run. */
    struct Detector {
        std::shared_ptr<core::ModelPass> pass;
        core::HeadDetection scores;
    };
    /** Runs request on the passes (the worker's side); post takes the edited pass's result when the pass without
     *  edits has work too. */
    static ModelRunResult run(core::ModelPass& forward, core::ModelPass& unedited, Detector& detector,
                              core::LensMemo& lensMemo, const Request& request,
                              const LatestJob<ModelRunResult>::Post& post);

    std::function<Request()> m_snapshot;
    std::shared_ptr<core::ModelPass> m_forward, m_unedited;
    std::shared_ptr<Detector> m_detector;
    /** The lens of the last run of the passes, kept on the worker's side: the next one redoes only what changed. */
    std::shared_ptr<core::LensMemo> m_lensMemo;
    LatestJob<ModelRunResult> m_job;
};

}  // namespace ui

Q_DECLARE_METATYPE(ui::Prediction)
