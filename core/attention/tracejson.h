#pragma once
/** The --compute JSON of SPEC §3. */

#include "core/formats/jsontext.h"
#include "core/attention/trace.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>

namespace core {

nlohmann::json matrixToJson(const MatrixCRef& m);
/** {"tokens", "x", "heads": [{queries, keys, values, scores, scaled_scores, weights, outputs}],
 *   "concat", "output"}; with rotary positions each head also has queries_unrotated and keys_unrotated. */
nlohmann::json traceToJson(const Trace& trace);
/** traceToJson as jsonText writes it. */
std::string traceToJsonText(const Trace& trace, int indent = 1);
/** Writes what --compute prints (SPEC §3), byte for byte jsonText(traceToJson(trace) updated with extras): the keys
 *  of extras (a model's, SPEC §5) join or replace the trace's, in key order. Each matrix is written as it is read,
 *  never held as JSON or as one text. */
void writeComputeJson(JsonWriter& writer, const Trace& trace, const nlohmann::json& extras = nlohmann::json::object());

/** Keys of --compute's JSON, each with what writes its value when its turn comes (in key order). */
using JsonEntries = std::map<std::string, std::function<void(JsonWriter&)>>;

/** writeComputeJson with extras that write themselves, so that a large one (a model's attentions) is never held
 *  as JSON either. */
void writeComputeJson(JsonWriter& writer, const Trace& trace, const JsonEntries& extras);

}  // namespace core
