#pragma once
/** The model session file of SPEC §5 (version 2): a GPT-2 checkpoint folder, the shown layer, the typed text
 *  and the edited weight cells; opening one, and the extras --compute prints for it. */

#include "core/models/modelpass.h"
#include "core/attention/tracejson.h"
#include "core/session/sessionfile.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace core {

/** One edited cell as the file writes it: layer 1-based, row and col 0-based. */
struct ModelSessionEdit {
    int layer = 1;
    ModelWeight weight = ModelWeight::Query;
    int row = 0;
    int col = 0;
    double value = 0; ///< as written; the forward pass uses it rounded to float32, as the weights are

    bool operator==(const ModelSessionEdit&) const = default;
};

/** One head zeroed as a whole (SPEC §5 "ablations"): its rows of W_O count as 0. Both 1-based. */
struct ModelSessionAblation {
    int layer = 1;
    int head = 1;

    bool operator==(const ModelSessionAblation&) const = default;
};

struct ModelSession {
    std::string modelPath; ///< model.path as written: relative paths are taken from the session file's folder
    int layer = 1;         ///< model.layer, 1-based
    std::string text;
    std::vector<ModelSessionEdit> edits;
    std::vector<ModelSessionAblation> ablations;
    /** Keys the program does not interpret, at the top level and inside "model" (as extras["model"]), kept so
     *  that a round trip loses nothing. */
    nlohmann::json extras = nlohmann::json::object();
};

/** True when the JSON text is an object whose "version" is 2: a model session rather than a plain one. */
bool isModelSessionText(std::string_view json);

/** Parses a model session. Refuses, with error naming the key and what is wrong, text that is not JSON, a
 *  format other than "attention-explorer-session", a version other than 2, a missing or empty model.path, a
 *  model.layer below 1, a missing text, and an edit that is not {layer ≥ 1, weight (one of query key value
 *  output query_bias key_bias value_bias output_bias), row ≥ 0, col ≥ 0, a value finite in float32}, and an
 *  ablation that is not {layer ≥ 1, head ≥ 1}. Whether the layer, cells and heads exist in the model is checked
 *  when it is opened. */
std::optional<ModelSession> parseModelSession(std::string_view json, std::string& error);

/** Reads a model session file (readSessionText, then parseModelSession); error starts with the path. */
std::optional<ModelSession> readModelSessionFile(const std::string& path, std::string& error);

/** A session file of either kind: a plain session (SPEC §2) or a model session (SPEC §5). */
using AnySession = std::variant<Session, ModelSession>;

/** Reads the session file at path once and parses it as the kind its "version" names; nothing, with error starting
 *  with path, when it cannot be read or is refused. */
std::optional<AnySession> readSession(const std::string& path, std::string& error);

/** The session as JSON text (indented, UTF-8; numbers that read back to the same double; extras kept). */
std::string serializeModelSession(const ModelSession& session);

/** model.path as a folder: "builtin" as the shipped model's folder (builtinModelFolder), an absolute path as it is,
 *  a relative one from sessionPath's folder (the working directory when sessionPath is empty). */
std::string modelFolder(const ModelSession& session, const std::string& sessionPath);

/** An opened model session: the checkpoint loaded (GPT-2, SPEC §5, or a family of SPEC §6), the text encoded, the
 *  edits applied, the pass run. */
struct OpenedModelSession {
    ModelSession session;
    std::string folder;              ///< the checkpoint's folder, resolved
    std::shared_ptr<ModelPass> pass; ///< tokens and edits set, run
};

/** The pass of folder's checkpoint, without tokens: config.json names the family (Llama, Qwen and NeoX read through
 *  one description with their tokenizer.json; anything else as GPT-2, whose loader refuses what it is not, by
 *  name). Null with error (naming the file and what is wrong) when the checkpoint or its tokenizer is refused, or
 *  stoppedMessage when stop said stop. */
std::shared_ptr<ModelPass> loadModelPass(const std::string& folder, std::string& error, const StopCheck& stop = {});

/** What openModelSession's messages call the model's folder, the text and the layer: by default the keys of a
 *  session file (SPEC §5). The command line names its flags ("--model"), the window its own words. */
struct ModelSessionNames {
    std::string modelFolder = "model.path";
    std::string text = "text";
    std::string layer = "model.layer";
};

/** Loads the checkpoint of session (read from sessionPath, which messages name), encodes its text and
 *  applies its edits. Refuses with "<sessionPath>: <name>: <what is wrong>" (without a file, "<name>: …"), the
 *  name from names, a folder that is missing or not a checkpoint (the checkpoint's own message follows), a text
 *  of more than n_positions tokens or none, a layer past n_layer, and an edit ("edits[i]…") whose layer or cell
 *  lies outside the model. stop is asked between the steps of loading the checkpoint and of its forward pass
 *  (Gpt2Checkpoint::load, Gpt2Forward::run): when it says stop, nothing is returned and error is stoppedMessage. */
std::optional<OpenedModelSession> openModelSession(const ModelSession& session, const std::string& sessionPath,
                                                   std::string& error, const StopCheck& stop = {},
                                                   const ModelSessionNames& names = {});

/** The text read from path (readSessionText) parsed as a model session, then openModelSession; every error
 *  starts with path. */
std::optional<OpenedModelSession> openModelSessionText(std::string_view text, const std::string& path,
                                                       std::string& error);

/** readSessionText, then openModelSessionText. */
std::optional<OpenedModelSession> openModelSessionFile(const std::string& path, std::string& error);

/** The name a model is shown by: its folder's last part ("gpt2" for "models/gpt2/"), or folder when it has none. */
std::string modelName(const std::string& folder);

/** Layer (0-based) of the pass as the views show it: ModelPass::layerModel() with the tokens as people read them
 *  (ModelPass::readable) and the origin set to modelName. Runs the part of the pass it needs. */
AttentionModel shownLayerModel(ModelPass& pass, int layer, const std::string& modelName);

/** The pass's tokens as the model's vocabulary writes them ("Ġcat", "▁cat"), as --compute and trace.json name them. */
std::vector<std::string> vocabularyTokens(const ModelPass& pass);

/** What --compute prints for a model session beside the shown layer's steps (SPEC §5): token_ids, tokens (as
 *  the vocabulary writes them), layer (1-based), attentions [layer][head][n][n], next_token {logits
 *  (vocab_size numbers), top (count candidates: id, token, probability; most probable first)}. Float32 values
 *  are written as the shortest text that reads back to the same float32. The pass must have run. */
nlohmann::json modelComputeExtras(const ModelPass& pass, int layer, int count = 10);

/** modelComputeExtras as entries that write themselves (writeComputeJson), the attentions row by row: what --compute
 *  prints without holding n² numbers per head as JSON; with SPEC §6's architecture, kv_heads and, for a rotary
 *  model, rotary {theta, dims}. The entries refer to pass, which must outlive them. */
JsonEntries modelComputeEntries(const ModelPass& pass, int layer, int count = 10);

} // namespace core
