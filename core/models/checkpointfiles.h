#pragma once
/** What every checkpoint folder's reader shares: the weights' files (one model.safetensors, or the shards its
 *  index names, read as one), the message for a pickle-only folder, and the check that a weight is finite. */

#include "core/formats/safetensors.h"
#include "core/tensor/stop.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core {

/** True, with error stoppedMessage, when stop says stop: a loader's check between its steps. */
inline bool stopRequested(const StopCheck& stop, std::string& error)
{
    if (!stopNow(stop))
        return false;
    error = stoppedMessage;
    return true;
}

/** Nothing when folder names a folder; else "no folder given (the path is empty)", "<folder>: is not a folder" or
 *  "<folder>: a symbolic link that loops; it leads to no folder". */
std::optional<std::string> folderProblem(const std::string& folder);

/** Nothing when ids can run through a model of positions positions (config.json calls them positionsKey),
 *  vocabSize tokens and attentionMatrices kept attention matrices (layers × heads); else what is wrong: none, more
 *  than positions or Limits::maxTokens, more than the kept n × n matrices fit in Limits::memoryBudgetBytes (checked
 *  before any work: a pass of n tokens costs n² per head), an id outside the vocabulary. */
std::optional<std::string> tokenIdsProblem(const std::vector<int>& ids, int positions, const char* positionsKey,
                                           int vocabSize, long long attentionMatrices);

/** True when path names anything, a symbolic link that leads nowhere included (reading it then says so). */
bool pathExists(const std::string& path);

/** folder/pytorch_model.bin refused: what it is, why it is not read and how to convert it. */
std::string pickleMessage(const std::string& folder);

/** Nothing when every stored value of t (F32, F16 or BF16, read as stored) is finite; else
 *  "<file>: tensor <name>: value [r][c] is NaN; every weight must be a finite number", naming the first. */
std::optional<std::string> nonFiniteProblem(const SafetensorsFile& file, const TensorInfo& t);

/** The largest model.safetensors.index.json read, in bytes (a 70B model's is about 100 KB). */
constexpr std::size_t maxIndexBytes = std::size_t(16) << 20;

/** The tensors of a checkpoint folder, from model.safetensors or from the shards model.safetensors.index.json
 *  names, as one set: each tensor by its name, with the file that holds it. */
class CheckpointTensors {
public:
    struct Entry {
        const SafetensorsFile* file = nullptr;
        const TensorInfo* info = nullptr;
    };

    /** Opens model.safetensors of folder, or else the shards of its index. Refuses, naming the file: neither there
     *  (a pytorch_model.bin alone gets pickleMessage), an index that is not JSON within its bounds or whose
     *  weight_map is not an object of file names (plain names inside the folder), a shard missing or broken, a
     *  tensor the index puts in a shard that does not hold it, and a tensor held twice. stop is asked before each
     *  shard. */
    static std::optional<CheckpointTensors> open(const std::string& folder, std::string& error,
                                                 const StopCheck& stop = {});

    const std::map<std::string, Entry>& tensors() const { return m_tensors; }
    /** What a message names for the weights: model.safetensors, or the index of the shards. */
    const std::string& label() const { return m_label; }

private:
    std::vector<std::shared_ptr<const SafetensorsFile>> m_files;
    std::map<std::string, Entry> m_tensors;
    std::string m_label;
};

} // namespace core
