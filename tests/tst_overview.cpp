/** The overview of every layer × head and the head view: the overview of a real (random) 2-layer, 2-head
 *  model paints each head as that head's own heatmap does; a click shows the clicked layer and head; an edit
 *  reaches the grid; the head view draws no line to the future under a causal mask and only the hovered
 *  token's lines; masked cells are named in the heatmap's tooltip and accessible name. */

#include "core/attention/attention.h"
#include "core/models/gpt2checkpoint.h"
#include "core/models/gpt2forward.h"
#include "core/session/presets.h"
#include "gpt2folder_random.h"
#include "isolation.h"
#include "pdftext.h"
#include "ui/document/document.h"
#include "ui/render/stepfigure.h"
#include "ui/document/viewstate.h"
#include "ui/render/headlinespainter.h"
#include "ui/render/overviewpainter.h"
#include "ui/views/shell/fileactions.h"
#include "ui/views/model/headviewwidget.h"
#include "ui/views/heatmap/heatmapaccessible.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/model/overviewwidget.h"
#include "testutil.h"

#include <QAccessible>
#include <QDockWidget>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace {

QPalette lightPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    return palette;
}

/** Largest channel difference of two colours. */
int distance(QRgb a, QRgb b)
{
    return std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
}

QImage paintLines(const std::shared_ptr<const render::AttentionGrid>& grid, render::HeadLinesView view, QSize size)
{
    render::HeadLinesStyle style;
    style.palette = lightPalette();
    const render::HeadLinesPainter painter(grid, std::move(view), style);
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    painter.paint(&p, QRectF(QPointF(0, 0), QSizeF(size)));
    return image;
}

/** The overview painted on white into an image of size. */
QImage paintOverview(const render::OverviewPainter& overview, QSize size)
{
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    overview.paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    return image;
}

/** A grid source that builds make(version) for the version *state holds when the overview asks. */
template <typename Make>
ui::OverviewWidget::GridSource versionedGrid(std::shared_ptr<int> state, Make make)
{
    return [state, make]() -> ui::OverviewWidget::GridJob {
        return [version = *state, make] { return std::make_shared<const render::AttentionGrid>(make(version)); };
    };
}

/** The colour a quarter of the way along the line from query i to key j, as HeadLinesPainter lays it out
 *  (not half way: there the lines i → j and j → i cross). */
QRgb midpoint(const QImage& image, const render::HeadLinesPainter& painter, int i, int j)
{
    const QRectF target(QPointF(0, 0), QSizeF(image.size()));
    const QRectF q = painter.tokenRect(i, false, target), k = painter.tokenRect(j, true, target);
    const QPointF mid = 0.75 * QPointF(q.right(), q.center().y()) + 0.25 * QPointF(k.left(), k.center().y());
    return image.pixel(mid.toPoint());
}

}  // namespace

class TestOverview : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    /** A random GPT-2 of layers × 16 wide with two heads, in a folder of its own, run on text; null on failure. */
    std::unique_ptr<core::Gpt2Forward> randomModel(int layers, const char* text)
    {
        const QString folder = m_dir.filePath(QStringLiteral("gpt2-%1x2").arg(layers));
        if (!QDir().mkpath(folder))
            return nullptr;
        testutil::write(testutil::randomGpt2Folder("F32", "", layers, 16, 2), folder.toStdString());
        std::string error;
        const auto checkpoint = core::Gpt2Checkpoint::load(folder.toStdString(), error);
        if (!checkpoint)
            return nullptr;
        auto forward = std::make_unique<core::Gpt2Forward>(checkpoint);
        if (!forward->setTokens(checkpoint->tokenizer().encode(text), error))
            return nullptr;
        forward->run();
        return forward;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_overview"), m_dir.filePath(QStringLiteral("settings")));
    }

    void modelOverviewMatchesEachHeadsHeatmap()
    {
        const auto model = randomModel(2, "A cat sat down");
        QVERIFY(model);
        core::Gpt2Forward& forward = *model;
        const int n = forward.n();
        QCOMPARE(n, 14);  // byte tokens

        QStringList tokens;
        for (const auto& t : forward.layerModel(0).tokens)
            tokens << QString::fromStdString(t);
        auto grid = std::make_shared<const render::AttentionGrid>(render::attentionGridFromModel(forward, tokens));
        QCOMPARE(grid->layers, 2);
        QCOMPARE(grid->heads, 2);
        QVERIFY(grid->causal);

        render::OverviewStyle style;
        style.palette = lightPalette();
        const render::OverviewPainter overview(grid, style);
        const QSize size(900, 820);
        const QRectF target(QPointF(0, 0), QSizeF(size));
        const QImage image = paintOverview(overview, size);

        for (int l = 0; l < 2; ++l) {
            // The head's own heatmap: the shown layer's weights as the window computes and draws them.
            const core::Trace trace = core::compute(forward.layerModel(l));
            for (int h = 0; h < 2; ++h) {
                const render::HeatmapData own = ui::heatmapData(trace, core::Step::Weights, h);
                QVERIFY(own.causalMask);
                const render::HeatmapRenderer heatmap(own, render::HeatmapStyle());
                const QRectF cell = overview.cellRect(l, h, target);
                QVERIFY(!cell.isEmpty());
                const render::HeatmapRenderer inCell(overview.cellData(l, h), overview.cellStyle());
                int worst = 0, masked = 0;
                for (int i = 0; i < n; ++i) {
                    for (int j = 0; j < n; ++j) {
                        const QPoint centre = inCell.cellRect(i, j, cell).center().toPoint();
                        const QRgb painted = image.pixel(centre);
                        if (j > i) {
                            // Hatched grey: never a colour of the map.
                            QVERIFY(QColor::fromRgb(painted).saturation() < 20);
                            ++masked;
                            continue;
                        }
                        worst = std::max(worst, distance(painted, heatmap.cellColor(i, j)));
                    }
                }
                QCOMPARE(masked, n * (n - 1) / 2);
                // float32 against double weights: at most one step of the 4097 colours, and the pixel's rounding
                QVERIFY2(worst <= 2, qPrintable(QStringLiteral("layer %1 head %2: colour off by %3").arg(l + 1).arg(h + 1).arg(worst)));
            }
        }
        // The grid's descriptors are those of the float weights.
        const core::HeadDescriptors d = core::describeHead(forward.attention(1, 1), true);
        QCOMPARE(grid->descriptor(1, 1).meanEntropy, d.meanEntropy);
    }

    /** The figure says what its colours mean: a colour bar right of the grid, from the map's first colour at
     *  the bottom to its last at the top, clear of every cell and inside the figure with its labels. */
    void theOverviewHasAColourBar()
    {
        const auto model = randomModel(2, "A cat sat down");
        QVERIFY(model);
        QStringList tokens;
        for (const auto& t : model->layerModel(0).tokens)
            tokens << QString::fromStdString(t);
        auto grid = std::make_shared<const render::AttentionGrid>(render::attentionGridFromModel(*model, tokens));
        for (const render::ColormapId colormap : {render::ColormapId::Viridis, render::ColormapId::Magma}) {
            render::OverviewStyle style;
            style.palette = lightPalette();
            style.colormap = colormap;
            const render::OverviewPainter overview(grid, style);
            const QSize size = overview.preferredSize();
            const QRectF target(QPointF(0, 0), QSizeF(size));
            const QImage image = paintOverview(overview, size);

            const QRectF bar = overview.colourBarRect(target);
            QVERIFY(!bar.isEmpty());
            QVERIFY2(target.contains(bar.adjusted(0, 0, 2 * bar.width(), 0)),
                     "the bar and its labels inside the figure");
            for (int l = 0; l < grid->layers; ++l)
                for (int h = 0; h < grid->heads; ++h)
                    QVERIFY(!overview.cellRect(l, h, target).intersects(bar));
            // Down the bar's middle, each pixel is the map's colour at its height (t = 0 at the bottom, 1 at the top).
            const int x = int(bar.center().x());
            int worst = 0;
            for (int y = int(bar.top()) + 3; y <= int(bar.bottom()) - 3; ++y) {
                const double t = (bar.bottom() - (y + 0.5)) / bar.height();
                worst = std::max(worst, distance(image.pixel(x, y), render::colorAt(colormap, t).rgb()));
            }
            QVERIFY2(worst <= 12, qPrintable(QStringLiteral("a colour off by %1").arg(worst)));
        }
    }

    /** A model's grid built after an edit of its last layer, from the grid before it, equals one built afresh;
     *  it takes the descriptors of exactly the heads whose weights did not change from the grid before. */
    void aGridKeepsTheDescriptorsOfUnchangedHeads()
    {
        const auto model = randomModel(3, "A cat sat");
        QVERIFY(model);
        core::Gpt2Forward& forward = *model;
        std::string error;
        const QStringList tokens(forward.n(), QStringLiteral("t"));
        render::AttentionGrid before = render::attentionGridFromModel(forward, tokens);
        QVERIFY(forward.setEdit(2, core::ModelWeight::Query, 0, 0, 30.0f, error));
        QVERIFY(forward.setEdit(2, core::ModelWeight::Key, 1, 0, 30.0f, error));
        forward.run();
        const render::AttentionGrid fresh = render::attentionGridFromModel(forward, tokens);
        // Marked descriptors in the grid before: a head that takes its descriptors from there carries the mark.
        for (core::HeadDescriptors& d : before.descriptors)
            d.meanEntropy = -1.0;
        const render::AttentionGrid kept = render::attentionGridFromModel(forward, tokens, render::gridCellSide, &before);
        for (int l = 0; l < 3; ++l)
            for (int h = 0; h < 2; ++h) {
                QCOMPARE(kept.cell(l, h), fresh.cell(l, h));
                const bool unchanged = before.cell(l, h) == fresh.cell(l, h);
                QCOMPARE(unchanged, !(l == 2 && h == 0));  // the edit reaches only the last layer's first head
                QCOMPARE(kept.descriptor(l, h).meanEntropy, unchanged ? -1.0 : fresh.descriptor(l, h).meanEntropy);
            }
        // A grid of other tokens, or of block means, is not compared.
        const render::AttentionGrid pooled = render::attentionGridFromModel(forward, tokens, 2, &before);
        QCOMPARE(pooled.descriptor(0, 0).meanEntropy, fresh.descriptor(0, 0).meanEntropy);
    }

    void clickShowsTheLayerAndHead()
    {
        ui::Document document;
        document.waitForTrace();
        ui::OverviewWidget overview(&document);
        // A 3 × 2 grid of its own, as a model session gives one.
        overview.setGridSource([]() -> ui::OverviewWidget::GridJob {
            return [] {
                render::AttentionGrid grid;
                grid.layers = 3;
                grid.heads = 2;
                grid.tokens = {QStringLiteral("a"), QStringLiteral("b")};
                for (int k = 0; k < 6; ++k) {
                    grid.cells.push_back(core::Matrix::Identity(2, 2));
                    grid.descriptors.push_back(core::describeHead(grid.cells.back(), false));
                }
                return std::make_shared<const render::AttentionGrid>(std::move(grid));
            };
        });
        overview.resize(600, 700);
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        overview.finishPreparing();
        QVERIFY(overview.grid());
        QCOMPARE(overview.grid()->layers, 3);
        QSignalSpy chosen(&overview, &ui::OverviewWidget::cellChosen);
        QTest::mouseClick(&overview, Qt::LeftButton, {}, overview.cellRect(2, 1).center().toPoint());
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.at(0).at(0).toInt(), 2);
        QCOMPARE(chosen.at(0).at(1).toInt(), 1);
        QCOMPARE(overview.current(), std::pair(2, 1));
        // Between cells: nothing.
        const QRectF a = overview.cellRect(0, 0), b = overview.cellRect(0, 1);
        QTest::mouseClick(&overview, Qt::LeftButton, {}, QPoint(int(0.5 * (a.right() + b.left())), int(a.center().y())));
        QCOMPARE(chosen.size(), 1);
        // Hovering enlarges the cell and names it.
        QTest::mouseMove(&overview, overview.cellRect(1, 0).center().toPoint());
        QCOMPARE(overview.hoveredCell(), std::optional(std::pair(1, 0)));
        QVERIFY(overview.cellText(1, 0).contains(QStringLiteral("diagonal / self")));
    }

    void anEditRedrawsOnlyItsLayersAndTheSame()
    {
        // A 3-layer grid whose last layer changes: the picture, drawn again only there, is the one a whole
        // drawing of the new grid gives, and differs from the old one.
        auto state = std::make_shared<int>(0);
        const auto make = [](int version) {
            render::AttentionGrid grid;
            grid.layers = 3;
            grid.heads = 2;
            grid.causal = true;
            grid.tokens = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
            for (int k = 0; k < 6; ++k) {
                core::Matrix w(3, 3);
                w << 1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5;
                if (k >= 4 && version == 1)
                    w << 1, 0, 0, 0.1, 0.9, 0, 0.6, 0.3, 0.1;
                grid.cells.push_back(w);
                grid.descriptors.push_back(core::describeHead(w, true));
            }
            return grid;
        };
        ui::Document document;
        ui::OverviewWidget overview(&document);
        overview.setGridSource(versionedGrid(state, make));
        overview.resize(500, 600);
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        QTRY_VERIFY(overview.grid());
        overview.finishPreparing();
        const QImage before = overview.picture();
        *state = 1;
        overview.refresh();
        overview.finishPreparing();
        const QImage after = overview.picture();
        QVERIFY(!after.isNull());
        QVERIFY(after != before);
        QImage whole(after.size(), QImage::Format_ARGB32_Premultiplied);
        whole.setDevicePixelRatio(after.devicePixelRatio());
        whole.fill(overview.figureStyle().palette.color(QPalette::Base));
        QPainter painter(&whole);
        render::OverviewPainter(std::make_shared<const render::AttentionGrid>(make(1)), overview.figureStyle())
            .paint(&painter, QRectF(QPointF(0, 0), QSizeF(overview.size())));
        painter.end();
        QCOMPARE(after, whole);
        // The first layer's cells are the old picture's.
        const QRect first = overview.cellRect(0, 0).toAlignedRect();
        QCOMPARE(after.copy(first), before.copy(first));
    }

    /** An edited head is framed dashed in the edit colour; moving the edit to another layer draws again only what
     *  changed, and that picture is the one a whole drawing gives: no frame is left behind, none is cut. */
    void anEditedHeadIsFramedAndTheFrameFollowsTheEdit()
    {
        auto state = std::make_shared<int>(0);
        const auto make = [](int version) {
            render::AttentionGrid grid;
            grid.layers = 3;
            grid.heads = 3;
            grid.causal = true;
            grid.tokens = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
            core::Matrix w(3, 3);
            w << 1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5;
            for (int k = 0; k < 9; ++k) {
                grid.cells.push_back(w);
                grid.descriptors.push_back(core::describeHead(w, true));
            }
            // version 1: heads 2 and 3 of layer 3 (a shared K/V head's group); version 2: head 1 of layer 1
            if (version > 0) {
                grid.edited.assign(9, false);
                if (version == 1)
                    grid.edited[7] = grid.edited[8] = true;
                else
                    grid.edited[0] = true;
            }
            return grid;
        };
        ui::Document document;
        ui::OverviewWidget overview(&document);
        overview.setGridSource(versionedGrid(state, make));
        overview.resize(560, 640);
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        QTRY_VERIFY(overview.grid());
        overview.finishPreparing();
        // Pixels of the edit colour within a cell's ring, outside the cell itself.
        const auto framed = [&](const QImage& image, int layer, int head) {
            const qreal ratio = image.devicePixelRatio();
            const QRectF c = overview.cellRect(layer, head);
            const QRect inner = QRectF(c.topLeft() * ratio, c.size() * ratio).toAlignedRect();
            const int reach = int(std::lround(3 * ratio));  // within the ring the layout keeps, short of a neighbour's
            const QRect ring = inner.adjusted(-reach, -reach, reach, reach);
            const QColor edit = render::OverviewPainter::editedColour;
            int count = 0;
            for (int y = ring.top(); y <= ring.bottom(); ++y)
                for (int x = ring.left(); x <= ring.right(); ++x)
                    if (!inner.contains(x, y) && distance(image.pixel(x, y), edit.rgb()) < 60)
                        ++count;
            return count;
        };
        const auto whole = [&](int version) {
            QImage image(overview.picture().size(), QImage::Format_ARGB32_Premultiplied);
            image.setDevicePixelRatio(overview.picture().devicePixelRatio());
            image.fill(overview.figureStyle().palette.color(QPalette::Base));
            QPainter painter(&image);
            render::OverviewPainter(std::make_shared<const render::AttentionGrid>(make(version)), overview.figureStyle())
                .paint(&painter, QRectF(QPointF(0, 0), QSizeF(overview.size())));
            return image;
        };
        const QImage plain = overview.picture();
        for (int l = 0; l < 3; ++l)
            for (int h = 0; h < 3; ++h)
                QCOMPARE(framed(plain, l, h), 0);
        for (int version : {1, 2}) {
            *state = version;
            overview.refresh();
            overview.finishPreparing();
            const QImage after = overview.picture();
            QCOMPARE(after, whole(version));
            for (int l = 0; l < 3; ++l)
                for (int h = 0; h < 3; ++h)
                    QVERIFY2((framed(after, l, h) > 0) == overview.grid()->isEdited(l, h),
                             qPrintable(QStringLiteral("layer %1 head %2, version %3").arg(l).arg(h).arg(version)));
        }
        QVERIFY(overview.cellText(0, 0).contains(QStringLiteral("weights edited")));
        QVERIFY(!overview.cellText(2, 2).contains(QStringLiteral("weights edited")));
    }

    /** The chosen cell's outline covers nothing: no label, header or legend, and no other cell. */
    void theChosenCellsOutlineCoversNoText_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addRow("small") << QSize(420, 480);
        QTest::addRow("dock") << QSize(560, 700);
        QTest::addRow("large") << QSize(1100, 900);
    }

    void theChosenCellsOutlineCoversNoText()
    {
        QFETCH(QSize, size);
        render::AttentionGrid grid;
        grid.layers = 3;
        grid.heads = 3;
        grid.causal = true;
        core::Matrix uniform = core::Matrix::Zero(6, 6);  // each query spread evenly over the keys it sees
        for (int i = 0; i < 6; ++i) {
            grid.tokens << QString(QChar(u'a' + i));
            uniform.row(i).head(i + 1).setConstant(1.0 / (i + 1));
        }
        for (int k = 0; k < 9; ++k) {
            grid.cells.push_back(uniform);
            grid.descriptors.push_back(core::describeHead(uniform, true));
        }
        const auto shared = std::make_shared<const render::AttentionGrid>(grid);
        ui::Document document;
        ui::OverviewWidget overview(&document);
        overview.setGridSource([shared]() -> ui::OverviewWidget::GridJob { return [shared] { return shared; }; });
        overview.resize(size);
        overview.show();
        QVERIFY(QTest::qWaitForWindowExposed(&overview));
        QTRY_VERIFY(overview.grid());
        overview.finishPreparing();
        QVERIFY(render::headPatternLabel(grid.descriptors.front().pattern).contains(QStringLiteral("uniform")));
        overview.setCurrent(-1, -1);
        const QImage plain = overview.grab().toImage().convertToFormat(QImage::Format_RGB32);
        overview.setCurrent(1, 1);
        const QImage chosen = overview.grab().toImage().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(plain.size(), chosen.size());
        const qreal ratio = plain.devicePixelRatio();
        const QRgb base = overview.palette().color(QPalette::Base).rgb();
        std::vector<QRect> cells;
        for (int l = 0; l < grid.layers; ++l)
            for (int h = 0; h < grid.heads; ++h) {
                const QRectF c = overview.cellRect(l, h);
                cells.push_back(QRectF(c.topLeft() * ratio, c.size() * ratio).toAlignedRect());
            }
        int changed = 0, covered = 0;
        for (int y = 0; y < plain.height(); ++y)
            for (int x = 0; x < plain.width(); ++x) {
                if (plain.pixel(x, y) == chosen.pixel(x, y))
                    continue;
                ++changed;
                // Under the outline there was only the background: no ink of a label, a header or a cell.
                const bool inCell = std::any_of(cells.begin(), cells.end(), [&](const QRect& c) { return c.contains(x, y); });
                if (inCell || distance(plain.pixel(x, y), base) > 16)
                    ++covered;
            }
        QVERIFY(changed > 0);
        QCOMPARE(covered, 0);
    }

    void windowShowsTheClickedHead()
    {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(window.loadPreset(QStringLiteral("multi-head")));
        window.document()->waitForTrace();
        window.overviewDock()->show();
        window.overviewDock()->raise();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ui::OverviewWidget* overview = window.overview();
        QTRY_VERIFY(overview->grid() && overview->grid()->heads == 2);
        overview->finishPreparing();
        QCOMPARE(window.viewState()->head(), 0);
        QTest::mouseClick(overview, Qt::LeftButton, {}, overview->cellRect(0, 1).center().toPoint());
        QCOMPARE(window.viewState()->head(), 1);
        QCOMPARE(window.heatmap()->canvas()->renderer()->data().title.contains(QStringLiteral("2")), true);
        QCOMPARE(window.headView()->head(), 1);
        QCOMPARE(window.headView()->shownHeads(), std::vector<int>{1});
        // The heatmap's head chooser moves the overview's outline.
        window.viewState()->setHead(0);
        QCOMPARE(overview->current(), std::pair(0, 0));

        // An edit reaches the grid: the new weights, not the old.
        const auto before = overview->grid();
        const core::Matrix old = before->cell(0, 0);
        QVERIFY(window.document()->setCell(ui::MatrixId::Query, 0, 0, 5.0));
        window.document()->waitForTrace();
        QTRY_VERIFY(overview->grid() != before);
        overview->finishPreparing();
        const auto trace = window.document()->trace();
        QCOMPARE(overview->grid()->cell(0, 0), trace->heads[0].weights);
        QVERIFY((overview->grid()->cell(0, 0) - old).cwiseAbs().maxCoeff() > 1e-6);
        window.document()->undoStack()->setClean();
    }

    void hiddenOverviewWaitsUntilShown()
    {
        ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.document()->waitForTrace();
        QCoreApplication::processEvents();
        ui::OverviewWidget* overview = window.overview();
        QVERIFY(overview->visibleRegion().isEmpty());  // behind the Steps tab
        overview->finishPreparing();  // whatever the start asked for
        const quint64 before = overview->picturesMade();
        QVERIFY(window.document()->setCell(ui::MatrixId::Query, 0, 0, 3.0));
        window.document()->waitForTrace();
        QCoreApplication::processEvents();
        overview->finishPreparing();
        QCOMPARE(overview->picturesMade(), before);
        window.overviewDock()->raise();
        QTRY_VERIFY(overview->picturesMade() > before);
        overview->finishPreparing();
        QCOMPARE(overview->grid()->cell(0, 0), window.document()->trace()->heads[0].weights);
        window.document()->undoStack()->setClean();
    }

    /** A dock's tab brought to the front moves the dock, not the overview in it: the overview learns it is seen
     *  from its first paint, and until the new grid comes it neither shows nor answers a click on the old one. */
    void overviewParkedAsADockTabFollowsTheDocument()
    {
        ui::Document document;
        QWidget window;
        window.resize(600, 500);
        auto* dock = new QWidget(&window);  // parked outside the window, as Qt parks a tab behind another
        dock->setGeometry(2000, 0, 600, 500);
        auto* overview = new ui::OverviewWidget(&document, dock);
        overview->setGeometry(0, 0, 600, 500);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        document.loadSession(*core::preset("multi-head"), QString());
        document.waitForTrace();
        overview->prepareNow();
        QCOMPARE(overview->grid()->heads, 2);
        document.loadSession(*core::preset("illustrated"), QString());
        document.waitForTrace();
        QCoreApplication::processEvents();
        overview->finishPreparing();
        QVERIFY(overview->visibleRegion().isEmpty());
        QCOMPARE(overview->grid()->heads, 2);  // hidden: not made yet

        QSignalSpy chosen(overview, &ui::OverviewWidget::cellChosen);
        const QPoint oldCell = overview->cellRect(0, 1).center().toPoint();
        QVERIFY(!oldCell.isNull());
        QTest::mouseClick(overview, Qt::LeftButton, {}, oldCell);
        QCOMPARE(chosen.count(), 0);  // the second head of another document

        dock->move(0, 0);  // the tab comes to the front: the overview itself gets no move, show or resize
        QTRY_COMPARE(overview->grid()->heads, 1);
        overview->finishPreparing();
        QCOMPARE(overview->grid()->cell(0, 0), document.trace()->heads[0].weights);
        QTest::mouseClick(overview, Qt::LeftButton, {}, overview->cellRect(0, 0).center().toPoint());
        QCOMPARE(chosen.count(), 1);
    }

    /** Six heads' legend wraps onto more lines within the head view's width, at its preferred size (as
     *  --export-lines draws it) and in a narrow dock; once it ran off the right edge. */
    void headViewLegendStaysInside()
    {
        auto grid = std::make_shared<render::AttentionGrid>();
        grid->layers = 1;
        grid->heads = 6;
        grid->tokens = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
        grid->cells.assign(6, core::Matrix::Constant(3, 3, 1.0 / 3));
        grid->descriptors.resize(6);
        render::HeadLinesView view;
        for (int h = 0; h < 6; ++h)
            view.heads.push_back(h);
        render::HeadLinesStyle style;
        style.palette = lightPalette();
        const render::HeadLinesPainter painter(grid, view, style);
        for (const QSize size : {painter.preferredSize(), QSize(260, 400), painter.preferredSize() * 2}) {
            const QImage image = paintLines(grid, view, size);
            // The legend's swatches, above the first token: each head's colour, none touching the right edge.
            const int legendBottom = int(painter.tokenRect(0, false, QRectF(QPointF(0, 0), QSizeF(size))).top());
            for (int h = 0; h < 6; ++h) {
                const QRgb colour = render::HeadLinesPainter::headColour(h).rgb();
                int right = -1;
                for (int y = 0; y < legendBottom; ++y)
                    for (int x = 0; x < image.width(); ++x)
                        if (distance(image.pixel(x, y), colour) < 8)
                            right = std::max(right, x);
                QVERIFY2(right >= 0, qPrintable(QStringLiteral("head %1's swatch is missing at %2 × %3")
                                                    .arg(h + 1).arg(size.width()).arg(size.height())));
                QVERIFY2(right < image.width() - 4, qPrintable(QStringLiteral("head %1's swatch at the edge of %2")
                                                                   .arg(h + 1).arg(size.width())));
            }
        }
    }

    void windowExportsTheOverviewAndTheHeadView()
    {
        ui::MainWindow window;
        window.show();
        QVERIFY(window.loadPreset(QStringLiteral("multi-head")));
        window.document()->waitForTrace();
        // Both docks are behind the Steps tab: the export makes what they would show.
        const QString overview = m_dir.filePath(QStringLiteral("window-overview.svg"));
        const QString lines = m_dir.filePath(QStringLiteral("window-lines.svg"));
        VERIFY_WRITTEN(window.fileActions()->exportOverview(overview));
        VERIFY_WRITTEN(window.fileActions()->exportHeadView(lines));
        QFile a(overview), b(lines);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(a.readAll());
        QVERIFY(svg.contains(QStringLiteral("head 2")) && svg.contains(QStringLiteral("tokens: 6")));
        QVERIFY(QString::fromUtf8(b.readAll()).contains(QStringLiteral("Layer 1 · heads 1, 2")));
        // After an edit the export draws the new weights, the overview still hidden.
        const QString before = m_dir.filePath(QStringLiteral("before.png")), after = m_dir.filePath(QStringLiteral("after.png"));
        VERIFY_WRITTEN(window.fileActions()->exportOverview(before));
        QVERIFY(window.document()->setCell(ui::MatrixId::Key, 0, 0, 7.0));
        window.document()->waitForTrace();
        QCoreApplication::processEvents();
        VERIFY_WRITTEN(window.fileActions()->exportOverview(after));
        QVERIFY(QImage(before) != QImage(after));
        QCOMPARE(window.overview()->grid()->cell(0, 1), window.document()->trace()->heads[1].weights);
        window.document()->undoStack()->setClean();
    }

    void colourRangeReachesTheOverview()
    {
        ui::MainWindow window;
        window.show();
        window.document()->waitForTrace();
        window.heatmap()->setColourRange(render::ColourRange::Log);
        QCOMPARE(window.overview()->colourRange(), render::ColourRange::Log);
        QCOMPARE(window.overview()->figureStyle().colourRange, render::ColourRange::Log);
    }

    /** File › Export Report and Export Handout draw their attention heatmaps in the range chosen in the
     *  heatmap's toolbar, as the heatmap's own export does; their legends name it. */
    void windowReportAndHandoutTakeTheToolbarsColourRange()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext is not installed");
        ui::MainWindow window;
        window.show();
        QVERIFY(window.loadPreset(QStringLiteral("causal-sentence")));
        window.document()->waitForTrace();
        for (const auto& [range, caption] : {std::pair{render::ColourRange::Row, "each row min–max"},
                                             std::pair{render::ColourRange::Log, "log scale"},
                                             std::pair{render::ColourRange::Fixed, "fixed range"}}) {
            window.heatmap()->setColourRange(range);
            const QString name = render::colourRangeName(range);
            const QString report = m_dir.filePath(QStringLiteral("window-report-%1.pdf").arg(name));
            const QString handout = m_dir.filePath(QStringLiteral("window-handout-%1.pdf").arg(name));
            VERIFY_WRITTEN(window.fileActions()->exportReport(report));
            VERIFY_WRITTEN(window.fileActions()->exportHandout(handout));
            for (const QString& path : {report, handout}) {
                const QString text = pdftext::pdfText(path);
                QVERIFY2(text.contains(QString::fromUtf8(caption)), qPrintable(path));
                // The other ranges' words are not there (the report's X, wider than a table, keeps its fixed range).
                for (const char* other : {"each row min–max", "log scale"})
                    if (std::strcmp(other, caption) != 0)
                        QVERIFY2(!text.contains(QString::fromUtf8(other)), qPrintable(path));
            }
        }
        window.heatmap()->setColourRange(render::ColourRange::Fixed);
    }

    void headViewDrawsNoLineToTheFuture()
    {
        // Two tokens whose weights (deliberately) put 0.9 on the later key: a causal layer must not show it.
        auto make = [](bool causal) {
            auto grid = std::make_shared<render::AttentionGrid>();
            grid->layers = 1;
            grid->heads = 1;
            grid->tokens = {QStringLiteral("first"), QStringLiteral("second")};
            grid->causal = causal;
            core::Matrix w(2, 2);
            w << 0.1, 0.9, 0.5, 0.5;
            grid->cells.push_back(w);
            grid->descriptors.push_back(core::describeHead(w, causal));
            return std::shared_ptr<const render::AttentionGrid>(grid);
        };
        render::HeadLinesView view;
        view.heads = {0};
        const QSize size(500, 300);
        for (bool causal : {false, true}) {
            const auto grid = make(causal);
            const QImage image = paintLines(grid, view, size);
            render::HeadLinesStyle style;
            const render::HeadLinesPainter painter(grid, view, style);
            const QRgb future = midpoint(image, painter, 0, 1);
            if (causal)
                QCOMPARE(QColor::fromRgb(future).name(), QStringLiteral("#ffffff"));
            else
                QVERIFY2(QColor::fromRgb(future).name() != QStringLiteral("#ffffff"), "a full layer draws the line");
            QVERIFY(QColor::fromRgb(midpoint(image, painter, 1, 1)).name() != QStringLiteral("#ffffff"));
        }
        // Opacity is the weight: 0.9 is darker than 0.5 over white.
        const auto grid = make(false);
        const QImage image = paintLines(grid, view, size);
        const render::HeadLinesPainter painter(grid, view, {});
        QVERIFY(qGray(midpoint(image, painter, 0, 1)) < qGray(midpoint(image, painter, 1, 1)));
    }

    void hoveringATokenShowsOnlyItsLines()
    {
        auto grid = std::make_shared<render::AttentionGrid>();
        grid->layers = 1;
        grid->heads = 2;
        grid->tokens = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")};
        const core::Matrix w = core::Matrix::Constant(3, 3, 1.0 / 3);
        grid->cells = {w, w};
        grid->descriptors = {core::describeHead(w, false), core::describeHead(w, false)};
        render::HeadLinesView view;
        view.heads = {0, 1};
        view.hoveredToken = 2;  // query "c"
        const QImage image = paintLines(grid, view, QSize(500, 320));
        const render::HeadLinesPainter painter(grid, view, {});
        QVERIFY(QColor::fromRgb(midpoint(image, painter, 2, 0)).name() != QStringLiteral("#ffffff"));
        QCOMPARE(QColor::fromRgb(midpoint(image, painter, 0, 0)).name(), QStringLiteral("#ffffff"));
        view.hoveredIsKey = true;  // key "c": only the lines into it
        const QImage keys = paintLines(grid, view, QSize(500, 320));
        const render::HeadLinesPainter keyPainter(grid, view, {});
        QVERIFY(QColor::fromRgb(midpoint(keys, keyPainter, 0, 2)).name() != QStringLiteral("#ffffff"));
        QCOMPARE(QColor::fromRgb(midpoint(keys, keyPainter, 2, 0)).name(), QStringLiteral("#ffffff"));
    }

    void headTogglesChooseTheLines()
    {
        ui::HeadViewWidget headView;
        auto grid = std::make_shared<render::AttentionGrid>();
        grid->layers = 2;
        grid->heads = 3;
        grid->tokens = {QStringLiteral("x")};
        for (int k = 0; k < 6; ++k) {
            grid->cells.push_back(core::Matrix::Ones(1, 1));
            grid->descriptors.push_back({});
        }
        headView.setGrid(grid);
        QCOMPARE(headView.shownHeads(), (std::vector<int>{0, 1, 2}));
        headView.setHeadVisible(1, false);
        QCOMPARE(headView.shownHeads(), (std::vector<int>{0, 2}));
        headView.showHead(1, 2);
        QCOMPARE(headView.layer(), 1);
        QCOMPARE(headView.shownHeads(), std::vector<int>{2});
        headView.showHead(1, -1);
        QCOMPARE(headView.shownHeads(), (std::vector<int>{0, 2}));
    }

    void maskedCellsAreNamedMasked()
    {
        ui::Document document;
        ui::ViewState viewState;
        ui::installHeatmapAccessible();
        ui::HeatmapWidget widget(&document, &viewState);
        widget.resize(700, 600);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        document.loadSession(*core::preset("causal-sentence"), QString());
        document.waitForTrace();
        QTRY_VERIFY(widget.canvas()->renderer());
        ui::HeatmapCanvas* canvas = widget.canvas();
        QVERIFY(canvas->renderer()->data().causalMask);
        QTest::mouseMove(canvas, canvas->cellRect(0, 3).center().toPoint());
        QVERIFY2(canvas->hoverText().startsWith(QStringLiteral("Masked")), qPrintable(canvas->hoverText()));
        QTest::mouseMove(canvas, canvas->cellRect(3, 0).center().toPoint());
        QVERIFY(!canvas->hoverText().startsWith(QStringLiteral("Masked")));
        QAccessibleInterface* table = QAccessible::queryAccessibleInterface(canvas);
        QVERIFY(table);
        QAccessibleTableInterface* cells = table->tableInterface();
        QVERIFY(cells);
        QVERIFY(cells->cellAt(0, 3)->text(QAccessible::Name).endsWith(QStringLiteral("masked")));
        QVERIFY(!cells->cellAt(3, 0)->text(QAccessible::Name).endsWith(QStringLiteral("masked")));
    }
};

QTEST_MAIN(TestOverview)
#include "tst_overview.moc"
