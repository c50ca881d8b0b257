#pragma once
/** The --compute JSON of SPEC §3. */

#include "jsontext.h"
#include "trace.h"

#include <nlohmann/json.hpp>
#include <string>

namespace core {

nlohmann::json matrixToJson(const MatrixCRef& m);
/** {"tokens", "x", "heads": [{queries, keys, values, scores, scaled_scores, weights, outputs}],
 *   "concat", "output"}. */
nlohmann::json traceToJson(const Trace& trace);
/** traceToJson as jsonText writes it. */
std::string traceToJsonText(const Trace& trace, int indent = 1);

}  // namespace core
