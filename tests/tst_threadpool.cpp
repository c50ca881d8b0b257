/** core::parallelFor on the engine's one pool of workers: every task once, the caller taking part, the same
 *  workers for every call, failures rethrown, several callers at once, and no worker above its caller's
 *  priority. */

#include "core/tensor/threadpool.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#endif

using namespace core;

namespace {

/** Holds each task that arrives until `expected` tasks have: they then run on as many threads at once. */
class Rendezvous {
public:
    explicit Rendezvous(int expected) : m_expected(expected) {}

    /** False when the others did not arrive within ten seconds. */
    bool arrive()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        ++m_arrived;
        m_all.notify_all();
        return m_all.wait_for(lock, std::chrono::seconds(10), [this] { return m_arrived >= m_expected; });
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_all;
    int m_arrived = 0;
    const int m_expected;
};

/** Threads that have ever run a task of these tests: a thread's first task counts it. */
std::atomic<int> threadsSeen{0};

void countThisThread()
{
    thread_local bool counted = false;
    if (!counted) {
        counted = true;
        ++threadsSeen;
    }
}

#if defined(__linux__)
int niceOfThisThread()
{
    return getpriority(PRIO_PROCESS, 0);  // on Linux, PRIO_PROCESS with 0 is the calling thread
}
#endif

}  // namespace

class TestThreadPool : public QObject {
    Q_OBJECT

private slots:
    void everyTaskRunsOnce_data()
    {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("threads");
        for (int count : {0, 1, 2, 7, 1000})
            for (int threads : {1, 2, 3, 64})
                QTest::addRow("%d tasks on %d threads", count, threads) << count << threads;
    }

    void everyTaskRunsOnce()
    {
        QFETCH(int, count);
        QFETCH(int, threads);
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
        parallelFor(count, threads, [&](int i) { ++runs[std::size_t(i)]; });
        for (int i = 0; i < count; ++i)
            QVERIFY2(runs[std::size_t(i)] == 1, qPrintable(QStringLiteral("task %1 ran %2 times").arg(i).arg(
                                                    runs[std::size_t(i)].load())));
    }

    void oneThreadIsTheCaller()
    {
        const auto caller = std::this_thread::get_id();
        std::set<std::thread::id> ran;
        parallelFor(50, 1, [&](int) { ran.insert(std::this_thread::get_id()); });
        QCOMPARE(ran.size(), std::size_t(1));
        QVERIFY(*ran.begin() == caller);
    }

    void theCallerTakesPart()
    {
        if (coreCount() < 2)
            QSKIP("one core: the caller runs every task");
        // Two tasks that wait for each other: they run at once, one of them on the calling thread.
        const auto caller = std::this_thread::get_id();
        Rendezvous both(2);
        std::mutex mutex;
        std::vector<std::thread::id> ran;
        std::atomic<bool> met{true};
        parallelFor(2, 2, [&](int) {
            {
                const std::lock_guard<std::mutex> lock(mutex);
                ran.push_back(std::this_thread::get_id());
            }
            if (!both.arrive())
                met = false;
        });
        QVERIFY2(met, "the second task did not start while the first waited for it");
        QCOMPARE(ran.size(), std::size_t(2));
        QVERIFY(ran[0] != ran[1]);
        QVERIFY(ran[0] == caller || ran[1] == caller);
    }

    void theSameWorkersServeEveryCall()
    {
        if (coreCount() < 2)
            QSKIP("one core: no workers");
        // Threads started per call would each be counted once; the pool's are counted once in all.
        countThisThread();
        const int before = threadsSeen;
        for (int round = 0; round < 40; ++round) {
            Rendezvous both(2);
            std::atomic<bool> met{true};
            parallelFor(2, 2, [&](int) {
                countThisThread();
                if (!both.arrive())
                    met = false;
            });
            QVERIFY(met);
            parallelFor(64, 64, [](int) { countThisThread(); });
        }
        const int workers = threadsSeen - before;
        QVERIFY2(workers >= 1 && workers <= coreCount() - 1,
                 qPrintable(QStringLiteral("%1 threads ran tasks besides the caller, with %2 cores")
                                .arg(workers)
                                .arg(coreCount())));
    }

    void theFirstFailureIsRethrown()
    {
        // On one thread the tasks run in order: none after the one that threw.
        int ran = 0;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, parallelFor(100, 1, [&](int i) {
                                     ++ran;
                                     if (i == 3)
                                         throw std::runtime_error("task 3");
                                 }));
        QCOMPARE(ran, 4);
        // On several, every thread stops taking tasks; the pool still serves the next call. The tasks after task 10
        // wait until it has thrown and then take a millisecond each, so that the pool's stop, not a race, decides how
        // many more start: a thread that took task 10 and was descheduled before running it let the others run all
        // 100 000 in a millisecond (seen under the sanitizers on a busy machine). Tasks are taken in order, so the
        // thread holding task 10 never waits for a later one.
        std::atomic<int> started{0};
        std::atomic<bool> thrown{false};
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, parallelFor(100000, 8, [&](int i) {
                                     ++started;
                                     if (i == 10) {
                                         thrown = true;
                                         throw std::runtime_error("task 10");
                                     }
                                     if (i > 10) {
                                         while (!thrown)
                                             std::this_thread::yield();
                                         std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                     }
                                 }));
        QVERIFY2(started < 10000, qPrintable(QString::number(started)));
        std::atomic<int> runs{0};
        parallelFor(1000, 8, [&](int) { ++runs; });
        QCOMPARE(runs.load(), 1000);
    }

    void severalCallersAtOnce()
    {
        // Four threads each run many loops of sums on the one pool at the same time.
        constexpr int callers = 4, rounds = 200, count = 37;
        std::vector<long long> wrong(callers, 0);
        std::vector<std::thread> threads;
        for (int c = 0; c < callers; ++c)
            threads.emplace_back([c, &wrong] {
                for (int round = 0; round < rounds; ++round) {
                    std::atomic<long long> sum{0};
                    parallelFor(count, 3, [&](int i) { sum += i + c; });
                    if (sum != count * (count - 1) / 2 + count * c)
                        ++wrong[std::size_t(c)];
                }
            });
        for (auto& t : threads)
            t.join();
        for (int c = 0; c < callers; ++c)
            QCOMPARE(wrong[std::size_t(c)], 0LL);
    }

    void loopsNest()
    {
        std::vector<std::atomic<int>> runs(64);
        parallelFor(8, 8, [&](int outer) {
            parallelFor(8, 8, [&](int inner) { ++runs[std::size_t(outer * 8 + inner)]; });
        });
        for (const auto& r : runs)
            QCOMPARE(r.load(), 1);
    }

    // Last: it lowers the workers' priority for the rest of the process.
    void workersNeverRunAboveTheCaller()
    {
#if defined(__linux__)
        if (coreCount() < 2)
            QSKIP("one core: no workers");
        const int own = niceOfThisThread();
        if (own >= 19)
            QSKIP("this process runs at the lowest priority already");
        // The workers ran the tasks above at this thread's priority; a caller below it (nice +5, as the
        // window's background threads are below the GUI) must not have its tasks run above it.
        const int lowered = std::min(own + 5, 19);
        std::vector<int> seen;
        bool met = true;
        std::thread below([&] {
            setpriority(PRIO_PROCESS, 0, lowered);
            Rendezvous both(2);
            std::mutex mutex;
            parallelFor(2, 2, [&](int) {
                {
                    const std::lock_guard<std::mutex> lock(mutex);
                    seen.push_back(niceOfThisThread());
                }
                if (!both.arrive())
                    met = false;
            });
        });
        below.join();
        QVERIFY(met);
        QCOMPARE(seen.size(), std::size_t(2));
        for (int nice : seen)
            QVERIFY2(nice >= lowered, qPrintable(QStringLiteral("a task ran at nice %1, its caller at %2")
                                                     .arg(nice)
                                                     .arg(lowered)));
        // The caller keeps its own priority when it calls again.
        parallelFor(2, 2, [](int) {});
        QCOMPARE(niceOfThisThread(), own);
#else
        QSKIP("thread priorities are only followed on Linux");
#endif
    }
};

QTEST_GUILESS_MAIN(TestThreadPool)
#include "tst_threadpool.moc"
