#pragma once
/** A file mapped read-only into memory: the way the model's files are read, so that a checkpoint of
 *  hundreds of megabytes costs no copy and its pages are shared with the operating system's cache. */

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace core {

class MappedFile {
public:
    /** The file at path, mapped read-only; nullptr when it is missing, cannot be opened, is not a regular file
     *  (a FIFO, a socket, a device or a folder, told without opening it, so that nothing blocks), is a symbolic link
     *  that loops, or cannot be mapped, with error set to "<path>: <why>". An empty file maps to empty bytes. */
    static std::shared_ptr<const MappedFile> open(const std::string& path, std::string& error);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    /** The file's bytes, valid as long as this object lives. */
    std::string_view bytes() const { return {m_data, m_size}; }
    const std::string& path() const { return m_path; }
    /** Lets the system take back this process's memory for the whole pages inside part (a piece of bytes()) that
     *  it holds, once their values are kept elsewhere: the pages stay mapped and are read again from the file
     *  when next touched, so part stays valid and reads the same; only what is resident changes. */
    void releasePages(std::string_view part) const;

private:
    MappedFile() = default;

    std::string m_path;
    const char* m_data = nullptr;
    std::size_t m_size = 0;
    bool m_mapped = false;
};

} // namespace core
