#include "core/models/gpt2checkpoint.h"

#include "core/formats/jsonread.h"
#include "core/models/checkpointfiles.h"
#include "core/tensor/threadpool.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <array>
#include <cmath>
#include <map>
#include <set>

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

/** N for h.N.attn.bias and h.N.attn.masked_bias (GPT-2's causal mask, kept as buffers by older exports) when N is
 *  a layer of n_layer layers; nothing for any other name. */
std::optional<int> maskBufferLayer(const std::string& name, int layers)
{
    if (!name.starts_with("h."))
        return std::nullopt;
    const std::size_t dot = name.find('.', 2);
    if (dot == 2 || dot == std::string::npos || name.find_first_not_of("0123456789", 2) != dot)
        return std::nullopt;
    const std::string_view rest = std::string_view(name).substr(dot);
    if (rest != ".attn.bias" && rest != ".attn.masked_bias")
        return std::nullopt;
    int layer = 0;
    const auto [end, ec] = std::from_chars(name.data() + 2, name.data() + dot, layer);
    if (ec != std::errc() || layer >= layers)
        return std::nullopt;
    return layer;
}

/** The tokenizer of folder: vocab.json + merges.txt when both are there, else tokenizer.json, else whichever half
 *  of the pair is there (so that the message names the other); checked against vocab_size. */
std::optional<Bpe> loadTokenizer(const std::string& folder, const Gpt2Config& c, const std::string& configPath,
                                 std::string& error)
{
    std::string tokenizerPath = folder + "/vocab.json";
    const std::string mergesPath = folder + "/merges.txt";
    const bool pair = pathExists(tokenizerPath) && pathExists(mergesPath);
    std::optional<Bpe> bpe;
    if (!pair && pathExists(folder + "/tokenizer.json")) {
        tokenizerPath = folder + "/tokenizer.json";
        bpe = Bpe::loadTokenizerJson(tokenizerPath, error);
    } else if (pair || pathExists(tokenizerPath) || pathExists(mergesPath)) {
        bpe = Bpe::loadVocabAndMerges(tokenizerPath, mergesPath, error);
    } else {
        error = folder + "/vocab.json: missing (the tokenizer is vocab.json + merges.txt, or tokenizer.json)";
        return std::nullopt;
    }
    if (bpe && bpe->size() > c.vocabSize) {
        error = tokenizerPath + ": " + std::to_string(bpe->size()) + " tokens, more than " + configPath +
                " allows (vocab_size " + std::to_string(c.vocabSize) + ")";
        return std::nullopt;
    }
    return bpe;
}

/** folder's model.safetensors, opened and its header checked; when it is missing, the message names what the
 *  folder holds instead (a pickle, a sharded checkpoint). */
std::shared_ptr<const SafetensorsFile> openWeights(const std::string& folder, std::string& error)
{
    const std::string weightsPath = folder + "/model.safetensors";
    if (!pathExists(weightsPath)) {
        if (pathExists(folder + "/pytorch_model.bin"))
            error = pickleMessage(folder);
        else if (pathExists(folder + "/model.safetensors.index.json"))
            error = folder + "/model.safetensors.index.json: a checkpoint sharded over several files is not read; "
                             "a GPT-2 model fits one model.safetensors";
        else
            error = weightsPath + ": missing";
        return nullptr;
    }
    return SafetensorsFile::open(weightsPath, error);
}

/** A tensor's name without the "transformer." prefix. */
std::string unprefixed(const std::string& name)
{
    return name.starts_with(kPrefix) ? name.substr(kPrefix.size()) : name;
}

/** Refuses an n_layer that the file's tensors cannot hold, naming the first layer missing, before anything is
 *  sized by it: a few hundred bytes of config.json must not claim gigabytes. */
bool checkLayerCount(const SafetensorsHeader& header, const Gpt2Config& c, const std::string& weightsPath,
                     const std::string& configPath, std::string& error)
{
    std::set<std::string> names;
    for (const TensorInfo& t : header.tensors)
        names.insert(unprefixed(t.name));
    for (int l = 0; l < c.layers; ++l) {
        const std::string first = "h." + std::to_string(l) + ".ln_1.weight";
        if (!names.contains(first)) {
            error = weightsPath + ": tensor " + first + " is missing (n_layer " + std::to_string(c.layers) + " in " +
                    configPath + " needs it; the file holds " + std::to_string(l) + " layers)";
            return false;
        }
    }
    return true;
}

/** What GPT-2 of config c needs, shape by shape, each pointing at its place in the checkpoint (globals: wte, wpe,
 *  ln_f.weight, ln_f.bias; blocks: n_layer of them). */
std::vector<Wanted> wantedTensors(const Gpt2Config& c, const std::array<FloatTensor*, 4>& globals,
                                  std::vector<Gpt2Block>& blocks)
{
    const auto d = std::uint64_t(c.dModel);
    const std::string dText = "n_embd " + std::to_string(c.dModel);
    std::vector<Wanted> wanted = {
        {"wte.weight", {std::uint64_t(c.vocabSize), d}, "vocab_size × n_embd", globals[0]},
        {"wpe.weight", {std::uint64_t(c.positions), d}, "n_positions × n_embd", globals[1]},
        {"ln_f.weight", {d}, dText, globals[2]},
        {"ln_f.bias", {d}, dText, globals[3]},
    };
    for (std::size_t l = 0; l < blocks.size(); ++l) {
        Gpt2Block& b = blocks[l];
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
    return wanted;
}

/** The file's tensors matched to the wanted ones by name (without the prefix), and lm_head.weight if there is
 *  one; mask buffers of existing layers are passed over. */
struct Matched {
    std::map<std::string, const TensorInfo*> found;
    const TensorInfo* lmHead = nullptr;
};

/** Matches the header's tensors to wanted; refuses a tensor no layer uses and one there twice (with and without
 *  the prefix), and checks that every wanted tensor is there, of its shape. */
std::optional<Matched> matchTensors(const SafetensorsHeader& header, const std::vector<Wanted>& wanted,
                                    const Gpt2Config& c, const std::string& weightsPath,
                                    const std::string& configPath, std::string& error)
{
    std::map<std::string, const Wanted*> byName;
    for (const Wanted& w : wanted)
        byName.emplace(w.name, &w);
    Matched m;
    for (const TensorInfo& t : header.tensors) {
        const std::string name = unprefixed(t.name);
        if (maskBufferLayer(name, c.layers))
            continue;
        if (name == "lm_head.weight") {
            m.lmHead = &t;
            continue;
        }
        if (!byName.contains(name)) {
            error = weightsPath + ": tensor " + messageExcerpt(t.name) + " is not part of GPT-2 as " + configPath +
                    " describes it (n_layer " + std::to_string(c.layers) + ")";
            return std::nullopt;
        }
        if (!m.found.emplace(name, &t).second) {
            error = weightsPath + ": tensor " + name + " is there twice, with and without the prefix \"transformer.\"";
            return std::nullopt;
        }
    }
    for (const Wanted& w : wanted) {
        const auto it = m.found.find(w.name);
        if (it == m.found.end()) {
            error = weightsPath + ": tensor " + w.name + " is missing (n_layer " + std::to_string(c.layers) + " in " +
                    configPath + " needs it)";
            return std::nullopt;
        }
        const TensorInfo& t = *it->second;
        if (t.shape != w.shape) {
            error = weightsPath + ": tensor " + t.name + " has shape " + shapeText(t.shape) + ", but " + configPath +
                    " needs " + shapeText(w.shape) + " (" + w.meaning + ")";
            return std::nullopt;
        }
    }
    if (m.lmHead && m.lmHead->shape != m.found.at("wte.weight")->shape) {
        error = weightsPath + ": tensor " + m.lmHead->name + " has shape " + shapeText(m.lmHead->shape) +
                ", not wte's: it is not tied to wte, and GPT-2's logits use wte";
        return std::nullopt;
    }
    return m;
}

/** The tensors whose values are read in place from the mapped file, by where they are held. */
using InPlaceTensors = std::map<const FloatTensor*, const TensorInfo*>;

/** Points every wanted tensor at its values: in place in the mapped file (F32, aligned), else converted once into
 *  converted; refuses a tensor that is not finite. */
bool readValues(const SafetensorsFile& weights, const std::vector<Wanted>& wanted,
                const std::map<std::string, const TensorInfo*>& found, std::vector<float>& converted,
                InPlaceTensors& readInPlace, std::string& error, const StopCheck& stop)
{
    const auto inPlace = [&](const TensorInfo& t) {
        const char* data = weights.rawBytes(t).data();
        return t.dtype == Dtype::F32 && std::endian::native == std::endian::little &&
               reinterpret_cast<std::uintptr_t>(data) % alignof(float) == 0;
    };
    std::size_t convertedFloats = 0;
    for (const Wanted& w : wanted)
        if (const TensorInfo& t = *found.at(w.name); !inPlace(t))
            convertedFloats += std::size_t(t.elements());
    converted.resize(convertedFloats);
    std::size_t used = 0;
    for (const Wanted& w : wanted) {
        if (stopRequested(stop, error))
            return false;
        const TensorInfo& t = *found.at(w.name);
        const std::string_view raw = weights.rawBytes(t);
        w.target->rows = t.rows();
        w.target->cols = t.cols();
        if (inPlace(t)) {
            w.target->data = reinterpret_cast<const float*>(raw.data());
            readInPlace.emplace(w.target, &t);
        } else {
            float* out = converted.data() + used;
            convertToFloat(t.dtype, raw.data(), std::size_t(t.elements()), out);
            w.target->data = out;
            used += std::size_t(t.elements());
        }
        if (const auto problem = nonFiniteProblem(weights, t)) {
            error = *problem;
            return false;
        }
    }
    return true;
}

/** Refuses an lm_head.weight that is not wte's values (the logits use wte). */
bool checkTiedHead(const SafetensorsFile& weights, const TensorInfo* lmHead, const FloatTensor& wte, std::string& error)
{
    if (!lmHead)
        return true;
    std::vector<float> head(std::size_t(lmHead->elements()));
    convertToFloat(lmHead->dtype, weights.rawBytes(*lmHead).data(), head.size(), head.data());
    if (!head.empty() && std::memcmp(head.data(), wte.data, head.size() * sizeof(float)) != 0) {
        error = weights.path() + ": tensor " + lmHead->name +
                " differs from wte: it is not tied to wte, and GPT-2's logits use wte";
        return false;
    }
    return true;
}

/** Packs the four large weights of every block; false when stop says stop. */
bool packWeights(std::vector<Gpt2Block>& blocks, const SafetensorsFile& weights, const InPlaceTensors& readInPlace,
                 const StopCheck& stop)
{
    // Pack the large weights of every layer for the products, their column blocks on the pool's threads; then
    // give back the mapped file's pages of a weight read in place (they come back from the file when read).
    for (Gpt2Block& b : blocks) {
        for (const auto& weight : {std::pair{&b.attnWeight, &b.attnPacked}, {&b.attnProjWeight, &b.attnProjPacked},
                                   {&b.fcWeight, &b.fcPacked}, {&b.mlpProjWeight, &b.mlpProjPacked}}) {
            // Named without a structured binding: the lambda below captures it, which clang 14 refuses.
            const FloatTensor* tensor = weight.first;
            PackedColumns& packed = *weight.second;
            if (stopNow(stop))
                return false;
            const FloatMatrixMap w = tensor->matrix();
            packed.resize(std::size_t((w.cols() + gpt2ColumnBlock - 1) / gpt2ColumnBlock));
            parallelFor(int(packed.size()), coreCount(),
                        [&](int t) { packed[std::size_t(t)] = packColumnBlock(w, t); });
            if (const auto it = readInPlace.find(tensor); it != readInPlace.end())
                weights.releasePages(*it->second);
        }
    }
    return true;
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
    if (const auto problem = folderProblem(folder)) {
        error = *problem;
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
    if (stopRequested(stop, error))
        return nullptr;
    ckpt->m_tokenizer = loadTokenizer(folder, c, configPath, error);
    if (!ckpt->m_tokenizer || stopRequested(stop, error))
        return nullptr;
    ckpt->m_weights = openWeights(folder, error);
    if (!ckpt->m_weights || stopRequested(stop, error))
        return nullptr;
    const std::string& weightsPath = ckpt->m_weights->path();
    const SafetensorsHeader& header = ckpt->m_weights->header();
    if (!checkLayerCount(header, c, weightsPath, configPath, error))
        return nullptr;
    ckpt->m_blocks.resize(std::size_t(c.layers));
    const std::vector<Wanted> wanted =
        wantedTensors(c, {&ckpt->m_wte, &ckpt->m_wpe, &ckpt->m_lnFWeight, &ckpt->m_lnFBias}, ckpt->m_blocks);
    const auto matched = matchTensors(header, wanted, c, weightsPath, configPath, error);
    InPlaceTensors readInPlace;
    if (!matched ||
        !readValues(*ckpt->m_weights, wanted, matched->found, ckpt->m_converted, readInPlace, error, stop) ||
        !checkTiedHead(*ckpt->m_weights, matched->lmHead, ckpt->m_wte, error))
        return nullptr;
    if (!packWeights(ckpt->m_blocks, *ckpt->m_weights, readInPlace, stop)) {
        error = stoppedMessage;
        return nullptr;
    }
    return ckpt;
}

} // namespace core
