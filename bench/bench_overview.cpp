/** The overview of a real model after an edit: every layer × head (144 cells for GPT-2 small, 384 for GPT-2
 *  medium) made anew from the model's attention and drawn, as the window's overview dock does it, off the GUI
 *  thread.
 *
 *  bench_overview FOLDER TOKENS EDITS
 *
 *  For each edit (one W_Q cell, in the last and the first layer by turns): the model's run() up to new
 *  logits, then from OverviewWidget::refresh() to the end of the widget's paint of the new picture (the
 *  grid's block means and descriptors and the picture are made on a worker). Also the longest the GUI
 *  thread was busy in one event meanwhile (a timer posted every millisecond). Prints one JSON object of
 *  medians and 95th percentiles, also apart for the edits of the last layer (one row of the grid is drawn
 *  again) and of the first (every row). Run with QT_QPA_PLATFORM=offscreen. */

#include "core/models/gpt2checkpoint.h"
#include "core/models/gpt2forward.h"
#include "core/text/tokentext.h"
#include "ui/document/document.h"
#include "ui/views/model/overviewwidget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPainter>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

const char* const paragraph =
    "The cat sat on the mat because it was tired, and the dog, which had been watching it from the door "
    "all afternoon, finally walked over and lay down beside it. Outside the rain kept falling on the "
    "quiet street, where a man in a grey coat waited for a bus that never seemed to come.";

}  // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc != 4) {
        std::fprintf(stderr, "usage: bench_overview FOLDER TOKENS EDITS\n");
        return 2;
    }
    const int tokens = std::atoi(argv[2]), edits = std::max(2, std::atoi(argv[3]));
    std::string error;
    const auto checkpoint = core::Gpt2Checkpoint::load(argv[1], error);
    if (!checkpoint) {
        std::fprintf(stderr, "bench_overview: %s\n", error.c_str());
        return 2;
    }
    std::vector<int> ids = checkpoint->tokenizer().encode(paragraph);
    while (int(ids.size()) < tokens)
        ids.insert(ids.end(), ids.begin(), ids.end());
    ids.resize(std::size_t(tokens));
    auto forward = std::make_shared<core::Gpt2Forward>(checkpoint);
    if (!forward->setTokens(ids, error)) {
        std::fprintf(stderr, "bench_overview: %s\n", error.c_str());
        return 2;
    }
    forward->run();
    QStringList labels;
    for (const auto& t : forward->layerModel(0).tokens)
        labels << QString::fromStdString(core::readableToken(t));  // as the window's overview labels them

    ui::Document document;
    ui::OverviewWidget overview(&document);
    // The source reads the model on the worker, keeping the descriptors of the heads the edit did not reach, as
    // the window's pass does; the loop below edits only after the picture came.
    overview.setGridSource([forward, labels, &overview]() -> ui::OverviewWidget::GridJob {
        return [forward, labels, previous = overview.grid()] {
            return std::make_shared<const render::AttentionGrid>(
                render::attentionGridFromModel(*forward, labels, render::gridCellSide, previous.get()));
        };
    });
    overview.resize(1200, 1000);
    overview.show();
    overview.finishPreparing();
    app.processEvents();

    // The GUI thread's longest event while the overview is made: a timer every millisecond.
    QElapsedTimer sinceTick;
    double longestStall = 0;
    bool measuring = false;
    QTimer ticker;
    ticker.setInterval(1);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        if (measuring)
            longestStall = std::max(longestStall, double(sinceTick.nsecsElapsed()) / 1e6);
        sinceTick.restart();
    });
    ticker.start();

    std::vector<double> editMs, editLastMs, editFirstMs, overviewMs, paintMs, lastMs, firstMs;
    const int last = checkpoint->config().layers - 1;
    for (int e = 0; e < edits; ++e) {
        const int layer = e % 2 ? 0 : last;
        const float value = forward->weightValue(layer, core::ModelWeight::Query, 0, 0) + (e % 4 < 2 ? 0.25f : -0.25f);
        QElapsedTimer timer;
        timer.start();
        forward->setEdit(layer, core::ModelWeight::Query, 0, 0, value, error);
        forward->run();
        editMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        (layer == last ? editLastMs : editFirstMs).push_back(editMs.back());

        timer.restart();
        QEventLoop loop;
        const auto connection = QObject::connect(&overview, &ui::OverviewWidget::gridChanged, &loop, &QEventLoop::quit);
        sinceTick.restart();
        measuring = true;
        overview.refresh();
        loop.exec();
        QObject::disconnect(connection);
        QElapsedTimer paint;
        paint.start();
        overview.repaint();
        paintMs.push_back(double(paint.nsecsElapsed()) / 1e6);
        measuring = false;
        overviewMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        (layer == last ? lastMs : firstMs).push_back(overviewMs.back());
    }
    // The two parts of the worker's job, timed alone: the grid (copies, descriptors) and the picture.
    std::vector<double> gridMs, pictureMs;
    for (int r = 0; r < 5; ++r) {
        QElapsedTimer timer;
        timer.start();
        auto grid = std::make_shared<const render::AttentionGrid>(render::attentionGridFromModel(*forward, labels));
        gridMs.push_back(double(timer.nsecsElapsed()) / 1e6);
        timer.restart();
        QImage image(overview.size(), QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        render::OverviewPainter(grid, overview.figureStyle()).paint(&painter, QRectF(image.rect()));
        painter.end();
        pictureMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    std::printf("{\"tokens\": %d, \"layers\": %d, \"heads\": %d, \"cells\": %d, \"edits\": %d, "
                "\"model_edit_p50_ms\": %.2f, \"model_edit_last_layer_p50_ms\": %.2f, "
                "\"model_edit_first_layer_p50_ms\": %.2f, \"overview_p50_ms\": %.2f, \"overview_p95_ms\": %.2f, "
                "\"paint_p50_ms\": %.2f, \"gui_stall_ms\": %.2f, \"grid_ms\": %.2f, \"picture_ms\": %.2f, "
                "\"overview_last_layer_p50_ms\": %.2f, \"overview_first_layer_p50_ms\": %.2f}\n",
                tokens, checkpoint->config().layers, checkpoint->config().heads,
                checkpoint->config().layers * checkpoint->config().heads, edits, percentile(editMs, 0.5),
                percentile(editLastMs, 0.5), percentile(editFirstMs, 0.5), percentile(overviewMs, 0.5),
                percentile(overviewMs, 0.95), percentile(paintMs, 0.5), longestStall,
                percentile(gridMs, 0.5), percentile(pictureMs, 0.5), percentile(lastMs, 0.5), percentile(firstMs, 0.5));
    return 0;
}
