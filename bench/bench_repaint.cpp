/** Edit-to-repaint latency of the real main window, offscreen: one embedding cell set through the document,
 *  timed until the heatmap has finished painting the trace that edit produced (for a long sequence, the figure
 *  its worker prepared).
 *
 *  bench_repaint SIZES  (comma-separated n) prints one JSON object per size: p50 and p95 in milliseconds,
 *  the p50 of the time until the new trace was announced and every view had taken it (the rest is
 *  painting), and the longest an event posted to the GUI thread waited while the edits ran. With
 *  AE_BENCH_SLOW_EVENTS=ms, every event the GUI thread spent longer on, and every wait over 16 ms, is named
 *  on standard error. */

#include "core/allocator.h"
#include "benchmodel.h"
#include "ui/document/document.h"
#include "ui/views/heatmapcanvas.h"
#include "ui/views/heatmapwidget.h"
#include "ui/views/mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace {

/** Watches the canvas's paint events: once armed, the first one is painted right away inside the filter,
 *  and the time after it is kept. */
class PaintWatch : public QObject {
public:
    bool armed = false;
    const ui::HeatmapCanvas* canvas = nullptr;
    qint64 tracedAt = -1;
    qint64 paintedAt = -1;
    QElapsedTimer clock;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        // A long sequence's figure is prepared off the GUI thread: a paint before it is ready shows the old one.
        if (!armed || event->type() != QEvent::Paint || (canvas && canvas->isPreparing()))
            return false;
        armed = false;
        watched->removeEventFilter(this);
        watched->event(event);  // the widget's own painting, inside the paint cycle that sent the event
        paintedAt = clock.nsecsElapsed();
        return true;
    }
};

/** Milliseconds since the start, to line up the diagnostics on standard error. */
QElapsedTimer& globalClock()
{
    static QElapsedTimer c = [] { QElapsedTimer t; t.start(); return t; }();
    return c;
}

/** How long the GUI thread keeps an event waiting: a thread of its own posts an event to an object on the GUI
 *  thread every millisecond, the next one only after the last was delivered, and the longest wait between
 *  posting and delivery is kept. A key press or a mouse move waits as long. (A timer would not tell: Qt runs
 *  timers at idle priority once they have fired, so a busy but responsive loop delays them.) */
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

void settle(int ms)
{
    QElapsedTimer t;
    t.start();
    spinUntil([&] { return t.elapsed() >= ms; }, ms + 1000);
}

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    const double at = p * double(v.size() - 1);
    const auto lo = std::size_t(at);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

/** With AE_BENCH_SLOW_EVENTS=ms set, names on standard error every event the GUI thread spent longer on:
 *  where a stall comes from. */
class Application : public QApplication {
public:
    using QApplication::QApplication;
    qint64 slowNs = qEnvironmentVariableIntValue("AE_BENCH_SLOW_EVENTS") * qint64(1000000);

    bool notify(QObject* receiver, QEvent* event) override
    {
        if (slowNs <= 0)
            return QApplication::notify(receiver, event);
        QElapsedTimer t;
        t.start();
        const int type = event->type();  // the event may be gone afterwards
        QByteArray what = receiver->metaObject()->className() + QByteArrayLiteral(" ") + receiver->objectName().toUtf8();
        for (QObject* p = receiver->parent(); p && what.size() < 200; p = p->parent())  // where it sits
            what += QByteArrayLiteral(" < ") + p->metaObject()->className() + QByteArrayLiteral(" ") + p->objectName().toUtf8();
        const bool result = QApplication::notify(receiver, event);
        if (const qint64 ns = t.nsecsElapsed(); ns > slowNs)
            std::fprintf(stderr, "%.1f slow event: %.1f ms, type %d, %s\n", double(globalClock().nsecsElapsed()) / 1e6,
                         double(ns) / 1e6, type, what.constData());
        return result;
    }
};

}  // namespace

int main(int argc, char** argv)
{
    core::keepFreedMemory();  // before any thread starts
    Application app(argc, argv);
    QTemporaryDir settings;  // the window's settings go here, not to the user's
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerBench"));

    const QStringList sizes = argc > 1 ? QString::fromLocal8Bit(argv[1]).split(QLatin1Char(',')) : QStringList{};
    for (const QString& size : sizes) {
        const int n = size.toInt();
        ui::MainWindow window;
        window.resize(1280, 800);
        window.show();
        ui::Document* document = window.document();
        core::Session session;
        session.model = bench::model(n, 1);
        document->loadSession(session, QString());
        document->waitForTrace();
        settle(300);

        PaintWatch watch;
        watch.canvas = window.heatmap()->canvas();
        watch.clock.start();
        QObject::connect(document, &ui::Document::traceChanged, &watch, [&] {
            watch.tracedAt = watch.clock.nsecsElapsed();
            window.heatmap()->canvas()->installEventFilter(&watch);
            watch.armed = true;
        });

        // Two edits first, not counted: the first after a load pays once for what later edits reuse (the
        // spent trace's buffers, the figures' first images); they are measured apart as warm-up.
        const int warmup = 2;
        // AE_BENCH_EDITS overrides the count: many edits make a profile of this loop show the edits, not the start.
        const int edits = qEnvironmentVariableIsSet("AE_BENCH_EDITS") ? std::max(1, qEnvironmentVariableIntValue("AE_BENCH_EDITS"))
                          : n >= 2048 ? 20 : n >= 512 ? 24 : 40;
        const int timeoutMs = 30000;
        std::vector<double> ms, traceMs, warmupMs;
        // The longest an event waited for the GUI thread while the counted edits ran: what a user typing or
        // dragging at that moment would feel.
        InputProbe probe;
        for (int e = 0; e < warmup + edits; ++e) {
            if (e == warmup) {
                probe.reset();
            }
            watch.paintedAt = -1;
            const qint64 start = watch.clock.nsecsElapsed();
            document->setCell(ui::MatrixId::Embeddings, e % n, 0, 0.25 + 0.01 * e);
            if (!spinUntil([&] { return watch.paintedAt >= 0; }, timeoutMs)) {
                std::printf("{\"n\": %d, \"p50_ms\": null, \"p95_ms\": null, \"trace_p50_ms\": null, "
                            "\"timeout_ms\": %d}\n", n, timeoutMs);
                std::fflush(stdout);
                return 0;  // the window is still busy: the larger sizes would not tell more
            }
            if (e < warmup) {
                warmupMs.push_back(double(watch.paintedAt - start) / 1e6);
                settle(30);
                continue;
            }
            ms.push_back(double(watch.paintedAt - start) / 1e6);
            traceMs.push_back(double(watch.tracedAt - start) / 1e6);
            settle(30);
        }
        const double stallMs = probe.longestMs();
        for (std::size_t i = 0; i < ms.size(); ++i)  // each edit, for a look at the tail
            std::fprintf(stderr, "n=%d edit %zu: %.1f ms (trace %.1f ms)\n", n, i + 1, ms[i], traceMs[i]);
        std::printf("{\"n\": %d, \"p50_ms\": %.3f, \"p95_ms\": %.3f, \"trace_p50_ms\": %.3f, \"stall_max_ms\": %.3f, "
                    "\"first_edit_ms\": %.3f, \"edits\": %d}\n",
                    n, percentile(ms, 0.5), percentile(ms, 0.95), percentile(traceMs, 0.5), stallMs,
                    warmupMs.front(), edits);
        std::fflush(stdout);
    }
    return 0;
}
