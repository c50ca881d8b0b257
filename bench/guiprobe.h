#pragma once
/** What the window's benchmarks share: how long the GUI thread keeps an event waiting (InputProbe), which events
 *  it spends long on (Application with AE_BENCH_SLOW_EVENTS=ms), running the event loop until something happened,
 *  and percentiles. Header-only; each benchmark is a program of its own. */

#include <QApplication>
#include <QByteArray>
#include <QElapsedTimer>
#include <QEvent>
#include <QSettings>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

namespace bench {

/** Milliseconds since the start, to line up the diagnostics on standard error. */
inline QElapsedTimer& globalClock()
{
    static QElapsedTimer c = [] {
        QElapsedTimer t;
        t.start();
        return t;
    }();
    return c;
}

/** How long the GUI thread keeps an event waiting: a thread of its own posts an event to an object on the GUI
 *  thread every millisecond, the next one only after the last was delivered, and the longest wait between
 *  posting and delivery is kept. A key press or a mouse move waits as long. (A timer would not tell: Qt runs
 *  timers at idle priority once they have fired, so a busy but responsive loop delays them.) With
 *  AE_BENCH_SLOW_EVENTS set, every wait over 16 ms is named on standard error. */
class InputProbe : public QObject {
public:
    InputProbe()
        : m_thread([this] { run(); })
    {
    }

    ~InputProbe() override
    {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
        QCoreApplication::removePostedEvents(this);
    }

    /** Starts counting from now (the waits before are forgotten). */
    void reset() { m_longestNs = 0; }
    double longestMs() const { return double(m_longestNs) / 1e6; }

protected:
    bool event(QEvent* e) override
    {
        if (e->type() != probeType)
            return QObject::event(e);
        const auto waited = std::chrono::steady_clock::now() - static_cast<ProbeEvent*>(e)->posted;
        m_longestNs = std::max<qint64>(m_longestNs, std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count());
        if (waited > std::chrono::milliseconds(16) && qEnvironmentVariableIsSet("AE_BENCH_SLOW_EVENTS"))
            std::fprintf(stderr, "%.1f an event waited %.1f ms\n", double(globalClock().nsecsElapsed()) / 1e6,
                         std::chrono::duration<double, std::milli>(waited).count());
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_delivered = true;
        }
        m_wake.notify_all();
        return true;
    }

private:
    static constexpr QEvent::Type probeType = QEvent::Type(QEvent::User + 17);
    struct ProbeEvent : QEvent {
        ProbeEvent() : QEvent(probeType) {}
        std::chrono::steady_clock::time_point posted = std::chrono::steady_clock::now();
    };

    void run()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        while (!m_stop) {
            m_delivered = false;
            QCoreApplication::postEvent(this, new ProbeEvent);
            m_wake.wait(lock, [&] { return m_delivered || m_stop; });
            m_wake.wait_for(lock, std::chrono::milliseconds(1), [&] { return m_stop; });
        }
    }

    std::atomic<qint64> m_longestNs{0};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_delivered = false;
    bool m_stop = false;
    std::thread m_thread;
};

/** Runs the event loop until done() or timeoutMs passed; false on timeout. */
template <typename Done>
bool spinUntil(Done done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    QTimer wake;
    wake.start(5);
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

/** Runs the event loop for ms milliseconds. */
inline void settle(int ms)
{
    QElapsedTimer t;
    t.start();
    spinUntil([&] { return t.elapsed() >= ms; }, ms + 1000);
}

/** The p-quantile of v (0 … 1), interpolated between neighbours; −1 for none. */
inline double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    const double at = p * double(v.size() - 1);
    const auto lo = std::size_t(at);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

/** The window's settings go to folder (a temporary one), not to the user's. */
inline void keepSettingsIn(const QString& folder)
{
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, folder);
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerBench"));
}

/** With AE_BENCH_SLOW_EVENTS=ms set, names on standard error every event the GUI thread spent longer on, with
 *  the objects it sits in and the time the thread itself ran meanwhile (on a loaded machine the wall time also
 *  counts the waits for a core, the processor time does not): where a stall comes from. What is noted before each event costs no allocation, so
 *  that the figures measured meanwhile stay near those without it. */
class Application : public QApplication {
public:
    using QApplication::QApplication;
    qint64 slowNs = qint64(qEnvironmentVariable("AE_BENCH_SLOW_EVENTS").toDouble() * 1e6);  // fractions too: 0.5

    /** The calling thread's processor time in milliseconds. */
    static double threadCpuMs()
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    }

    bool notify(QObject* receiver, QEvent* event) override
    {
        if (slowNs <= 0)
            return QApplication::notify(receiver, event);
        const double cpuBefore = threadCpuMs();
        QElapsedTimer t;
        t.start();
        const int type = event->type();  // the event, the receiver and its parents may be gone afterwards
        constexpr int depth = 8;
        const char* classes[depth] = {};
        QString names[depth];
        int at = 0;
        for (QObject* o = receiver; o && at < depth; o = o->parent(), ++at) {
            classes[at] = o->metaObject()->className();
            names[at] = o->objectName();
        }
        const bool result = QApplication::notify(receiver, event);
        if (const qint64 ns = t.nsecsElapsed(); ns > slowNs) {
            QByteArray what;
            for (int i = 0; i < at; ++i)
                what += (i ? " < " : "") + QByteArray(classes[i]) + ' ' + names[i].toUtf8();
            std::fprintf(stderr, "%.1f slow event: %.1f ms (%.1f ms on the processor), type %d, %s\n",
                         double(globalClock().nsecsElapsed()) / 1e6, double(ns) / 1e6, threadCpuMs() - cpuBefore, type,
                         what.constData());
        }
        return result;
    }
};

}  // namespace bench
