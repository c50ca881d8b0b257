#include "modelsession.h"

#include "commands.h"
#include "document.h"

#include "core/session/builtinmodel.h"
#include "core/session/hubcache.h"
#include "core/session/instrumentfiles.h"
#include "core/text/tokentext.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRect>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace ui {

std::optional<core::ModelWeight> weightOf(MatrixId id, int row, int weightRows)
{
    const bool bias = row == weightRows;
    switch (id) {
    case MatrixId::Embeddings: return std::nullopt;
    case MatrixId::Query: return bias ? core::ModelWeight::QueryBias : core::ModelWeight::Query;
    case MatrixId::Key: return bias ? core::ModelWeight::KeyBias : core::ModelWeight::Key;
    case MatrixId::Value: return bias ? core::ModelWeight::ValueBias : core::ModelWeight::Value;
    case MatrixId::Output: return bias ? core::ModelWeight::OutputBias : core::ModelWeight::Output;
    }
    return std::nullopt;
}

MatrixId matrixIdOf(core::ModelWeight weight)
{
    switch (weight) {
    case core::ModelWeight::Query:
    case core::ModelWeight::QueryBias:
    case core::ModelWeight::QueryNorm: return MatrixId::Query;
    case core::ModelWeight::Key:
    case core::ModelWeight::KeyBias:
    case core::ModelWeight::KeyNorm: return MatrixId::Key;
    case core::ModelWeight::Value:
    case core::ModelWeight::ValueBias: return MatrixId::Value;
    case core::ModelWeight::Output:
    case core::ModelWeight::OutputBias: return MatrixId::Output;
    }
    return MatrixId::Query;
}

int tableRowOf(core::ModelWeight weight, int row, int weightRows)
{
    return core::isRowWeight(weight) ? weightRows : row;
}

QString modelName(const QString& folder)
{
    return QString::fromStdString(core::modelName(QDir::cleanPath(folder).toStdString()));
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
    loaded.layer = core::shownLayerModel(*loaded.opened.pass, loaded.opened.session.layer - 1,
                                         core::modelName(loaded.opened.folder));
    return loaded;
}

namespace {

QString xIsNoWeight()
{
    return Document::tr("X is the layer's attention norm output, not a weight.");
}

bool sameBits(float a, float b)
{
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

/** What a pass's delivered layer changed in the shown model, from before to after. The same layer again (a new
 *  text, an edit in a layer below it) has the weights shown already: the edits of the shown layer reach its model
 *  as they are made (ModelSession::applyCells), and a result is delivered only for the current state. Then only X
 *  changed, and the tokens with a new text. Another layer: anything. */
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

ModelSession::ModelSession(LoadedModel loaded, const QString&)
    : Session(std::move(loaded.layer), QString::fromStdString(loaded.opened.session.text),
              loaded.opened.session.extras),
      m_reference(loaded.opened.pass->freshPass()),
      m_shape(loaded.opened.pass->shape()),
      m_folder(QString::fromStdString(loaded.opened.folder)),
      m_modelPath(loaded.opened.session.modelPath),
      m_ids(loaded.opened.pass->tokens()),
      m_layer(loaded.opened.session.layer - 1)
{
    for (const core::ModelEdit& e : loaded.opened.pass->edits())
        m_edits[{e.layer, e.weight, e.row, e.col}] = e.value;
    m_ablations = loaded.opened.pass->ablations();
    m_runner.reset(loaded.opened.pass);
    run(false);
}

ModelSession::~ModelSession()
{
    m_runner.cancel();
}

float ModelSession::weightValue(int layer, core::ModelWeight weight, int row, int col) const
{
    const auto it = m_edits.find({layer, weight, row, col});
    return it != m_edits.end() ? it->second : m_reference->checkpointValue(layer, weight, row, col);
}

int ModelSession::weightRows(MatrixId id) const
{
    return id == MatrixId::Output ? m_shape.heads * m_shape.headDim : m_shape.dModel;
}

bool ModelSession::isCellEdited(MatrixId id, int row, int col) const
{
    const int rows = weightRows(id);
    const auto weight = weightOf(id, row, rows);
    if (!weight || row < 0 || row > rows || m_reference->checkCell(*weight, row == rows ? 0 : row, col))
        return false;
    return m_edits.count({m_layer, *weight, row == rows ? 0 : row, col}) > 0;
}

std::vector<std::string> ModelSession::vocabularyTokens() const
{
    std::vector<std::string> tokens;
    for (int id : m_ids)
        tokens.push_back(m_reference->vocabularyToken(id));
    return tokens;
}

core::ModelSession ModelSession::fileSession(const QString& savePath, const QString& filePath) const
{
    core::ModelSession session;
    // A relative model.path is kept while the file stays in its folder; saved elsewhere, the folder is written
    // as it was found.
    const bool relative = !m_modelPath.empty() && QDir::isRelativePath(QString::fromStdString(m_modelPath));
    const bool sameFolder = !filePath.isEmpty() && !savePath.isEmpty()
        && QFileInfo(savePath).absoluteDir() == QFileInfo(filePath).absoluteDir();
    // The model in the box is saved by its name, wherever the program and the file are, and a model of the Hugging
    // Face cache by its repository id, wherever that cache is.
    if (core::isBuiltinModel(m_modelPath) || (relative && (sameFolder || savePath.isEmpty())))
        session.modelPath = m_modelPath;
    else if (auto id = core::savedHubId(m_modelPath, QDir(m_folder).absolutePath().toStdString()))
        session.modelPath = std::move(*id);
    else
        session.modelPath = QDir(m_folder).absolutePath().toStdString();
    session.layer = m_layer + 1;
    session.text = m_tokenText.toStdString();
    session.extras = m_extras;
    for (const auto& [cell, value] : m_edits) {
        const auto& [layer, weight, row, col] = cell;
        session.edits.push_back({layer + 1, weight, row, col, double(value)});
    }
    for (const auto& [layer, head] : m_ablations)
        session.ablations.push_back({layer + 1, head + 1});
    return session;
}

std::function<std::string()> ModelSession::serializing(const QString& savePath, const QString& filePath,
                                                       const nlohmann::json& extra) const
{
    auto session = std::make_shared<core::ModelSession>(fileSession(savePath, filePath));
    session->extras.update(extra);
    return [session] { return core::serializeModelSession(*session); };
}

std::function<PreparedText()> ModelSession::prepareText(const QString& text) const
{
    return [text, reference = m_reference, name = modelName(m_folder), shape = m_shape]() {
        PreparedText prepared;
        const std::vector<int> ids = reference->encode(text.toStdString());
        const std::size_t count = ids.size();
        const int limit = shape.positions;
        if (count == 0)
            prepared.error = Document::tr("Type at least one token: attention needs something to attend to.");
        else if (int(count) > limit)
            prepared.error = Document::tr("The text is %1 tokens; %2 reads at most %3 (its %4). The text is "
                                          "kept as it was.")
                                 .arg(count)
                                 .arg(name)
                                 .arg(limit)
                                 .arg(QString::fromStdString(shape.positionsKey));
        else if (const auto problem = reference->tokensProblem(ids))
            prepared.error = Document::tr("The text cannot be read: %1. The text is kept as it was.")
                                 .arg(QString::fromStdString(*problem));
        if (!prepared.error.isEmpty())
            return prepared;
        prepared.step = [text](const Session& session, bool startsBurst) {
            Step step;
            const ModelSession* model = session.modelSession();
            if (text == session.tokenText() || !model)
                return step;
            step.edit = modelTextEdit(model->modelText(), text, startsBurst);
            step.name = Document::tr("Changed the text to “%1”")
                            .arg((text.size() > 40 ? text.left(39) + QStringLiteral("…") : text).simplified());
            return step;
        };
        return prepared;
    };
}

Step ModelSession::weightsStep(std::vector<Gpt2CellChange> cells, std::vector<AblationChange> ablations) const
{
    std::erase_if(cells, [](const Gpt2CellChange& c) { return sameBits(c.before, c.after); });
    std::erase_if(ablations, [](const AblationChange& a) { return a.before == a.after; });
    if (cells.empty() && ablations.empty())
        return {};
    return {modelWeightsEdit(std::move(cells), std::move(ablations)), {}, {}};
}

double ModelSession::shownOutputValue(int row, int col) const
{
    if (isAblated(m_layer, row / m_shape.headDim))
        return 0;
    return double(weightValue(m_layer, core::ModelWeight::Output, row, col));
}

Step ModelSession::cellStep(MatrixId id, int row, int col, double value) const
{
    const int rows = weightRows(id);
    const auto weight = weightOf(id, row, rows);
    const float v = float(value);
    if (!weight || !std::isfinite(v) || !cellOf(m_model, id, row, col))
        return Step::refusal(xIsNoWeight());
    const int weightRow = row == rows ? 0 : row;  // a bias is one row
    return weightsStep({{m_layer, *weight, weightRow, col, weightValue(m_layer, *weight, weightRow, col), v}});
}

Step ModelSession::matrixStep(MatrixId id, const core::Matrix& value) const
{
    if (id == MatrixId::Embeddings)
        return Step::refusal(xIsNoWeight());
    const int rows = weightRows(id);
    std::vector<Gpt2CellChange> cells;
    for (int r = 0; r < int(value.rows()); ++r)
        for (int c = 0; c < int(value.cols()); ++c) {
            const auto weight = weightOf(id, r, rows);
            const float v = float(value(r, c));
            if (!weight || !std::isfinite(v))
                return Step::refusal(xIsNoWeight());
            const int weightRow = r == rows ? 0 : r;
            if (double(v) != *cellOf(m_model, id, r, c))
                cells.push_back({m_layer, *weight, weightRow, c, weightValue(m_layer, *weight, weightRow, c), v});
        }
    return weightsStep(std::move(cells));
}

Step ModelSession::optionsStep(const core::Options& options) const
{
    if (options == m_model.options)
        return {};
    return Step::refusal(Document::tr("The checkpoint fixes the options of a model session."));
}

Step ModelSession::shapeStep(core::AttentionModel) const
{
    return Step::refusal(Document::tr("The checkpoint fixes the dimensions of a model session."));
}

Step ModelSession::outputProjectionStep(bool on) const
{
    if (on == m_model.wo.has_value())
        return {};
    return Step::refusal(Document::tr("The checkpoint fixes the dimensions of a model session."));
}

Step ModelSession::zeroHeadStep(int head) const
{
    if (head < 0 || head >= m_shape.heads)
        return Step::refusal(Document::tr("There is no such head."));
    Step step = weightsStep({}, {{m_layer, head, isAblated(m_layer, head), true}});
    step.name = Document::tr("Zeroed head %1 of layer %2").arg(head + 1).arg(m_layer + 1);
    return step;
}

Step ModelSession::resetStep(bool everyLayer) const
{
    std::vector<Gpt2CellChange> cells;
    for (const auto& [cell, value] : m_edits) {
        const auto& [layer, weight, row, col] = cell;
        if (everyLayer || layer == m_layer)
            cells.push_back({layer, weight, row, col, value, m_reference->checkpointValue(layer, weight, row, col)});
    }
    std::vector<AblationChange> ablations;
    for (const auto& [layer, head] : m_ablations)
        if (everyLayer || layer == m_layer)
            ablations.push_back({layer, head, true, false});
    Step step = weightsStep(std::move(cells), std::move(ablations));
    step.name = everyLayer ? Document::tr("Reset every layer to the checkpoint")
                           : Document::tr("Reset layer %1 to the checkpoint").arg(m_layer + 1);
    return step;
}

EditResult ModelSession::applyWeights(const std::vector<Gpt2CellChange>& cells,
                                      const std::vector<AblationChange>& ablations, bool forward)
{
    const int d = m_shape.dModel, dv = m_shape.headDim;
    EditResult result;
    int shown = 0;
    std::optional<MatrixId> only;  // the one table of the shown layer every shown cell is in
    bool oneTable = true;
    QRect box;
    const Gpt2CellChange* last = nullptr;
    for (const Gpt2CellChange& c : cells) {
        const float value = forward ? c.after : c.before;
        const core::ModelCell cell{c.layer, c.weight, c.row, c.col};
        if (sameBits(value, m_reference->checkpointValue(c.layer, c.weight, c.row, c.col)))
            m_edits.erase(cell);
        else
            m_edits[cell] = value;
        if (c.layer < m_layer)
            result.rerun = true;  // the shown layer's X changes too
        if (c.layer != m_layer)
            continue;
        const MatrixId id = matrixIdOf(c.weight);
        const int row = tableRowOf(c.weight, c.row, weightRows(id));
        const bool zeroed = c.weight == core::ModelWeight::Output && isAblated(c.layer, c.row / dv);
        if (double* shownCell = cellOf(m_model, id, row, c.col); shownCell && !zeroed)
            *shownCell = double(value);
        oneTable = oneTable && (!only || *only == id);
        only = id;
        box |= QRect(c.col, row, 1, 1);
        last = &c;
        ++shown;
    }
    for (const AblationChange& a : ablations) {
        const bool zeroed = forward ? a.after : a.before;
        if (zeroed)
            m_ablations.insert({a.layer, a.head});
        else
            m_ablations.erase({a.layer, a.head});
        if (a.layer < m_layer)
            result.rerun = true;
        if (a.layer != m_layer)
            continue;
        for (int r = a.head * dv; r < (a.head + 1) * dv; ++r)
            for (int c = 0; c < d; ++c)
                (*m_model.wo)(r, c) = shownOutputValue(r, c);
        oneTable = oneTable && (!only || *only == MatrixId::Output);
        only = MatrixId::Output;
        box |= QRect(0, a.head * dv, d, dv);
        shown += 2;  // a block, never one cell
    }
    if (shown == 1) {
        const double before = double(forward ? last->before : last->after);
        const double after = double(forward ? last->after : last->before);
        result.change =
            ModelChange::cell(*only, tableRowOf(last->weight, last->row, weightRows(*only)), last->col, before, after);
    } else if (shown > 1) {
        result.change = oneTable ? ModelChange::block(*only, box.top(), box.left(), box.height(), box.width())
                                 : ModelChange::of(ModelChange::Kind::Model);
    }
    return result;
}

EditResult ModelSession::applyText(const QString& text)
{
    return applyModelText({text, m_reference->encode(text.toStdString()), 0, false});
}

EditResult ModelSession::applyModelText(const ModelText& text)
{
    m_tokenText = text.text;
    m_ids = text.ids;
    m_drawn = text.drawn;
    emit tokenTextChanged();
    return {std::nullopt, true};
}

ModelText ModelSession::modelText() const
{
    return {m_tokenText, m_ids, m_drawn, rereadDifference().has_value()};
}

std::optional<int> ModelSession::rereadDifference() const
{
    const std::vector<int> reread = m_reference->encode(m_tokenText.toStdString());
    const auto [a, b] = std::mismatch(reread.begin(), reread.end(), m_ids.begin(), m_ids.end());
    if (a == reread.end() && b == m_ids.end())
        return std::nullopt;
    return int(a - reread.begin());
}

void ModelSession::setSampling(const core::Sampling& sampling)
{
    const core::Sampling& s = m_sampling;
    if (s.temperature == sampling.temperature && s.topK == sampling.topK && s.topP == sampling.topP
        && s.seed == sampling.seed)
        return;
    m_sampling = sampling;
    m_drawn = 0;
}

QString appendedText(const QString& text, const QString& before, const QString& after)
{
    qsizetype common = 0;
    while (common < before.size() && common < after.size() && before[common] == after[common])
        ++common;
    if (common > 0 && common < after.size() && after[common - 1].isHighSurrogate())
        --common;  // not between the halves of one character
    const QString gone = before.mid(common);
    if (!text.endsWith(gone))
        return text + after.mid(common);
    return text.left(text.size() - gone.size()) + after.mid(common);
}

namespace {

/** A piece of text in a step's name: at most 40 characters, each line break shown as ⏎. */
QString namedText(QString text)
{
    text.replace(QLatin1Char('\n'), QStringLiteral("⏎"));
    return text.size() > 40 ? text.left(39) + QStringLiteral("…") : text;
}

}  // namespace

Step ModelSession::appendStep(int batch, const QString& batchStart, int batchIndex) const
{
    if (!canChoose())
        return Step::refusal(Document::tr("The forward pass of the text is still running."));
    const std::size_t n = m_ids.size();
    if (int(n) >= m_shape.positions)
        return Step::refusal(Document::tr("Nothing appended: the text is %1 tokens, as many as %2 reads (its %3).")
                                 .arg(n)
                                 .arg(modelName(m_folder))
                                 .arg(QString::fromStdString(m_shape.positionsKey)));
    core::TokenSampler sampler(m_sampling, m_drawn);
    const auto id = sampler.next(*m_prediction.next);
    if (!id)
        return Step::refusal(Document::tr("Nothing appended: the forward pass overflowed float32, and logits that are "
                                          "not finite numbers cannot be ranked. Undo the edit or give a smaller value."));
    ModelText before = modelText();
    ModelText after{{}, m_ids, sampler.drawn(), false};
    after.ids.push_back(*id);
    after.text = appendedText(m_tokenText, QString::fromStdString(core::decodedText(*m_reference, m_ids)),
                              QString::fromStdString(core::decodedText(*m_reference, after.ids)));
    Step step;
    // The step names what was written: the new text, or, for one token that shows no whole character yet (a byte
    // of one cut in two), the token as the vocabulary writes it.
    QString written = after.text.startsWith(batchStart) ? after.text.mid(batchStart.size()) : QString();
    if (written.isEmpty() || (batchIndex == 0 && written.contains(QChar::ReplacementCharacter)))
        written = QString::fromStdString(m_reference->readable(*id));
    step.name = batchIndex == 0 ? Document::tr("Appended “%1”").arg(namedText(written))
                                : Document::tr("Appended %1 tokens “%2”").arg(batchIndex + 1).arg(namedText(written));
    step.edit = modelAppendEdit(std::move(before), std::move(after), batch);
    return step;
}

void ModelSession::edited(const EditResult& result)
{
    if (m_predictionPosition >= int(m_ids.size())) {
        m_predictionPosition = -1;  // the chosen token is gone: the last one, until another is chosen
        emit predictionPositionChanged(m_predictionPosition);
    }
    run(result.rerun);
}

bool ModelSession::setShownLayer(int layer)
{
    if (layer < 0 || layer >= m_shape.layers || layer == m_layer)
        return false;
    m_layer = layer;
    emit shownLayerChanged(layer);
    run(true);
    return true;
}

void ModelSession::setPredictionPosition(int position)
{
    if (position == m_predictionPosition)
        return;
    m_predictionPosition = position;
    emit predictionPositionChanged(position);
    run(false);
}

void ModelSession::setInstrumentShown(Instrument which, bool shown)
{
    bool& flag = which == Instrument::Lens ? m_lensShown : m_attributionShown;
    if (flag == shown)
        return;
    flag = shown;
    const bool have = which == Instrument::Lens ? bool(m_lens) : bool(m_attribution);
    // a job already started without it would deliver none: ask again
    if (shown && (!have || m_runner.isPending()))
        run(false);
}

std::string ModelSession::instrumentFile(Instrument which, bool csv) const
{
    if (which == Instrument::Lens && m_lens) {
        const std::optional<int> target = m_lens->target >= 0 ? std::optional<int>(m_lens->target) : std::nullopt;
        // the files name the text's tokens: a pass that holds them and never runs
        const std::shared_ptr<core::ModelPass> named = m_reference->freshPass();
        std::string ignored;
        named->setTokens(m_lens->ids, ignored);
        return csv ? core::lensCsv(*named, m_lens->cells, target)
                   : core::lensJson(*named, m_lens->cells, target).dump(1) + "\n";
    }
    if (which == Instrument::Attribution && m_attribution)
        return csv ? core::attributionCsv(m_attribution->parts) : core::attributionJson(m_attribution->parts).dump(1) + "\n";
    return {};
}

void ModelSession::setInstrumentTarget(int id)
{
    if (id == m_target)
        return;
    m_target = id;
    if (m_lensShown || m_attributionShown) {
        run(false);
    } else {  // none is shown to follow it: those kept are of the former token
        m_lens.reset();
        m_attribution.reset();
    }
}

std::optional<int> ModelSession::singleToken(const QString& text, QString* error) const
{
    std::string why;
    const std::optional<int> id = core::singleToken(*m_reference, text.toStdString(), why);
    if (!id && error)
        *error = QString::fromStdString(why);
    return id;
}

void ModelSession::setBlockPosition(std::optional<int> position)
{
    if (position == m_blockPosition)
        return;
    m_blockPosition = position;
    if (position)
        run(false);
}

void ModelSession::run(bool relayer)
{
    m_choosable = false;
    m_relayerWanted = m_relayerWanted || relayer;
    m_runner.request();
}

ModelRunner::Request ModelSession::request()
{
    ModelRunner::Request r;
    r.ids = m_ids;
    r.edits.reserve(m_edits.size());
    for (const auto& [cell, value] : m_edits) {
        const auto& [layer, weight, row, col] = cell;
        r.edits.push_back({layer, weight, row, col, value});
    }
    r.ablations = m_ablations;
    r.layer = m_layer;
    r.position = m_predictionPosition;
    r.wantLayer = m_relayerWanted;
    r.modelName = core::modelName(m_folder.toStdString());
    r.grid = m_grid;
    r.wantLens = m_lensShown;
    r.wantAttribution = m_attributionShown;
    r.target = m_target;
    r.blockPosition = m_blockPosition;
    return r;
}

void ModelSession::delivered(ModelRunResult result)
{
    m_prediction = std::move(result.prediction);
    m_choosable = true;  // a result no newer request overtook: of the current state
    if (result.grid)
        m_grid = std::move(result.grid);
    if (result.block)
        m_block = std::move(result.block);
    if (result.layer) {
        m_relayerWanted = false;
        const ModelChange change = layerChange(m_model, *result.layer);
        m_model = std::move(*result.layer);
        emit shownModelChanged(change, std::move(result.validatedLayer));
    }
    // A prediction still `comparing` is the edited pass posted first: the same job brings the comparison
    // (isRunning() stays true until then).
    // what no view asked for is not kept: a view shown later asks for those of the state then
    m_lens = std::move(result.lens);
    m_attribution = std::move(result.attribution);
    emit predictionChanged(m_prediction);
    emit instrumentsChanged();
}

}  // namespace ui
