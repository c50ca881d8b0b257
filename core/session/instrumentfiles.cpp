#include "core/session/instrumentfiles.h"

#include "core/formats/numbertext.h"
#include "core/session/modelsession.h"

#include <cmath>

namespace core {

namespace {

/** A number as the JSON files write it: null when it is not finite. */
nlohmann::ordered_json number(double v)
{
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

/** A number as a CSV field: empty when it is not finite. */
std::string csvNumber(double v)
{
    return std::isfinite(v) ? machineNumber(v) : std::string();
}

std::string tokenOf(const ModelPass& pass, int id)
{
    return id < 0 ? std::string() : pass.vocabularyToken(id);
}

}  // namespace

std::string csvField(std::string_view text)
{
    if (text.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(text);
    std::string out = "\"";
    for (char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

nlohmann::ordered_json lensJson(const ModelPass& pass, const std::vector<std::vector<LensCell>>& lens,
                                std::optional<int> target)
{
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& layer : lens) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (const LensCell& cell : layer) {
            nlohmann::ordered_json j;
            j["id"] = cell.id < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(cell.id);
            j["token"] = tokenOf(pass, cell.id);
            j["probability"] = number(cell.probability);
            if (target)
                j["target_probability"] = number(cell.targetProbability);
            row.push_back(std::move(j));
        }
        rows.push_back(std::move(row));
    }
    nlohmann::ordered_json out;
    out["tokens"] = vocabularyTokens(pass);
    out["lens"] = std::move(rows);
    return out;
}

std::string lensCsv(const ModelPass& pass, const std::vector<std::vector<LensCell>>& lens, std::optional<int> target)
{
    std::string out = target ? "layer,position,id,token,probability,target_probability\n"
                             : "layer,position,id,token,probability\n";
    for (std::size_t l = 0; l < lens.size(); ++l)
        for (std::size_t p = 0; p < lens[l].size(); ++p) {
            const LensCell& cell = lens[l][p];
            out += std::to_string(l) + ',' + std::to_string(p + 1) + ',' +
                   (cell.id < 0 ? std::string() : std::to_string(cell.id)) + ',' + csvField(tokenOf(pass, cell.id)) +
                   ',' + csvNumber(cell.probability);
            if (target)
                out += ',' + csvNumber(cell.targetProbability);
            out += '\n';
        }
    return out;
}

nlohmann::ordered_json attributionJson(const Attribution& a)
{
    nlohmann::ordered_json out;
    out["target"] = a.target;
    out["position"] = a.position + 1;
    out["logit"] = number(a.logit);
    out["embeddings"] = number(a.embeddings);
    nlohmann::ordered_json heads = nlohmann::ordered_json::array();
    for (const auto& layer : a.heads) {
        nlohmann::ordered_json row = nlohmann::ordered_json::array();
        for (double v : layer)
            row.push_back(number(v));
        heads.push_back(std::move(row));
    }
    out["heads"] = std::move(heads);
    nlohmann::ordered_json mlps = nlohmann::ordered_json::array();
    for (double v : a.mlps)
        mlps.push_back(number(v));
    out["mlps"] = std::move(mlps);
    out["bias"] = number(a.bias);
    return out;
}

std::string attributionCsv(const Attribution& a)
{
    std::string out = "component,layer,head,contribution\nembeddings,,," + csvNumber(a.embeddings) + '\n';
    for (std::size_t l = 0; l < a.heads.size(); ++l) {
        for (std::size_t h = 0; h < a.heads[l].size(); ++h)
            out += "head," + std::to_string(l + 1) + ',' + std::to_string(h + 1) + ',' + csvNumber(a.heads[l][h]) + '\n';
        out += "mlp," + std::to_string(l + 1) + ",," + csvNumber(a.mlps[l]) + '\n';
    }
    return out + "bias,,," + csvNumber(a.bias) + "\nlogit,,," + csvNumber(a.logit) + '\n';
}

nlohmann::ordered_json patchingJson(const Patching& p)
{
    const auto grid = [](const std::vector<std::vector<double>>& rows) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& r : rows) {
            nlohmann::ordered_json row = nlohmann::ordered_json::array();
            for (double v : r)
                row.push_back(number(v));
            out.push_back(std::move(row));
        }
        return out;
    };
    nlohmann::ordered_json out;
    out["clean"] = number(p.clean);
    out["corrupt"] = number(p.corrupt);
    out["residual"] = grid(p.residual);
    out["heads"] = grid(p.heads);
    return out;
}

std::string patchingCsv(const Patching& p)
{
    std::string out = "grid,layer,index,metric\nclean,,," + csvNumber(p.clean) + "\ncorrupt,,," + csvNumber(p.corrupt) + '\n';
    const auto grid = [&out](const char* name, const std::vector<std::vector<double>>& rows) {
        for (std::size_t l = 0; l < rows.size(); ++l)
            for (std::size_t i = 0; i < rows[l].size(); ++i)
                out += std::string(name) + ',' + std::to_string(l + 1) + ',' + std::to_string(i + 1) + ',' +
                       csvNumber(rows[l][i]) + '\n';
    };
    grid("residual", p.residual);
    grid("heads", p.heads);
    return out;
}

} // namespace core
