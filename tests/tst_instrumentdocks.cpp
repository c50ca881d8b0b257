/** The window's Logit Lens and Attribution docks on a small random GPT-2 checkpoint: what they hold after an edit
 *  equals core::logitLens and core::directLogitAttribution on a pass opened afresh from the saved session (the core
 *  functions are held against PyTorch float64 in tst_instruments); the attribution's parts sum to the logit; a
 *  hidden dock makes the passes compute nothing and, shown, never shows an earlier state; the target chooser
 *  refuses what is not one token; a head's cell shows that head. */

#include "core/models/instruments.h"
#include "core/session/instrumentfiles.h"
#include "core/session/modelsession.h"
#include "gpt2folder_tokenizer.h"
#include "isolation.h"
#include "ui/document/document.h"
#include "ui/document/modelsession.h"
#include "ui/document/viewstate.h"
#include "ui/views/model/instrumentview.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"
#include "testutil.h"

#include <QComboBox>
#include <QDockWidget>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

namespace {

const std::string kTokenizer = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";

}  // namespace

class TestInstrumentDocks : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();

    void aHiddenDockAsksForNothing();
    void anEditReachesTheDocksAsAFreshPassGivesThem();
    void aTypedTargetIsOneTokenOrRefused();
    void aDockShownLaterShowsNoEarlierState();
    void aHeadsCellShowsThatHead();

private:
    ui::Document& doc() { return *m_window->document(); }
    void openModel();
    QDockWidget* dock(const char* name) const;
    ui::InstrumentView* view(const char* name) const;
    /** Shows a dock (floating, so that both can be seen at once) and waits for the pass it asks for. */
    void showDock(const char* name);
    /** The window's state saved and opened again by the core alone: its pass, with the edits, run. */
    std::shared_ptr<core::ModelPass> freshPass();

    QTemporaryDir m_dir;
    QString m_folder;
    std::unique_ptr<ui::MainWindow> m_window;
    int m_saved = 0;
};

void TestInstrumentDocks::initTestCase()
{
    QVERIFY(m_dir.isValid());
    testutil::isolateApplication(QStringLiteral("tst_instrumentdocks"), m_dir.filePath(QStringLiteral("settings")));
    qputenv("ATTENTION_EXPLORER_NO_RECOVERY", "1");
    m_folder = m_dir.filePath(QStringLiteral("tiny-gpt2"));
    QVERIFY(QDir().mkpath(m_folder));
    testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer), m_folder.toStdString());
}

void TestInstrumentDocks::init()
{
    QSettings().clear();
    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    doc().waitForTrace();
}

void TestInstrumentDocks::cleanup()
{
    if (m_window)
        doc().undoStack()->setClean();
    m_window.reset();
}

void TestInstrumentDocks::openModel()
{
    QString error;
    QVERIFY2(m_window->session()->openModelFolder(m_folder, &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
}

QDockWidget* TestInstrumentDocks::dock(const char* name) const
{
    return m_window->findChild<QDockWidget*>(QString::fromLatin1(name));
}

ui::InstrumentView* TestInstrumentDocks::view(const char* name) const
{
    QDockWidget* d = dock(name);
    return d ? qobject_cast<ui::InstrumentView*>(d->widget()) : nullptr;
}

void TestInstrumentDocks::showDock(const char* name)
{
    QDockWidget* d = dock(name);
    QVERIFY(d);
    d->setFloating(true);
    d->show();
    d->raise();
    QTRY_VERIFY(d->widget()->isVisible());
    QVERIFY(doc().waitForModel(60000));
    QCoreApplication::processEvents();
}

std::shared_ptr<core::ModelPass> TestInstrumentDocks::freshPass()
{
    const QString path = m_dir.filePath(QStringLiteral("saved%1.json").arg(++m_saved));
    QString error;
    if (!m_window->saveFile(path, &error))
        qFatal("%s", qPrintable(error));
    std::string why;
    auto opened = core::openModelSessionFile(path.toStdString(), why);
    if (!opened)
        qFatal("%s", why.c_str());
    return opened->pass;
}

void TestInstrumentDocks::aHiddenDockAsksForNothing()
{
    openModel();
    QVERIFY(dock("lensDock") && dock("attributionDock"));
    QVERIFY(!dock("lensDock")->isVisible() && !dock("attributionDock")->isVisible());
    QVERIFY(doc().setCell(ui::MatrixId::Output, 9, 3, 2.5));
    QVERIFY(doc().zeroHead(1));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(!doc().lens());
    QVERIFY(!doc().attribution());
    // Shown, the lens comes at once, and only it.
    showDock("lensDock");
    QVERIFY(doc().lens());
    QVERIFY(!doc().attribution());
    QVERIFY(view("lensDock")->figure());
    // Hidden again, the next edit's pass makes none.
    dock("lensDock")->hide();
    QVERIFY(doc().setCell(ui::MatrixId::Output, 9, 4, -1.5));
    QVERIFY(doc().waitForModel(60000));
    QCoreApplication::processEvents();
    QVERIFY(!doc().lens());
}

void TestInstrumentDocks::anEditReachesTheDocksAsAFreshPassGivesThem()
{
    openModel();
    showDock("lensDock");
    showDock("attributionDock");
    QVERIFY(doc().lens() && doc().attribution());
    const std::vector<std::vector<core::LensCell>> before = doc().lens()->cells;
    const double logitBefore = doc().attribution()->parts.logit;

    QVERIFY(doc().setCell(ui::MatrixId::Output, 9, 3, 2.5));
    QVERIFY(doc().zeroHead(1));
    QVERIFY(doc().waitForModel(60000));
    QCoreApplication::processEvents();
    const auto lens = doc().lens();
    const auto attribution = doc().attribution();
    QVERIFY(lens && attribution);

    const std::shared_ptr<core::ModelPass> fresh = freshPass();
    const int n = fresh->n();
    // the target: the most probable next token after the last position, from the fresh pass's logits
    const auto top = core::topCandidates(fresh->logitsAt(n - 1), 1);
    QCOMPARE(int(top.size()), 1);
    QCOMPARE(lens->target, top.front().id);
    QCOMPARE(attribution->parts.target, top.front().id);
    QCOMPARE(attribution->parts.position, n - 1);

    const auto expected = core::logitLens(*fresh, top.front().id);
    QCOMPARE(lens->cells.size(), expected.size());
    bool changed = false;
    const render::GridFigure& shown = view("lensDock")->figure()->figure();
    for (std::size_t l = 0; l < expected.size(); ++l) {
        QCOMPARE(lens->cells[l].size(), std::size_t(n));
        for (std::size_t p = 0; p < std::size_t(n); ++p) {
            const core::LensCell& got = lens->cells[l][p];
            const core::LensCell& want = expected[l][p];
            QCOMPARE(got.id, want.id);
            QVERIFY(std::abs(got.probability - want.probability) <= 1e-12);
            QVERIFY(std::abs(got.targetProbability - want.targetProbability) <= 1e-12);
            QCOMPARE(got.targetRank, want.targetRank);
            // the dock draws these numbers
            QVERIFY(std::abs(shown.grids.front().values[l][p] - want.probability) <= 1e-12);
            changed = changed || got.id != before[l][p].id || std::abs(got.probability - before[l][p].probability) > 1e-9;
        }
    }
    QVERIFY2(changed, "the edit left the lens as it was");
    // the last row is the model's prediction: the target is its most probable token
    QCOMPARE(lens->cells.back()[std::size_t(n - 1)].targetRank, 1);

    const core::Attribution want = core::directLogitAttribution(*fresh, top.front().id, n - 1);
    const core::Attribution& got = attribution->parts;
    QVERIFY(std::abs(got.logit - want.logit) <= 1e-9);
    QVERIFY(std::abs(got.logit - logitBefore) > 1e-6);
    QVERIFY(std::abs(got.embeddings - want.embeddings) <= 1e-9);
    QVERIFY(std::abs(got.bias - want.bias) <= 1e-9);
    const render::GridFigure& drawn = view("attributionDock")->figure()->figure();
    double sum = got.embeddings + got.bias;
    for (std::size_t l = 0; l < want.heads.size(); ++l) {
        for (std::size_t h = 0; h < want.heads[l].size(); ++h) {
            QVERIFY(std::abs(got.heads[l][h] - want.heads[l][h]) <= 1e-9);
            QVERIFY(std::abs(drawn.grids.front().values[l][h] - want.heads[l][h]) <= 1e-9);
            sum += got.heads[l][h];
        }
        QVERIFY(std::abs(got.mlps[l] - want.mlps[l]) <= 1e-9);
        sum += got.mlps[l];
    }
    QCOMPARE(got.heads[0][1], 0.0);  // the zeroed head adds nothing
    // the parts sum to the logit, which is the pass's own logit of the target
    QVERIFY2(std::abs(sum - got.logit) <= 1e-6 * std::max(1.0, std::abs(got.logit)), qPrintable(QString::number(sum - got.logit)));
    QVERIFY(std::abs(got.logit - double(fresh->logitsAt(n - 1)(0, top.front().id))) <= 1e-3);
    // and the words say so
    const QString summary = view("attributionDock")->summary();
    QVERIFY2(summary.contains(attribution->targetToken), qPrintable(summary));
    QVERIFY(view("attributionDock")->cellText(0, 1).contains(QStringLiteral("(zeroed)")));

    // Saved from the docks: the command line's files of the fresh pass, and a picture
    const QString json = m_dir.filePath(QStringLiteral("lens.json")), csv = m_dir.filePath(QStringLiteral("dla.csv"));
    QVERIFY(view("lensDock")->save(json).written);
    QCOMPARE(testutil::readText(json).toStdString(), core::lensJson(*fresh, expected, top.front().id).dump(1) + "\n");
    QVERIFY(view("attributionDock")->save(csv).written);
    QCOMPARE(testutil::readText(csv).toStdString(), core::attributionCsv(want));
    const QString png = m_dir.filePath(QStringLiteral("lens.png"));
    QVERIFY(view("lensDock")->save(png).written);
    const QImage image(png);
    QCOMPARE(image.size(), view("lensDock")->figure()->preferredSize() * 2);
}

void TestInstrumentDocks::aTypedTargetIsOneTokenOrRefused()
{
    openModel();
    showDock("lensDock");
    ui::InstrumentView* v = view("lensDock");
    QVERIFY(!v->chooseTarget(QStringLiteral("a cat and a dog")));
    QVERIFY2(v->refusal().contains(QStringLiteral("a cat and a dog")), qPrintable(v->refusal()));
    QCOMPARE(doc().instrumentTarget(), -1);
    QVERIFY(v->chooseTarget(QStringLiteral(" dog")));
    QVERIFY(v->refusal().isEmpty());
    QCOMPARE(doc().instrumentTarget(), 3290);  // "Ġdog" in GPT-2's vocabulary
    QVERIFY(doc().waitForModel(60000));
    QCoreApplication::processEvents();
    QCOMPARE(doc().lens()->target, 3290);
    const auto expected = core::logitLens(*freshPass(), 3290);
    for (std::size_t l = 0; l < expected.size(); ++l)
        for (std::size_t p = 0; p < expected[l].size(); ++p) {
            QVERIFY(std::abs(doc().lens()->cells[l][p].targetProbability - expected[l][p].targetProbability) <= 1e-12);
            QCOMPARE(doc().lens()->cells[l][p].targetRank, expected[l][p].targetRank);
        }
    const QString tip = v->cellText(1, 2);
    QVERIFY2(tip.contains(QStringLiteral("␣dog")) && tip.contains(QStringLiteral("rank %1").arg(expected[1][2].targetRank)),
             qPrintable(tip));
    // a Next Token candidate from the chooser
    QComboBox* box = v->targetBox();
    QVERIFY(box->count() > 2);
    const int id = box->itemData(2).toInt();
    box->setCurrentIndex(2);
    emit box->activated(2);
    QCOMPARE(doc().instrumentTarget(), id);
}

void TestInstrumentDocks::aDockShownLaterShowsNoEarlierState()
{
    openModel();
    showDock("lensDock");
    const QStringList first = doc().lens()->tokens;
    dock("lensDock")->hide();
    QVERIFY(doc().setTokenText(QStringLiteral("A dog ran far away.")));
    QVERIFY(doc().waitForModel(60000));
    QCoreApplication::processEvents();
    ui::InstrumentView* v = view("lensDock");
    dock("lensDock")->show();
    QTRY_VERIFY(v->isVisible());
    // at once: nothing yet, or the new text's, never the first text's
    QVERIFY(!v->figure() || v->figure()->figure().grids.front().columnLabels != first);
    QVERIFY(doc().waitForModel(60000));
    QCoreApplication::processEvents();
    QVERIFY(v->figure());
    QCOMPARE(v->figure()->figure().grids.front().columnLabels.first(), QStringLiteral("A"));
    // a plain session after it: the dock says what it would show
    dock("lensDock")->hide();
    QVERIFY(m_window->loadPreset(QStringLiteral("thinking-machines")));
    dock("lensDock")->show();
    QTRY_VERIFY(v->isVisible());
    QVERIFY(!v->figure());
    QVERIFY(!v->emptyText().isEmpty());
}

void TestInstrumentDocks::aHeadsCellShowsThatHead()
{
    openModel();
    showDock("attributionDock");
    ui::InstrumentView* v = view("attributionDock");
    QVERIFY(v->figure());
    const QRectF cell = v->cellRect(2, 3);
    QVERIFY(!cell.isEmpty());
    QTest::mouseClick(v->canvas(), Qt::LeftButton, {}, cell.center().toPoint());
    QCOMPARE(doc().shownLayer(), 2);
    QCOMPARE(m_window->viewState()->head(), 3);
    QVERIFY(v->cellText(2, 3).startsWith(QStringLiteral("Layer 3, head 4")));
}

QTEST_MAIN(TestInstrumentDocks)
#include "tst_instrumentdocks.moc"
