#include "core/models/checkpointfiles.h"

#include "core/attention/model.h"
#include "core/formats/jsonread.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>

namespace core {

std::optional<std::string> folderProblem(const std::string& folder)
{
    std::error_code ec;
    if (folder.empty())
        return "no folder given (the path is empty)";
    if (!std::filesystem::is_directory(folder, ec))
        return folder + (ec.value() == ELOOP ? ": a symbolic link that loops; it leads to no folder"
                                             : ": is not a folder");
    return std::nullopt;
}

std::optional<std::string> tokenIdsProblem(const std::vector<int>& ids, int positions, const char* positionsKey,
                                           int vocabSize, long long attentionMatrices)
{
    if (ids.empty())
        return "no tokens: the text is empty";
    if (int(ids.size()) > positions)
        return "the text is " + std::to_string(ids.size()) + " tokens long, more than the model's " + positionsKey +
               " (" + std::to_string(positions) + ")";
    if (int(ids.size()) > Limits::maxTokens)
        return "the text is " + std::to_string(ids.size()) + " tokens long, more than the " +
               std::to_string(Limits::maxTokens) + " this program reads";
    // every layer's and head's n × n weights are kept as float32, for the overview and the instruments
    const auto bytes = [&](long long n) { return double(attentionMatrices) * double(n) * double(n) * sizeof(float); };
    if (bytes((long long)(ids.size())) > double(Limits::memoryBudgetBytes)) {
        long long most = (long long)(std::sqrt(double(Limits::memoryBudgetBytes) / std::max(1.0, bytes(1))));
        while (most > 0 && bytes(most) > double(Limits::memoryBudgetBytes))
            --most;
        return "the text is " + std::to_string(ids.size()) + " tokens long; keeping the attention of each of the " +
               std::to_string(attentionMatrices) + " heads of this model for that many takes " +
               std::to_string((long long)(bytes((long long)(ids.size())) / double(1 << 20))) + " MiB, more than the " +
               std::to_string(Limits::memoryBudgetBytes >> 20) + " MiB this program allows: at most " +
               std::to_string(most) + " tokens";
    }
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= vocabSize)
            return "token " + std::to_string(i) + ": id " + std::to_string(ids[i]) + " is outside the vocabulary (0 … " +
                   std::to_string(vocabSize - 1) + ")";
    return std::nullopt;
}

bool pathExists(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

std::string pickleMessage(const std::string& folder)
{
    return folder +
           "/pytorch_model.bin: a pickled PyTorch checkpoint, which is not read (unpickling can run "
           "code); convert it to model.safetensors in that folder first, e.g. with python3 -c \"import torch; "
           "from safetensors.torch import save_file; sd = torch.load('pytorch_model.bin', map_location='cpu'); "
           "save_file({k: v.contiguous() for k, v in sd.items() if k != 'lm_head.weight'}, 'model.safetensors')\"";
}

namespace {

/** The little-endian word of Bytes bytes at p. */
template <int Bytes>
std::uint32_t wordAt(const char* p)
{
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    std::uint32_t w = 0;
    for (int i = 0; i < Bytes; ++i)
        w |= std::uint32_t(b[i]) << (8 * i);
    return w;
}

/** The index of the first of count values of Bytes bytes whose exponent bits are all ones (±∞ or NaN), if any. */
template <int Bytes>
std::optional<std::size_t> firstNonFinite(const char* raw, std::size_t count, std::uint32_t exponent)
{
    constexpr std::size_t chunk = 4096;
    for (std::size_t begin = 0; begin < count; begin += chunk) {
        const std::size_t end = std::min(count, begin + chunk);
        // A branch-free pass over the chunk, then the exact place only where one is found.
        std::uint32_t any = 0;
        for (std::size_t i = begin; i < end; ++i)
            any |= std::uint32_t((wordAt<Bytes>(raw + i * Bytes) & exponent) == exponent);
        if (any)
            for (std::size_t i = begin; i < end; ++i)
                if ((wordAt<Bytes>(raw + i * Bytes) & exponent) == exponent)
                    return i;
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> nonFiniteProblem(const SafetensorsFile& file, const TensorInfo& t)
{
    const char* raw = file.rawBytes(t).data();
    const auto count = std::size_t(t.elements());
    const auto bad = t.dtype == Dtype::F32    ? firstNonFinite<4>(raw, count, 0x7f800000u)
                     : t.dtype == Dtype::F16 ? firstNonFinite<2>(raw, count, 0x7c00u)
                                              : firstNonFinite<2>(raw, count, 0x7f80u);
    if (!bad)
        return std::nullopt;
    float v = 0;
    convertToFloat(t.dtype, raw + *bad * dtypeSize(t.dtype), 1, &v);
    const auto cols = std::size_t(t.cols());
    std::string index = "[";
    index += t.rows() == 1 ? std::to_string(*bad) : std::to_string(*bad / cols) + "][" + std::to_string(*bad % cols);
    index += "]";
    return file.path() + ": tensor " + t.name + ": value " + index + " is " +
           (std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf") + "; every weight must be a finite number";
}

std::optional<CheckpointTensors> CheckpointTensors::open(const std::string& folder, std::string& error,
                                                         const StopCheck& stop)
{
    CheckpointTensors out;
    const std::string single = folder + "/model.safetensors";
    const std::string indexPath = folder + "/model.safetensors.index.json";
    std::map<std::string, std::string> weightMap; // tensor → shard file name (sharded checkpoints only)
    std::set<std::string> shards;
    if (pathExists(single)) {
        shards.insert("model.safetensors");
        out.m_label = single;
    } else if (pathExists(indexPath)) {
        out.m_label = indexPath;
        const auto file = MappedFile::open(indexPath, error);
        if (!file)
            return std::nullopt;
        const auto json = readJsonObject(file->bytes(), indexPath,
                                         {.maxBytes = maxIndexBytes, .maxValues = maxIndexBytes / 8}, error);
        if (!json)
            return std::nullopt;
        const auto map = json->find("weight_map");
        if (map == json->end() || !map->is_object() || map->empty()) {
            error = indexPath + ": weight_map: expected an object naming each tensor's file" +
                    (map == json->end() ? std::string(", missing") : ", got " + jsonExcerpt(*map));
            return std::nullopt;
        }
        for (const auto& [name, shard] : map->items()) {
            const bool plain = shard.is_string() && !shard.get_ref<const std::string&>().empty() &&
                               shard.get_ref<const std::string&>().find('/') == std::string::npos &&
                               shard != "." && shard != "..";
            if (!plain) {
                error = indexPath + ": weight_map: tensor " + messageExcerpt(name) +
                        ": expected the name of a file in the folder, got " + jsonExcerpt(shard);
                return std::nullopt;
            }
            weightMap.emplace(name, shard.get<std::string>());
            shards.insert(shard.get<std::string>());
        }
    } else {
        error = pathExists(folder + "/pytorch_model.bin") ? pickleMessage(folder) : single + ": missing";
        return std::nullopt;
    }
    for (const std::string& shard : shards) {
        if (stopRequested(stop, error))
            return std::nullopt;
        const std::string path = folder + "/" + shard;
        if (!pathExists(path)) {
            const auto named = std::find_if(weightMap.begin(), weightMap.end(),
                                            [&](const auto& e) { return e.second == shard; });
            error = path + ": missing (" + indexPath + " names it for tensor " + messageExcerpt(named->first) + ")";
            return std::nullopt;
        }
        auto file = SafetensorsFile::open(path, error);
        if (!file)
            return std::nullopt;
        for (const TensorInfo& t : file->header().tensors)
            if (!out.m_tensors.emplace(t.name, Entry{file.get(), &t}).second) {
                error = path + ": tensor " + messageExcerpt(t.name) + " is also in " +
                        out.m_tensors.at(t.name).file->path();
                return std::nullopt;
            }
        out.m_files.push_back(std::move(file));
    }
    for (const auto& [name, shard] : weightMap) {
        const auto it = out.m_tensors.find(name);
        if (it == out.m_tensors.end() || it->second.file->path() != folder + "/" + shard) {
            error = indexPath + ": tensor " + messageExcerpt(name) + " is not in " + shard + ", where it is said to be";
            return std::nullopt;
        }
    }
    return out;
}

} // namespace core
