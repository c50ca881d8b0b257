#include "core/tensor/threadpool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <cerrno>
#include <sys/resource.h>
#endif

namespace core {

namespace {

/** The calling thread's nice value (0 where threads have none). */
int currentNice()
{
#if defined(__linux__)
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, 0);  // on Linux, PRIO_PROCESS with 0 is the calling thread
    return errno == 0 ? nice : 0;
#else
    return 0;
#endif
}

/** Lowers the calling worker's priority to the nice value `nice` of the thread whose tasks it is about to run,
 *  when it is above that. */
void notAboveCaller(int nice)
{
#if defined(__linux__)
    thread_local int own = currentNice();
    if (nice > own && setpriority(PRIO_PROCESS, 0, nice) == 0)
        own = nice;
#else
    (void)nice;
#endif
}

using Body = void (*)(const void*, int);

/** How long a worker that ran out of tasks, and a caller whose helpers still run, keep looking before they sleep
 *  (AE_POOL_SPIN_US, else 150 µs). A sleeping thread woken on a virtual machine's idle core started 100–350 µs
 *  later, measured: longer than many of the engine's steps, so that a hand-off between the products of one
 *  pass (a GPT-2 layer has five) often left the caller to do the work alone. The steps of a pass follow each
 *  other within microseconds, so a worker still looking takes the next one at once. */
int spinMicroseconds()
{
    static const int us = [] {
        const char* v = std::getenv("AE_POOL_SPIN_US");
        return v ? std::max(0, std::atoi(v)) : 150;
    }();
    return us;
}

inline void pause()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/** One call of parallelFor(): its tasks, the next one to claim, and the workers that help with it. */
struct Job {
    Job(Body body, const void* context, int count, int nice) : body(body), context(context), count(count), nice(nice)
    {
    }

    const Body body;
    const void* const context;
    const int count;
    const int nice;              ///< the caller's nice value
    std::atomic<int> next{0};    ///< the next task to claim; count or more when none is left
    int helpersWanted = 0;       ///< workers that may still join (under the pool's mutex)
    std::atomic<int> helpersInside{0};  ///< workers running its tasks (changed under the pool's mutex)
    std::exception_ptr failure;  ///< the first exception a task threw (under the pool's mutex)
};

/** The workers, and the jobs waiting for them. */
class Pool {
public:
    Pool() = default;
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    /** Tells the workers to stop and joins them. */
    ~Pool();

    /** Runs every task of job on the caller and up to `helpers` workers; rethrows the first failure. */
    void run(Job& job, int helpers);

private:
    void startWorkers();
    void work();
    void runTasks(Job& job);

    std::mutex m_mutex;
    std::condition_variable m_jobPosted;   ///< the workers wait here for a job
    std::condition_variable m_helperLeft;  ///< callers wait here for their helpers to finish
    std::deque<Job*> m_jobs;               ///< jobs that still want helpers, oldest first
    std::atomic<int> m_jobCount{0};        ///< m_jobs.size(), read without the mutex by spinning workers
    std::vector<std::thread> m_workers;
    bool m_started = false, m_stopping = false;
};

/** Set once the pool is destroyed at exit: a parallelFor() after that (from another static's destructor) runs
 *  on its caller alone. */
std::atomic<bool> poolGone{false};

Pool& pool()
{
    static Pool instance;
    return instance;
}

Pool::~Pool()
{
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_jobPosted.notify_all();
    for (std::thread& worker : m_workers)
        worker.join();
    poolGone = true;
}

void Pool::startWorkers()
{
    m_started = true;
    for (int i = 1; i < coreCount(); ++i) {
        try {
            m_workers.emplace_back([this] { work(); });
        } catch (const std::system_error&) {
            break;  // no more threads to be had: the callers do the work with those there are
        }
    }
}

void Pool::runTasks(Job& job)
{
    for (int i; (i = job.next.fetch_add(1, std::memory_order_relaxed)) < job.count;) {
        try {
            job.body(job.context, i);
        } catch (...) {
            const std::lock_guard<std::mutex> lock(m_mutex);
            if (!job.failure)
                job.failure = std::current_exception();
            job.next = job.count;
        }
    }
}

void Pool::work()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        if (m_jobs.empty() && spinMicroseconds() > 0) {
            lock.unlock();
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spinMicroseconds());
            while (m_jobCount.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < until)
                pause();
            lock.lock();
        }
        m_jobPosted.wait(lock, [this] { return m_stopping || !m_jobs.empty(); });
        if (m_stopping)
            return;
        Job& job = *m_jobs.front();
        if (--job.helpersWanted == 0) {
            m_jobs.pop_front();
            m_jobCount.store(int(m_jobs.size()), std::memory_order_release);
        }
        ++job.helpersInside;
        lock.unlock();
        notAboveCaller(job.nice);
        runTasks(job);
        lock.lock();
        if (--job.helpersInside == 0)
            m_helperLeft.notify_all();
    }
}

void Pool::run(Job& job, int helpers)
{
    int wanted = 0;
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_started)
            startWorkers();
        wanted = job.helpersWanted = std::min(helpers, int(m_workers.size()));
        if (wanted > 0) {
            m_jobs.push_back(&job);
            m_jobCount.store(int(m_jobs.size()), std::memory_order_release);
        }
    }
    for (int i = 0; i < wanted; ++i)
        m_jobPosted.notify_one();
    runTasks(job);
    {
        // Every task is claimed: no worker may join any more, and those inside finish theirs.
        std::unique_lock<std::mutex> lock(m_mutex);
        if (job.helpersWanted > 0) {
            m_jobs.erase(std::find(m_jobs.begin(), m_jobs.end(), &job));
            m_jobCount.store(int(m_jobs.size()), std::memory_order_release);
        }
        if (job.helpersInside > 0 && spinMicroseconds() > 0) {
            lock.unlock();
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spinMicroseconds());
            while (job.helpersInside.load(std::memory_order_acquire) > 0 && std::chrono::steady_clock::now() < until)
                pause();
            lock.lock();
        }
        m_helperLeft.wait(lock, [&job] { return job.helpersInside == 0; });
    }
    if (job.failure)
        std::rethrow_exception(job.failure);
}

}  // namespace

/** parallelFor() calls that offered tasks to the workers. */
static std::atomic<long long> handOffCount{0};

long long handOffs()
{
    return handOffCount.load();
}

int coreCount()
{
    static const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    return cores;
}

namespace detail {

void parallelFor(int count, int threads, Body body, const void* context)
{
    const int helpers = std::min(threads, count) - 1;
    if (helpers <= 0 || coreCount() == 1 || poolGone) {
        for (int i = 0; i < count; ++i)
            body(context, i);
        return;
    }
    handOffCount.fetch_add(1, std::memory_order_relaxed);
    Job job(body, context, count, currentNice());
    pool().run(job, helpers);
}

}  // namespace detail

}  // namespace core
