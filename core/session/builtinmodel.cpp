#include "core/session/builtinmodel.h"

#include <filesystem>
#include <system_error>

namespace core {

std::vector<std::string> builtinModelCandidates()
{
    std::vector<std::string> out;
    std::error_code failed;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", failed);
    if (!failed)
        out.push_back((exe.parent_path() / ".." / "share" / "attention-explorer" / "models" / builtinModelName)
                          .lexically_normal()
                          .string());
#ifdef AE_SOURCE_BUILTIN_MODEL
    out.push_back(AE_SOURCE_BUILTIN_MODEL);
#endif
    return out;
}

std::string builtinModelFolder()
{
    const std::vector<std::string> candidates = builtinModelCandidates();
    for (const std::string& folder : candidates) {
        std::error_code failed;
        if (std::filesystem::is_regular_file(std::filesystem::path(folder) / "config.json", failed))
            return folder;
    }
    return candidates.empty() ? std::string(builtinModelName) : candidates.front();
}

} // namespace core
