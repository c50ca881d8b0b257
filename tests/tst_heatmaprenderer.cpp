#include "core/tensor/pooling.h"
#include "ui/render/colormap.h"
#include "ui/render/heatmapexport.h"
#include "ui/render/heatmaprenderer.h"
#include "testutil.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImageReader>
#include <QPainter>
#include <QRandomGenerator>
#include <QSet>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <vector>

using render::ColormapId;
using render::HeatmapData;
using render::HeatmapRenderer;
using render::HeatmapStyle;

Q_DECLARE_METATYPE(render::ColormapId)
Q_DECLARE_METATYPE(core::Matrix)

namespace {

/** The worked example's attention weights (SPEC §4), 3 × 3. */
core::Matrix workedExampleWeights()
{
    core::Matrix m(3, 3);
    m << 0.063379, 0.468311, 0.468311, 0.0000060337, 0.982008, 0.017986, 0.00029539, 0.880537, 0.119168;
    return m;
}

core::Matrix randomMatrix(int rows, int cols, double lo, double hi, quint32 seed)
{
    QRandomGenerator rng(seed);
    core::Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = lo + (hi - lo) * rng.generateDouble();
    return m;
}

QStringList tokenLabels(int n)
{
    QStringList labels;
    for (int i = 0; i < n; ++i)
        labels << QStringLiteral("tok%1").arg(i);
    return labels;
}

HeatmapData makeData(const core::Matrix& values)
{
    HeatmapData data;
    data.values = values;
    data.rowLabels = tokenLabels(int(values.rows()));
    data.colLabels = tokenLabels(int(values.cols()));
    data.title = QStringLiteral("Attention weights · head 1");
    data.rowAxisTitle = QStringLiteral("query");
    data.colAxisTitle = QStringLiteral("key");
    return data;
}

HeatmapStyle lightStyle(ColormapId colormap)
{
    HeatmapStyle style;
    style.colormap = colormap;
    QPalette palette;
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    style.palette = palette;
    return style;
}

/** The device pixel that contains a point given in painter units. */
QPoint pixelAt(const QPointF& point, qreal dpr = 1.0)
{
    return QPoint(int(std::floor(point.x() * dpr)), int(std::floor(point.y() * dpr)));
}

QString hex(QRgb rgb)
{
    return QColor::fromRgb(rgb).name();
}

}  // namespace

class TestHeatmapRenderer : public QObject {
    Q_OBJECT

private slots:
    void colormapEndpoints_data();
    void colormapEndpoints();
    void colormapNames();
    void cellsBelowLogScaleCountsZeroAndBelow();
    void colormapClampsAndNaN();
    void sequentialMapsBrightenMonotonically_data();
    void sequentialMapsBrightenMonotonically();
    void graysMonotone();
    void divergingIsWhiteInTheMiddleAndSymmetric();
    void defaultColormapPerStep();
    void textContrast();

    void defaultRange_data();
    void defaultRange();
    void cellCentresHaveTheColourOfTheirValue_data();
    void cellCentresHaveTheColourOfTheirValue();
    void cellAtInvertsCellRect_data();
    void cellAtInvertsCellRect();
    void preferredSize_data();
    void preferredSize();
    void annotationsContrastWithCells();
    void highlightsOutlineWithoutRecolouring();
    void largeMatrixPaintsQuickly();
    void cellsSmallerThanPixelsAreAveraged();
    void preparedFigurePaintsTheSame();
    void awkwardInputsPaint_data();
    void awkwardInputsPaint();

    void exportFormats_data();
    void exportFormats();
    void exportEmptySizeUsesPreferredSize();
    void exportRefusesUnknownEnding_data();
    void exportRefusesUnknownEnding();
    void exportIntoMissingFolderFails();
    void failedExportLeavesExistingFileAlone();
    void exportIntoReadOnlyFolderLeavesExistingFileAlone();
    void largeMatrixPdfIsLossless();
    void cjkLabels();

    void colourRangeNames();
    void colourRangesMapKnownValues();
    void colourRangesIgnoreMaskedCells();
    void aRowOfIndicesIsOneIndexPerCell();
    void colourRangeColoursTheCells();
    void legendSaysTheRange();
    void rangeCaptionClearsAWideTitle();
    void maskedCellsAreDrawnUnlikeZeros();
    void maskedBlocksOfALongSequence();
};

void TestHeatmapRenderer::colormapEndpoints_data()
{
    QTest::addColumn<ColormapId>("colormap");
    QTest::addColumn<double>("t");
    QTest::addColumn<QString>("expected");

    // matplotlib's published end colours.
    QTest::addRow("viridis 0") << ColormapId::Viridis << 0.0 << QStringLiteral("#440154");
    QTest::addRow("viridis 1") << ColormapId::Viridis << 1.0 << QStringLiteral("#fde725");
    QTest::addRow("magma 0") << ColormapId::Magma << 0.0 << QStringLiteral("#000004");
    QTest::addRow("magma 1") << ColormapId::Magma << 1.0 << QStringLiteral("#fcfdbf");
    QTest::addRow("cividis 0") << ColormapId::Cividis << 0.0 << QStringLiteral("#00224e");
    QTest::addRow("cividis 1") << ColormapId::Cividis << 1.0 << QStringLiteral("#fee838");
    QTest::addRow("grays 0") << ColormapId::Grays << 0.0 << QStringLiteral("#ffffff");
    QTest::addRow("grays 1") << ColormapId::Grays << 1.0 << QStringLiteral("#000000");
    QTest::addRow("diverging 0") << ColormapId::Diverging << 0.0 << QStringLiteral("#053061");
    QTest::addRow("diverging 0.5") << ColormapId::Diverging << 0.5 << QStringLiteral("#f7f7f7");
    QTest::addRow("diverging 1") << ColormapId::Diverging << 1.0 << QStringLiteral("#67001f");
}

void TestHeatmapRenderer::colormapEndpoints()
{
    QFETCH(ColormapId, colormap);
    QFETCH(double, t);
    QFETCH(QString, expected);
    QCOMPARE(render::colorAt(colormap, t).name(), expected);
    QCOMPARE(hex(render::rgbAt(colormap, t)), expected);

    // viridis(0.5) is #21918c in matplotlib's 256-entry table; interpolation may differ by one step.
    const QColor middle = render::colorAt(ColormapId::Viridis, 0.5);
    QVERIFY2(std::abs(middle.red() - 0x21) <= 1 && std::abs(middle.green() - 0x91) <= 1
                 && std::abs(middle.blue() - 0x8c) <= 1,
             qPrintable(middle.name()));
}

void TestHeatmapRenderer::cellsBelowLogScaleCountsZeroAndBelow()
{
    using render::ColourRange;
    using render::ColourScale;
    core::Matrix m(3, 3);
    m << 0.5, -1.0, 0.0,
         std::nan(""), 2.0, -3.0,
         -std::numeric_limits<double>::infinity(), 1e-300, 4.0;
    const auto below = [&m](ColourRange mode, bool causal) {
        return ColourScale::of(m, mode, {0.0, 1.0}, render::CausalMask{causal}, render::ColormapId::Viridis)
            .belowLogScale();
    };
    QCOMPARE(below(ColourRange::Log, false), Eigen::Index(4));  // −1, 0, −3 and −∞; NaN and 1e-300 are not
    QCOMPARE(below(ColourRange::Log, true), Eigen::Index(1));   // the mask hides (0, 1), (0, 2) and (1, 2)
    QCOMPARE(below(ColourRange::Matrix, false), Eigen::Index(0));  // only a log scale leaves cells out
    // The renderer's scale is that one.
    render::HeatmapData data;
    data.values = m;
    render::HeatmapStyle style;
    style.colourRange = ColourRange::Log;
    QCOMPARE(render::HeatmapRenderer(data, style).colourScale().belowLogScale(), Eigen::Index(4));
    QVERIFY(render::logScaleNote(0).isEmpty());
    QVERIFY(render::logScaleNote(1).startsWith(QStringLiteral("1 cell ")));
    QVERIFY(render::logScaleNote(4).startsWith(QStringLiteral("4 cells ")));
}

void TestHeatmapRenderer::colormapNames()
{
    const QStringList names = render::colormapNames();
    QCOMPARE(names, (QStringList{QStringLiteral("viridis"), QStringLiteral("magma"), QStringLiteral("cividis"),
                                 QStringLiteral("grays"), QStringLiteral("diverging")}));
    for (const QString& name : names) {
        const auto id = render::colormapFromName(name);
        QVERIFY(id.has_value());
        QCOMPARE(render::colormapName(*id), name);
    }
    QCOMPARE(render::colormapFromName(QStringLiteral("Magma")), std::optional(ColormapId::Magma));
    QVERIFY(!render::colormapFromName(QStringLiteral("jet")).has_value());
    QVERIFY(!render::colormapFromName(QString()).has_value());
    QVERIFY(render::isDiverging(ColormapId::Diverging));
    QVERIFY(!render::isDiverging(ColormapId::Viridis));
}

void TestHeatmapRenderer::colormapClampsAndNaN()
{
    for (ColormapId id : {ColormapId::Viridis, ColormapId::Magma, ColormapId::Cividis, ColormapId::Grays,
                          ColormapId::Diverging}) {
        QCOMPARE(render::colorAt(id, -3.0), render::colorAt(id, 0.0));
        QCOMPARE(render::colorAt(id, 7.0), render::colorAt(id, 1.0));
        QCOMPARE(render::colorAt(id, -std::numeric_limits<double>::infinity()), render::colorAt(id, 0.0));
        const QColor nan = render::colorAt(id, std::nan(""));
        QVERIFY(nan.isValid());
        QCOMPARE(nan.red(), nan.green());
        QCOMPARE(nan.green(), nan.blue());
        QVERIFY(nan.red() > 64 && nan.red() < 192);
    }
}

void TestHeatmapRenderer::sequentialMapsBrightenMonotonically_data()
{
    QTest::addColumn<ColormapId>("colormap");
    QTest::addRow("viridis") << ColormapId::Viridis;
    QTest::addRow("magma") << ColormapId::Magma;
    QTest::addRow("cividis") << ColormapId::Cividis;
}

void TestHeatmapRenderer::sequentialMapsBrightenMonotonically()
{
    QFETCH(ColormapId, colormap);
    double previous = -1.0;
    for (int i = 0; i <= 255; ++i) {
        const double luminance = render::relativeLuminance(render::rgbAt(colormap, i / 255.0));
        QVERIFY2(luminance >= previous - 1e-3, qPrintable(QStringLiteral("step %1: %2 after %3").arg(i).arg(luminance).arg(previous)));
        previous = luminance;
    }
    QVERIFY(render::relativeLuminance(render::rgbAt(colormap, 1.0))
            > render::relativeLuminance(render::rgbAt(colormap, 0.0)) + 0.5);
}

void TestHeatmapRenderer::graysMonotone()
{
    int previous = 256;
    for (int i = 0; i <= 100; ++i) {
        const QColor c = render::colorAt(ColormapId::Grays, i / 100.0);
        QCOMPARE(c.red(), c.green());
        QCOMPARE(c.green(), c.blue());
        QVERIFY2(c.red() < previous, qPrintable(QStringLiteral("step %1").arg(i)));
        previous = c.red();
    }
}

void TestHeatmapRenderer::divergingIsWhiteInTheMiddleAndSymmetric()
{
    const QColor centre = render::colorAt(ColormapId::Diverging, 0.5);
    QVERIFY(centre.red() >= 240 && centre.green() >= 240 && centre.blue() >= 240);
    const QColor low = render::colorAt(ColormapId::Diverging, 0.0);
    const QColor high = render::colorAt(ColormapId::Diverging, 1.0);
    QVERIFY(low.blue() > low.red());
    QVERIFY(high.red() > high.blue());
    for (int i = 0; i <= 50; ++i) {
        const double t = i / 100.0;
        const double a = render::relativeLuminance(render::rgbAt(ColormapId::Diverging, t));
        const double b = render::relativeLuminance(render::rgbAt(ColormapId::Diverging, 1.0 - t));
        QVERIFY2(std::abs(a - b) < 0.08, qPrintable(QStringLiteral("t = %1: %2 vs %3").arg(t).arg(a).arg(b)));
        if (i > 0) {
            const double inner = render::relativeLuminance(render::rgbAt(ColormapId::Diverging, t - 0.01));
            QVERIFY2(a >= inner - 1e-3, qPrintable(QStringLiteral("lightness must rise towards the centre at %1").arg(t)));
        }
    }
}

void TestHeatmapRenderer::defaultColormapPerStep()
{
    QCOMPARE(render::defaultColormap(core::Step::Weights), ColormapId::Viridis);
    QCOMPARE(render::defaultColormap(core::Step::Scores), ColormapId::Diverging);
    QCOMPARE(render::defaultColormap(core::Step::ScaledScores), ColormapId::Diverging);
}

void TestHeatmapRenderer::textContrast()
{
    QCOMPARE(render::contrastingTextColor(render::rgbAt(ColormapId::Viridis, 0.0)), QColor(Qt::white));
    QCOMPARE(render::contrastingTextColor(render::rgbAt(ColormapId::Viridis, 1.0)), QColor(Qt::black));
    QCOMPARE(render::contrastingTextColor(render::rgbAt(ColormapId::Diverging, 0.5)), QColor(Qt::black));
    QCOMPARE(render::contrastingTextColor(render::rgbAt(ColormapId::Diverging, 0.0)), QColor(Qt::white));
}

void TestHeatmapRenderer::defaultRange_data()
{
    QTest::addColumn<core::Matrix>("values");
    QTest::addColumn<ColormapId>("colormap");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");

    core::Matrix signedScores(2, 2);
    signedScores << -3.0, 5.0, 1.0, 2.0;
    core::Matrix positive(1, 3);
    positive << 2.0, 4.0, 16.0;
    core::Matrix constant = core::Matrix::Constant(2, 2, 7.0);
    core::Matrix withNaN(1, 3);
    withNaN << 0.2, std::nan(""), 0.9;

    QTest::addRow("weights viridis") << workedExampleWeights() << ColormapId::Viridis << 0.0 << 1.0;
    QTest::addRow("weights diverging") << workedExampleWeights() << ColormapId::Diverging << -0.982008 << 0.982008;
    QTest::addRow("signed diverging") << signedScores << ColormapId::Diverging << -5.0 << 5.0;
    QTest::addRow("signed magma") << signedScores << ColormapId::Magma << -3.0 << 5.0;
    QTest::addRow("scores cividis") << positive << ColormapId::Cividis << 2.0 << 16.0;
    QTest::addRow("constant") << constant << ColormapId::Viridis << 6.5 << 7.5;
    QTest::addRow("NaN ignored") << withNaN << ColormapId::Viridis << 0.0 << 1.0;
}

void TestHeatmapRenderer::defaultRange()
{
    QFETCH(core::Matrix, values);
    QFETCH(ColormapId, colormap);
    QFETCH(double, lo);
    QFETCH(double, hi);
    const HeatmapRenderer renderer(makeData(values), lightStyle(colormap));
    QCOMPARE(renderer.valueRange().first, lo);
    QCOMPARE(renderer.valueRange().second, hi);

    HeatmapData explicitRange = makeData(values);
    explicitRange.range = std::pair{-2.0, 9.0};
    const HeatmapRenderer fixed(explicitRange, lightStyle(colormap));
    QCOMPARE(fixed.valueRange(), (std::pair{-2.0, 9.0}));
}

void TestHeatmapRenderer::cellCentresHaveTheColourOfTheirValue_data()
{
    QTest::addColumn<core::Matrix>("values");
    QTest::addColumn<ColormapId>("colormap");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<qreal>("dpr");
    QTest::addColumn<bool>("annotate");

    core::Matrix scores(3, 3);
    scores << 2, 4, 4, 4, 16, 12, 4, 12, 10;  // the worked example's scores
    core::Matrix signedScores = randomMatrix(7, 5, -4.0, 2.5, 11);
    const double maxAbs = signedScores.cwiseAbs().maxCoeff();

    QTest::addRow("3x3 weights viridis") << workedExampleWeights() << ColormapId::Viridis << 0.0 << 1.0 << QSize(400, 340) << 1.0 << false;
    QTest::addRow("3x3 weights viridis dpr 2") << workedExampleWeights() << ColormapId::Viridis << 0.0 << 1.0 << QSize(400, 340) << 2.0 << false;
    QTest::addRow("3x3 weights magma annotated") << workedExampleWeights() << ColormapId::Magma << 0.0 << 1.0 << QSize(500, 420) << 1.0 << true;
    QTest::addRow("3x3 scores cividis") << scores << ColormapId::Cividis << 2.0 << 16.0 << QSize(420, 360) << 1.0 << false;
    QTest::addRow("3x3 scores diverging") << scores << ColormapId::Diverging << -16.0 << 16.0 << QSize(420, 360) << 1.5 << false;
    QTest::addRow("7x5 signed grays") << signedScores << ColormapId::Grays << signedScores.minCoeff() << signedScores.maxCoeff() << QSize(300, 500) << 1.0 << false;
    QTest::addRow("7x5 signed diverging") << signedScores << ColormapId::Diverging << -maxAbs << maxAbs << QSize(700, 300) << 1.0 << false;
    QTest::addRow("600x600 viridis (image path)") << randomMatrix(600, 600, 0.0, 1.0, 7) << ColormapId::Viridis << 0.0 << 1.0 << QSize(1700, 1600) << 1.0 << false;
    const core::Matrix tall = randomMatrix(300, 200, -1.0, 3.0, 5);
    const double tallMax = tall.cwiseAbs().maxCoeff();
    QTest::addRow("300x200 diverging (image path) dpr 2") << tall << ColormapId::Diverging << -tallMax << tallMax << QSize(900, 1000) << 2.0 << false;
}

void TestHeatmapRenderer::cellCentresHaveTheColourOfTheirValue()
{
    QFETCH(core::Matrix, values);
    QFETCH(ColormapId, colormap);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(QSize, size);
    QFETCH(qreal, dpr);
    QFETCH(bool, annotate);

    HeatmapStyle style = lightStyle(colormap);
    style.annotate = annotate;
    const HeatmapRenderer renderer(makeData(values), style);
    QCOMPARE(renderer.valueRange(), (std::pair{lo, hi}));

    QImage image(size * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(Qt::magenta);
    const QRectF target(QPointF(0, 0), QSizeF(size));
    {
        QPainter painter(&image);
        renderer.paint(&painter, target);
    }

    const int rows = int(values.rows());
    const int cols = int(values.cols());
    const QRectF first = renderer.cellRect(0, 0, target);
    QVERIFY2(first.width() * dpr >= 2.0, "cells must be at least two pixels wide for this test");
    int mismatches = 0;
    QString firstMismatch;
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const QRectF cell = renderer.cellRect(r, c, target);
            QPointF centre = cell.center();
            if (annotate)  // the printed value sits in the middle: read beside it
                centre = QPointF(cell.left() + 0.12 * cell.width(), cell.top() + 0.12 * cell.height());
            const QPoint pixel = pixelAt(centre, dpr);
            const QRgb actual = image.pixel(pixel) | 0xff000000;
            const QRgb expected = render::rgbAt(colormap, (values(r, c) - lo) / (hi - lo));
            QCOMPARE(render::colorAt(colormap, (values(r, c) - lo) / (hi - lo)).rgb(), expected);
            if (actual != expected && mismatches++ == 0) {
                firstMismatch = QStringLiteral("cell (%1, %2) value %3 at pixel (%4, %5): %6, expected %7")
                                    .arg(r).arg(c).arg(values(r, c)).arg(pixel.x()).arg(pixel.y())
                                    .arg(hex(actual), hex(expected));
            }
        }
    }
    QVERIFY2(mismatches == 0, qPrintable(QStringLiteral("%1 mismatches; first: %2").arg(mismatches).arg(firstMismatch)));

    // The figure fills the target: no pixel is left unpainted.
    QCOMPARE(image.pixel(0, 0) | 0xff000000, QColor(Qt::white).rgb());
    QCOMPARE(image.pixel(image.width() - 1, image.height() - 1) | 0xff000000, QColor(Qt::white).rgb());
}

void TestHeatmapRenderer::cellAtInvertsCellRect_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<QRectF>("target");

    QTest::addRow("1x1") << 1 << 1 << QRectF(0, 0, 200, 200);
    QTest::addRow("3x3") << 3 << 3 << QRectF(0, 0, 400, 340);
    QTest::addRow("3x3 offset") << 3 << 3 << QRectF(30.5, 40.25, 500, 400);
    QTest::addRow("9x4 wide") << 9 << 4 << QRectF(0, 0, 900, 300);
    QTest::addRow("64x64") << 64 << 64 << QRectF(10, 10, 800, 800);
    QTest::addRow("300x300 small target") << 300 << 300 << QRectF(0, 0, 700, 650);
}

void TestHeatmapRenderer::cellAtInvertsCellRect()
{
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(QRectF, target);
    const HeatmapRenderer renderer(makeData(randomMatrix(rows, cols, 0, 1, 3)), lightStyle(ColormapId::Viridis));
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
            const QRectF cell = renderer.cellRect(r, c, target);
            QVERIFY(target.contains(cell));
            const auto hit = renderer.cellAt(cell.center(), target);
            QVERIFY2(hit.has_value(), qPrintable(QStringLiteral("cell (%1, %2)").arg(r).arg(c)));
            QCOMPARE(*hit, (std::pair{r, c}));
        }
    }
    const QRectF first = renderer.cellRect(0, 0, target);
    const QRectF last = renderer.cellRect(rows - 1, cols - 1, target);
    QVERIFY(!renderer.cellAt(first.topLeft() - QPointF(1, 1), target).has_value());
    QVERIFY(!renderer.cellAt(last.bottomRight() + QPointF(1, 1), target).has_value());
    QVERIFY(!renderer.cellAt(target.topLeft(), target).has_value());
    QVERIFY(renderer.cellRect(rows, 0, target).isNull());
    QVERIFY(renderer.cellRect(0, -1, target).isNull());
}

void TestHeatmapRenderer::preferredSize_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("minCell");
    QTest::addColumn<double>("maxCell");
    QTest::addRow("3") << 3 << 59.0 << 61.0;
    QTest::addRow("10") << 10 << 59.0 << 61.0;
    QTest::addRow("32") << 32 << 15.0 << 30.0;
    QTest::addRow("512") << 512 << 0.9 << 2.0;
    QTest::addRow("4096") << 4096 << 0.3 << 0.5;
}

void TestHeatmapRenderer::preferredSize()
{
    QFETCH(int, n);
    QFETCH(double, minCell);
    QFETCH(double, maxCell);
    const HeatmapRenderer renderer(makeData(core::Matrix::Zero(n, n)), lightStyle(ColormapId::Viridis));
    const QSize size = renderer.preferredSize();
    QVERIFY2(size.width() >= 200 && size.height() >= 150 && size.width() <= 2400 && size.height() <= 2400,
             qPrintable(QStringLiteral("%1×%2").arg(size.width()).arg(size.height())));
    const double cell = renderer.cellRect(0, 0, QRectF(QPointF(0, 0), QSizeF(size))).width();
    QVERIFY2(cell >= minCell && cell <= maxCell, qPrintable(QString::number(cell)));
}

void TestHeatmapRenderer::annotationsContrastWithCells()
{
    core::Matrix values(1, 2);
    values << 0.0, 1.0;  // viridis: dark purple, bright yellow
    const QSize size(500, 300);
    const QRectF target(QPointF(0, 0), QSizeF(size));
    const auto countInCell = [&](bool annotate, int col, auto predicate) {
        HeatmapStyle style = lightStyle(ColormapId::Viridis);
        style.annotate = annotate;
        const HeatmapRenderer renderer(makeData(values), style);
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        renderer.paint(&painter, target);
        painter.end();
        const QRect cell = renderer.cellRect(0, col, target).toAlignedRect().adjusted(3, 3, -3, -3);
        int count = 0;
        for (int y = cell.top(); y <= cell.bottom(); ++y)
            for (int x = cell.left(); x <= cell.right(); ++x)
                count += predicate(QColor(image.pixel(x, y))) ? 1 : 0;
        return count;
    };
    const auto whiteish = [](const QColor& c) { return c.lightness() > 220; };
    const auto blackish = [](const QColor& c) { return c.lightness() < 40; };
    QCOMPARE(countInCell(false, 0, whiteish), 0);
    QCOMPARE(countInCell(false, 1, blackish), 0);
    QVERIFY(countInCell(true, 0, whiteish) > 10);
    QVERIFY(countInCell(true, 1, blackish) > 10);
}

void TestHeatmapRenderer::highlightsOutlineWithoutRecolouring()
{
    const HeatmapData data = makeData(workedExampleWeights());
    const QRectF target(0, 0, 420, 360);
    HeatmapStyle style = lightStyle(ColormapId::Viridis);
    const auto render = [&](const HeatmapStyle& s) {
        QImage image(target.size().toSize(), QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        HeatmapRenderer(data, s).paint(&painter, target);
        return image;
    };
    const QImage plain = render(style);
    style.highlightRow = 1;
    style.highlightCol = 2;
    style.selectedRow = 0;
    const QImage highlighted = render(style);
    QVERIFY(plain != highlighted);
    const HeatmapRenderer renderer(data, style);
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            const QPoint centre = pixelAt(renderer.cellRect(r, c, target).center());
            QCOMPARE(hex(highlighted.pixel(centre)), hex(renderer.cellColor(r, c)));
        }
    }
}

void TestHeatmapRenderer::largeMatrixPaintsQuickly()
{
    const int n = 4096;
    HeatmapData data;
    data.values = core::Matrix(n, n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            data.values(r, c) = double((r * 31 + c * 17) % 1000) / 999.0;
    data.rowLabels = tokenLabels(n);
    data.colLabels = tokenLabels(n);
    data.title = QStringLiteral("Attention weights · head 1");
    const HeatmapRenderer renderer(std::move(data), lightStyle(ColormapId::Viridis));
    QImage image(2000, 2000, QImage::Format_ARGB32_Premultiplied);
    QElapsedTimer timer;
    timer.start();
    {
        QPainter painter(&image);
        renderer.paint(&painter, QRectF(0, 0, 2000, 2000));
    }
    const qint64 first = timer.restart();
    {
        QPainter painter(&image);
        renderer.paint(&painter, QRectF(0, 0, 2000, 2000));
    }
    const qint64 second = timer.elapsed();
    qInfo("4096 × 4096: first paint %lld ms, repaint %lld ms", first, second);
    QVERIFY2(first < 15000, qPrintable(QString::number(first)));
    QVERIFY2(second < 2000, qPrintable(QString::number(second)));
    const QPoint centre = pixelAt(renderer.cellRect(2048, 2048, QRectF(0, 0, 2000, 2000)).center());
    QVERIFY(QColor(image.pixel(centre)) != QColor(Qt::white));
}

void TestHeatmapRenderer::cellsSmallerThanPixelsAreAveraged()
{
    // A 0/1 checkerboard of 1200 × 1200 cells painted about 300 px wide: every pixel of the matrix shows
    // the mean, 0.5, not whichever cell a scaled-down image happened to keep. The right half is all 1.
    const int n = 1200;
    HeatmapData data;
    data.values = core::Matrix(n, n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            data.values(r, c) = c >= n / 2 ? 1.0 : double((r + c) % 2);
    data.range = std::make_pair(0.0, 1.0);
    const HeatmapRenderer renderer(std::move(data), lightStyle(ColormapId::Viridis));
    const QRectF target(0, 0, 400, 400);
    QImage image(400, 400, QImage::Format_ARGB32_Premultiplied);
    {
        QPainter painter(&image);
        renderer.paint(&painter, target);
    }
    const QColor middle = colorAt(ColormapId::Viridis, 0.5), top = colorAt(ColormapId::Viridis, 1.0);
    int checked = 0;
    for (int r = 100; r < n - 100; r += 97) {
        for (int c = 20; c < n - 20; c += 89) {
            const QColor got(image.pixel(pixelAt(renderer.cellRect(r, c, target).center())));
            const QColor want = c >= n / 2 + 20 ? top : middle;
            if (c >= n / 2 - 20 && c < n / 2 + 20)
                continue;  // a pixel on the border of the halves mixes both
            QVERIFY2(std::abs(got.red() - want.red()) + std::abs(got.green() - want.green())
                             + std::abs(got.blue() - want.blue()) <= 12,
                     qPrintable(QStringLiteral("cell (%1, %2): %3, expected %4").arg(r).arg(c).arg(got.name(), want.name())));
            ++checked;
        }
    }
    QVERIFY(checked > 50);
}

void TestHeatmapRenderer::preparedFigurePaintsTheSame()
{
    // A figure prepared off the GUI thread (layout and cell image first, painted later) paints exactly what
    // one painted directly does, also when given the block means taken elsewhere, and given means of the
    // wrong shape are not used.
    const int n = 1500;
    QRandomGenerator rng(5);
    HeatmapData data;
    data.values = core::Matrix(n, n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            data.values(r, c) = rng.generateDouble() * (1 + r % 7);
    const QRectF target(0, 0, 500, 450);
    auto paintOf = [&](const HeatmapRenderer& renderer) {
        QImage image(500, 450, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        renderer.paint(&painter, target);
        return image;
    };
    const HeatmapRenderer direct(data, lightStyle(ColormapId::Magma));
    const QImage want = paintOf(direct);
    const HeatmapRenderer prepared(data, lightStyle(ColormapId::Magma));
    prepared.prepare(target, 1.0);
    QCOMPARE(paintOf(prepared), want);
    const QSize limit = direct.pooledCellLimit(target, 1.0);
    QVERIFY(limit.width() < n && limit.height() < n);  // the case pools
    const HeatmapRenderer given(data, lightStyle(ColormapId::Magma));
    given.prepare(target, 1.0, core::pooled(data.values, limit.height(), limit.width()));
    QCOMPARE(paintOf(given), want);
    const HeatmapRenderer wrong(data, lightStyle(ColormapId::Magma));
    wrong.prepare(target, 1.0, core::Matrix::Constant(3, 3, 1e9));
    QCOMPARE(paintOf(wrong), want);
}

void TestHeatmapRenderer::awkwardInputsPaint_data()
{
    QTest::addColumn<core::Matrix>("values");
    QTest::addColumn<QStringList>("labels");
    QTest::addColumn<QRectF>("target");

    core::Matrix nonFinite(2, 3);
    nonFinite << std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 0.5, -2.0,
        1e300;
    const QString longLabel = QString(500, QLatin1Char('x')) + QStringLiteral("\n\t") + QString(300, QChar(0x6CE8));

    QTest::addRow("empty") << core::Matrix(0, 0) << QStringList() << QRectF(0, 0, 300, 200);
    QTest::addRow("no columns") << core::Matrix(3, 0) << tokenLabels(3) << QRectF(0, 0, 300, 200);
    QTest::addRow("1x1") << core::Matrix(core::Matrix::Constant(1, 1, 0.25)) << tokenLabels(1) << QRectF(0, 0, 300, 200);
    QTest::addRow("one row of 300") << randomMatrix(1, 300, 0, 1, 1) << tokenLabels(300) << QRectF(0, 0, 900, 300);
    QTest::addRow("non-finite values") << nonFinite << tokenLabels(3) << QRectF(0, 0, 400, 300);
    QTest::addRow("fewer labels than rows") << randomMatrix(5, 5, 0, 1, 2) << tokenLabels(2) << QRectF(0, 0, 400, 400);
    QTest::addRow("very long labels") << randomMatrix(4, 4, 0, 1, 2) << QStringList(4, longLabel) << QRectF(0, 0, 500, 400);
    QTest::addRow("tiny target") << randomMatrix(6, 6, 0, 1, 2) << tokenLabels(6) << QRectF(0, 0, 8, 8);
    QTest::addRow("empty target") << randomMatrix(6, 6, 0, 1, 2) << tokenLabels(6) << QRectF(5, 5, 0, 0);
    QTest::addRow("large, tiny target") << randomMatrix(200, 200, 0, 1, 2) << tokenLabels(200) << QRectF(0, 0, 40, 30);
}

void TestHeatmapRenderer::awkwardInputsPaint()
{
    QFETCH(core::Matrix, values);
    QFETCH(QStringList, labels);
    QFETCH(QRectF, target);
    HeatmapData data = makeData(values);
    data.rowLabels = data.colLabels = labels;
    HeatmapStyle style = lightStyle(ColormapId::Viridis);
    style.annotate = true;
    style.highlightRow = 0;
    style.highlightCol = 0;
    style.selectedRow = 0;
    const HeatmapRenderer renderer(data, style);
    QVERIFY(renderer.valueRange().first < renderer.valueRange().second);
    QVERIFY(std::isfinite(renderer.valueRange().first) && std::isfinite(renderer.valueRange().second));
    const QSize preferred = renderer.preferredSize();
    QVERIFY(!preferred.isEmpty() && preferred.width() <= 4000 && preferred.height() <= 4000);

    QImage image(320, 240, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    renderer.paint(&painter, target);
    renderer.paint(&painter, QRectF(QPointF(0, 0), QSizeF(preferred)));
    painter.end();

    QVERIFY(!renderer.cellAt(QPointF(-1000, -1000), target).has_value());
    for (int r = 0; r < values.rows(); ++r) {
        for (int c = 0; c < values.cols(); ++c) {
            const QRectF cell = renderer.cellRect(r, c, target);
            if (cell.width() >= 1.0)
                QCOMPARE(renderer.cellAt(cell.center(), target), std::optional(std::pair{r, c}));
        }
    }
    if (values.size() > 0 && std::isnan(values(0, 0)))
        QCOMPARE(renderer.cellColor(0, 0), render::rgbAt(ColormapId::Viridis, std::nan("")));
}

void TestHeatmapRenderer::exportFormats_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addRow("png") << QStringLiteral("figure.png");
    QTest::addRow("PNG upper case") << QStringLiteral("FIGURE.PNG");
    QTest::addRow("svg") << QStringLiteral("figure.svg");
    QTest::addRow("pdf") << QStringLiteral("figure.pdf");
}

void TestHeatmapRenderer::exportFormats()
{
    QFETCH(QString, fileName);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(fileName);
    HeatmapData data = makeData(workedExampleWeights());
    data.rowLabels = data.colLabels = QStringList{QStringLiteral("Thinking"), QStringLiteral("Machines"), QStringLiteral("Rock")};
    HeatmapStyle style = lightStyle(ColormapId::Viridis);
    style.annotate = true;
    const QSize size(640, 480);
    VERIFY_WRITTEN(render::exportHeatmap(data, style, path, size));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.size() > 500);
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) {
        QImage image;
        QVERIFY(image.loadFromData(bytes, "PNG"));
        QCOMPARE(image.size(), size);
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        const HeatmapRenderer renderer(data, style);
        const QPoint corner = renderer.cellRect(1, 1, QRectF(0, 0, 640, 480)).topLeft().toPoint() + QPoint(4, 4);
        QCOMPARE(hex(image.pixel(corner)), hex(renderer.cellColor(1, 1)));
    } else if (suffix == QLatin1String("svg")) {
        QSvgRenderer svg(bytes);
        QVERIFY(svg.isValid());
        QCOMPARE(svg.viewBox(), QRect(0, 0, 640, 480));
        QVERIFY(bytes.contains("Attention weights"));
        QVERIFY(bytes.contains("Thinking"));
    } else {
        QVERIFY(bytes.startsWith("%PDF"));
        QVERIFY(bytes.trimmed().endsWith("%%EOF"));
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{fileName});
}

void TestHeatmapRenderer::exportEmptySizeUsesPreferredSize()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("preferred.png"));
    const HeatmapData data = makeData(workedExampleWeights());
    const HeatmapStyle style = lightStyle(ColormapId::Viridis);
    VERIFY_WRITTEN(render::exportHeatmap(data, style, path, QSize()));
    QCOMPARE(QImageReader(path).size(), HeatmapRenderer(data, style).preferredSize());
    QCOMPARE(render::renderHeatmapImage(data, style, QSize()).size(), HeatmapRenderer(data, style).preferredSize());
}

void TestHeatmapRenderer::exportRefusesUnknownEnding_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QString>("mentioned");
    QTest::addRow("bmp") << QStringLiteral("figure.bmp") << QStringLiteral(".bmp");
    QTest::addRow("jpeg") << QStringLiteral("figure.jpeg") << QStringLiteral(".jpeg");
    QTest::addRow("png.txt") << QStringLiteral("figure.png.txt") << QStringLiteral(".txt");
    QTest::addRow("no ending") << QStringLiteral("figure") << QStringLiteral("no ending");
}

void TestHeatmapRenderer::exportRefusesUnknownEnding()
{
    QFETCH(QString, fileName);
    QFETCH(QString, mentioned);
    QTemporaryDir dir;
    const QString path = dir.filePath(fileName);
    const QString error =
        render::exportHeatmap(makeData(workedExampleWeights()), lightStyle(ColormapId::Viridis), path, QSize()).error;
    QVERIFY(!error.isEmpty());
    QVERIFY2(error.contains(mentioned), qPrintable(error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
}

void TestHeatmapRenderer::exportIntoMissingFolderFails()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("missing/folder/figure.svg"));
    const render::ExportResult result =
        render::exportHeatmap(makeData(workedExampleWeights()), lightStyle(ColormapId::Viridis), path, QSize());
    QVERIFY(!result.written);
    QVERIFY2(result.error.contains(path), qPrintable(result.error));
    QVERIFY(!QFileInfo::exists(path));
    QVERIFY(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
}

void TestHeatmapRenderer::failedExportLeavesExistingFileAlone()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("existing.png"));
    const QByteArray original("not really a png, but precious");
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(original);
    }
    const render::ExportResult result =
        render::exportHeatmap(makeData(workedExampleWeights()), lightStyle(ColormapId::Viridis), path, QSize(100000, 100));
    QVERIFY(!result.written);
    QVERIFY2(result.error.contains(path), qPrintable(result.error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), original);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{QStringLiteral("existing.png")});
}

void TestHeatmapRenderer::exportIntoReadOnlyFolderLeavesExistingFileAlone()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("locked"));
    QVERIFY(QDir().mkpath(folder));
    const QString path = folder + QStringLiteral("/figure.pdf");
    const QByteArray original("%PDF-1.4 an older figure");
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(original);
    }
    QVERIFY(QFile::setPermissions(folder, QFile::ReadOwner | QFile::ExeOwner));
    QFile probe(folder + QStringLiteral("/probe"));
    if (probe.open(QIODevice::WriteOnly)) {
        probe.close();
        probe.remove();
        QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QSKIP("permissions are not enforced for this user (root?)");
    }
    const render::ExportResult result =
        render::exportHeatmap(makeData(workedExampleWeights()), lightStyle(ColormapId::Viridis), path, QSize());
    QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QVERIFY(!result.written);
    QVERIFY2(result.error.contains(path), qPrintable(result.error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), original);
}

void TestHeatmapRenderer::largeMatrixPdfIsLossless()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("large.pdf"));
    VERIFY_WRITTEN(
        render::exportHeatmap(makeData(randomMatrix(300, 300, 0, 1, 4)), lightStyle(ColormapId::Viridis), path, QSize()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith("%PDF"));
    QVERIFY(bytes.contains("/Subtype /Image") || bytes.contains("/Subtype/Image"));
    QVERIFY2(!bytes.contains("/DCTDecode"), "the cells must not be JPEG-compressed");
}

void TestHeatmapRenderer::cjkLabels()
{
    const QStringList tokens = QString::fromUtf8("注 意 力 机 制 很 有 趣 。").split(QLatin1Char(' '));
    QCOMPARE(tokens.size(), 9);
    HeatmapData data;
    data.values = randomMatrix(9, 9, 0.0, 1.0, 9);
    data.rowLabels = data.colLabels = tokens;
    data.title = QString::fromUtf8("注意力权重 · 头 1");
    data.rowAxisTitle = QString::fromUtf8("查询");
    data.colAxisTitle = QString::fromUtf8("键");
    const HeatmapStyle style = lightStyle(ColormapId::Magma);

    QTemporaryDir dir;
    const QString svgPath = dir.filePath(QString::fromUtf8("注意力.svg"));
    VERIFY_WRITTEN(render::exportHeatmap(data, style, svgPath, QSize()));
    QFile file(svgPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray svg = file.readAll();
    QVERIFY(QSvgRenderer(svg).isValid());
    for (const QString& token : tokens)
        QVERIFY2(svg.contains(token.toUtf8()), qPrintable(token));

    VERIFY_WRITTEN(render::exportHeatmap(data, style, dir.filePath(QStringLiteral("cjk.pdf")), QSize()));

    // Every row label leaves ink left of its row.
    const HeatmapRenderer renderer(data, style);
    const QSize size = renderer.preferredSize();
    const QImage image = render::renderHeatmapImage(data, style, size);
    const QRectF target(QPointF(0, 0), QSizeF(size));
    for (int r = 0; r < 9; ++r) {
        const QRectF cell = renderer.cellRect(r, 0, target);
        int ink = 0;
        for (int y = int(cell.top()) + 2; y < int(cell.bottom()) - 2; ++y)
            for (int x = 0; x < int(cell.left()) - 1; ++x)
                ink += QColor(image.pixel(x, y)).lightness() < 128 ? 1 : 0;
        QVERIFY2(ink > 3, qPrintable(QStringLiteral("row %1 label %2: %3 dark pixels").arg(r).arg(tokens.at(r)).arg(ink)));
    }
}

void TestHeatmapRenderer::colourRangeNames()
{
    QCOMPARE(render::colourRangeNames(), (QStringList{QStringLiteral("fixed"), QStringLiteral("matrix"), QStringLiteral("row"), QStringLiteral("log")}));
    for (const QString& name : render::colourRangeNames())
        QCOMPARE(render::colourRangeName(*render::colourRangeFromName(name)), name);
    QCOMPARE(render::colourRangeFromName(QStringLiteral(" ROW ")), render::ColourRange::Row);
    QVERIFY(!render::colourRangeFromName(QStringLiteral("linear")));
}

void TestHeatmapRenderer::colourRangesMapKnownValues()
{
    using render::ColourRange;
    using render::ColourScale;
    core::Matrix m(2, 3);
    m << 0.1, 0.2, 0.3,   // row 0: 0.1 … 0.3
        0.01, 0.1, 1.0;  // row 1: three decades
    const std::pair fixed{0.0, 1.0};

    const ColourScale f = ColourScale::of(m, ColourRange::Fixed, fixed, {}, ColormapId::Viridis);
    QCOMPARE(f.t(0.3, 0), 0.3);
    QCOMPARE(f.t(1.0, 1), 1.0);

    const ColourScale matrix = ColourScale::of(m, ColourRange::Matrix, fixed, {}, ColormapId::Viridis);
    QCOMPARE(matrix.range(), std::pair(0.01, 1.0));
    QCOMPARE(matrix.t(0.01, 0), 0.0);
    QCOMPARE(matrix.t(1.0, 0), 1.0);
    QVERIFY(qFuzzyCompare(matrix.t(0.505, 1), 0.5));

    const ColourScale row = ColourScale::of(m, ColourRange::Row, fixed, {}, ColormapId::Viridis);
    QCOMPARE(row.t(0.1, 0), 0.0);
    QCOMPARE(row.t(0.3, 0), 1.0);
    QVERIFY(qFuzzyCompare(row.t(0.2, 0), 0.5));
    QCOMPARE(row.t(0.01, 1), 0.0);
    QVERIFY(qFuzzyCompare(row.t(0.505, 1), 0.5));

    const ColourScale log = ColourScale::of(m, ColourRange::Log, fixed, {}, ColormapId::Viridis);
    QCOMPARE(log.range(), std::pair(0.01, 1.0));
    QVERIFY(qFuzzyCompare(log.t(0.1, 0), 0.5));  // one decade of two
    QCOMPARE(log.t(0.0, 0), 0.0);
    QCOMPARE(log.t(-1.0, 0), 0.0);
    QVERIFY(qFuzzyCompare(log.valueAt(0.5), 0.1));
    // The floor: at most six decades below the largest value.
    core::Matrix tiny(1, 2);
    tiny << 1e-12, 1.0;
    QVERIFY(qFuzzyCompare(ColourScale::of(tiny, ColourRange::Log, fixed, {}, ColormapId::Viridis).range().first, 1e-6));

    // A diverging map keeps 0 white: its ends are ±max|v|.
    core::Matrix signedValues(1, 3);
    signedValues << -1.0, 0.5, 4.0;
    const ColourScale diverging = ColourScale::of(signedValues, ColourRange::Matrix, {-4, 4}, {}, ColormapId::Diverging);
    QCOMPARE(diverging.range(), std::pair(-4.0, 4.0));
    QCOMPARE(diverging.t(0.0, 0), 0.5);
}

void TestHeatmapRenderer::aRowOfIndicesIsOneIndexPerCell()
{
    // The heatmap's image colours a row at a time; each index must be the one t() and colormapIndex() give
    // a single cell, in every mode, at the ends, between two levels, and for NaN and infinities; each colour
    // that index's entry of the map.
    using render::ColourRange;
    using render::ColourScale;
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QRandomGenerator random(18);
    core::Matrix m(4, 43);  // whole vectors of 8 and of 4, and a rest
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = random.generateDouble() * 3.0 - 1.0;
    m.row(1).setConstant(0.25);  // a row of one value: its own range is empty
    m(0, 3) = nan;
    m(0, 4) = inf;
    m(0, 5) = -inf;
    m(2, 0) = 0.0;
    for (int k = 0; k < 12; ++k)  // halfway between two levels of the map, where rounding decides
        m(3, k) = (k + 0.5) / (render::colormapLevels - 1);
    for (const ColourRange mode : {ColourRange::Fixed, ColourRange::Matrix, ColourRange::Row, ColourRange::Log}) {
        for (const bool masked : {false, true}) {
            const ColourScale scale = ColourScale::of(m, mode, {0.0, 1.0}, render::CausalMask{masked}, ColormapId::Viridis);
            const QRgb* lut = render::colormapLut(ColormapId::Viridis);
            for (int r = 0; r < m.rows(); ++r) {
                std::vector<int> row(std::size_t(m.cols()), -7);
                scale.indices(m.row(r).data(), m.cols(), r, row.data());
                std::vector<QRgb> colours(std::size_t(m.cols()), 7);  // the image's row: the colours at once
                scale.colours(m.row(r).data(), m.cols(), r, lut, render::colormapNaNColor, colours.data());
                for (int c = 0; c < m.cols(); ++c) {
                    const int index = render::colormapIndex(scale.t(m(r, c), r));
                    QVERIFY2(row[std::size_t(c)] == index,
                             qPrintable(QStringLiteral("mode %1, row %2, column %3: %4, one cell gives %5")
                                            .arg(int(mode)).arg(r).arg(c).arg(row[std::size_t(c)]).arg(index)));
                    QCOMPARE(colours[std::size_t(c)], index < 0 ? render::colormapNaNColor : lut[index]);
                }
            }
        }
    }
}

void TestHeatmapRenderer::colourRangesIgnoreMaskedCells()
{
    using render::ColourRange;
    // Causal weights: the zeros above the diagonal are the mask's, not values.
    core::Matrix w(3, 3);
    w << 1.0, 0.0, 0.0, 0.4, 0.6, 0.0, 0.2, 0.3, 0.5;
    const render::CausalMask mask{true};
    const auto matrix = render::ColourScale::of(w, ColourRange::Matrix, {0, 1}, mask, ColormapId::Viridis);
    QCOMPARE(matrix.range(), std::pair(0.2, 1.0));
    const auto row = render::ColourScale::of(w, ColourRange::Row, {0, 1}, mask, ColormapId::Viridis);
    QCOMPARE(row.rowRange(1), std::pair(0.4, 0.6));
    QCOMPARE(row.rowRange(2), std::pair(0.2, 0.5));
    // Row 0 has one value: its range is widened around it as a one-valued figure is.
    QCOMPARE(row.rowRange(0), std::pair(0.5, 1.5));
    // Without the mask, the zeros count.
    QCOMPARE(render::ColourScale::of(w, ColourRange::Matrix, {0, 1}, {}, ColormapId::Viridis).range(), std::pair(0.0, 1.0));
}

void TestHeatmapRenderer::colourRangeColoursTheCells()
{
    core::Matrix m(2, 2);
    m << 0.1, 0.2, 0.3, 0.5;
    HeatmapStyle style = lightStyle(ColormapId::Viridis);
    style.colourRange = render::ColourRange::Row;
    HeatmapData data = makeData(m);
    data.range = std::pair(0.0, 1.0);
    const QSize size(400, 360);
    const QImage image = render::renderHeatmapImage(data, style, size);
    HeatmapRenderer renderer(data, style);
    const QRectF target(QPointF(0, 0), QSizeF(size));
    // Each row from its own minimum (the map's first colour) to its maximum (its last).
    for (int r = 0; r < 2; ++r) {
        QCOMPARE(hex(image.pixel(pixelAt(renderer.cellRect(r, 0, target).center()))), hex(render::rgbAt(ColormapId::Viridis, 0)));
        QCOMPARE(hex(image.pixel(pixelAt(renderer.cellRect(r, 1, target).center()))), hex(render::rgbAt(ColormapId::Viridis, 1)));
    }
    style.colourRange = render::ColourRange::Matrix;
    renderer.setStyle(style);
    QCOMPARE(hex(renderer.cellColor(0, 0)), hex(render::rgbAt(ColormapId::Viridis, 0)));
    QCOMPARE(hex(renderer.cellColor(1, 0)), hex(render::rgbAt(ColormapId::Viridis, 0.5)));
    QCOMPARE(hex(renderer.cellColor(1, 1)), hex(render::rgbAt(ColormapId::Viridis, 1)));
}

void TestHeatmapRenderer::legendSaysTheRange()
{
    using render::ColourRange;
    QSet<QString> captions;
    for (ColourRange range : {ColourRange::Fixed, ColourRange::Matrix, ColourRange::Row, ColourRange::Log})
        captions << HeatmapRenderer::colourRangeCaption(range);
    QCOMPARE(captions.size(), 4);
    // The SVG carries the legend's words as text.
    QTemporaryDir dir;
    HeatmapStyle style = lightStyle(ColormapId::Viridis);
    style.colourRange = ColourRange::Log;
    const QString path = dir.filePath(QStringLiteral("log.svg"));
    VERIFY_WRITTEN(render::exportHeatmap(makeData(workedExampleWeights()), style, path, QSize(500, 400)));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(file.readAll());
    QVERIFY2(svg.contains(HeatmapRenderer::colourRangeCaption(ColourRange::Log)), "the legend names the range");
}

void TestHeatmapRenderer::rangeCaptionClearsAWideTitle()
{
    // The handout's heatmap of 35 tokens: a title wider than its matrix, the legend's caption beside it.
    core::Matrix m = core::Matrix::Constant(35, 35, 1.0 / 35);
    HeatmapData data = makeData(m);
    data.title = QStringLiteral("Attention weights · head 1");
    data.rowAxisTitle = QStringLiteral("query");
    data.colAxisTitle = QStringLiteral("key");
    HeatmapStyle style = lightStyle(ColormapId::Viridis);
    style.font.setPixelSize(10);
    style.fontScale = 1.0;
    for (const render::ColourRange range : {render::ColourRange::Fixed, render::ColourRange::Row})
        for (const QSizeF size : {QSizeF(240, 200), QSizeF(300, 180), QSizeF(340, 240), QSizeF(500, 400)}) {
            style.colourRange = range;
            const HeatmapRenderer renderer(data, style);
            const QRectF target(QPointF(0, 0), size);
            const QRectF title = renderer.titleRect(target), caption = renderer.rangeCaptionRect(target);
            QVERIFY(!title.isEmpty() && !caption.isEmpty());
            QVERIFY2(!title.intersects(caption), qPrintable(QStringLiteral("%1 × %2").arg(size.width()).arg(size.height())));
            QVERIFY(target.contains(caption.topLeft()));
        }
}

void TestHeatmapRenderer::maskedCellsAreDrawnUnlikeZeros()
{
    // Causal weights with real zeros below the diagonal: (1, 0) and (2, 1).
    core::Matrix w(3, 3);
    w << 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.0, 0.5;
    HeatmapData data = makeData(w);
    data.range = std::pair(0.0, 1.0);
    data.causalMask = true;
    const HeatmapStyle style = lightStyle(ColormapId::Viridis);
    const QSize size(480, 420);
    const QRectF target(QPointF(0, 0), QSizeF(size));
    const HeatmapRenderer renderer(data, style);
    const QRgb zero = render::rgbAt(ColormapId::Viridis, 0.0);
    for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("direct")}) {
        QImage image;
        if (suffix == QLatin1String("png")) {
            image = render::renderHeatmapImage(data, style, size);
        } else {
            // Painted directly, as the window paints it.
            image = QImage(size, QImage::Format_ARGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            renderer.paint(&painter, target);
        }
        const auto count = [&](int r, int c, QRgb colour) {
            const QRect cell = renderer.cellRect(r, c, target).toAlignedRect().adjusted(3, 3, -3, -3);
            int n = 0;
            for (int y = cell.top(); y <= cell.bottom(); ++y)
                for (int x = cell.left(); x <= cell.right(); ++x)
                    n += image.pixel(x, y) == colour;
            return std::pair(n, cell.width() * cell.height());
        };
        for (auto [r, c] : {std::pair(1, 0), std::pair(2, 1)}) {
            const auto [n, all] = count(r, c, zero);
            QVERIFY2(n == all, qPrintable(QStringLiteral("a real 0 at (%1, %2) is the map's 0 colour").arg(r).arg(c)));
        }
        for (auto [r, c] : {std::pair(0, 1), std::pair(0, 2), std::pair(1, 2)}) {
            QCOMPARE(count(r, c, zero).first, 0);
            const auto [grey, all] = count(r, c, renderer.maskedColor());
            QVERIFY2(grey > all / 2, "a masked cell is mostly the masked grey");
            QVERIFY2(grey < all, "and hatched");
            QVERIFY(renderer.isMasked(r, c));
        }
        QVERIFY(!renderer.isMasked(2, 1));
    }
    QVERIFY(QColor::fromRgb(renderer.maskedColor()).saturation() < 10);  // a grey, not a colour of the map
}

void TestHeatmapRenderer::maskedBlocksOfALongSequence()
{
    // 600 × 600 causal weights drawn on 150 × 150 pixels: four cells a pixel, block means; the blocks
    // wholly after the diagonal are grey, the ones on it keep their colour.
    const int n = 600;
    core::Matrix w = core::Matrix::Zero(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j)
            w(i, j) = 1.0 / (i + 1);
    HeatmapData data;
    data.values = w;
    data.range = std::pair(0.0, 1.0);
    data.causalMask = true;
    HeatmapStyle style = lightStyle(ColormapId::Viridis);
    style.showLegend = false;
    style.showTitle = false;
    const HeatmapRenderer renderer(data, style);
    const QSize size(150, 150);
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    renderer.paint(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    painter.end();
    const QRectF target(QPointF(0, 0), QSizeF(size));
    const QPoint masked = pixelAt(renderer.cellRect(10, n - 10, target).center());
    const QPoint live = pixelAt(renderer.cellRect(n - 10, 10, target).center());
    QCOMPARE(hex(image.pixel(masked)), hex(renderer.maskedColor()));
    QVERIFY(image.pixel(live) != renderer.maskedColor());
}

QTEST_MAIN(TestHeatmapRenderer)
#include "tst_heatmaprenderer.moc"
