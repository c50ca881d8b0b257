#include "core/session/modelsession.h"

#include "core/formats/jsontext.h"
#include "core/formats/numbertext.h"
#include "core/models/decoderforward.h"
#include "core/models/gpt2forward.h"
#include "core/session/builtinmodel.h"
#include "core/session/hubcache.h"
#include "core/session/sessionfile.h"
#include "core/text/tokentext.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>

namespace core {

namespace {

using nlohmann::json;


struct Refusal {
    std::string message;
};


/** A whole number ≥ least at key; what is expected is said as expected. */
int wholeNumber(const json& j, const std::string& key, int least, const std::string& expected)
{
    const double v = j.is_number() ? j.get<double>() : NAN;
    if (!j.is_number() || v != std::floor(v) || v < least || v > double(maxGpt2Size))
        throw Refusal{key + ": expected " + expected + ", got " + describeJson(j)};
    return int(v);
}

ModelSessionEdit editFrom(const json& e, const std::string& key)
{
    if (!e.is_object())
        throw Refusal{key + ": expected an object {layer, weight, row, col, value}, got " + describeJson(e)};
    for (const char* field : {"layer", "weight", "row", "col", "value"})
        if (!e.contains(field))
            throw Refusal{key + "." + field + ": missing"};
    ModelSessionEdit edit;
    edit.layer = wholeNumber(e["layer"], key + ".layer", 1, "a whole number from 1 (the first layer)");
    const auto weight = e["weight"].is_string() ? modelWeightFromName(e["weight"].get<std::string>()) : std::nullopt;
    if (!weight)
        throw Refusal{key + ".weight: expected " + std::string(modelWeightNames(true)) + ", got " + describeJson(e["weight"])};
    edit.weight = *weight;
    edit.row = wholeNumber(e["row"], key + ".row", 0, "a whole number from 0");
    edit.col = wholeNumber(e["col"], key + ".col", 0, "a whole number from 0");
    // The weights are float32: a value at or past 0x1.ffffffp+127 (FLT_MAX and half its step) rounds to infinity.
    const json& value = e["value"];
    if (!value.is_number() || !(std::fabs(value.get<double>()) < 0x1.ffffffp+127))
        throw Refusal{key + ".value: expected a finite number that float32 holds (at most 3.4028235e+38 in size), got "
                      + describeJson(value)};
    edit.value = value.get<double>();
    return edit;
}

ModelSessionAblation ablationFrom(const json& a, const std::string& key)
{
    if (!a.is_object())
        throw Refusal{key + ": expected an object {layer, head}, got " + describeJson(a)};
    for (const char* field : {"layer", "head"})
        if (!a.contains(field))
            throw Refusal{key + "." + field + ": missing"};
    ModelSessionAblation ablation;
    ablation.layer = wholeNumber(a["layer"], key + ".layer", 1, "a whole number from 1 (the first layer)");
    ablation.head = wholeNumber(a["head"], key + ".head", 1, "a whole number from 1 (the first head)");
    return ablation;
}

ModelSession sessionFrom(const json& j)
{
    if (auto refusal = sessionHeaderRefusal(j, modelSessionVersion))
        throw Refusal{*refusal};

    ModelSession s;
    if (!j.contains("model"))
        throw Refusal{"model: missing; expected {\"path\": the model's folder, \"layer\": the layer shown}"};
    const json& model = j["model"];
    if (!model.is_object())
        throw Refusal{"model: expected an object {\"path\", \"layer\"}, got " + describeJson(model)};
    if (!model.contains("path"))
        throw Refusal{"model.path: missing; expected the folder of a GPT-2 checkpoint"};
    if (!model["path"].is_string() || model["path"].get<std::string>().empty())
        throw Refusal{"model.path: expected the folder of a GPT-2 checkpoint, got " + describeJson(model["path"])};
    s.modelPath = model["path"].get<std::string>();
    if (model.contains("layer"))
        s.layer = wholeNumber(model["layer"], "model.layer", 1, "a whole number from 1 (the first layer)");

    if (!j.contains("text"))
        throw Refusal{"text: missing; expected the text the model reads"};
    if (!j["text"].is_string())
        throw Refusal{"text: expected a string, got " + describeJson(j["text"])};
    s.text = j["text"].get<std::string>();
    if (s.text.empty())
        throw Refusal{"text: expected at least one character, got an empty text"};

    if (j.contains("edits") && !j["edits"].is_null()) {
        const json& edits = j["edits"];
        if (!edits.is_array())
            throw Refusal{"edits: expected a list of edited cells, got " + describeJson(edits)};
        for (std::size_t i = 0; i < edits.size(); ++i)
            s.edits.push_back(editFrom(edits[i], "edits[" + std::to_string(i) + "]"));
    }
    if (j.contains("ablations") && !j["ablations"].is_null()) {
        const json& ablations = j["ablations"];
        if (!ablations.is_array())
            throw Refusal{"ablations: expected a list of {layer, head}, got " + describeJson(ablations)};
        for (std::size_t i = 0; i < ablations.size(); ++i)
            s.ablations.push_back(ablationFrom(ablations[i], "ablations[" + std::to_string(i) + "]"));
    }

    json extras = j;
    for (const char* key : {"format", "version", "model", "text", "edits", "ablations"})
        extras.erase(key);
    json modelExtras = model;
    modelExtras.erase("path");
    modelExtras.erase("layer");
    if (!modelExtras.empty())
        extras["model"] = std::move(modelExtras);
    s.extras = std::move(extras);
    return s;
}

/** A float32 as the double that prints as its shortest round-trip text ("0.1", not 0.10000000149…). */
double floatNumber(float v)
{
    const std::string text = machineFloatNumber(v);
    double d = v;
    std::from_chars(text.data(), text.data() + text.size(), d);
    return d;
}

} // namespace

bool isModelSessionText(std::string_view text)
{
    if (jsonBoundsProblem(text, sessionJsonLimits))
        return false; // parseSession refuses it, saying why
    const json j = json::parse(text, nullptr, false);
    return j.is_object() && j.contains("version") && j["version"].is_number_integer() && j["version"] == modelSessionVersion;
}

std::optional<ModelSession> parseModelSession(std::string_view text, std::string& error)
{
    if (text.empty()) {
        error = "the file is empty; expected a JSON session";
        return std::nullopt;
    }
    try {
        const auto j = readJson(text, {}, sessionJsonLimits, error);
        if (!j)
            return std::nullopt;
        return sessionFrom(*j);
    } catch (const Refusal& r) {
        error = r.message;
    } catch (const json::exception& e) {
        error = std::string("not a session: ") + e.what();
    }
    return std::nullopt;
}

namespace {

/** parseModelSession of the text read from path: errors start with path. */
std::optional<ModelSession> parseModelSessionFileText(std::string_view text, const std::string& path,
                                                      std::string& error)
{
    std::string why;
    auto session = parseModelSession(text, why);
    if (!session)
        error = path + ": " + why;
    return session;
}

} // namespace

std::optional<ModelSession> readModelSessionFile(const std::string& path, std::string& error)
{
    const auto text = readSessionText(path, error);
    if (!text)
        return std::nullopt;
    return parseModelSessionFileText(*text, path, error);
}

std::optional<AnySession> readSession(const std::string& path, std::string& error)
{
    const auto text = readSessionText(path, error);
    if (!text)
        return std::nullopt;
    if (isModelSessionText(*text)) {
        if (auto session = parseModelSessionFileText(*text, path, error))
            return AnySession(std::move(*session));
    } else if (auto session = parseSessionFileText(*text, path, error)) {
        return AnySession(std::move(*session));
    }
    return std::nullopt;
}

std::string serializeModelSession(const ModelSession& s)
{
    nlohmann::ordered_json out;
    out["format"] = sessionFormat;
    out["version"] = modelSessionVersion;
    nlohmann::ordered_json model;
    model["path"] = s.modelPath;
    model["layer"] = s.layer;
    const json& extras = s.extras.is_object() ? s.extras : json::object();
    if (extras.contains("model") && extras["model"].is_object())
        for (auto it = extras["model"].begin(); it != extras["model"].end(); ++it)
            model[it.key()] = it.value();
    out["model"] = std::move(model);
    out["text"] = s.text;
    nlohmann::ordered_json edits = nlohmann::ordered_json::array();
    for (const ModelSessionEdit& e : s.edits)
        edits.push_back({{"layer", e.layer},
                         {"weight", modelWeightName(e.weight)},
                         {"row", e.row},
                         {"col", e.col},
                         {"value", e.value}});
    out["edits"] = std::move(edits);
    if (!s.ablations.empty()) {
        nlohmann::ordered_json ablations = nlohmann::ordered_json::array();
        for (const ModelSessionAblation& a : s.ablations)
            ablations.push_back({{"layer", a.layer}, {"head", a.head}});
        out["ablations"] = std::move(ablations);
    }
    for (auto it = extras.begin(); it != extras.end(); ++it)
        if (it.key() != "model")
            out[it.key()] = it.value();
    return jsonText(out, 2) + "\n";
}

std::string modelFolder(const ModelSession& session, const std::string& sessionPath)
{
    if (isBuiltinModel(session.modelPath))
        return builtinModelFolder();
    const std::filesystem::path model(session.modelPath);
    const std::string folder = model.is_absolute() || sessionPath.empty()
        ? model.string()
        : (std::filesystem::path(sessionPath).parent_path() / model).lexically_normal().string();
    std::string notCached;  // openModelSession says it
    return cachedSnapshotFor(session.modelPath, folder, notCached).value_or(folder);
}

namespace {


/** The session's text, layer, edits and ablations checked against the model and applied to pass, then the pass
 *  run; what is wrong when something is refused (stoppedMessage when stop said stop). */
std::optional<std::string> applyAndRun(ModelPass& pass, const ModelSession& session, const StopCheck& stop,
                                       const std::function<std::string(const std::string&)>& where,
                                       const ModelSessionNames& names, const std::string& folder)
{
    const ModelShape shape = pass.shape();
    // A text too long for any tokenization is refused before it is encoded (which costs memory by the byte).
    const std::size_t surelyTooLong = std::size_t(Limits::maxTokens) * pass.longestTokenBytes();
    if (session.text.size() > surelyTooLong)
        return where(names.text) + ": " + std::to_string(session.text.size()) + " bytes, more than the " +
               std::to_string(Limits::maxTokens) + " tokens this program reads can hold";
    std::string why;
    if (!pass.setTokens(pass.encode(session.text), why))
        return where(names.text) + ": " + why;
    if (session.layer > shape.layers)
        return where(names.layer) + ": " + std::to_string(session.layer) + " is past the model's last layer ("
               + std::to_string(shape.layers) + ", " + shape.layersKey + " in " + folder + "/config.json)";
    // An edit's or an ablation's layer past the model's last: refused, naming the key.
    const auto pastLastLayer = [&](const std::string& key, int layer) -> std::optional<std::string> {
        if (layer <= shape.layers)
            return std::nullopt;
        return key + ".layer: " + std::to_string(layer) + " is past the model's last layer ("
               + std::to_string(shape.layers) + ")";
    };
    for (std::size_t i = 0; i < session.edits.size(); ++i) {
        const ModelSessionEdit& e = session.edits[i];
        const std::string key = where("edits[" + std::to_string(i) + "]");
        if (auto problem = pastLastLayer(key, e.layer))
            return problem;
        if (auto problem = pass.checkCell(e.weight, e.row, e.col))
            return key + ": " + *problem;
        pass.setEdit(e.layer - 1, e.weight, e.row, e.col, float(e.value), why);
    }
    for (std::size_t i = 0; i < session.ablations.size(); ++i) {
        const ModelSessionAblation& a = session.ablations[i];
        const std::string key = where("ablations[" + std::to_string(i) + "]");
        if (auto problem = pastLastLayer(key, a.layer))
            return problem;
        if (a.head > shape.heads)
            return key + ".head: " + std::to_string(a.head) + " is past the layer's last head ("
                   + std::to_string(shape.heads) + ", " + shape.headsKey + ")";
        pass.setAblated(a.layer - 1, a.head - 1, true);
    }
    if (!pass.run(stop))
        return std::string(stoppedMessage);
    return std::nullopt;
}

} // namespace

std::shared_ptr<ModelPass> loadModelPass(const std::string& folder, std::string& error, const StopCheck& stop)
{
    if (!folderNamesDecoderFamily(folder)) {
        auto checkpoint = Gpt2Checkpoint::load(folder, error, stop);
        return checkpoint ? std::make_shared<Gpt2Forward>(std::move(checkpoint)) : nullptr;
    }
    auto checkpoint = DecoderCheckpoint::load(folder, error, stop);
    if (!checkpoint)
        return nullptr;
    auto tokenizer = HfTokenizer::loadFolder(folder, error);
    if (!tokenizer)
        return nullptr;
    return std::make_shared<DecoderForward>(std::move(checkpoint),
                                            std::make_shared<const HfTokenizer>(std::move(*tokenizer)));
}

std::optional<OpenedModelSession> openModelSession(const ModelSession& session, const std::string& sessionPath,
                                                   std::string& error, const StopCheck& stop,
                                                   const ModelSessionNames& names)
{
    // "<file>: <name>: …", or "<name>: …" for a session that has no file.
    const std::function<std::string(const std::string&)> where = [&sessionPath](const std::string& name) {
        return (sessionPath.empty() ? std::string() : sessionPath + ": ") + name;
    };
    OpenedModelSession opened;
    opened.session = session;
    opened.folder = modelFolder(session, sessionPath);
    std::string why;
    if (!cachedSnapshotFor(session.modelPath, opened.folder, why) && !why.empty()) {
        error = where(names.modelFolder) + ": " + why;
        return std::nullopt;
    }
    opened.pass = loadModelPass(opened.folder, why, stop);
    if (!opened.pass) {
        error = why == stoppedMessage ? why : where(names.modelFolder) + ": " + why;
        return std::nullopt;
    }
    if (const auto problem = applyAndRun(*opened.pass, session, stop, where, names, opened.folder)) {
        error = *problem;
        return std::nullopt;
    }
    return opened;
}

std::optional<OpenedModelSession> openModelSessionText(std::string_view text, const std::string& path,
                                                       std::string& error)
{
    const auto session = parseModelSessionFileText(text, path, error);
    if (!session)
        return std::nullopt;
    return openModelSession(*session, path, error);
}

std::optional<OpenedModelSession> openModelSessionFile(const std::string& path, std::string& error)
{
    const auto text = readSessionText(path, error);
    if (!text)
        return std::nullopt;
    return openModelSessionText(*text, path, error);
}

std::vector<std::string> vocabularyTokens(const ModelPass& pass)
{
    std::vector<std::string> tokens;
    tokens.reserve(pass.tokens().size());
    for (int id : pass.tokens())
        tokens.push_back(pass.vocabularyToken(id));
    return tokens;
}

JsonEntries modelComputeEntries(const ModelPass& pass, int layer, int count)
{
    const ModelShape shape = pass.shape();
    JsonEntries out;
    out["token_ids"] = [&pass](JsonWriter& w) { w.value(json(pass.tokens())); };
    out["tokens"] = [&pass](JsonWriter& w) { w.value(json(vocabularyTokens(pass))); };
    out["layer"] = [layer](JsonWriter& w) { w.value(json(layer)); };
    // [layer][head][n][n]: written row by row from the pass, never held as JSON (n² numbers per head).
    out["attentions"] = [&pass, shape](JsonWriter& w) {
        w.beginArray();
        for (int l = 0; l < shape.layers; ++l) {
            w.beginArray();
            for (int h = 0; h < shape.heads; ++h) {
                const FloatMatrix& a = pass.attention(l, h);
                w.beginArray();
                for (Eigen::Index r = 0; r < a.rows(); ++r) {
                    w.beginArray();
                    for (Eigen::Index c = 0; c < a.cols(); ++c)
                        w.number(floatNumber(a(r, c)));
                    w.endArray();
                }
                w.endArray();
            }
            w.endArray();
        }
        w.endArray();
    };
    out["next_token"] = [&pass, count](JsonWriter& w) {
        json logits = json::array();
        const FloatMatrix& l = pass.logits();
        for (Eigen::Index v = 0; v < l.cols(); ++v)
            logits.push_back(floatNumber(l(0, v)));
        json top = json::array();
        for (const TokenCandidate& c : pass.topTokens(count))
            top.push_back({{"id", c.id}, {"token", pass.vocabularyToken(c.id)}, {"probability", c.probability}});
        w.value(json{{"logits", std::move(logits)}, {"top", std::move(top)}});
    };
    // SPEC §6: the architecture, the K/V heads and, for a rotary model, its base and rotated width
    out["architecture"] = [shape](JsonWriter& w) { w.value(json(shape.architecture)); };
    out["kv_heads"] = [shape](JsonWriter& w) { w.value(json(shape.kvHeads)); };
    if (shape.rotaryDims > 0)
        out["rotary"] = [shape](JsonWriter& w) { w.value(json{{"theta", shape.ropeTheta}, {"dims", shape.rotaryDims}}); };
    return out;
}

json modelComputeExtras(const ModelPass& pass, int layer, int count)
{
    json out = json::object();
    for (const auto& [key, write] : modelComputeEntries(pass, layer, count))
        out[key] = json::parse(writtenText(write, -1));
    return out;
}

std::string modelName(const std::string& folder)
{
    if (const auto cached = cachedRepoOf(folder))  // a snapshot is named by its repository, not its commit
        return cached->repo.substr(cached->repo.find('/') + 1);
    std::filesystem::path path = std::filesystem::path(folder).lexically_normal();
    if (!path.has_filename())  // "models/gpt2/"
        path = path.parent_path();
    const std::string name = path.filename().string();
    return name.empty() ? folder : name;
}

AttentionModel shownLayerModel(ModelPass& pass, int layer, const std::string& modelName)
{
    pass.run();
    AttentionModel model = pass.layerModel(layer);
    for (std::size_t i = 0; i < model.tokens.size(); ++i)
        model.tokens[i] = pass.readable(pass.tokens()[i]);
    const ModelShape shape = pass.shape();
    model.origin = AttentionModel::Origin{modelName, layer + 1, shape.layers, shape.architecture, shape.norm};
    return model;
}

} // namespace core
