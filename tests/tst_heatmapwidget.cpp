/** The heatmap widget: pixels against the colour map, hover derivations, selection, zoom, empty state. */

#include "core/attention/derivation.h"
#include "core/session/presets.h"
#include "testutil.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/render/colormap.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/i18n/language.h"
#include "ui/views/heatmap/heatmapwidget.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <cstdlib>

using core::CellRef;
using core::Step;

namespace {

/** A widget over the worked example, shown and computed. */
struct Fixture {
    ui::Document document;
    ui::ViewState view;
    ui::HeatmapWidget widget{&document, &view};

    Fixture()
    {
        widget.resize(900, 700);
        widget.show();
        document.waitForTrace();
    }
    ui::HeatmapCanvas* canvas() const { return widget.canvas(); }
    QPoint cellCentre(int row, int col) const { return canvas()->cellRect(row, col).center().toPoint(); }
};

void moveMouse(QWidget* w, const QPoint& pos)
{
    QMouseEvent move(QEvent::MouseMove, QPointF(pos), QPointF(w->mapToGlobal(pos)), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QApplication::sendEvent(w, &move);
}

QByteArray rgbText(QRgb c)
{
    return QByteArray::number(qRed(c)) + "," + QByteArray::number(qGreen(c)) + "," + QByteArray::number(qBlue(c));
}

}  // namespace

class TestHeatmapWidget : public QObject {
    Q_OBJECT
private slots:
    void pixelsMatchTheColourMap_data();
    void pixelsMatchTheColourMap();
    void hoverShowsTheDerivation();
    void hoverSpeaksTheLanguage();
    void hoverTipBreaksOnlyBetweenTerms();
    void hoverHighlightsTheSourcesAndClears();
    void clickSelectsTheQuery();
    void choosersFollowTheViewState();
    void zoomAndScroll();
    void errorStateShowsTheMessage();
    void repaintsOnTraceChanged();
    void longSequenceIsPreparedOffThread();
};

void TestHeatmapWidget::pixelsMatchTheColourMap_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<int>("colormap");
    QTest::addRow("weights, viridis") << int(Step::Weights) << int(render::ColormapId::Viridis);
    QTest::addRow("weights, magma") << int(Step::Weights) << int(render::ColormapId::Magma);
    QTest::addRow("scores, diverging") << int(Step::Scores) << int(render::ColormapId::Diverging);
    QTest::addRow("scores, grays") << int(Step::Scores) << int(render::ColormapId::Grays);
}

void TestHeatmapWidget::pixelsMatchTheColourMap()
{
    QFETCH(int, step);
    QFETCH(int, colormap);
    Fixture f;
    const auto id = render::ColormapId(colormap);
    f.view.setHeatmapStep(Step(step));
    f.view.setSelectedQuery(-1);
    f.widget.setAnnotate(false);
    f.widget.setColormapChoice(id);
    QCOMPARE(f.canvas()->colormap(), id);

    const auto trace = f.document.trace();
    QVERIFY(trace);
    const core::Matrix values = trace->step(Step(step), 0);
    // Weights are mapped from [0, 1]; signed scores under a diverging map from ±max|v|;
    // other maps stretch min..max (the renderer's documented ranges).
    double lo = 0, hi = 1;
    if (Step(step) != Step::Weights) {
        if (render::isDiverging(id)) {
            hi = values.cwiseAbs().maxCoeff();
            lo = -hi;
        } else {
            lo = values.minCoeff();
            hi = values.maxCoeff();
        }
    }

    const QImage image = f.canvas()->grab().toImage();
    const double dpr = image.devicePixelRatio();
    for (int i = 0; i < values.rows(); ++i) {
        for (int j = 0; j < values.cols(); ++j) {
            const QRectF cell = f.canvas()->cellRect(i, j);
            QVERIFY(!cell.isEmpty());
            // A point inside the cell, clear of its outline and of any centred text.
            const QPointF at = cell.topLeft() + QPointF(0.25 * cell.width(), 0.25 * cell.height());
            const QRgb actual = image.pixel((at * dpr).toPoint());
            const QRgb expected = render::colorAt(id, (values(i, j) - lo) / (hi - lo)).rgb();
            const int diff = std::max({std::abs(qRed(actual) - qRed(expected)), std::abs(qGreen(actual) - qGreen(expected)),
                                       std::abs(qBlue(actual) - qBlue(expected))});
            if (diff > 1)
                QFAIL(QByteArray("cell (" + QByteArray::number(i) + "," + QByteArray::number(j) + ") value "
                                 + QByteArray::number(values(i, j)) + ": pixel " + rgbText(actual) + ", colour map "
                                 + rgbText(expected))
                          .constData());
        }
    }
}

void TestHeatmapWidget::hoverSpeaksTheLanguage()
{
    // The arithmetic's cell names are translated as on the slides and in the walkthrough: 分数(1,2) = …
    Fixture f;
    f.view.setHeatmapStep(Step::Scores);
    QVERIFY(ui::i18n::applyLanguage(QStringLiteral("zh_CN")));
    moveMouse(f.canvas(), f.cellCentre(0, 1));
    const QString text = f.canvas()->hoverText();
    QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
    QVERIFY2(text.startsWith(QStringLiteral("分数(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4")), qPrintable(text));
}

void TestHeatmapWidget::hoverShowsTheDerivation()
{
    Fixture f;
    f.view.setHeatmapStep(Step::Scores);
    QSignalSpy hovered(&f.view, &ui::ViewState::hoveredChanged);

    // scores(1,2) in the articles' 1-based counting is row 0, column 1.
    const QPoint pos = f.cellCentre(0, 1);
    moveMouse(f.canvas(), pos);
    QCOMPARE(hovered.count(), 1);
    QVERIFY(f.view.hoveredCell());
    QCOMPARE(*f.view.hoveredCell(), (CellRef{Step::Scores, 0, 0, 1}));
    const QString expected = QStringLiteral("score(1,2) = q₁·k₂ = 1·4 + 0·4 + 2·0 = 4");
    QCOMPARE(f.canvas()->hoverText(), expected);

    QHelpEvent help(QEvent::ToolTip, pos, f.canvas()->mapToGlobal(pos));
    QApplication::sendEvent(f.canvas(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), expected);
    QToolTip::hideText();
}

void TestHeatmapWidget::hoverTipBreaksOnlyBetweenTerms()
{
    // A weight's softmax written out in full is some 150 characters or more, wider than a screen: the tooltip
    // once wrapped it wherever a line filled up, "exp(-2.21 − 4." above "22)", with a hyphen for the
    // sign of -2.21 and "−" for the subtraction next to it.
    Fixture f;
    QVERIFY(f.document.setCell(ui::MatrixId::Query, 0, 0, -1.5));  // negative scores in row 1
    QVERIFY(f.document.waitForTrace());
    f.view.setHeatmapStep(Step::Weights);
    const QPoint pos = f.cellCentre(0, 1);
    moveMouse(f.canvas(), pos);
    const QString text = f.canvas()->hoverText();
    // The tooltip shows its lines as they are: Qt wraps none of them further.
    QHelpEvent help(QEvent::ToolTip, pos, f.canvas()->mapToGlobal(pos));
    QApplication::sendEvent(f.canvas(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), text);
    QLabel* tip = nullptr;
    for (QWidget* w : QApplication::topLevelWidgets())
        if (w->inherits("QTipLabel") && w->isVisible())
            tip = qobject_cast<QLabel*>(w);
    QVERIFY(tip);
    QVERIFY2(!tip->wordWrap(), qPrintable(text));
    for (const QString& line : text.split(QLatin1Char('\n')))
        QVERIFY(tip->fontMetrics().horizontalAdvance(line) <= tip->contentsRect().width());
    QToolTip::hideText();
    // Every minus sign is "−", as in the subtractions: no hyphen but in an exponent ("1e-05").
    static const QRegularExpression hyphen(QStringLiteral("(?<!\\de)-"));
    QVERIFY2(text.contains(QStringLiteral("exp(−")) && !hyphen.match(text).hasMatch(), qPrintable(text));
    // Lines cut only after " = " or " + ", between two terms; together they are the derivation's one line.
    const QStringList lines = text.split(QLatin1Char('\n'));
    QVERIFY2(lines.size() >= 3, qPrintable(text));
    for (qsizetype i = 0; i + 1 < lines.size(); ++i)
        QVERIFY2(lines[i].endsWith(QStringLiteral(" =")) || lines[i].endsWith(QStringLiteral(" +")), qPrintable(text));
    const core::Derivation derivation = core::derive(*f.document.trace(), CellRef{Step::Weights, 0, 0, 1});
    QCOMPARE(text.simplified(),
             QString::fromStdString(derivation.text()).replace(QStringLiteral("(-"), QStringLiteral("(−")));
}

void TestHeatmapWidget::hoverHighlightsTheSourcesAndClears()
{
    Fixture f;
    f.view.setHeatmapStep(Step::Scores);
    moveMouse(f.canvas(), f.cellCentre(2, 0));
    const std::vector<CellRef> expected = {{Step::Queries, 0, 2, -1}, {Step::Keys, 0, 0, -1}};
    QCOMPARE(f.view.highlighted().size(), expected.size());
    QVERIFY(f.view.highlighted() == expected);

    // Outside the cells: nothing is hovered any more.
    moveMouse(f.canvas(), QPoint(2, 2));
    QVERIFY(!f.view.hoveredCell());
    QVERIFY(f.view.highlighted().empty());
    QVERIFY(f.canvas()->hoverText().isEmpty());

    // Another view hovering a cell of the shown figure highlights its row and column here.
    f.view.setHovered(CellRef{Step::Scores, 0, 1, 2});
    QCOMPARE(f.canvas()->renderer()->style().highlightRow, 1);
    QCOMPARE(f.canvas()->renderer()->style().highlightCol, 2);
}

void TestHeatmapWidget::clickSelectsTheQuery()
{
    Fixture f;
    QSignalSpy selected(&f.view, &ui::ViewState::selectedQueryChanged);
    QTest::mouseClick(f.canvas(), Qt::LeftButton, Qt::NoModifier, f.cellCentre(2, 1));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(f.view.selectedQuery(), 2);
    QCOMPARE(f.canvas()->renderer()->style().selectedRow, 2);

    f.canvas()->setFocus();
    QTest::keyClick(f.canvas(), Qt::Key_Up);
    QCOMPARE(f.view.selectedQuery(), 1);
}

void TestHeatmapWidget::choosersFollowTheViewState()
{
    Fixture f;
    const QList<QAction*> steps = f.widget.stepActions();
    QCOMPARE(steps.size(), 3);
    steps[0]->trigger();
    QCOMPARE(f.view.heatmapStep(), Step::Scores);
    QCOMPARE(f.widget.figureData().values(1, 1), 16.0);
    QCOMPARE(f.canvas()->colormap(), render::defaultColormap(Step::Scores));

    f.view.setHeatmapStep(Step::Weights);
    QVERIFY(steps[2]->isChecked());
    QCOMPARE(f.widget.figureData().title, QStringLiteral("Attention weights · head 1"));

    // Picking a map overrides the step's default until "automatic" is chosen again.
    const QList<QAction*> maps = f.widget.colormapActions();
    QAction* grays = *std::find_if(maps.begin(), maps.end(),
                                   [](QAction* a) { return a->data().toInt() == int(render::ColormapId::Grays); });
    grays->trigger();
    QCOMPARE(f.canvas()->colormap(), render::ColormapId::Grays);
    maps.first()->trigger();
    QCOMPARE(f.canvas()->colormap(), render::defaultColormap(Step::Weights));

    // Two heads: the head chooser lists both and shows the chosen head's figure.
    f.document.loadSession(*core::preset("multi-head"), QString());
    f.document.waitForTrace();
    auto* heads = f.widget.findChild<QComboBox*>(QStringLiteral("headBox"));
    QVERIFY(heads);
    QCOMPARE(heads->count(), 2);
    QVERIFY(heads->isEnabled());
    f.view.setHead(1);
    QCOMPARE(heads->currentIndex(), 1);
    QCOMPARE(f.widget.figureData().title, QStringLiteral("Attention weights · head 2"));
    QVERIFY(f.widget.figureData().values == f.document.trace()->heads[1].weights);
}

void TestHeatmapWidget::zoomAndScroll()
{
    Fixture f;
    f.document.setTokenText(QStringLiteral("one two three four five six seven eight nine ten eleven twelve "
                                           "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty"));
    f.document.waitForTrace();
    auto* scroll = f.widget.findChild<QScrollArea*>(QStringLiteral("heatmapScrollArea"));
    QVERIFY(scroll);
    QVERIFY(f.widget.zoomFitAction()->isChecked());
    QVERIFY(scroll->widgetResizable());

    f.widget.setZoom(3.0);
    QVERIFY(!f.widget.zoomFitAction()->isChecked());
    const QSize preferred = f.canvas()->renderer()->preferredSize();
    QCOMPARE(f.canvas()->size(), (preferred * 3.0).expandedTo(scroll->viewport()->size()));
    QTRY_VERIFY(scroll->verticalScrollBar()->maximum() > 0);

    // Ctrl+wheel zooms in around the mouse; a plain wheel is left to the scroll area.
    const double before = f.widget.zoom();
    const QPoint at = scroll->viewport()->rect().center();
    QWheelEvent wheel(QPointF(at), QPointF(scroll->viewport()->mapToGlobal(at)), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(f.canvas(), &wheel);
    QVERIFY(f.widget.zoom() > before);

    f.widget.zoomOutAction()->trigger();
    QVERIFY(std::abs(f.widget.zoom() - before) < 1e-9);

    f.widget.zoomFitAction()->trigger();
    QCOMPARE(f.widget.zoom(), 0.0);
    QVERIFY(scroll->widgetResizable());
    QTRY_COMPARE(f.canvas()->size(), scroll->viewport()->size());
}

void TestHeatmapWidget::errorStateShowsTheMessage()
{
    Fixture f;
    core::Session broken = *core::preset("illustrated");
    broken.model.tokens.clear();
    f.document.loadSession(broken, QString());
    QVERIFY(!f.document.error().isEmpty());
    QVERIFY(!f.widget.hasFigure());
    QCOMPARE(f.canvas()->emptyText(), f.document.error());

    // Painting, hovering and clicking an empty figure are harmless.
    QVERIFY(!f.canvas()->grab().isNull());
    moveMouse(f.canvas(), QPoint(100, 100));
    QTest::mouseClick(f.canvas(), Qt::LeftButton, Qt::NoModifier, QPoint(100, 100));
    QVERIFY(!f.view.hoveredCell());
    QVERIFY(!f.widget.zoomInAction()->isEnabled());

    f.document.loadSession(*core::preset("illustrated"), QString());
    f.document.waitForTrace();
    QVERIFY(f.widget.hasFigure());
    QVERIFY(f.canvas()->emptyText().isEmpty());
}

void TestHeatmapWidget::repaintsOnTraceChanged()
{
    Fixture f;
    QSignalSpy traces(&f.document, &ui::Document::traceChanged);
    const QImage before = f.canvas()->grab().toImage();
    QVERIFY(f.document.setCell(ui::MatrixId::Query, 0, 0, 2.0));
    QTRY_VERIFY(traces.count() >= 1);
    QCOMPARE(f.widget.figureData().values(0, 1), f.document.trace()->heads[0].weights(0, 1));
    QVERIFY(f.canvas()->grab().toImage() != before);
}

void TestHeatmapWidget::longSequenceIsPreparedOffThread()
{
    // 1100 tokens: 1.21 million weights, past the size whose figure a worker prepares. The previous figure
    // stays until the new one is ready; the newest of a burst of edits is what ends up shown; an export in
    // between gets the current state.
    std::mt19937_64 rng(7);
    core::Session session;
    session.model = testutil::randomModel(rng, 1100, 8, 1, 4, 4);
    Fixture f;
    f.document.loadSession(session, QString());
    QVERIFY(f.document.waitForTrace());
    QVERIFY(Eigen::Index(1100) * 1100 > ui::HeatmapCanvas::preparedOffThreadCells);
    QTRY_VERIFY(!f.canvas()->isPreparing());
    QVERIFY(f.canvas()->renderer());
    QCOMPARE(f.canvas()->renderer()->data().values.rows(), 1100);
    QCOMPARE(f.canvas()->renderer()->data().values, f.document.trace()->heads[0].weights);

    for (int e = 0; e < 3; ++e) {
        QVERIFY(f.document.setCell(ui::MatrixId::Embeddings, 10 * e, 0, 3.0 + e));
        QVERIFY(f.document.waitForTrace());
    }
    QVERIFY(f.canvas()->hasFigure());
    QTRY_VERIFY(!f.canvas()->isPreparing());
    QCOMPARE(f.canvas()->renderer()->data().values, f.document.trace()->heads[0].weights);

    QVERIFY(f.document.setCell(ui::MatrixId::Embeddings, 500, 1, -4.0));
    QVERIFY(f.document.waitForTrace());
    QVERIFY(f.canvas()->isPreparing());  // the worker has at least 1.21 million values to copy
    QCOMPARE(f.widget.figureData().values, f.document.trace()->heads[0].weights);
    QVERIFY(!f.canvas()->isPreparing());
    // The worker's finished signal still arrives after the export took its result: the figure stays.
    QTest::qWait(100);
    QCOMPARE(f.canvas()->renderer()->data().values, f.document.trace()->heads[0].weights);
    const QImage shown = f.canvas()->grab().toImage();
    QVERIFY(!shown.isNull());
}

QTEST_MAIN(TestHeatmapWidget)
#include "tst_heatmapwidget.moc"
