#pragma once

#include <string>
#include <vector>

namespace core {

/** What a session or --model names the model that ships with the program by (SPEC §7). */
inline constexpr const char* builtinModelName = "builtin";

inline bool isBuiltinModel(const std::string& modelPath) { return modelPath == builtinModelName; }

/** Where the shipped model may be, in the order they are tried: beside the running program as it is installed
 *  (<exe dir>/../share/attention-explorer/models/builtin, the .deb and cmake --install), then the source tree it
 *  was built from (the build tree). */
std::vector<std::string> builtinModelCandidates();

/** The first candidate holding a config.json; the first candidate when none does (opening it then says what is
 *  missing). */
std::string builtinModelFolder();

} // namespace core
