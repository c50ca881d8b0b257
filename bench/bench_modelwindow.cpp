/** A real model in the main window, offscreen: how long an edit takes to reach the painted Next Token panel,
 *  in the last and in the first layer; how long a new text takes until the heatmap and the panel are painted
 *  again; and the longest an event posted to the GUI thread waited meanwhile.
 *
 *  bench_modelwindow FOLDER [TOKENS] [EDITS]
 *
 *  FOLDER is a GPT-2-family checkpoint (scripts/bench writes a GPT-2-small-shaped one). The text is a fixed
 *  English paragraph cut to TOKENS tokens (64 unless given). Prints one JSON object of p50 and p95 in
 *  milliseconds; the first edit of each kind is left out (it pays once for the copy of a layer's weights). */

#include "core/allocator.h"
#include "ui/document/document.h"
#include "ui/views/heatmapcanvas.h"
#include "ui/views/heatmapwidget.h"
#include "ui/views/mainwindow.h"
#include "ui/views/predictionpanel.h"
#include "ui/views/sessioncontroller.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

const char* paragraph =
    "The committee met on a grey morning to decide where the new library would stand. Some wanted it by the "
    "river, where the old mill had been, because the light there is good and the walk from the station is short; "
    "others wanted it in the square, beside the school, so that children could go after their lessons without "
    "crossing a road. In the end they chose neither, and the argument went on for another year.";

/** Notes when a widget has painted since arm(). */
class Painted : public QObject {
public:
    explicit Painted(QWidget* widget) : m_widget(widget) { widget->installEventFilter(this); }
    /** From now on; asks for a paint, so that a result that changes no visible digit is painted too. */
    void arm()
    {
        m_painted = false;
        m_widget->update();
    }
    bool painted() const { return m_painted; }

protected:
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint)
            m_painted = true;
        return false;
    }

private:
    QWidget* m_widget;
    bool m_painted = false;
};

/** Posts an event to the GUI thread every millisecond from a thread of its own and keeps the longest wait. */
class StallProbe : public QObject {
public:
    StallProbe() : m_thread([this] { loop(); }) {}
    ~StallProbe() override
    {
        m_stop = true;
        m_thread.join();
    }
    void reset() { m_longest = 0; }
    double longestMs() const { return double(m_longest) / 1e6; }

protected:
    bool event(QEvent* e) override
    {
        if (e->type() != kType)
            return QObject::event(e);
        const auto waited = std::chrono::steady_clock::now() - static_cast<Probe*>(e)->posted;
        m_longest = std::max<qint64>(m_longest, std::chrono::nanoseconds(waited).count());
        m_pending = false;
        return true;
    }

private:
    static constexpr QEvent::Type kType = QEvent::Type(QEvent::User + 23);
    struct Probe : QEvent {
        Probe() : QEvent(kType) {}
        std::chrono::steady_clock::time_point posted = std::chrono::steady_clock::now();
    };
    void loop()
    {
        while (!m_stop) {
            if (!m_pending.exchange(true))
                QCoreApplication::postEvent(this, new Probe);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    std::atomic<bool> m_stop{false}, m_pending{false};
    std::atomic<qint64> m_longest{0};
    std::thread m_thread;
};

/** Runs the event loop until done() (true) or the timeout (false). */
template <typename Done>
bool runUntil(Done done, int timeoutMs = 60000)
{
    QElapsedTimer t;
    t.start();
    QTimer wake;
    wake.start(2);
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

double quantile(std::vector<double> v, double q)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    const double at = q * double(v.size() - 1);
    const auto lo = std::size_t(at);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

}  // namespace

int main(int argc, char** argv)
{
    core::keepFreedMemory();
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_modelwindow FOLDER [TOKENS] [EDITS]\n");
        return 1;
    }
    QTemporaryDir settings;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerBench"));
    const int tokens = argc > 2 ? std::atoi(argv[2]) : 64;
    const int edits = argc > 3 ? std::max(2, std::atoi(argv[3])) : 12;

    ui::MainWindow window;
    window.resize(1280, 800);
    window.show();
    ui::Document& document = *window.document();
    QString error;
    if (!window.session()->openModelFolder(QString::fromLocal8Bit(argv[1]), &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 2;
    }
    document.waitForModel();
    // The paragraph cut to the number of tokens asked for, as whole words.
    const QString words = QString::fromUtf8(paragraph);
    QString text;
    for (const QString& w : words.split(QLatin1Char(' '))) {
        const QString longer = text.isEmpty() ? w : text + QLatin1Char(' ') + w;
        if (int(document.modelState()->checkpoint().tokenizer().encode(longer.toStdString()).size()) > tokens)
            break;
        text = longer;
    }
    document.setTokenText(text);
    document.waitForModel();
    const int n = document.model().n();

    Painted prediction(window.predictionPanel()->table()->viewport());
    Painted heatmap(window.heatmap()->canvas());
    StallProbe probe;
    QElapsedTimer clock;

    auto editTimes = [&](int layer) {
        document.setShownLayer(layer);
        document.waitForModel();
        std::vector<double> ms;
        for (int e = 0; e < edits + 1; ++e) {
            bool delivered = false;
            const auto c = QObject::connect(&document, &ui::Document::predictionChanged, [&] {
                delivered = true;
                prediction.arm();
            });
            clock.start();
            document.setCell(ui::MatrixId::Query, e % 8, 0, 0.5 + 0.01 * e);
            const bool done = runUntil([&] { return delivered && prediction.painted(); });
            QObject::disconnect(c);
            if (!done)
                return std::vector<double>{};
            if (e > 0)
                ms.push_back(double(clock.nsecsElapsed()) / 1e6);
            document.waitForModel();
        }
        return ms;
    };
    probe.reset();
    const std::vector<double> last = editTimes(document.layerCount() - 1);
    const std::vector<double> first = editTimes(0);

    std::vector<double> texts;
    for (int e = 0; e < edits + 1; ++e) {
        bool traced = false, predicted = false;
        const auto c1 = QObject::connect(&document, &ui::Document::traceChanged, [&] {
            traced = true;
            heatmap.arm();
        });
        const auto c2 = QObject::connect(&document, &ui::Document::predictionChanged, [&] {
            predicted = true;
            prediction.arm();
        });
        clock.start();
        document.setTokenText(e % 2 ? text : text + QStringLiteral(" Yes"));
        document.endTypingBurst();
        const bool done = runUntil([&] { return traced && predicted && heatmap.painted() && prediction.painted(); });
        QObject::disconnect(c1);
        QObject::disconnect(c2);
        if (!done)
            break;
        if (e > 0)
            texts.push_back(double(clock.nsecsElapsed()) / 1e6);
        document.waitForModel();
    }
    std::printf("{\"tokens\": %d, \"last_layer_edit_p50_ms\": %.2f, \"last_layer_edit_p95_ms\": %.2f, "
                "\"first_layer_edit_p50_ms\": %.2f, \"first_layer_edit_p95_ms\": %.2f, \"new_text_p50_ms\": %.2f, "
                "\"new_text_p95_ms\": %.2f, \"gui_stall_max_ms\": %.2f, \"edits\": %d}\n",
                n, quantile(last, 0.5), quantile(last, 0.95), quantile(first, 0.5),
                quantile(first, 0.95), quantile(texts, 0.5), quantile(texts, 0.95), probe.longestMs(), edits);
    return 0;
}
