#include "core/formats/mappedfile.h"

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace core {

namespace {

/** What a file that is not a regular one is, for the refusal. */
const char* kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    return "not a regular file";
}

/** Why path cannot be opened, from errno: a symbolic link that loops is said as such. */
std::string openProblem(const std::string& path, int err)
{
    if (err == ELOOP)
        return path + ": a symbolic link that loops (or a chain of too many links); it leads to no file";
    struct stat link {};
    if (err == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
        return path + ": a symbolic link to a file that does not exist";
    if (err == ENOENT)
        return path + ": missing";
    return path + ": cannot be opened: " + std::strerror(err);
}

} // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, std::string& error)
{
    // The type first, and without blocking: opening a FIFO that has no writer would wait for ever.
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) {
        error = openProblem(path, errno);
        return nullptr;
    }
    if (!S_ISREG(info.st_mode)) {
        error = path + ": is " + kindOf(info.st_mode) + ", not a regular file";
        return nullptr;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = openProblem(path, errno);
        return nullptr;
    }
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) { // replaced since the stat
        error = path + ": is " + kindOf(info.st_mode) + ", not a regular file";
        ::close(fd);
        return nullptr;
    }
    std::shared_ptr<MappedFile> file(new MappedFile);
    file->m_path = path;
    file->m_size = std::size_t(info.st_size);
    if (file->m_size > 0) {
        void* data = ::mmap(nullptr, file->m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (data == MAP_FAILED) {
            error = path + ": cannot be mapped: " + std::strerror(errno);
            ::close(fd);
            return nullptr;
        }
        file->m_data = static_cast<const char*>(data);
        file->m_mapped = true;
    }
    ::close(fd);
    return file;
}

void MappedFile::releasePages(std::string_view part) const
{
    const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(part.data()) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(part.data()) + part.size()) / page * page;
    // A read-only private mapping of the file never holds pages of its own: dropping them loses nothing.
    if (m_mapped && end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

MappedFile::~MappedFile()
{
    if (m_mapped)
        ::munmap(const_cast<char*>(m_data), m_size);
}

} // namespace core
