#include "tracejson.h"

namespace core {

using nlohmann::json;

json matrixToJson(const MatrixCRef& m)
{
    json rows = json::array();
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        json row = json::array();
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            row.push_back(m(r, c));
        rows.push_back(std::move(row));
    }
    return rows;
}

json traceToJson(const Trace& trace)
{
    json j;
    j["tokens"] = trace.model->tokens;
    j["x"] = matrixToJson(trace.x());
    json heads = json::array();
    for (int h = 0; h < trace.headCount(); ++h) {
        const HeadTrace& ht = trace.heads[std::size_t(h)];
        json head;
        head["queries"] = matrixToJson(ht.queries);
        head["keys"] = matrixToJson(ht.keys);
        head["values"] = matrixToJson(ht.values);
        head["scores"] = matrixToJson(ht.scores);
        head["scaled_scores"] = matrixToJson(trace.scaledScores(h));
        head["weights"] = matrixToJson(ht.weights);
        head["outputs"] = matrixToJson(ht.outputs);
        heads.push_back(std::move(head));
    }
    j["heads"] = std::move(heads);
    j["concat"] = matrixToJson(trace.concat);
    j["output"] = matrixToJson(trace.output);
    return j;
}

std::string traceToJsonText(const Trace& trace, int indent)
{
    return jsonText(traceToJson(trace), indent);
}

}  // namespace core
