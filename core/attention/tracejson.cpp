#include "core/attention/tracejson.h"

#include <functional>
#include <map>

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

namespace {

/** True when the trace's q and k were turned by their positions: its heads print them unrotated too (SPEC §6). */
bool turnsPositions(const Trace& trace)
{
    return trace.model->options.positionalEncoding == PositionalEncoding::Rotary;
}

}  // namespace

json traceToJson(const Trace& trace)
{
    json j;
    j["tokens"] = trace.model->tokens;
    j["x"] = matrixToJson(trace.x());
    json heads = json::array();
    const bool rotary = turnsPositions(trace);
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
        if (rotary) {
            head["queries_unrotated"] = matrixToJson(ht.queriesUnrotated);
            head["keys_unrotated"] = matrixToJson(ht.keysUnrotated);
        }
        heads.push_back(std::move(head));
    }
    j["heads"] = std::move(heads);
    j["concat"] = matrixToJson(trace.concat);
    j["output"] = matrixToJson(trace.output);
    return j;
}

std::string traceToJsonText(const Trace& trace, int indent)
{
    return writtenText([&trace](JsonWriter& writer) { writeComputeJson(writer, trace); }, indent);
}

void writeComputeJson(JsonWriter& writer, const Trace& trace, const json& extras)
{
    JsonEntries entries;
    for (auto it = extras.begin(); it != extras.end(); ++it)
        entries[it.key()] = [&value = it.value()](JsonWriter& w) { w.value(value); };
    writeComputeJson(writer, trace, entries);
}

void writeComputeJson(JsonWriter& writer, const Trace& trace, const JsonEntries& extras)
{
    // The keys in nlohmann's order (std::map's), as traceToJson's object prints them.
    std::map<std::string, std::function<void()>> entries;
    entries["tokens"] = [&] { writer.value(json(trace.model->tokens)); };
    entries["x"] = [&] { writer.matrix(trace.x()); };
    entries["heads"] = [&] {
        const bool rotary = turnsPositions(trace);
        writer.beginArray();
        for (int h = 0; h < trace.headCount(); ++h) {
            const HeadTrace& ht = trace.heads[std::size_t(h)];
            const std::pair<const char*, const Matrix*> steps[] = {
                {"keys", &ht.keys},           {"keys_unrotated", &ht.keysUnrotated},
                {"outputs", &ht.outputs},     {"queries", &ht.queries},
                {"queries_unrotated", &ht.queriesUnrotated}, {"scaled_scores", nullptr},
                {"scores", &ht.scores},       {"values", &ht.values},
                {"weights", &ht.weights}};  // in key order; the unrotated two only with rotary positions
            writer.beginObject();
            for (const auto& [name, matrix] : steps) {
                if (!rotary && (matrix == &ht.keysUnrotated || matrix == &ht.queriesUnrotated))
                    continue;
                writer.key(name);
                if (matrix) {
                    writer.matrix(*matrix);
                    continue;
                }
                // The scaled scores row by row, as writer.matrix lays them out: n × n more would be held otherwise.
                writer.beginArray();
                for (Eigen::Index r = 0; r < ht.scores.rows(); ++r) {
                    const Matrix row = trace.scaledScoresRow(h, r);
                    writer.beginArray();
                    for (Eigen::Index c = 0; c < row.cols(); ++c)
                        writer.number(row(0, c));
                    writer.endArray();
                }
                writer.endArray();
            }
            writer.endObject();
        }
        writer.endArray();
    };
    entries["concat"] = [&] { writer.matrix(trace.concat); };
    entries["output"] = [&] { writer.matrix(trace.output); };
    for (const auto& [key, write] : extras)
        entries[key] = [&writer, &write = write] { write(writer); };
    writer.beginObject();
    for (const auto& [key, write] : entries) {
        writer.key(key);
        write();
    }
    writer.endObject();
}

}  // namespace core
