#include "core/models/gpt2config.h"

#include "core/formats/mappedfile.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace core {

std::optional<Gpt2Config> parseGpt2Config(std::string_view text, const std::string& label, std::string& error)
{
    const nlohmann::json json = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        error = label + ": is not a JSON object";
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
            fail(name, "expected an integer, got " + it->dump());
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
            fail("layer_norm_epsilon", "expected a positive number, got " + it->dump());
        else
            config.layerNormEpsilon = it->get<double>();
    }
    if (const auto it = json.find("activation_function"); ok && it != json.end()) {
        if (!it->is_string())
            fail("activation_function", "expected a string, got " + it->dump());
        else if (*it != "gelu_new" && *it != "gelu_pytorch_tanh")
            fail("activation_function", it->dump() + " is not supported (gelu_new or gelu_pytorch_tanh expected)");
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
