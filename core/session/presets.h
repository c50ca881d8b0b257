#pragma once
/** The built-in sessions: plain ones that hold their numbers, and sessions on the built-in model that show what its
 *  heads learnt (MODEL_CARD.md). */

#include "core/session/modelsession.h"
#include "core/session/sessionfile.h"

#include <optional>
#include <string>
#include <vector>

namespace core {

struct PresetInfo {
    std::string name;         ///< as --preset takes it, e.g. "illustrated"
    std::string description;  ///< one line, English
};

std::vector<PresetInfo> presetList();

/** The preset's session; nothing for an unknown name. */
std::optional<Session> preset(const std::string& name);

/** The presets that open the built-in model: the window's Presets menu and quick start offer them beside
 *  presetList()'s (the command line's --preset takes plain sessions only). */
std::vector<PresetInfo> modelPresetList();

/** The model preset's session, as a session file of it would hold it: model.path "builtin", the layer and the text,
 *  and in extras "view" the head and query (from 1) where the head's pattern shows; nothing for an unknown name. */
std::optional<ModelSession> modelPreset(const std::string& name);

/** The model preset File › Open Built-in Model opens: the induction head on words said twice. */
inline constexpr const char* builtinModelPreset = "induction-head";

/** The worked example of SPEC §4 (unscaled). */
AttentionModel illustratedModel();

}  // namespace core
