#pragma once
/** The --compute JSON of SPEC §3. */

#include "trace.h"

#include <nlohmann/json.hpp>
#include <string>

namespace core {

nlohmann::json matrixToJson(const MatrixCRef& m);
/** {"tokens", "x", "heads": [{queries, keys, values, scores, scaled_scores, weights, outputs}],
 *   "concat", "output"}. */
nlohmann::json traceToJson(const Trace& trace);
/** traceToJson dumped with numbers that read back to the same double. */
std::string traceToJsonText(const Trace& trace, int indent = 1);
/** Any such JSON dumped the same way. */
std::string jsonText(const nlohmann::json& j, int indent = 1);

}  // namespace core
