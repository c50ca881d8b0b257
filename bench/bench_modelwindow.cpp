/** A real model in the main window, offscreen: how long an edit takes to reach the painted Next Token panel,
 *  in the last and in the first layer; how long a new text takes until the heatmap and the panel are painted
 *  again (a word typed at the end and taken back, and a new first word, which leaves no row as it was), and until
 *  the panel's comparison with the checkpoint without edits, which follows, is painted; and the longest an event
 *  posted to the GUI thread waited meanwhile.
 *
 *  bench_modelwindow FOLDER [TOKENS] [EDITS]
 *
 *  FOLDER is a GPT-2-family checkpoint (scripts/bench writes a GPT-2-small-shaped one). The text is a fixed
 *  English paragraph cut to TOKENS tokens (64 unless given). Prints one JSON object of p50 and p95 in
 *  milliseconds; the first edit of each kind is left out (it pays once for the copy of a layer's weights). The
 *  GUI stall is the longest an event posted to the GUI thread waited while the edits ran (the first included)
 *  and while new texts came; a change of the shown layer, which is not an edit, is given apart. With
 *  AE_BENCH_SLOW_EVENTS=ms, every event the GUI thread spent longer on, and every wait over 16 ms, is named on
 *  standard error (as bench_repaint does). */

#include "core/tensor/allocator.h"
#include "guiprobe.h"
#include "ui/document/document.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/model/predictionpanel.h"
#include "ui/views/shell/sessioncontroller.h"

#include <QElapsedTimer>
#include <QEvent>
#include <QTableWidget>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
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

}  // namespace

int main(int argc, char** argv)
{
    core::keepFreedMemory();
    bench::Application app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_modelwindow FOLDER [TOKENS] [EDITS]\n");
        return 1;
    }
    QTemporaryDir settings;
    bench::keepSettingsIn(settings.path());
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
        if (int(document.modelSession()->checkpoint().tokenizer().encode(longer.toStdString()).size()) > tokens)
            break;
        text = longer;
    }
    document.setTokenText(text);
    document.waitForModel();
    const int n = document.model().n();

    Painted prediction(window.predictionPanel()->table()->viewport());
    Painted heatmap(window.heatmap()->canvas());
    bench::InputProbe probe;
    QElapsedTimer clock;
    // The longest the GUI thread kept an event waiting while the edits of a layer ran (from the first, which is
    // not timed, on) and while new texts came; a change of the shown layer before the edits apart.
    double editStall = 0, textStall = 0, layerStall = 0;

    // With AE_BENCH_SLOW_EVENTS set, each phase's start is named among the slow events, so that they can be told apart.
    const auto phase = [&](const char* name) {
        if (qEnvironmentVariableIsSet("AE_BENCH_SLOW_EVENTS"))
            std::fprintf(stderr, "%.1f phase: %s\n", double(bench::globalClock().nsecsElapsed()) / 1e6, name);
    };
    auto editTimes = [&](int layer) {
        phase(layer == 0 ? "layer switch to the first layer" : "layer switch to the last layer");
        probe.reset();
        document.setShownLayer(layer);
        document.waitForModel();
        bench::settle(100);
        layerStall = std::max(layerStall, probe.longestMs());
        phase(layer == 0 ? "edits in the first layer" : "edits in the last layer");
        probe.reset();
        std::vector<double> ms;
        for (int e = 0; e < edits + 1; ++e) {
            bool delivered = false;
            const auto c = QObject::connect(&document, &ui::Document::predictionChanged, [&] {
                delivered = true;
                prediction.arm();
            });
            clock.start();
            document.setCell(ui::MatrixId::Query, e % 8, 0, 0.5 + 0.01 * e);
            const bool done = bench::spinUntil([&] { return delivered && prediction.painted(); }, 60000);
            QObject::disconnect(c);
            if (!done)
                return std::vector<double>{};
            if (e > 0)
                ms.push_back(double(clock.nsecsElapsed()) / 1e6);
            document.waitForModel();
        }
        editStall = std::max(editStall, probe.longestMs());
        return ms;
    };
    const std::vector<double> last = editTimes(document.layerCount() - 1);
    const std::vector<double> first = editTimes(0);

    // New texts, alternately a and b, each timed until the heatmap and Next Token are painted again, and until the
    // Next Token panel's comparison with the checkpoint without edits (which follows the edited pass) is painted.
    struct Times {
        std::vector<double> views, compared;
    };
    auto textTimes = [&](const char* name, const QString& a, const QString& b) {
        Times times;
        phase(name);
        probe.reset();
        for (int e = 0; e < edits + 1; ++e) {
            bool traced = false, predicted = false, complete = false;
            const auto c1 = QObject::connect(&document, &ui::Document::traceChanged, [&] {
                traced = true;
                heatmap.arm();
            });
            const auto c2 = QObject::connect(&document, &ui::Document::predictionChanged, [&] {
                predicted = true;
                complete = !document.modelSession()->prediction().comparing;
                prediction.arm();
            });
            clock.start();
            document.setTokenText(e % 2 ? a : b);
            document.endTypingBurst();
            bool done = bench::spinUntil(
                [&] { return traced && predicted && heatmap.painted() && prediction.painted(); }, 60000);
            const double views = double(clock.nsecsElapsed()) / 1e6;
            done = done && bench::spinUntil([&] { return complete && prediction.painted(); }, 60000);
            QObject::disconnect(c1);
            QObject::disconnect(c2);
            if (!done)
                break;
            if (e > 0) {
                times.views.push_back(views);
                times.compared.push_back(double(clock.nsecsElapsed()) / 1e6);
            }
            document.waitForModel();
        }
        textStall = std::max(textStall, probe.longestMs());
        return times;
    };
    // A word typed at the end and taken back: the rows before it stay; then the first word changed: every row
    // of every layer is computed again.
    const Times texts = textTimes("new texts (a word typed at the end)", text, text + QStringLiteral(" Yes"));
    const int firstSpace = int(text.indexOf(QLatin1Char(' ')));
    const Times starts =
        textTimes("new texts (a new first word)", text, QStringLiteral("A") + text.mid(firstSpace));
    std::printf("{\"tokens\": %d, \"last_layer_edit_p50_ms\": %.2f, \"last_layer_edit_p95_ms\": %.2f, "
                "\"first_layer_edit_p50_ms\": %.2f, \"first_layer_edit_p95_ms\": %.2f, \"new_text_p50_ms\": %.2f, "
                "\"new_text_p95_ms\": %.2f, \"new_first_word_p50_ms\": %.2f, \"new_first_word_p95_ms\": %.2f, "
                "\"new_text_compared_p50_ms\": %.2f, \"new_text_compared_p95_ms\": %.2f, "
                "\"new_first_word_compared_p50_ms\": %.2f, \"new_first_word_compared_p95_ms\": %.2f, "
                "\"gui_stall_max_ms\": %.2f, \"gui_stall_edits_ms\": %.2f, "
                "\"gui_stall_new_text_ms\": %.2f, \"gui_stall_layer_switch_ms\": %.2f, \"edits\": %d}\n",
                n, bench::percentile(last, 0.5), bench::percentile(last, 0.95), bench::percentile(first, 0.5),
                bench::percentile(first, 0.95), bench::percentile(texts.views, 0.5),
                bench::percentile(texts.views, 0.95), bench::percentile(starts.views, 0.5),
                bench::percentile(starts.views, 0.95), bench::percentile(texts.compared, 0.5),
                bench::percentile(texts.compared, 0.95), bench::percentile(starts.compared, 0.5),
                bench::percentile(starts.compared, 0.95), std::max(editStall, textStall), editStall, textStall,
                layerStall, edits);
    return 0;
}
