#pragma once
/** A named pipe (FIFO) that hands a text to the first reader, as `cat file > fifo` does in a shell. */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <string>
#include <thread>

namespace testutil {

class FifoWriter {
public:
    /** Makes the FIFO at path and starts writing text into it as soon as a reader opens it; gives up when no
     *  reader comes within the wait. made() says whether the FIFO could be made. */
    FifoWriter(std::string path, std::string text, std::chrono::seconds wait = std::chrono::seconds(60))
        : m_path(std::move(path))
    {
        std::signal(SIGPIPE, SIG_IGN); // a reader that leaves early makes write() fail, not the test end
        m_made = ::mkfifo(m_path.c_str(), 0600) == 0;
        if (!m_made)
            return;
        m_thread = std::thread([this, text = std::move(text), wait] {
            const auto deadline = std::chrono::steady_clock::now() + wait;
            int fd = -1;
            // Without a reader, a non-blocking open fails with ENXIO: try again until one comes.
            while ((fd = ::open(m_path.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO
                   && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            if (fd < 0)
                return;
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            std::size_t done = 0;
            while (done < text.size()) {
                const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
                if (n <= 0)
                    break;
                done += std::size_t(n);
            }
            ::close(fd); // the writer leaves: the reader sees the end
        });
    }
    ~FifoWriter()
    {
        if (m_thread.joinable())
            m_thread.join();
        ::unlink(m_path.c_str());
    }
    FifoWriter(const FifoWriter&) = delete;
    FifoWriter& operator=(const FifoWriter&) = delete;

    bool made() const { return m_made; }

private:
    std::string m_path;
    bool m_made = false;
    std::thread m_thread;
};

} // namespace testutil
