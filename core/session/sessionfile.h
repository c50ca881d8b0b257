#pragma once
/** Reading and writing the session file of SPEC §2. */

#include "core/formats/jsonread.h"
#include "core/attention/model.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace core {

struct Session {
    AttentionModel model;
    /** Everything in the file the program does not interpret (unknown keys at any level, the
     *  app's own keys such as "title" or "view"), kept so that a round trip loses nothing. */
    nlohmann::json extras = nlohmann::json::object();
};

/** The "format" of every session file (SPEC §2, §5). */
inline constexpr const char* sessionFormat = "attention-explorer-session";

/** The "version" of a plain session (SPEC §2), as this program writes it. */
constexpr int plainSessionVersion = 1;
/** The "version" of a model session (SPEC §5): the highest version this program reads. */
constexpr int modelSessionVersion = 2;

/** How a refusal names a JSON value: "the text \"abc\"" (escaped, cut after 40 characters), "the number 5",
 *  "a list of 3", "an object", "true", "null". One describer for every session file. */
std::string describeJson(const nlohmann::json& j);

/** The refusal of a session file's header that is not one of version `version` (plainSessionVersion or
 *  modelSessionVersion): not an object, "format" missing or other, "version" missing, not a whole number, newer
 *  than this program reads, or the other kind's; nothing when it is. */
std::optional<std::string> sessionHeaderRefusal(const nlohmann::json& j, int version);

/** The refusal of a session file whose whole-number "version" is higher than this program reads, naming both;
 *  nothing for any other version. */
std::optional<std::string> newerVersionRefusal(const nlohmann::json& version);

/** Largest session file accepted. */
constexpr std::size_t maxSessionFileBytes = std::size_t(64) << 20;

/** The bounds of a session file's JSON, of either kind: its size and a nesting no session needs. Keys given twice
 *  are read as before (the last one counts). */
inline constexpr JsonLimits sessionJsonLimits{.maxBytes = maxSessionFileBytes, .maxDepth = 64, .uniqueKeys = false};

/** The default dimensions for tokens typed without embeddings or weights. */
constexpr int defaultDModel = 4;

/** Parses a session from JSON text. On failure returns nothing and sets error to a message that
 *  names the key and the expected and actual value or shape. */
std::optional<Session> parseSession(std::string_view json, std::string& error);

/** The text of a session file of either kind (SPEC §2 or §5), read once to its end, so that a pipe or a FIFO
 *  serves as well as a file (at most maxSessionFileBytes). Nothing, and error starting with the file name, when
 *  it is missing, a folder, unreadable or larger. */
std::optional<std::string> readSessionText(const std::string& path, std::string& error);

/** parseSession of the text read from path: errors start with the file name. */
std::optional<Session> parseSessionFileText(std::string_view text, const std::string& path, std::string& error);

/** Reads a session file (readSessionText, then parseSessionFileText). Errors start with the file name. */
std::optional<Session> readSessionFile(const std::string& path, std::string& error);

/** The session as JSON text (indented, UTF-8, numbers that read back to the same double). */
std::string serializeSession(const Session& session);

/** A model for typed tokens with the program's defaults: derived embeddings of defaultDModel
 *  columns and the worked example's W_Q, W_K, W_V. */
AttentionModel modelForTokens(const std::vector<std::string>& tokens);

}  // namespace core
