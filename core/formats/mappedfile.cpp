#include "core/formats/mappedfile.h"

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace core {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, std::string& error)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = path + ": cannot be opened: " + std::strerror(errno);
        return nullptr;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        error = path + ": is not a regular file";
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
