#pragma once
/** The built-in sessions. */

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

/** The worked example of SPEC §4 (unscaled). */
AttentionModel illustratedModel();

}  // namespace core
