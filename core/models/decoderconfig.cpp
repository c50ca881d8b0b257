#include "core/models/decoderconfig.h"

#include "core/models/gpt2config.h"
#include "core/formats/jsonread.h"
#include "core/formats/mappedfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace core {

namespace {

struct FamilyName {
    const char* architecture;
    const char* modelType;
    DecoderFamily family;
};

constexpr FamilyName families[] = {
    {"LlamaForCausalLM", "llama", DecoderFamily::Llama},
    {"Qwen2ForCausalLM", "qwen2", DecoderFamily::Qwen2},
    {"Qwen3ForCausalLM", "qwen3", DecoderFamily::Qwen3},
    {"GPTNeoXForCausalLM", "gpt_neox", DecoderFamily::GptNeoX},
};

} // namespace

std::string supportedArchitecturesNote()
{
    std::string names;
    for (const ArchitectureName& a : supportedArchitectures)
        names += (names.empty() ? "" : ", ") + std::string(a.architecture);
    for (const FamilyName& f : families)
        names += ", " + std::string(f.architecture);
    return " (this program reads " + names + ")";
}

namespace {

/** The family architectures[0] names (or model_type when there is no architectures), else what is wrong. */
std::optional<const FamilyName*> familyOf(const nlohmann::json& json, std::string& problem)
{
    if (const auto it = json.find("architectures"); it != json.end()) {
        if (!it->is_array() || it->empty() || !(*it)[0].is_string()) {
            problem = "architectures: expected a list of architecture names, got " + jsonExcerpt(*it);
            return std::nullopt;
        }
        const std::string& name = (*it)[0].get_ref<const std::string&>();
        for (const FamilyName& f : families)
            if (name == f.architecture)
                return &f;
        const bool gpt2 = std::any_of(std::begin(supportedArchitectures), std::end(supportedArchitectures),
                                      [&](const ArchitectureName& a) { return name == a.architecture; });
        problem = "architecture " + jsonExcerpt((*it)[0]) +
                  (gpt2 ? " is GPT-2's, read by its own loader" : " is not supported" + supportedArchitecturesNote());
        return std::nullopt;
    }
    if (const auto it = json.find("model_type"); it != json.end() && it->is_string()) {
        for (const FamilyName& f : families)
            if (*it == f.modelType)
                return &f;
        problem = "model_type " + jsonExcerpt(*it) + " is not supported" + supportedArchitecturesNote();
        return std::nullopt;
    }
    problem = "architectures: missing (and no model_type either)";
    return std::nullopt;
}

/** Reads the keys of one config.json object, keeping the first fault. */
class Reader {
public:
    Reader(const nlohmann::json& json, const std::string& label, std::string& error)
        : m_json(json), m_label(label), m_error(error)
    {
    }

    bool ok() const { return m_ok; }

    void fail(const std::string& key, const std::string& what)
    {
        if (m_ok)
            m_error = m_label + ": " + key + ": " + what;
        m_ok = false;
    }

    /** The key's value, or nullptr when it is absent or null. */
    const nlohmann::json* find(const char* key) const
    {
        const auto it = m_json.find(key);
        return it == m_json.end() || it->is_null() ? nullptr : &*it;
    }

    /** An integer in 1 … maxDecoderSize; fallback when absent (0: required). */
    int count(const char* key, int fallback = 0)
    {
        const nlohmann::json* v = find(key);
        if (!v) {
            if (fallback == 0)
                fail(key, "missing");
            return fallback;
        }
        if (!v->is_number_integer()) {
            fail(key, "expected an integer, got " + jsonExcerpt(*v));
            return 0;
        }
        const std::int64_t n = v->get<std::int64_t>();
        if (n < 1 || n > maxDecoderSize) {
            fail(key, "expected 1 … " + std::to_string(maxDecoderSize) + ", got " + std::to_string(n));
            return 0;
        }
        return int(n);
    }

    /** A positive finite number, fallback when absent. */
    double positive(const nlohmann::json* v, const std::string& key, double fallback)
    {
        if (!v)
            return fallback;
        if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() <= 0) {
            fail(key, "expected a positive number, got " + jsonExcerpt(*v));
            return fallback;
        }
        return v->get<double>();
    }
    double positive(const char* key, double fallback) { return positive(find(key), key, fallback); }

    bool flag(const char* key, bool fallback)
    {
        const nlohmann::json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_boolean()) {
            fail(key, "expected true or false, got " + jsonExcerpt(*v));
            return fallback;
        }
        return v->get<bool>();
    }

    std::string text(const char* key, const char* fallback)
    {
        const nlohmann::json* v = find(key);
        if (!v)
            return fallback;
        if (!v->is_string()) {
            fail(key, "expected a string, got " + jsonExcerpt(*v));
            return fallback;
        }
        return v->get<std::string>();
    }

private:
    const nlohmann::json& m_json;
    const std::string& m_label;
    std::string& m_error;
    bool m_ok = true;
};

/** rope_scaling: nothing, "default", or a complete "llama3" (the only kind these families' checkpoints use). */
std::optional<Llama3Scaling> readRopeScaling(Reader& r)
{
    const nlohmann::json* v = r.find("rope_scaling");
    if (!v)
        return std::nullopt;
    if (!v->is_object()) {
        r.fail("rope_scaling", "expected an object, got " + jsonExcerpt(*v));
        return std::nullopt;
    }
    const auto type = v->contains("rope_type") ? v->at("rope_type") : v->value("type", nlohmann::json());
    if (type == "default")
        return std::nullopt;
    if (type != "llama3") {
        r.fail("rope_scaling", "type " + jsonExcerpt(type) + " is not supported (\"llama3\" or \"default\")");
        return std::nullopt;
    }
    Llama3Scaling s;
    const auto number = [&](const char* key, double& out) {
        const auto it = v->find(key);
        if (it == v->end() || it->is_null())
            r.fail(std::string("rope_scaling.") + key, "missing");
        else
            out = r.positive(&*it, std::string("rope_scaling.") + key, out);
    };
    number("factor", s.factor);
    number("low_freq_factor", s.lowFreqFactor);
    number("high_freq_factor", s.highFreqFactor);
    number("original_max_position_embeddings", s.originalPositions);
    if (r.ok() && !(s.highFreqFactor > s.lowFreqFactor))
        r.fail("rope_scaling.high_freq_factor", "must be larger than low_freq_factor");
    return s;
}

const nlohmann::json* firstOf(Reader& r, const char* key, const char* fallbackKey, const char*& used)
{
    used = key;
    if (const nlohmann::json* v = r.find(key))
        return v;
    used = fallbackKey;
    return r.find(fallbackKey);
}

} // namespace

std::vector<double> DecoderConfig::inverseFrequencies() const
{
    std::vector<double> inv(std::size_t(rotaryDims / 2));
    for (std::size_t i = 0; i < inv.size(); ++i)
        inv[i] = 1.0 / std::pow(ropeTheta, double(2 * i) / double(rotaryDims));
    if (!ropeScaling)
        return inv;
    // llama3: wavelengths past the original context's / low_freq_factor slow down by factor, those below its /
    // high_freq_factor stay, and those between blend smoothly.
    const Llama3Scaling& s = *ropeScaling;
    const double lowWavelength = s.originalPositions / s.lowFreqFactor;
    const double highWavelength = s.originalPositions / s.highFreqFactor;
    for (double& f : inv) {
        const double wavelength = 2 * std::numbers::pi / f;
        if (wavelength > lowWavelength) {
            f /= s.factor;
        } else if (wavelength >= highWavelength) {
            const double smooth =
                (s.originalPositions / wavelength - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
            f = (1 - smooth) * f / s.factor + smooth * f;
        }
    }
    return inv;
}

bool namesDecoderFamily(std::string_view text)
{
    std::string ignored;
    const auto json = readJsonObject(text, {}, {.maxBytes = maxConfigBytes, .maxValues = maxConfigBytes / 16}, ignored);
    return json && familyOf(*json, ignored).has_value();
}

bool folderNamesDecoderFamily(const std::string& folder)
{
    std::string ignored;
    const auto file = MappedFile::open(folder + "/config.json", ignored);
    return file && namesDecoderFamily(file->bytes());
}

std::optional<DecoderConfig> parseDecoderConfig(std::string_view text, const std::string& label, std::string& error)
{
    const auto read =
        readJsonObject(text, label, {.maxBytes = maxConfigBytes, .maxValues = maxConfigBytes / 16}, error);
    if (!read)
        return std::nullopt;
    std::string problem;
    const auto family = familyOf(*read, problem);
    if (!family) {
        error = label + ": " + problem;
        return std::nullopt;
    }
    Reader r(*read, label, error);
    DecoderConfig c;
    c.family = (*family)->family;
    c.architecture = (*family)->architecture;
    const bool neox = c.family == DecoderFamily::GptNeoX;
    c.layers = r.count("num_hidden_layers");
    c.dModel = r.count("hidden_size");
    c.heads = r.count("num_attention_heads");
    c.intermediate = r.count("intermediate_size");
    c.vocabSize = r.count("vocab_size");
    c.positions = r.count("max_position_embeddings");
    if (!r.ok())
        return std::nullopt;
    // Where head_dim is not given it is hidden_size / heads (Qwen3's configuration defaults it to 128).
    if (!neox && (r.find("head_dim") || c.family == DecoderFamily::Qwen3)) {
        c.headDim = r.count("head_dim", 128);
    } else if (c.dModel % c.heads != 0) {
        r.fail("num_attention_heads",
               std::to_string(c.heads) + " heads do not divide hidden_size " + std::to_string(c.dModel));
    } else {
        c.headDim = c.dModel / c.heads;
    }
    c.kvHeads = neox ? c.heads : r.count("num_key_value_heads", c.heads);
    if (r.ok() && c.heads % c.kvHeads != 0)
        r.fail("num_key_value_heads", std::to_string(c.kvHeads) + " K/V heads do not divide num_attention_heads " +
                                          std::to_string(c.heads));

    const char* key = nullptr;
    double fraction = 1;
    if (neox) {
        c.norm = NormKind::Layer;
        c.normEpsilon = r.positive("layer_norm_eps", 1e-5);
        const nlohmann::json* pct = firstOf(r, "rotary_pct", "partial_rotary_factor", key);
        fraction = r.positive(pct, key, 0.25);
        const nlohmann::json* base = firstOf(r, "rotary_emb_base", "rope_theta", key);
        c.ropeTheta = r.positive(base, key, 10000);
        c.parallelResidual = r.flag("use_parallel_residual", true);
        c.qkvBias = c.outputBias = r.flag("attention_bias", true);
        c.mlpBias = true;
        c.fusedQkv = true;
        c.mlp = MlpKind::Gelu;
        const std::string act = r.text("hidden_act", "gelu");
        if (act == "gelu")
            c.gelu = GeluForm::Erf;
        else if (act == "gelu_new" || act == "gelu_pytorch_tanh")
            c.gelu = GeluForm::Tanh;
        else
            r.fail("hidden_act", messageExcerpt(act) + " is not supported (gelu, gelu_new or gelu_pytorch_tanh)");
    } else {
        c.norm = NormKind::Rms;
        c.normEpsilon = r.positive("rms_norm_eps", 1e-6);
        fraction = r.positive("partial_rotary_factor", 1.0);
        c.ropeTheta = r.positive("rope_theta", 10000);
        const bool bias = r.flag("attention_bias", false);
        c.qkvBias = c.family == DecoderFamily::Qwen2 || bias;  // Qwen2's q, k, v always have biases, its o none
        c.outputBias = c.family != DecoderFamily::Qwen2 && bias;
        c.mlpBias = c.family == DecoderFamily::Llama && r.flag("mlp_bias", false);
        c.qkNorm = c.family == DecoderFamily::Qwen3;
        if (const std::string act = r.text("hidden_act", "silu"); act != "silu")
            r.fail("hidden_act", messageExcerpt(act) + " is not supported (silu expected)");
        if (r.flag("use_sliding_window", false))
            r.fail("use_sliding_window", "a sliding window of attention is not supported");
    }
    if (fraction > 1)
        r.fail(neox ? "rotary_pct" : "partial_rotary_factor", "expected at most 1");
    c.ropeScaling = readRopeScaling(r);
    c.tiedHead = r.flag("tie_word_embeddings", false);
    if (!r.ok())
        return std::nullopt;
    c.rotaryDims = int(double(c.headDim) * fraction);  // transformers truncates the same way
    if (c.rotaryDims < 2 || c.rotaryDims % 2 != 0) {
        r.fail(neox ? "rotary_pct" : "partial_rotary_factor",
               "turns " + std::to_string(c.rotaryDims) + " of each head's " + std::to_string(c.headDim) +
                   " dims; a rotation needs an even number, at least 2");
        return std::nullopt;
    }
    return c;
}

std::optional<DecoderConfig> loadDecoderConfig(const std::string& path, std::string& error)
{
    const auto file = MappedFile::open(path, error);
    if (!file)
        return std::nullopt;
    return parseDecoderConfig(file->bytes(), path, error);
}

} // namespace core
