#include "core/models/gpt2config.h"

#include "core/models/decoderconfig.h"

#include "core/formats/jsonread.h"
#include "core/formats/mappedfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace core {

namespace {

/** The architecture config.json names, checked against supportedArchitectures; an empty string when it is one
 *  of them (or names none), else what is wrong. */
std::string architectureProblem(const nlohmann::json& json)
{
    const auto known = [](std::string_view name, const char* ArchitectureName::*field) {
        return std::any_of(std::begin(supportedArchitectures), std::end(supportedArchitectures),
                           [&](const ArchitectureName& a) { return name == a.*field; });
    };
    const std::string supported = supportedArchitecturesNote();
    if (const auto it = json.find("architectures"); it != json.end()) {
        if (!it->is_array() || it->empty() || !(*it)[0].is_string())
            return "architectures: expected a list of architecture names, got " + jsonExcerpt(*it);
        const std::string& name = (*it)[0].get_ref<const std::string&>();
        if (!known(name, &ArchitectureName::architecture))
            return "architecture " + messageExcerpt(name) + " is not supported" + supported;
    }
    if (const auto it = json.find("model_type"); it != json.end()) {
        if (!it->is_string())
            return "model_type: expected a string, got " + jsonExcerpt(*it);
        if (!known(it->get_ref<const std::string&>(), &ArchitectureName::modelType))
            return "model_type " + jsonExcerpt(*it) + " is not supported" + supported;
    }
    return {};
}

} // namespace

std::optional<Gpt2Config> parseGpt2Config(std::string_view text, const std::string& label, std::string& error)
{
    const auto read =
        readJsonObject(text, label, {.maxBytes = maxConfigBytes, .maxValues = maxConfigBytes / 16}, error);
    if (!read)
        return std::nullopt;
    const nlohmann::json& json = *read;
    if (const std::string problem = architectureProblem(json); !problem.empty()) {
        error = label + ": " + problem;
        return std::nullopt;
    }
    bool ok = true;
    const auto fail = [&](const std::string& key, const std::string& what) {
        if (ok)
            error = label + ": " + key + ": " + what;
        ok = false;
    };
    const auto size = [&](const char* key, const char* fallback = nullptr) {
        auto it = json.find(key);
        std::string name = key;
        if (it == json.end() && fallback) {
            it = json.find(fallback);
            name = fallback;
        }
        if (it == json.end()) {
            fail(key, fallback ? std::string("missing (and no ") + fallback + " either)" : "missing");
            return 0;
        }
        if (!it->is_number_integer()) {
            fail(name, "expected an integer, got " + jsonExcerpt(*it));
            return 0;
        }
        const std::int64_t v = it->get<std::int64_t>();
        if (v < 1 || v > maxGpt2Size) {
            fail(name, "expected 1 … " + std::to_string(maxGpt2Size) + ", got " + std::to_string(v));
            return 0;
        }
        return int(v);
    };

    Gpt2Config config;
    config.layers = size("n_layer");
    config.dModel = size("n_embd");
    config.heads = size("n_head");
    config.positions = size("n_positions", "n_ctx");
    config.vocabSize = size("vocab_size");
    if (ok && config.dModel % config.heads != 0)
        fail("n_head", std::to_string(config.heads) + " heads do not divide n_embd " + std::to_string(config.dModel));

    if (const auto it = json.find("layer_norm_epsilon"); ok && it != json.end()) {
        if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0)
            fail("layer_norm_epsilon", "expected a positive number, got " + jsonExcerpt(*it));
        else
            config.layerNormEpsilon = it->get<double>();
    }
    if (const auto it = json.find("activation_function"); ok && it != json.end()) {
        if (!it->is_string())
            fail("activation_function", "expected a string, got " + jsonExcerpt(*it));
        else if (*it != "gelu_new" && *it != "gelu_pytorch_tanh")
            fail("activation_function", jsonExcerpt(*it) + " is not supported (gelu_new or gelu_pytorch_tanh expected)");
        else
            config.activation = it->get<std::string>();
    }
    if (!ok)
        return std::nullopt;
    return config;
}

std::optional<Gpt2Config> loadGpt2Config(const std::string& path, std::string& error)
{
    const auto file = MappedFile::open(path, error);
    if (!file)
        return std::nullopt;
    return parseGpt2Config(file->bytes(), path, error);
}

} // namespace core
