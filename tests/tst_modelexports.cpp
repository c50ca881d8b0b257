/** The window's exports of a model session, run through File's own actions with their dialogs answered as a user
 *  would: the report (read back with pdftotext), the step matrices (CSV and trace.json), the PyTorch code (run
 *  with torch) and the heatmap (PNG). Each is held against the command line's --compute and --export-steps of the
 *  same session saved to a file: another process that opens the checkpoint afresh and runs its own pass. */

#include "core/attention/csvio.h"
#include "dialoganswer.h"
#include "gpt2folder_tokenizer.h"
#include "isolation.h"
#include "pdftext.h"
#include "programrun.h"
#include "python.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <memory>

using nlohmann::json;

namespace {

const std::string kTokenizer = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";

json readJson(const QString& path)
{
    std::ifstream in(path.toStdString());
    return json::parse(in, nullptr, false);
}

core::Matrix readCsv(const QString& path)
{
    std::string error;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    auto m = core::parseCsv(file.readAll().toStdString(), error);
    return m ? *m : core::Matrix();
}

core::Matrix matrixOf(const json& rows)
{
    core::Matrix m(Eigen::Index(rows.size()), rows.empty() ? 0 : Eigen::Index(rows[0].size()));
    for (std::size_t r = 0; r < rows.size(); ++r)
        for (std::size_t c = 0; c < rows[r].size(); ++c)
            m(Eigen::Index(r), Eigen::Index(c)) = rows[r][c].get<double>();
    return m;
}

/** The largest difference over the largest entry of want; infinite for another shape. */
double relativeDifference(const core::Matrix& got, const core::Matrix& want)
{
    if (got.rows() != want.rows() || got.cols() != want.cols() || want.size() == 0)
        return INFINITY;
    return (got - want).cwiseAbs().maxCoeff() / std::max(want.cwiseAbs().maxCoeff(), 1e-300);
}

}  // namespace

class TestModelExports : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();

    void reportNamesModelLayerAndBiases();
    void stepFilesAreThoseOfTheCommandLine();
    void pytorchCodeReproducesTheLayer();
    void heatmapShowsTheShownHead();

private:
    ui::Document& doc() { return *m_window->document(); }
    QAction* action(const char* name) { return m_window->findChild<QAction*>(QLatin1String(name)); }

    QTemporaryDir m_dir;
    QString m_folder, m_session;
    std::unique_ptr<ui::MainWindow> m_window;
    json m_computed;  ///< --compute of the saved session
    QString m_python;
};

void TestModelExports::initTestCase()
{
    QVERIFY(m_dir.isValid());
    testutil::isolateApplication(QStringLiteral("tst_modelexports"), m_dir.filePath(QStringLiteral("settings")));
    qputenv("ATTENTION_EXPLORER_NO_RECOVERY", "1");
    m_folder = m_dir.filePath(QStringLiteral("tiny-gpt2"));
    QVERIFY(QDir().mkpath(m_folder));
    testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer), m_folder.toStdString());
    m_python = testutil::pythonWith(QStringLiteral("torch"));

    // Layer 2 of 3, head 3, a weight and a bias edited.
    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    QString error;
    QVERIFY2(m_window->session()->openModelFolder(m_folder, &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
    doc().setShownLayer(1);
    QVERIFY(doc().waitForModel(60000));
    m_window->viewState()->setHead(2);
    QVERIFY(doc().setCell(ui::MatrixId::Query, 0, 17, 1.75));
    QVERIFY(doc().setCell(ui::MatrixId::Value, 32, 20, -0.5));  // b_V, head 3's first column
    QVERIFY(doc().waitForModel(60000));

    m_session = m_dir.filePath(QStringLiteral("layer2.json"));
    QVERIFY2(m_window->saveFile(m_session, &error), qPrintable(error));
    const testutil::Run run = testutil::runProgram(QStringLiteral(AE_BINARY), {QStringLiteral("--compute"), m_session});
    QVERIFY2(run.status == 0, run.err.constData());
    m_computed = json::parse(run.out.toStdString());
    QCOMPARE(m_computed["layer"].get<int>(), 2);
}

void TestModelExports::cleanupTestCase()
{
    if (m_window)
        doc().undoStack()->setClean();
    m_window.reset();
}

void TestModelExports::reportNamesModelLayerAndBiases()
{
    const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
    const QStringList errors = testutil::triggerAnswering(action("exportReportAction"), pdf);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QVERIFY(QFile::exists(pdf));
    if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
        QSKIP("pdftotext is not installed (poppler-utils)");
    const QString text = pdftext::pdfText(pdf);
    QVERIFY(!text.isEmpty());
    // The model and the layer: in the title (as the command line titles the same session), on every page's
    // footer, and in step 1's formula.
    const QString title = QStringLiteral("tiny-gpt2, layer 2");
    QVERIFY2(pdftext::pdfText(pdf, 1, 1).contains(title), qPrintable(text.left(600)));
    const int pages = pdftext::pageCount(pdf);
    QVERIFY(pages > 2);
    QVERIFY(pdftext::pdfText(pdf, pages, pages).contains(QStringLiteral("Attention Explorer · ") + title));
    const QString painted = pdftext::pdfText(pdf, 0, 0, pdftext::Order::Painted);
    QVERIFY2(painted.contains(QStringLiteral("LayerNorm(residual stream entering layer 2)")), qPrintable(painted.left(1200)));
    QVERIFY2(!painted.contains(QStringLiteral("layers 1 to 1")), qPrintable(painted.left(1200)));
    // The biases, in the formulas of step 2 and the projection (pdftotext loses the subscripts' size, not them),
    // and each as a figure of its own beside its weight's.
    for (const QString& formula : {QStringLiteral("Q = X·WQ + bQ"), QStringLiteral("V = X·WV + bV"),
                                   QStringLiteral("output = concat·WO + bO")})
        QVERIFY2(painted.contains(formula), qPrintable(formula));
    // (b_O is named thrice without its figure: in step 7's formula, and in the projection's formula and text.)
    const std::pair<QString, int> named[] = {
        {QStringLiteral("bQ"), 2}, {QStringLiteral("bK"), 2}, {QStringLiteral("bV"), 2}, {QStringLiteral("bO"), 4}};
    for (const auto& [bias, times] : named)
        QVERIFY2(painted.count(bias) >= times, qPrintable(QStringLiteral("%1 %2 times").arg(bias).arg(painted.count(bias))));
}

void TestModelExports::stepFilesAreThoseOfTheCommandLine()
{
    const QString folder = m_dir.filePath(QStringLiteral("steps-window"));
    QVERIFY(QDir().mkpath(folder));
    const QStringList errors = testutil::triggerAnswering(action("exportStepsAction"), folder);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    const json written = readJson(QDir(folder).filePath(QStringLiteral("trace.json")));
    QVERIFY(written.is_object());

    // Every step's numbers are those --compute prints for the saved session.
    const auto close = [&](const json& got, const json& want, const QString& what) {
        const double d = relativeDifference(matrixOf(got), matrixOf(want));
        QVERIFY2(d <= 1e-12, qPrintable(QStringLiteral("%1: %2").arg(what).arg(d)));
    };
    close(written["x"], m_computed["x"], QStringLiteral("x"));
    QCOMPARE(written["heads"].size(), std::size_t(4));
    for (std::size_t h = 0; h < 4; ++h)
        for (const char* step : {"queries", "keys", "values", "scores", "scaled_scores", "weights", "outputs"})
            close(written["heads"][h][step], m_computed["heads"][h][step],
                  QStringLiteral("head %1 %2").arg(h + 1).arg(QLatin1String(step)));
    close(written["concat"], m_computed["concat"], QStringLiteral("concat"));
    close(written["output"], m_computed["output"], QStringLiteral("output"));

    // The CSV files say the same: the edited bias, weights whose rows sum to 1 and that see no later token.
    const QDir dir(folder);
    const core::Matrix bv = readCsv(dir.filePath(QStringLiteral("b_v.csv")));
    QCOMPARE(bv.rows(), 1);
    QCOMPARE(bv(0, 20), -0.5);
    QCOMPARE(readCsv(dir.filePath(QStringLiteral("w_q.csv")))(0, 17), 1.75);
    for (const char* bias : {"b_q.csv", "b_k.csv", "b_o.csv"})
        QVERIFY2(dir.exists(QLatin1String(bias)), bias);
    const core::Matrix weights = readCsv(dir.filePath(QStringLiteral("head3_weights.csv")));
    QVERIFY(relativeDifference(weights, matrixOf(m_computed["heads"][2]["weights"])) <= 1e-15);
    for (Eigen::Index i = 0; i < weights.rows(); ++i) {
        QVERIFY(std::abs(weights.row(i).sum() - 1.0) <= 1e-12);
        QVERIFY(weights.row(i).rightCols(weights.cols() - i - 1).isZero(0));
    }

    // And the files are those the command line writes for the same session, byte for byte.
    const QString cliFolder = m_dir.filePath(QStringLiteral("steps-cli"));
    const testutil::Run run = testutil::runProgram(
        QStringLiteral(AE_BINARY), {QStringLiteral("--export-steps"), cliFolder, QStringLiteral("--session"), m_session});
    QVERIFY2(run.status == 0, run.err.constData());
    const QStringList names = dir.entryList(QDir::Files, QDir::Name);
    QCOMPARE(QDir(cliFolder).entryList(QDir::Files, QDir::Name), names);
    for (const QString& name : names) {
        QFile mine(dir.filePath(name)), theirs(QDir(cliFolder).filePath(name));
        QVERIFY(mine.open(QIODevice::ReadOnly) && theirs.open(QIODevice::ReadOnly));
        QVERIFY2(mine.readAll() == theirs.readAll(), qPrintable(name));
    }
}

void TestModelExports::pytorchCodeReproducesTheLayer()
{
    const QString code = m_dir.filePath(QStringLiteral("layer2.py"));
    const QStringList errors = testutil::triggerAnswering(action("exportCodeAction"), code);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    QVERIFY(QFile::exists(code));
    if (m_python.isEmpty())
        QSKIP("PyTorch is not installed (python3-torch): the generated code was not run");
    QString error;
    const QByteArray printed = testutil::runExportedCode(m_python, code, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const json ran = json::parse(printed.toStdString());
    QCOMPARE(ran["weights"].size(), std::size_t(4));
    for (std::size_t h = 0; h < 4; ++h) {
        const double d = relativeDifference(matrixOf(ran["weights"][h]), matrixOf(m_computed["heads"][h]["weights"]));
        QVERIFY2(d <= 1e-9, qPrintable(QStringLiteral("weights of head %1: %2").arg(h + 1).arg(d)));
    }
    const double d = relativeDifference(matrixOf(ran["output"]), matrixOf(m_computed["output"]));
    QVERIFY2(d <= 1e-9, qPrintable(QStringLiteral("output: %1").arg(d)));
}

void TestModelExports::heatmapShowsTheShownHead()
{
    const QString png = m_dir.filePath(QStringLiteral("heatmap.png"));
    const QStringList errors = testutil::triggerAnswering(action("exportHeatmapAction"), png);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
    const QImage image(png);
    QVERIFY(!image.isNull());
    // Each cell has the colour of head 3's weight as --compute gives it, in the figure as the window draws it.
    render::HeatmapData data = m_window->heatmap()->figureData();
    const core::Matrix weights = matrixOf(m_computed["heads"][2]["weights"]);
    QCOMPARE(data.values.rows(), weights.rows());
    data.values = weights;
    const render::HeatmapRenderer renderer(data, m_window->heatmap()->figureStyle());
    const QRectF target(QPointF(0, 0), QSizeF(image.size()));
    int checked = 0;
    for (int i = 0; i < int(weights.rows()); ++i)
        for (int j = 0; j <= i; ++j) {
            const QRectF cell = renderer.cellRect(i, j, target);
            // Near the corner: the middle holds the number.
            const QPoint at = (cell.topLeft() + QPointF(cell.width() * 0.12, cell.height() * 0.12)).toPoint();
            const QRgb want = renderer.cellColor(i, j), got = image.pixel(at);
            QVERIFY2(std::abs(qRed(got) - qRed(want)) <= 2 && std::abs(qGreen(got) - qGreen(want)) <= 2
                         && std::abs(qBlue(got) - qBlue(want)) <= 2,
                     qPrintable(QStringLiteral("cell (%1, %2): %3, want %4")
                                    .arg(i + 1)
                                    .arg(j + 1)
                                    .arg(QColor(got).name(), QColor(want).name())));
            ++checked;
        }
    QCOMPARE(checked, int(weights.rows() * (weights.rows() + 1) / 2));
}

QTEST_MAIN(TestModelExports)
#include "tst_modelexports.moc"
