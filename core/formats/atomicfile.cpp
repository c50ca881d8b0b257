#include "core/formats/atomicfile.h"

#include <filesystem>
#include <fstream>
#include <random>

namespace core {

bool writeFileAtomically(const std::string& path, std::string_view bytes, std::string& error)
{
    namespace fs = std::filesystem;
    std::random_device rd;
    const fs::path target(path);
    const fs::path temp = target.parent_path() / (".#" + target.filename().string() + "." + std::to_string(rd()));
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) {
            error = path + ": cannot be written (the folder is missing or not writable)";
            return false;
        }
        out.write(bytes.data(), std::streamsize(bytes.size()));
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(temp, ignored);
            error = path + ": writing failed (is the disk full?)";
            return false;
        }
    }
    std::error_code ec;
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        error = path + ": cannot be replaced: " + ec.message();
        return false;
    }
    return true;
}

} // namespace core
