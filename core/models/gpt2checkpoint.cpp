#include "core/models/gpt2checkpoint.h"

#include "core/tensor/threadpool.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>

namespace core {

namespace {

constexpr std::string_view kPrefix = "transformer.";

/** A tensor GPT-2 needs: its name without the prefix, the shape config.json asks for and where it goes. */
struct Wanted {
    std::string name;
    std::vector<std::uint64_t> shape;
    std::string meaning; ///< the shape in config.json's words
    FloatTensor* target = nullptr;
};

/** True for h.N.attn.bias and h.N.attn.masked_bias: GPT-2's causal mask, kept as buffers by older exports. */
bool isMaskBuffer(const std::string& name)
{
    if (!name.starts_with("h."))
        return false;
    const std::size_t dot = name.find('.', 2);
    if (dot == 2 || dot == std::string::npos || name.find_first_not_of("0123456789", 2) != dot)
        return false;
    const std::string_view rest = std::string_view(name).substr(dot);
    return rest == ".attn.bias" || rest == ".attn.masked_bias";
}

bool exists(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::exists(path, ec);
}

std::string pickleMessage(const std::string& folder)
{
    return folder +
           "/pytorch_model.bin: a pickled PyTorch checkpoint, which is not read (unpickling can run "
           "code); convert it to model.safetensors in that folder first, e.g. with python3 -c \"import torch; "
           "from safetensors.torch import save_file; sd = torch.load('pytorch_model.bin', map_location='cpu'); "
           "save_file({k: v.contiguous() for k, v in sd.items() if k != 'lm_head.weight'}, 'model.safetensors')\"";
}

} // namespace

PackedWeight packColumnBlock(const FloatMatrixMap& w, int t)
{
    const Eigen::Index c0 = Eigen::Index(t) * gpt2ColumnBlock;
    PackedWeight out;
    productKernels().packWeight(w.data() + c0, w.cols(), w.rows(), std::min(gpt2ColumnBlock, w.cols() - c0), out);
    return out;
}

std::shared_ptr<const Gpt2Checkpoint> Gpt2Checkpoint::load(const std::string& folder, std::string& error,
                                                           const StopCheck& stop)
{
    const auto stopped = [&] {
        if (!stopNow(stop))
            return false;
        error = stoppedMessage;
        return true;
    };
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec)) {
        error = folder + ": is not a folder";
        return nullptr;
    }
    std::shared_ptr<Gpt2Checkpoint> ckpt(new Gpt2Checkpoint);
    ckpt->m_folder = folder;
    const std::string configPath = folder + "/config.json";
    const auto config = loadGpt2Config(configPath, error);
    if (!config)
        return nullptr;
    ckpt->m_config = *config;
    const Gpt2Config& c = *config;
    if (stopped())
        return nullptr;

    // The tokenizer: vocab.json + merges.txt when both are there, else tokenizer.json, else whichever half
    // of the pair is there (so that the message names the other).
    std::string tokenizerPath = folder + "/vocab.json";
    const std::string mergesPath = folder + "/merges.txt";
    const bool pair = exists(tokenizerPath) && exists(mergesPath);
    if (!pair && exists(folder + "/tokenizer.json")) {
        tokenizerPath = folder + "/tokenizer.json";
        ckpt->m_tokenizer = Bpe::loadTokenizerJson(tokenizerPath, error);
    } else if (pair || exists(tokenizerPath) || exists(mergesPath)) {
        ckpt->m_tokenizer = Bpe::loadVocabAndMerges(tokenizerPath, mergesPath, error);
    } else {
        error = folder + "/vocab.json: missing (the tokenizer is vocab.json + merges.txt, or tokenizer.json)";
        return nullptr;
    }
    if (!ckpt->m_tokenizer || stopped())
        return nullptr;
    if (ckpt->m_tokenizer->size() > c.vocabSize) {
        error = tokenizerPath + ": " + std::to_string(ckpt->m_tokenizer->size()) + " tokens, more than " + configPath +
                " allows (vocab_size " + std::to_string(c.vocabSize) + ")";
        return nullptr;
    }

    // The weights.
    const std::string weightsPath = folder + "/model.safetensors";
    if (!exists(weightsPath)) {
        if (exists(folder + "/pytorch_model.bin"))
            error = pickleMessage(folder);
        else if (exists(folder + "/model.safetensors.index.json"))
            error = folder + "/model.safetensors.index.json: a checkpoint sharded over several files is not read; "
                             "a GPT-2 model fits one model.safetensors";
        else
            error = weightsPath + ": missing";
        return nullptr;
    }
    ckpt->m_weights = SafetensorsFile::open(weightsPath, error);
    if (!ckpt->m_weights || stopped())
        return nullptr;

    // What GPT-2 of this config needs, shape by shape.
    const auto d = std::uint64_t(c.dModel);
    const std::string dText = "n_embd " + std::to_string(c.dModel);
    std::vector<Wanted> wanted = {
        {"wte.weight", {std::uint64_t(c.vocabSize), d}, "vocab_size × n_embd", &ckpt->m_wte},
        {"wpe.weight", {std::uint64_t(c.positions), d}, "n_positions × n_embd", &ckpt->m_wpe},
        {"ln_f.weight", {d}, dText, &ckpt->m_lnFWeight},
        {"ln_f.bias", {d}, dText, &ckpt->m_lnFBias},
    };
    ckpt->m_blocks.resize(std::size_t(c.layers));
    for (int l = 0; l < c.layers; ++l) {
        Gpt2Block& b = ckpt->m_blocks[std::size_t(l)];
        const std::string h = "h." + std::to_string(l) + ".";
        const std::vector<Wanted> block = {
            {h + "ln_1.weight", {d}, dText, &b.ln1Weight},
            {h + "ln_1.bias", {d}, dText, &b.ln1Bias},
            {h + "attn.c_attn.weight", {d, 3 * d}, "n_embd × 3·n_embd", &b.attnWeight},
            {h + "attn.c_attn.bias", {3 * d}, "3·n_embd", &b.attnBias},
            {h + "attn.c_proj.weight", {d, d}, "n_embd × n_embd", &b.attnProjWeight},
            {h + "attn.c_proj.bias", {d}, dText, &b.attnProjBias},
            {h + "ln_2.weight", {d}, dText, &b.ln2Weight},
            {h + "ln_2.bias", {d}, dText, &b.ln2Bias},
            {h + "mlp.c_fc.weight", {d, 4 * d}, "n_embd × 4·n_embd", &b.fcWeight},
            {h + "mlp.c_fc.bias", {4 * d}, "4·n_embd", &b.fcBias},
            {h + "mlp.c_proj.weight", {4 * d, d}, "4·n_embd × n_embd", &b.mlpProjWeight},
            {h + "mlp.c_proj.bias", {d}, dText, &b.mlpProjBias},
        };
        wanted.insert(wanted.end(), block.begin(), block.end());
    }
    std::map<std::string, const Wanted*> byName;
    for (const Wanted& w : wanted)
        byName.emplace(w.name, &w);

    // Each tensor of the file, by its name without the prefix.
    std::map<std::string, const TensorInfo*> found;
    const TensorInfo* lmHead = nullptr;
    for (const TensorInfo& t : ckpt->m_weights->header().tensors) {
        const std::string name = t.name.starts_with(kPrefix) ? t.name.substr(kPrefix.size()) : t.name;
        if (isMaskBuffer(name))
            continue;
        if (name == "lm_head.weight") {
            lmHead = &t;
            continue;
        }
        if (!byName.contains(name)) {
            error = weightsPath + ": tensor " + t.name + " is not part of GPT-2 as " + configPath +
                    " describes it (n_layer " + std::to_string(c.layers) + ")";
            return nullptr;
        }
        if (!found.emplace(name, &t).second) {
            error = weightsPath + ": tensor " + name + " is there twice, with and without the prefix \"transformer.\"";
            return nullptr;
        }
    }

    // Every tensor present, of the right shape; then how many values need a buffer of their own.
    std::size_t convertedFloats = 0;
    const auto inPlace = [&](const TensorInfo& t) {
        const char* data = ckpt->m_weights->rawBytes(t).data();
        return t.dtype == Dtype::F32 && std::endian::native == std::endian::little &&
               reinterpret_cast<std::uintptr_t>(data) % alignof(float) == 0;
    };
    for (const Wanted& w : wanted) {
        const auto it = found.find(w.name);
        if (it == found.end()) {
            error = weightsPath + ": tensor " + w.name + " is missing (n_layer " + std::to_string(c.layers) + " in " +
                    configPath + " needs it)";
            return nullptr;
        }
        const TensorInfo& t = *it->second;
        if (t.shape != w.shape) {
            error = weightsPath + ": tensor " + t.name + " has shape " + shapeText(t.shape) + ", but " + configPath +
                    " needs " + shapeText(w.shape) + " (" + w.meaning + ")";
            return nullptr;
        }
        if (!inPlace(t))
            convertedFloats += std::size_t(t.elements());
    }
    if (lmHead && lmHead->shape != found.at("wte.weight")->shape) {
        error = weightsPath + ": tensor " + lmHead->name + " has shape " + shapeText(lmHead->shape) +
                ", not wte's: it is not tied to wte, and GPT-2's logits use wte";
        return nullptr;
    }

    // Point at the values: in place, or converted once into the checkpoint's buffer.
    ckpt->m_converted.resize(convertedFloats);
    std::size_t used = 0;
    std::map<const FloatTensor*, const TensorInfo*> readInPlace;
    for (const Wanted& w : wanted) {
        if (stopped())
            return nullptr;
        const TensorInfo& t = *found.at(w.name);
        const std::string_view raw = ckpt->m_weights->rawBytes(t);
        w.target->rows = t.rows();
        w.target->cols = t.cols();
        if (inPlace(t)) {
            w.target->data = reinterpret_cast<const float*>(raw.data());
            readInPlace.emplace(w.target, &t);
        } else {
            float* out = ckpt->m_converted.data() + used;
            convertToFloat(t.dtype, raw.data(), std::size_t(t.elements()), out);
            w.target->data = out;
            used += std::size_t(t.elements());
        }
    }
    if (lmHead) {
        if (stopped())
            return nullptr;
        std::vector<float> head(std::size_t(lmHead->elements()));
        convertToFloat(lmHead->dtype, ckpt->m_weights->rawBytes(*lmHead).data(), head.size(), head.data());
        if (!head.empty() && std::memcmp(head.data(), ckpt->m_wte.data, head.size() * sizeof(float)) != 0) {
            error = weightsPath + ": tensor " + lmHead->name +
                    " differs from wte: it is not tied to wte, and GPT-2's logits use wte";
            return nullptr;
        }
    }

    // Pack the large weights of every layer for the products, their column blocks on the pool's threads; then
    // give back the mapped file's pages of a weight read in place (they come back from the file when read).
    for (Gpt2Block& b : ckpt->m_blocks) {
        for (const auto& weight : {std::pair{&b.attnWeight, &b.attnPacked}, {&b.attnProjWeight, &b.attnProjPacked},
                                   {&b.fcWeight, &b.fcPacked}, {&b.mlpProjWeight, &b.mlpProjPacked}}) {
            // Named without a structured binding: the lambda below captures it, which clang 14 refuses.
            const FloatTensor* tensor = weight.first;
            PackedColumns& packed = *weight.second;
            if (stopped())
                return nullptr;
            const FloatMatrixMap w = tensor->matrix();
            packed.resize(std::size_t((w.cols() + gpt2ColumnBlock - 1) / gpt2ColumnBlock));
            parallelFor(int(packed.size()), coreCount(),
                        [&](int t) { packed[std::size_t(t)] = packColumnBlock(w, t); });
            if (const auto it = readInPlace.find(tensor); it != readInPlace.end())
                ckpt->m_weights->releasePages(*it->second);
        }
    }
    return ckpt;
}

} // namespace core
