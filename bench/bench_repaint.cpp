/** Edit-to-repaint latency of the real main window, offscreen: one embedding cell set through the document,
 *  timed until the heatmap has finished painting the trace that edit produced (for a long sequence, the figure
 *  its worker prepared).
 *
 *  bench_repaint SIZES  (comma-separated n) prints one JSON object per size: p50 and p95 in milliseconds,
 *  the p50 of the time until the new trace was announced and every view had taken it (the rest is
 *  painting), the longest an event posted to the GUI thread waited while the edits ran, and the GUI thread's
 *  processor time per edit (p50): until the heatmap was painted, and until the 30 ms after it. With
 *  AE_BENCH_SLOW_EVENTS=ms, every event the GUI thread spent longer on, and every wait over 16 ms, is named
 *  on standard error. */

#include "core/tensor/allocator.h"
#include "benchmodel.h"
#include "guiprobe.h"
#include "ui/document/document.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"

#include <QEvent>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using bench::InputProbe;
using bench::percentile;
using bench::settle;
using bench::spinUntil;

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

}  // namespace

int main(int argc, char** argv)
{
    core::keepFreedMemory();  // before any thread starts
    bench::Application app(argc, argv);
    QTemporaryDir settings;
    bench::keepSettingsIn(settings.path());

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
        std::vector<double> ms, traceMs, warmupMs, cpuToPaintMs, cpuMs;
        // The longest an event waited for the GUI thread while the counted edits ran: what a user typing or
        // dragging at that moment would feel.
        InputProbe probe;
        for (int e = 0; e < warmup + edits; ++e) {
            if (e == warmup) {
                probe.reset();
            }
            watch.paintedAt = -1;
            const double cpuStart = bench::Application::threadCpuMs();
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
            cpuToPaintMs.push_back(bench::Application::threadCpuMs() - cpuStart);
            settle(30);
            cpuMs.push_back(bench::Application::threadCpuMs() - cpuStart);
        }
        const double stallMs = probe.longestMs();
        for (std::size_t i = 0; i < ms.size(); ++i)  // each edit, for a look at the tail
            std::fprintf(stderr, "n=%d edit %zu: %.1f ms (trace %.1f ms)\n", n, i + 1, ms[i], traceMs[i]);
        std::printf("{\"n\": %d, \"p50_ms\": %.3f, \"p95_ms\": %.3f, \"trace_p50_ms\": %.3f, \"stall_max_ms\": %.3f, "
                    "\"first_edit_ms\": %.3f, \"edits\": %d, \"gui_cpu_to_paint_p50_ms\": %.3f, "
                    "\"gui_cpu_per_edit_p50_ms\": %.3f}\n",
                    n, percentile(ms, 0.5), percentile(ms, 0.95), percentile(traceMs, 0.5), stallMs,
                    warmupMs.front(), edits, percentile(cpuToPaintMs, 0.5), percentile(cpuMs, 0.5));
        std::fflush(stdout);
    }
    return 0;
}
