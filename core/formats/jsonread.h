#pragma once
/** JSON text as the program reads it from files it does not trust (config.json, the tokenizer's files, a
 *  safetensors header, session files): bounded in size and nesting before a value is built, so that no input
 *  costs more than a small multiple of its limit in memory nor overflows the stack; and quoted back in messages
 *  only as a short, escaped excerpt. */

#include <nlohmann/json.hpp>

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace core {

/** How much JSON a reader accepts. */
struct JsonLimits {
    std::size_t maxBytes = std::size_t(1) << 20; ///< the text's length
    int maxDepth = 64;                           ///< arrays and objects open at once
    /** Values (counted by their separators and brackets): what the value costs in memory and time to build. */
    std::size_t maxValues = std::numeric_limits<std::size_t>::max();
    /** Refuse an object that names a key twice (nlohmann keeps only the last, silently). */
    bool uniqueKeys = true;
};

/** What is wrong with text against limits before it is parsed: "<n> bytes, more than …", "nested more than
 *  <depth> deep (at byte <i>)" or "more than <n> values (at byte <i>)"; nothing when it is within them. Every JSON the program reads passes here. */
std::optional<std::string> jsonBoundsProblem(std::string_view text, const JsonLimits& limits);

/** Parses text within limits (jsonBoundsProblem first). Refuses, with error "<label>: <what is wrong>" (without a label, "<what is wrong>"), text
 *  past the limits, text that is not JSON (naming the byte where it stops being JSON, and saying when the text
 *  ends before its value does) and, with uniqueKeys, a key given twice in one object. Never throws. */
std::optional<nlohmann::json> readJson(std::string_view text, const std::string& label, const JsonLimits& limits,
                                       std::string& error);

/** readJson, refusing also a value that is not an object: "<label>: is not a JSON object (it holds …)". */
std::optional<nlohmann::json> readJsonObject(std::string_view text, const std::string& label,
                                             const JsonLimits& limits, std::string& error);

/** text as a message may quote it: control characters, DEL, C1 controls and bytes that are not UTF-8 written as
 *  escapes (\u001b, \x9b, \xff), cut after about maxBytes with "…". Never prints raw terminal controls. */
std::string messageExcerpt(std::string_view text, std::size_t maxBytes = 80);

/** A JSON value as a message quotes it: its compact JSON text through messageExcerpt (a string in quotes). */
std::string jsonExcerpt(const nlohmann::json& value, std::size_t maxBytes = 80);

} // namespace core
