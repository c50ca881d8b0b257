#pragma once
/** Writing GPT-2 checkpoint folders in a test: config.json, model.safetensors (any tensors, any dtype, raw
 *  bytes given by the test, optionally broken on purpose), vocab.json + merges.txt or tokenizer.json. */

#include "core/text/bpe.h"
#include "testutil.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace testutil {

/** One tensor to write: its name, dtype and shape, its raw little-endian values; number is the test's own. */
struct Tensor {
    std::string name;
    std::string dtype = "F32";
    std::vector<std::uint64_t> shape;
    int number = 0;
    std::string bytes; ///< raw little-endian values
};

/** Everything a checkpoint folder holds, to be broken row by row before it is written. */
struct Folder {
    nlohmann::json config;
    std::vector<Tensor> tensors;
    nlohmann::json vocab;
    std::string merges = "#version: 0.2\n";
    bool writeConfig = true, writeVocab = true, writeMerges = true, writeTokenizerJson = false, writeWeights = true;
    bool writePickle = false;
    std::string configText;  ///< written instead of config when not empty
    std::string vocabText;   ///< written instead of vocab when not empty
    bool alignHeader = true; ///< pad the header to a multiple of 8 bytes, as Hugging Face writes it
    std::function<void(nlohmann::json& header, std::string& data, std::uint64_t& headerLength)> breakFile;
};

/** A config.json of the given sizes (gelu_new, epsilon 1e-5). */
inline nlohmann::json gpt2Config(int layers, int dim, int heads, int positions, int vocab)
{
    return {{"n_layer", layers},
            {"n_embd", dim},
            {"n_head", heads},
            {"n_positions", positions},
            {"vocab_size", vocab},
            {"layer_norm_epsilon", 1e-5},
            {"activation_function", "gelu_new"},
            {"model_type", "gpt2"}};
}

/** The names (without prefix) and shapes of GPT-2's tensors for config, in the order Hugging Face writes them. */
inline std::vector<std::pair<std::string, std::vector<std::uint64_t>>> gpt2Shapes(const nlohmann::json& config)
{
    const auto d = config["n_embd"].get<std::uint64_t>();
    std::vector<std::pair<std::string, std::vector<std::uint64_t>>> names = {
        {"wte.weight", {config["vocab_size"].get<std::uint64_t>(), d}},
        {"wpe.weight", {config["n_positions"].get<std::uint64_t>(), d}}};
    for (int l = 0; l < config["n_layer"].get<int>(); ++l) {
        const std::string h = "h." + std::to_string(l) + ".";
        for (const auto& [name, shape] :
             std::vector<std::pair<std::string, std::vector<std::uint64_t>>>{{"ln_1.weight", {d}},
                                                                             {"ln_1.bias", {d}},
                                                                             {"attn.c_attn.weight", {d, 3 * d}},
                                                                             {"attn.c_attn.bias", {3 * d}},
                                                                             {"attn.c_proj.weight", {d, d}},
                                                                             {"attn.c_proj.bias", {d}},
                                                                             {"ln_2.weight", {d}},
                                                                             {"ln_2.bias", {d}},
                                                                             {"mlp.c_fc.weight", {d, 4 * d}},
                                                                             {"mlp.c_fc.bias", {4 * d}},
                                                                             {"mlp.c_proj.weight", {4 * d, d}},
                                                                             {"mlp.c_proj.bias", {d}}})
            names.emplace_back(h + name, shape);
    }
    names.emplace_back("ln_f.weight", std::vector<std::uint64_t>{d});
    names.emplace_back("ln_f.bias", std::vector<std::uint64_t>{d});
    return names;
}

/** The 256 byte tokens and <|endoftext|> (id 256). */
inline nlohmann::json byteVocab()
{
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b)
        vocab[core::Bpe::bytesToUnicode()[std::size_t(b)]] = b;
    vocab["<|endoftext|>"] = 256;
    return vocab;
}

/** The safetensors bytes of the tensors, in their order, after breakFile has had its way. */
inline std::string safetensorsBytes(const Folder& f)
{
    nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
    std::string data;
    for (const Tensor& t : f.tensors) {
        header[t.name] = {
            {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
        data += t.bytes;
    }
    std::string text = header.dump();
    const std::size_t align = f.alignHeader ? 8 : 1;
    text.append((align - text.size() % align) % align, ' ');
    if (!f.alignHeader && text.size() % 4 == 0)
        text += ' '; // deliberately misaligned: F32 values cannot be read in place
    std::uint64_t length = text.size();
    if (f.breakFile) {
        // The header is written again; a length breakFile leaves alone follows it.
        const std::uint64_t before = length;
        f.breakFile(header, data, length);
        text = header.dump();
        text.append((align - text.size() % align) % align, ' ');
        if (length == before)
            length = text.size();
    }
    std::string out;
    for (int b = 0; b < 8; ++b)
        out += char((length >> (8 * b)) & 0xff);
    return out + text + data;
}

/** Writes the folder into dir. */
inline void write(const Folder& f, const std::string& dir)
{
    if (f.writeConfig)
        writeText(dir + "/config.json", f.configText.empty() ? f.config.dump(2) : f.configText);
    if (f.writeTokenizerJson) {
        const nlohmann::json tokenizer = {
            {"model", {{"type", "BPE"}, {"vocab", f.vocab}, {"merges", nlohmann::json::array()}}}};
        writeText(dir + "/tokenizer.json", tokenizer.dump());
    }
    if (f.writeVocab)
        writeText(dir + "/vocab.json", f.vocabText.empty() ? f.vocab.dump() : f.vocabText);
    if (f.writeMerges)
        writeText(dir + "/merges.txt", f.merges);
    if (f.writeWeights)
        writeText(dir + "/model.safetensors", safetensorsBytes(f));
    if (f.writePickle)
        writeText(dir + "/pytorch_model.bin", std::string("\x80\x02}q\x00.", 6));
}

inline Tensor* findTensor(Folder& f, const std::string& name)
{
    for (Tensor& t : f.tensors)
        if (t.name == name)
            return &t;
    return nullptr;
}

/** Adds a copy of the tensor called from, named name. */
inline void addCopy(Folder& f, const std::string& from, const std::string& name)
{
    Tensor copy = *findTensor(f, from);
    copy.name = name;
    f.tensors.push_back(std::move(copy));
}

} // namespace testutil
