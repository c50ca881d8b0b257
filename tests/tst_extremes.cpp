/** Extreme finite values through the window (issue 6, part 5): cells of ±1e300, 1e-300, mixed signs
 *  and a temperature near 0 go in through the document, and nothing the user sees — the step tables'
 *  texts and tooltips, the heatmap of every step, the walkthrough, the teaching slides — shows NaN or
 *  an infinity, as text or as a value. tst_numerics holds the engine to the same. */

#include "isolation.h"
#include "ui/document/document.h"
#include "ui/document/steptablemodel.h"
#include "ui/document/viewstate.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/steps/stepblock.h"
#include "ui/views/steps/stepspanel.h"
#include "ui/views/teaching/teachingslides.h"
#include "ui/views/steps/walkthroughpanel.h"

#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cfloat>
#include <cmath>
#include <limits>

using ui::MatrixId;

Q_DECLARE_METATYPE(core::Matrix)

namespace {

/** What the user must never read: nan, inf, infinity in any case, or the infinity sign. */
const QRegularExpression& nonFiniteText()
{
    static const QRegularExpression re(QStringLiteral("nan|inf|∞"), QRegularExpression::CaseInsensitiveOption);
    return re;
}

core::Matrix filled(Eigen::Index rows, Eigen::Index cols, double value, bool alternate)
{
    core::Matrix m(rows, cols);
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j)
            m(i, j) = alternate && (i + j) % 2 ? -value : value;
    return m;
}

/** Collects, for one place the user reads, each text or value that is not finite. */
class Findings {
public:
    void text(const QString& where, const QString& text)
    {
        if (text.contains(nonFiniteText()) && m_list.size() < 20)
            m_list << where + QStringLiteral(": \"") + text.left(120) + QLatin1Char('"');
    }
    /** Values behind a figure: no NaN (its grey says "no number"). An overflowed ±∞ is drawn in the
     *  map's end colour and written as ">1.79e308", which text() checks. */
    void values(const QString& where, const core::Matrix& m)
    {
        if (m.array().isNaN().any() && m_list.size() < 20)
            m_list << where + QStringLiteral(": a value that is NaN");
    }
    bool empty() const { return m_list.isEmpty(); }
    QString report() const { return m_list.join(QLatin1Char('\n')); }

private:
    QStringList m_list;
};

void readTable(Findings& f, const QString& where, const QAbstractItemModel* model)
{
    for (int r = 0; r < model->rowCount(); ++r) {
        f.text(where + QStringLiteral(" row header"), model->headerData(r, Qt::Vertical).toString());
        for (int c = 0; c < model->columnCount(); ++c) {
            const QModelIndex index = model->index(r, c);
            f.text(QStringLiteral("%1 (%2, %3)").arg(where).arg(r + 1).arg(c + 1), index.data(Qt::DisplayRole).toString());
            f.text(QStringLiteral("%1 tooltip (%2, %3)").arg(where).arg(r + 1).arg(c + 1),
                   index.data(Qt::ToolTipRole).toString());
        }
    }
    for (int c = 0; c < model->columnCount(); ++c)
        f.text(where + QStringLiteral(" column header"), model->headerData(c, Qt::Horizontal).toString());
}

}  // namespace

class TestExtremes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void nothingShownIsNotFinite_data();
    void nothingShownIsNotFinite();

private:
    QTemporaryDir m_dir;
};

void TestExtremes::initTestCase()
{
    QVERIFY(m_dir.isValid());
    testutil::isolateApplication(QStringLiteral("tst_extremes"), m_dir.filePath(QStringLiteral("settings")));
}

void TestExtremes::nothingShownIsNotFinite_data()
{
    // The worked example: 3 tokens, d_model 4, d_k = d_v = 3. An empty matrix leaves that one as it is.
    QTest::addColumn<core::Matrix>("x");
    QTest::addColumn<core::Matrix>("w");  // W_Q, W_K and W_V alike
    QTest::addColumn<double>("temperature");
    const core::Matrix keep;
    QTest::addRow("±1e300 inputs, 1e-300 weights") << filled(3, 4, 1e300, true) << filled(4, 3, 1e-300, false) << 1.0;
    QTest::addRow("1e-300 inputs, unit weights") << filled(3, 4, 1e-300, false) << filled(4, 3, 1.0, true) << 1.0;
    QTest::addRow("±1e150 inputs, ±1e-10 weights") << filled(3, 4, 1e150, true) << filled(4, 3, 1e-10, true) << 1.0;
    QTest::addRow("largest doubles, tiny weights") << filled(3, 4, DBL_MAX, true) << filled(4, 3, 1e-320, true) << 1.0;
    QTest::addRow("subnormal inputs") << filled(3, 4, std::numeric_limits<double>::denorm_min(), true) << keep << 1.0;
    QTest::addRow("temperature 1e-300") << keep << keep << 1e-300;
    QTest::addRow("temperature 1e-300, ±1e150 inputs") << filled(3, 4, 1e150, true) << keep << 1e-300;
    QTest::addRow("smallest normal temperature") << keep << keep << DBL_MIN;
    // Beyond double range: the scores are 4e300 · 4e300 · 3. What the window shows there is open (see below).
    QTest::addRow("1e300 inputs, unit weights") << filled(3, 4, 1e300, false) << filled(4, 3, 1.0, false) << 1.0;
}

void TestExtremes::nothingShownIsNotFinite()
{
    QFETCH(core::Matrix, x);
    QFETCH(core::Matrix, w);
    QFETCH(double, temperature);

    ui::MainWindow window;
    window.show();
    ui::Document* doc = window.document();
    if (x.size())
        QVERIFY(doc->setMatrix(MatrixId::Embeddings, x, QStringLiteral("extreme X")));
    if (w.size())
        for (MatrixId id : {MatrixId::Query, MatrixId::Key, MatrixId::Value})
            QVERIFY(doc->setMatrix(id, w, QStringLiteral("extreme W")));
    core::Options options = doc->model().options;
    options.temperature = temperature;
    doc->setOptions(options);
    QCOMPARE(doc->model().options.temperature, temperature);
    QVERIFY(doc->waitForTrace(60000));
    QVERIFY2(doc->trace(), qPrintable(doc->error()));
    QCoreApplication::processEvents();

    Findings f;
    // The step tables, every step, every block.
    auto* steps = window.findChild<ui::StepsPanel*>();
    QVERIFY(steps);
    for (int number = 1; number <= steps->stepCount(); ++number) {
        f.text(QStringLiteral("step %1 shape").arg(number), steps->stepShape(number));
        for (ui::StepBlock* block : steps->stepBlocks(number)) {
            readTable(f, QStringLiteral("step %1 table").arg(number), block->model());
            f.values(QStringLiteral("step %1 matrix").arg(number), block->model()->matrix());
        }
    }
    // The walkthrough.
    auto* walkthrough = window.findChild<ui::WalkthroughPanel*>();
    QVERIFY(walkthrough);
    f.text(QStringLiteral("walkthrough"), walkthrough->plainText());
    readTable(f, QStringLiteral("walkthrough weighted values"), walkthrough->weightedValuesModel());
    // The heatmap, for each step it can show.
    for (core::Step step : ui::HeatmapWidget::heatmapSteps()) {
        window.viewState()->setHeatmapStep(step);
        QVERIFY(window.heatmap()->hasFigure());
        const render::HeatmapData data = window.heatmap()->figureData();
        const QString where = QStringLiteral("heatmap ") + data.title;
        f.values(where, data.values);
        f.text(where, data.title + data.rowLabels.join(QLatin1Char(' ')) + data.colLabels.join(QLatin1Char(' ')));
    }
    // The teaching slides.
    const auto slides = ui::buildSlides(*doc->trace(), 0, 0);
    for (std::size_t i = 0; i < slides.size(); ++i) {
        const ui::Slide& s = slides[i];
        const QString where = QStringLiteral("slide %1").arg(i);
        f.text(where, s.title + s.formula + s.explanation + s.arithmetic.join(QLatin1Char('\n')));
        for (const ui::SlideMatrix& m : s.matrices)
            f.values(where + QLatin1Char(' ') + m.name, m.values);
    }
    f.text(QStringLiteral("window title"), window.windowTitle());
    f.text(QStringLiteral("error"), doc->error());

    // Where a score, or a score divided by a tiny temperature, leaves double range, the engine keeps ±∞
    // (tst_numerics: its promise); the user reads ">1.79e308" and sees the end colour of the map.
    QVERIFY2(f.empty(), qPrintable(f.report()));
    doc->undoStack()->setClean();
}

QTEST_MAIN(TestExtremes)
#include "tst_extremes.moc"
