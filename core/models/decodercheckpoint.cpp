#include "core/models/decodercheckpoint.h"

#include "core/formats/jsonread.h"

#include <bit>
#include <cstdint>
#include <set>

namespace core {

namespace {

/** A tensor the description needs: its name without the model's prefix, its shape, and where it goes. */
struct Wanted {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::string meaning; ///< the shape in config.json's words
    StoredTensor* target = nullptr;
};

/** The prefix of the family's tensors ("model.", "gpt_neox."), present or not in the file. */
std::string prefixOf(const DecoderConfig& c)
{
    return c.family == DecoderFamily::GptNeoX ? "gpt_neox." : "model.";
}

/** The output head's name: outside the prefix. */
std::string headName(const DecoderConfig& c)
{
    return c.family == DecoderFamily::GptNeoX ? "embed_out.weight" : "lm_head.weight";
}

/** True for the buffers older exports keep beside a layer's weights, which the pass never reads: the rotary
 *  frequencies (recomputed from config.json) and NeoX's causal mask. */
bool isBuffer(const std::string& name)
{
    return name.starts_with("layers.") &&
           (name.ends_with(".rotary_emb.inv_freq") || name.ends_with(".attention.bias") ||
            name.ends_with(".attention.masked_bias"));
}

/** What the description needs of the file, tensor by tensor, pointing at the places in the checkpoint. */
std::vector<Wanted> wantedTensors(const DecoderConfig& c, StoredTensor& embedding, StoredTensor& finalNorm,
                                  StoredTensor& finalNormBias, std::vector<DecoderLayer>& layers)
{
    using U = std::uint64_t;
    const U d = U(c.dModel), q = U(c.heads) * U(c.headDim), kv = U(c.kvHeads) * U(c.headDim),
            inter = U(c.intermediate), hd = U(c.headDim);
    const std::string dText = "hidden_size " + std::to_string(c.dModel);
    const bool neox = c.family == DecoderFamily::GptNeoX;
    std::vector<Wanted> wanted = {
        {neox ? "embed_in.weight" : "embed_tokens.weight", {U(c.vocabSize), d}, "vocab_size × hidden_size",
         &embedding},
        {neox ? "final_layer_norm.weight" : "norm.weight", {d}, dText, &finalNorm},
    };
    if (c.norm == NormKind::Layer)
        wanted.push_back({"final_layer_norm.bias", {d}, dText, &finalNormBias});
    const std::string qText = "num_attention_heads·head_dim", kvText = "num_key_value_heads·head_dim";
    for (std::size_t l = 0; l < layers.size(); ++l) {
        DecoderLayer& y = layers[l];
        const std::string p = "layers." + std::to_string(l) + ".";
        const auto add = [&](const std::string& name, std::vector<U> shape, const std::string& meaning,
                             StoredTensor* target) { wanted.push_back({p + name, std::move(shape), meaning, target}); };
        const auto addNorm = [&](const std::string& name, StoredTensor* weight, StoredTensor* bias) {
            add(name + ".weight", {d}, dText, weight);
            if (c.norm == NormKind::Layer)
                add(name + ".bias", {d}, dText, bias);
        };
        const auto addLinear = [&](const std::string& name, U out, U in, const std::string& meaning, bool bias,
                                   StoredTensor* weight, StoredTensor* biasTarget) {
            add(name + ".weight", {out, in}, meaning, weight);
            if (bias)
                add(name + ".bias", {out}, meaning.substr(0, meaning.find(" ×")), biasTarget);
        };
        addNorm("input_layernorm", &y.attnNorm, &y.attnNormBias);
        addNorm("post_attention_layernorm", &y.mlpNorm, &y.mlpNormBias);
        if (neox) {
            addLinear("attention.query_key_value", 3 * q, d, "3·hidden_size × hidden_size", c.qkvBias, &y.qkv,
                      &y.qkvBias);
            addLinear("attention.dense", d, q, "hidden_size × hidden_size", c.outputBias, &y.output, &y.outputBias);
            addLinear("mlp.dense_h_to_4h", inter, d, "intermediate_size × hidden_size", c.mlpBias, &y.up, &y.upBias);
            addLinear("mlp.dense_4h_to_h", d, inter, "hidden_size × intermediate_size", c.mlpBias, &y.down,
                      &y.downBias);
            continue;
        }
        addLinear("self_attn.q_proj", q, d, qText + " × hidden_size", c.qkvBias, &y.query, &y.queryBias);
        addLinear("self_attn.k_proj", kv, d, kvText + " × hidden_size", c.qkvBias, &y.key, &y.keyBias);
        addLinear("self_attn.v_proj", kv, d, kvText + " × hidden_size", c.qkvBias, &y.value, &y.valueBias);
        addLinear("self_attn.o_proj", d, q, "hidden_size × " + qText, c.outputBias, &y.output, &y.outputBias);
        if (c.qkNorm) {
            add("self_attn.q_norm.weight", {hd}, "head_dim " + std::to_string(c.headDim), &y.queryNorm);
            add("self_attn.k_norm.weight", {hd}, "head_dim " + std::to_string(c.headDim), &y.keyNorm);
        }
        addLinear("mlp.gate_proj", inter, d, "intermediate_size × hidden_size", c.mlpBias, &y.gate, &y.gateBias);
        addLinear("mlp.up_proj", inter, d, "intermediate_size × hidden_size", c.mlpBias, &y.up, &y.upBias);
        addLinear("mlp.down_proj", d, inter, "hidden_size × intermediate_size", c.mlpBias, &y.down, &y.downBias);
    }
    return wanted;
}

StoredTensor storedOf(const CheckpointTensors::Entry& e)
{
    return {e.file->rawBytes(*e.info).data(), e.info->dtype, e.info->rows(), e.info->cols()};
}

} // namespace

const float* StoredTensor::rowsAsFloat(Eigen::Index first, Eigen::Index count, std::vector<float>& buffer) const
{
    const char* at = bytes + std::size_t(first * cols) * dtypeSize(dtype);
    if (dtype == Dtype::F32 && std::endian::native == std::endian::little &&
        reinterpret_cast<std::uintptr_t>(at) % alignof(float) == 0)
        return reinterpret_cast<const float*>(at);
    if (buffer.size() < std::size_t(count * cols))
        buffer.resize(std::size_t(count * cols));
    convertToFloat(dtype, at, std::size_t(count * cols), buffer.data());
    return buffer.data();
}

FloatMatrix StoredTensor::toFloat() const
{
    FloatMatrix m(rows, cols);
    convertToFloat(dtype, bytes, std::size_t(m.size()), m.data());
    return m;
}

std::shared_ptr<const DecoderCheckpoint> DecoderCheckpoint::load(const std::string& folder, std::string& error,
                                                                 const StopCheck& stop)
{
    if (const auto problem = folderProblem(folder)) {
        error = *problem;
        return nullptr;
    }
    std::shared_ptr<DecoderCheckpoint> ckpt(new DecoderCheckpoint);
    ckpt->m_folder = folder;
    const std::string configPath = folder + "/config.json";
    const auto config = loadDecoderConfig(configPath, error);
    if (!config || stopRequested(stop, error))
        return nullptr;
    const DecoderConfig& c = ckpt->m_config = *config;
    ckpt->m_tensors = CheckpointTensors::open(folder, error, stop);
    if (!ckpt->m_tensors || stopRequested(stop, error))
        return nullptr;
    const std::string& weightsLabel = ckpt->m_tensors->label();

    // The file's tensors by their names without the prefix; buffers passed over, a name there twice refused.
    const std::string prefix = prefixOf(c);
    std::map<std::string, const CheckpointTensors::Entry*> byName;
    for (const auto& [name, entry] : ckpt->m_tensors->tensors()) {
        const std::string bare = name.starts_with(prefix) ? name.substr(prefix.size()) : name;
        if (isBuffer(bare))
            continue;
        if (!byName.emplace(bare, &entry).second) {
            error = entry.file->path() + ": tensor " + bare + " is there twice, with and without the prefix \"" +
                    prefix + "\"";
            return nullptr;
        }
    }
    // num_hidden_layers against the layers the file holds, before anything is sized by it.
    for (int l = 0; l < c.layers; ++l) {
        const std::string first = "layers." + std::to_string(l) + ".input_layernorm.weight";
        if (!byName.contains(first)) {
            error = weightsLabel + ": tensor " + prefix + first + " is missing (num_hidden_layers " +
                    std::to_string(c.layers) + " in " + configPath + " needs it; the file holds " +
                    std::to_string(l) + " layers)";
            return nullptr;
        }
    }
    ckpt->m_layers.resize(std::size_t(c.layers));
    std::vector<Wanted> wanted =
        wantedTensors(c, ckpt->m_embedding, ckpt->m_finalNorm, ckpt->m_finalNormBias, ckpt->m_layers);
    const std::string head = headName(c);
    if (!c.tiedHead || byName.contains(head)) // a tied head's own copy is checked, though the logits use the embedding
        wanted.push_back({head, {std::uint64_t(c.vocabSize), std::uint64_t(c.dModel)}, "vocab_size × hidden_size",
                          &ckpt->m_head});
    std::set<std::string> names;
    for (const Wanted& w : wanted)
        names.insert(w.name);
    for (const auto& [name, entry] : byName)
        if (!names.contains(name)) {
            error = entry->file->path() + ": tensor " + messageExcerpt(entry->info->name) + " is not part of " +
                    c.architecture + " as " + configPath + " describes it (num_hidden_layers " +
                    std::to_string(c.layers) + ")";
            return nullptr;
        }
    for (const Wanted& w : wanted) {
        const auto it = byName.find(w.name);
        if (it == byName.end()) {
            error = weightsLabel + ": tensor " + (w.name == head ? "" : prefix) + w.name + " is missing (" +
                    configPath + " needs it" + (w.name == head ? ": tie_word_embeddings is false)" : ")");
            return nullptr;
        }
        const TensorInfo& t = *it->second->info;
        if (t.shape != w.shape) {
            error = it->second->file->path() + ": tensor " + t.name + " has shape " + shapeText(t.shape) + ", but " +
                    configPath + " needs " + shapeText(w.shape) + " (" + w.meaning + ")";
            return nullptr;
        }
    }
    for (const Wanted& w : wanted) {
        if (stopRequested(stop, error))
            return nullptr;
        const CheckpointTensors::Entry& e = *byName.at(w.name);
        if (const auto problem = nonFiniteProblem(*e.file, *e.info)) {
            error = *problem;
            return nullptr;
        }
        *w.target = storedOf(e);
    }
    return ckpt;
}

} // namespace core
