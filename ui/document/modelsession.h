#pragma once
/** ModelSession: a session of a checkpoint (SPEC §5): the checkpoint, the text and its tokens, the shown layer, one
 *  sorted map of the edited weight cells, and the runner that gives the shown layer and the prediction. */

#include "modelrunner.h"
#include "session.h"

#include "core/models/instruments.h"
#include "core/session/modelsession.h"

#include <QString>

#include <memory>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ui {

/** One checkpoint weight cell an edit changes (layer 0-based), float32 as the weights are. */
struct Gpt2CellChange {
    int layer = 0;
    core::ModelWeight weight = core::ModelWeight::Query;
    int row = 0, col = 0;
    float before = 0, after = 0;
};

/** One head zeroed as a whole or given back (0-based), before and after. */
struct AblationChange {
    int layer = 0, head = 0;
    bool before = false, after = false;
};

/** A model session's text with its tokens exactly, and Append's place in its sampling: what an undo step of the text
 *  puts back. */
struct ModelText {
    QString text;
    std::vector<int> ids;     ///< the text's own tokens, or those Append chose (which the text read again may not give)
    std::uint64_t drawn = 0;  ///< tokens Append chose with the sampling since it was set or the text was typed
    bool chosen = false;      ///< ids are not the text's own tokens
};

/** The text after an append: text (whose tokens decode to before) with the part where after, the decoded tokens with
 *  the new one, differs from before replaced. Only the end changes, also where a character cut in two (U+FFFD) is
 *  completed; text need not read as before does elsewhere (a BOS, a normalised space). */
QString appendedText(const QString& text, const QString& before, const QString& after);

/** The checkpoint weight behind a row of the table of id, whose weight has weightRows rows (its bias in the row
 *  after them), or nothing (X). */
std::optional<core::ModelWeight> weightOf(MatrixId id, int row, int weightRows);
/** The table and its row where a checkpoint weight's cell is shown. */
MatrixId matrixIdOf(core::ModelWeight weight);
int tableRowOf(core::ModelWeight weight, int row, int weightRows);

/** A model session loaded on a worker: the checkpoint, the pass run, and its shown layer for the views. */
struct LoadedModel {
    core::OpenedModelSession opened;
    core::AttentionModel layer;
};
/** core::openModelSession, its messages naming the folder, the text and the layer as names says, then the shown
 *  layer (core::shownLayerModel); any thread. Nothing, with error, when refused or stopped (stop as for
 *  core::openModelSession; error then core::stoppedMessage). */
std::optional<LoadedModel> loadModelSession(const core::ModelSession& session, const std::string& sessionPath,
                                            const core::ModelSessionNames& names, std::string& error,
                                            const core::StopCheck& stop = {});
/** What the window calls a model's folder, its text and its layer in a refusal of a model opened without a session
 *  file (a file's keys would mean nothing there), in the interface language. */
core::ModelSessionNames windowModelNames();
/** The name a model is shown by: its folder's name (core::modelName). */
QString modelName(const QString& folder);

class ModelSession final : public Session {
    Q_OBJECT
public:
    /** Takes a loaded model; path is its session file (empty for a folder opened as it is). */
    ModelSession(LoadedModel loaded, const QString& path);
    ~ModelSession() override;

    const ModelSession* modelSession() const override { return this; }
    ModelSession* modelSession() override { return this; }

    /** The model's counts and names. */
    const core::ModelShape& shape() const { return m_shape; }
    /** The checkpoint's folder, resolved. */
    const QString& folder() const { return m_folder; }
    /** The text's token ids. */
    const std::vector<int>& ids() const { return m_ids; }
    int shownLayer() const override { return m_layer; }
    int layerCount() const override { return m_shape.layers; }
    /** The cell's value with the edits (the caller checks the cell). */
    float weightValue(int layer, core::ModelWeight weight, int row, int col) const;
    /** True when cell (row, col) of the table of id in the shown layer differs from the checkpoint. */
    bool isCellEdited(MatrixId id, int row, int col) const;
    /** The number of edited cells, in every layer. */
    int editCount() const { return int(m_edits.size()); }
    /** The heads zeroed as a whole (Zero Head), as (layer, head) 0-based; their rows of W_O count as 0. */
    const std::set<std::pair<int, int>>& ablations() const { return m_ablations; }
    bool isAblated(int layer, int head) const { return m_ablations.count({layer, head}) > 0; }
    /** True when anything differs from the checkpoint: an edited cell or a zeroed head. */
    bool isEdited() const { return !m_edits.empty() || !m_ablations.empty(); }
    /** The tokens as the model's vocabulary writes them ("Ġcat"), as --compute names them. */
    std::vector<std::string> vocabularyTokens() const;
    /** The text, its tokens and Append's place in its sampling. */
    ModelText modelText() const;
    /** How Append chooses the next token (core::Sampling, as --generate does). */
    const core::Sampling& sampling() const { return m_sampling; }
    /** Tokens Append chose with the sampling since it was set or the text was typed: the next append takes the
     *  token after as many of `--generate N` with the same sampling on the text of that moment. */
    std::uint64_t drawn() const { return m_drawn; }
    /** Sets the sampling; a new one starts its stream again (drawn() 0). Not an undo step. */
    void setSampling(const core::Sampling& sampling);
    /** True when the prediction delivered is of the current tokens and edits: Append can choose from it. */
    bool canChoose() const { return m_choosable && m_prediction.next; }
    /** The step that appends the token the model chooses after the last (core::TokenSampler on the edited pass's
     *  logits), named for the batchIndex-th token of an Append that started at batchStart (steps of one batch
     *  merge). Refused, saying why, when the text fills the model's positions or the logits overflowed. */
    Step appendStep(int batch, const QString& batchStart, int batchIndex) const;
    /** The first position (0-based) where the text read again gives other tokens than ids(), or nothing when it
     *  gives them. */
    std::optional<int> rereadDifference() const;
    /** The newest prediction computed (empty before the first). */
    const Prediction& prediction() const { return m_prediction; }
    /** Every layer × head of the latest pass (null before the first). */
    std::shared_ptr<const render::AttentionGrid> grid() const { return m_grid; }
    /** The newest pass's lens and attribution: null when no view of them was shown as it was asked for (so a view
     *  shown later never finds an earlier state's; while shown, one stays until the next pass brings its own). */
    std::shared_ptr<const LensResult> lens() const { return m_lens; }
    std::shared_ptr<const AttributionResult> attribution() const { return m_attribution; }
    /** A view of which is shown or hidden: the passes make it only while one is shown; shown, it comes at once. */
    void setInstrumentShown(Instrument which, bool shown);
    /** The lens or attribution kept as SPEC §8's JSON (one space of indent, as the command line writes it) or CSV;
     *  empty when there is none. */
    std::string instrumentFile(Instrument which, bool csv) const;
    /** The instruments' token: −1 the most probable at the prediction's position, else its id. */
    void setInstrumentTarget(int id);
    int instrumentTarget() const { return m_target; }
    /** The id of a text that is exactly one token (core::singleToken), else nothing with error saying why. */
    std::optional<int> singleToken(const QString& text, QString* error) const;
    /** The Block view of the latest pass that had one asked (null before). */
    std::shared_ptr<const core::BlockView> block() const { return m_block; }
    /** Where the Block view looks (0-based), or nothing while it is hidden: each pass then brings its block. */
    void setBlockPosition(std::optional<int> position);
    /** Which position's next token prediction() is of: −1 the last one, else 0-based. */
    int predictionPosition() const override { return m_predictionPosition; }
    /** True while the forward pass of the current state has not been delivered. */
    bool isRunning() const override { return m_runner.isPending(); }
    /** The session as its file writes it, saved to savePath (a relative model.path is kept only in the folder of
     *  filePath, the file it was opened from). */
    core::ModelSession fileSession(const QString& savePath, const QString& filePath) const;

    std::function<PreparedText()> prepareText(const QString& text) const override;
    bool preparesOnWorker(const QString&) const override { return false; }  // well under a millisecond
    double storedValue(double value) const override { return double(float(value)); }
    Step cellStep(MatrixId id, int row, int col, double value) const override;
    Step matrixStep(MatrixId id, const core::Matrix& value) const override;
    Step optionsStep(const core::Options& options) const override;
    Step shapeStep(core::AttentionModel resized) const override;
    Step outputProjectionStep(bool on) const override;
    std::function<std::string()> serializing(const QString& savePath, const QString& filePath,
                                             const nlohmann::json& extra) const override;

    /** The step that zeroes head (0-based) of the shown layer as a whole: one record, its rows of W_O counting as
     *  0 while their edits are kept (an ablation); nothing when it is zeroed already. */
    Step zeroHeadStep(int head) const override;
    /** The step that gives the shown layer's edited cells and zeroed heads (or every layer's) back to the
     *  checkpoint. */
    Step resetStep(bool everyLayer) const override;

    bool setShownLayer(int layer) override;
    void setPredictionPosition(int position) override;
    /** Applies cells and ablations (their after values, or before when not forward) to the edit map, the zeroed
     *  heads and the shown layer. */
    EditResult applyWeights(const std::vector<Gpt2CellChange>& cells, const std::vector<AblationChange>& ablations,
                            bool forward);
    /** Sets the text (its tokens follow with the pass); its tokens are its own, Append's stream starts again. */
    EditResult applyText(const QString& text);
    /** Sets the text, its tokens exactly and Append's place (Append and the undo of a text). */
    EditResult applyModelText(const ModelText& text);
    void edited(const EditResult& result) override;
    /** Blocks until the newest pass is delivered, without an event loop (tests). */
    void finishRun() { m_runner.finish(); }

private:
    /** Asks for the pass of the current state; relayer: the shown layer's model too. */
    void run(bool relayer);
    ModelRunner::Request request();
    void delivered(ModelRunResult result);
    Step weightsStep(std::vector<Gpt2CellChange> cells, std::vector<AblationChange> ablations = {}) const;
    /** The shown value of W_O row (row) and column col: 0 in a zeroed head's rows. */
    double shownOutputValue(int row, int col) const;
    /** The rows of the weight shown in the table of id: d_model, or heads·head_dim for W_O. */
    int weightRows(MatrixId id) const;

    /** A pass of the checkpoint that never runs: its weights, cells, tokenizer and counts, read on any thread. */
    std::shared_ptr<const core::ModelPass> m_reference;
    core::ModelShape m_shape;
    QString m_folder;
    std::string m_modelPath;  ///< model.path as the file wrote it (kept on save), or the folder
    std::vector<int> m_ids;
    int m_layer = 0;
    core::ModelEdits m_edits;  ///< the one record of the edited cells
    std::set<std::pair<int, int>> m_ablations;
    bool m_relayerWanted = false;
    core::Sampling m_sampling;
    std::uint64_t m_drawn = 0;
    bool m_choosable = false;  ///< the prediction is of the current tokens and edits
    Prediction m_prediction;
    std::shared_ptr<const render::AttentionGrid> m_grid;
    std::shared_ptr<const LensResult> m_lens;
    std::shared_ptr<const AttributionResult> m_attribution;
    bool m_lensShown = false, m_attributionShown = false;
    int m_target = -1;
    int m_predictionPosition = -1;
    std::optional<int> m_blockPosition;
    std::shared_ptr<const core::BlockView> m_block;
    ModelRunner m_runner{[this] { return request(); }, [this](ModelRunResult r) { delivered(std::move(r)); }};
};

}  // namespace ui
