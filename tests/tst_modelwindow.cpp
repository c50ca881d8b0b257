/** The window on a real model (SPEC §5): a small random GPT-2 checkpoint with GPT-2's own tokenizer, opened,
 *  looked at layer by layer and head by head, edited and undone, saved and opened again; a broken folder. The
 *  numbers are held against a fresh computation of the saved session by the core alone. */

#include "core/attention/attention.h"
#include "core/attention/edit.h"
#include "core/models/gpt2forward.h"
#include "core/session/modelsession.h"
#include "core/text/tokentext.h"
#include "gpt2folder_tokenizer.h"
#include "isolation.h"
#include "ui/render/cellstyle.h"
#include "ui/document/background.h"
#include "ui/document/document.h"
#include "ui/document/matrixtablemodel.h"
#include "ui/document/modelsession.h"
#include "ui/render/attentiongrid.h"
#include "ui/document/viewstate.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/render/stepwording.h"
#include "ui/views/shell/fileactions.h"
#include "ui/views/model/headviewwidget.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/model/modelloader.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/steps/optionspanel.h"
#include "ui/views/model/overviewwidget.h"
#include "ui/views/model/predictionpanel.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/steps/tokenbar.h"
#include "ui/views/teaching/teachingslides.h"
#include "ui/views/widgets/tokenchips.h"
#include "testutil.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QItemSelectionModel>
#include <QTableView>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>
#include <QUndoStack>

#include <cstring>
#include <future>
#include <memory>

namespace {

const std::string kTokenizer = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";

/** The shown head's attention weights as the core computes them for the saved session at path. */
struct Fresh {
    core::Matrix weights;
    std::vector<core::TokenCandidate> top;
    core::AttentionModel layer;
};

Fresh freshComputation(const QString& path, int head)
{
    std::string error;
    auto opened = core::openModelSessionFile(path.toStdString(), error);
    if (!opened)
        qFatal("%s", error.c_str());
    Fresh f;
    f.layer = opened->pass->layerModel(opened->session.layer - 1);
    f.weights = core::compute(f.layer).heads[std::size_t(head)].weights;
    f.top = opened->pass->topTokens(10);
    return f;
}

double maxDifference(const core::Matrix& a, const core::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return 1e300;
    return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

class TestModelWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();

    void opensTheModel();
    void switchesLayerAndHead();
    void overviewShowsEveryLayerAndChoosesOne();
    void editingWQMovesPredictionAndHeatmapAndUndoRestores();
    void saveAndReopenGiveTheSameState();
    void biasRowsAreEditableAndEditsAreMarked();
    void pasteCopyAndScaleReachTheBiasRow();
    void zeroingAHeadAndResets();
    void textPastThePositionsIsRefused();
    void brokenFolderLeavesTheDocumentUnchanged();
    void cancelStopsTheLoadAndLeavesTheDocument();
    void otherPositionsArePredicted();
    void aChosenPositionTheTextLosesFallsBackToTheLast();
    void theChangeReadsAsTheProbabilitiesDo();
    void theHeadViewFollowsTheShownLayer();
    void anOverflowingPassSaysSoInsteadOfRanking();
    void exportsAndSlidesShowTheShownLayer();
    void aNewTextOfTheShownLayerRereadsOnlyX();
    void thePredictionTableChangesInOneStep();
    void aNewTextWithEditsShowsTheEditedPassFirst();
    void theComparisonFollowsInTheSameJob_data();
    void theComparisonFollowsInTheSameJob();

private:
    ui::Document& doc() { return *m_window->document(); }
    void openModel();
    /** A fresh pass over the test checkpoint, without edits, run on text; null when the folder does not load. */
    std::unique_ptr<core::Gpt2Forward> checkpointPass(const std::string& text) const;

    QTemporaryDir m_dir;
    QString m_folder, m_broken;
    std::unique_ptr<ui::MainWindow> m_window;
};

void TestModelWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    testutil::isolateApplication(QStringLiteral("tst_modelwindow"), m_dir.filePath(QStringLiteral("settings")));
    qputenv("ATTENTION_EXPLORER_NO_RECOVERY", "1");
    m_folder = m_dir.filePath(QStringLiteral("tiny-gpt2"));
    QVERIFY(QDir().mkpath(m_folder));
    testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer), m_folder.toStdString());
    // A folder without its merges and its weights.
    m_broken = m_dir.filePath(QStringLiteral("broken"));
    QVERIFY(QDir().mkpath(m_broken));
    testutil::Folder broken = testutil::randomGpt2FolderWithTokenizer(kTokenizer);
    broken.writeMerges = false;
    broken.writeWeights = false;
    testutil::write(broken, m_broken.toStdString());
}

void TestModelWindow::init()
{
    QSettings().clear();
    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    doc().waitForTrace();
}

void TestModelWindow::cleanup()
{
    if (m_window)
        doc().undoStack()->setClean();
    m_window.reset();
}

void TestModelWindow::openModel()
{
    QString error;
    QVERIFY2(m_window->session()->openModelFolder(m_folder, &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
}

std::unique_ptr<core::Gpt2Forward> TestModelWindow::checkpointPass(const std::string& text) const
{
    std::string error;
    auto checkpoint = core::Gpt2Checkpoint::load(m_folder.toStdString(), error);
    if (!checkpoint)
        return nullptr;
    auto pass = std::make_unique<core::Gpt2Forward>(checkpoint);
    if (!pass->setTokens(checkpoint->tokenizer().encode(text), error))
        return nullptr;
    pass->run();
    return pass;
}

void TestModelWindow::opensTheModel()
{
    openModel();
    ui::MainWindow& w = *m_window;
    QVERIFY(doc().isModelSession());
    QCOMPARE(doc().layerCount(), 3);
    QCOMPARE(doc().shownLayer(), 0);
    // GPT-2's own tokens, the leading space shown as ␣, the id on hover.
    const QStringList chips = w.tokenBar()->chips()->tokens();
    QCOMPARE(chips.size(), 9);
    QCOMPARE(chips.at(0), QStringLiteral("The"));
    QCOMPARE(chips.at(1), QStringLiteral("␣cat"));
    QCOMPARE(w.tokenBar()->chips()->tokenIds().at(1), 3797);  // "Ġcat" in GPT-2's vocabulary
    // The layer chooser, the options' note, the heatmap of n × n, ten candidates.
    auto* layerBox = w.findChild<QComboBox*>(QStringLiteral("layerBox"));
    QVERIFY(layerBox && layerBox->isVisibleTo(&w));
    QCOMPARE(layerBox->count(), 3);
    auto* note = w.findChild<QLabel*>(QStringLiteral("fixedByCheckpoint"));
    QVERIFY(note && note->isVisibleTo(&w));
    QVERIFY(note->text().contains(QStringLiteral("tiny-gpt2")));
    QCOMPARE(w.heatmap()->figureData().values.rows(), 9);
    QCOMPARE(int(doc().modelSession()->prediction().entries.size()), 10);
    QCOMPARE(w.predictionPanel()->table()->item(0, 2)->text().isEmpty(), false);
    // Each probability reads as itself: two decimals of a percent, or two significant digits below 0.01 %.
    for (int r = 0; r < 10; ++r) {
        const QString text = w.predictionPanel()->table()->item(r, 2)->text();
        const double shown = QLocale().toDouble(QString(text).remove(QStringLiteral(" %")));
        const double percent = 100.0 * doc().modelSession()->prediction().entries[std::size_t(r)].probability;
        QVERIFY2(shown > 0 && std::abs(shown - percent) <= std::max(0.005, 0.05 * percent), qPrintable(text));
    }
    const render::StepText step1 = render::StepWording::step(1, doc().model());
    QVERIFY(step1.formula.contains(QStringLiteral("LayerNorm(residual stream entering layer 1)")));
    QVERIFY(render::StepWording::step(2, doc().model()).formula.contains(QStringLiteral("b</i><sub>Q</sub>"))
            || render::StepWording::step(2, doc().model()).formula.contains(QStringLiteral("<sub>Q</sub>")));
}

void TestModelWindow::switchesLayerAndHead()
{
    openModel();
    ui::MainWindow& w = *m_window;
    auto* layerBox = w.findChild<QComboBox*>(QStringLiteral("layerBox"));
    layerBox->setCurrentIndex(2);
    emit layerBox->activated(2);
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().shownLayer(), 2);
    QCOMPARE(doc().model().origin->layer, 3);
    auto* headBox = w.findChild<QComboBox*>(QStringLiteral("headBox"));
    headBox->setCurrentIndex(3);
    emit headBox->activated(3);
    QCOMPARE(w.viewState()->head(), 3);

    // The heatmap is layer 3's head 4 as the core computes it from the file alone.
    const QString path = m_dir.filePath(QStringLiteral("layer3.json"));
    QString error;
    QVERIFY2(w.saveFile(path, &error), qPrintable(error));
    const Fresh fresh = freshComputation(path, 3);
    core::AttentionModel expected = fresh.layer;  // the window shows the tokens readably ("␣cat" for "Ġcat")
    for (std::string& token : expected.tokens)
        token = core::readableToken(token);
    QVERIFY(doc().model() == expected);
    QVERIFY(maxDifference(w.heatmap()->figureData().values, fresh.weights) <= 1e-12);
    // Layer 1's head 4 is another matrix.
    layerBox->setCurrentIndex(0);
    emit layerBox->activated(0);
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(maxDifference(w.heatmap()->figureData().values, fresh.weights) > 1e-6);
}

void TestModelWindow::overviewShowsEveryLayerAndChoosesOne()
{
    openModel();
    ui::MainWindow& w = *m_window;
    w.overviewDock()->show();
    w.overviewDock()->raise();
    ui::OverviewWidget* overview = w.overview();
    // An edit of the shown layer: the grid follows the pass with it.
    QVERIFY(doc().setCell(ui::MatrixId::Query, 0, 0, 3.5));
    QVERIFY(doc().waitForModel(60000));
    const core::ModelShape& config = doc().modelSession()->shape();
    // Each cell is that layer's and head's attention of the saved session, as the core computes it alone.
    const QString path = m_dir.filePath(QStringLiteral("overview.json"));
    QString error;
    QVERIFY2(w.saveFile(path, &error), qPrintable(error));
    std::string coreError;
    auto opened = core::openModelSessionFile(path.toStdString(), coreError);
    QVERIFY2(opened, coreError.c_str());
    const auto worst = [&] {
        const std::shared_ptr<const render::AttentionGrid> grid = overview->grid();
        if (!grid || grid->layers != config.layers || grid->heads != config.heads)
            return 1e300;
        double d = 0;
        for (int l = 0; l < config.layers; ++l)
            for (int h = 0; h < config.heads; ++h)
                d = std::max(d, maxDifference(grid->cell(l, h), opened->pass->attention(l, h).cast<double>()));
        return d;
    };
    QTRY_VERIFY_WITH_TIMEOUT(worst() <= 1e-6, 20000);
    // A click on layer 3, head 2 shows them.
    emit overview->cellChosen(2, 1);
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().shownLayer(), 2);
    QCOMPARE(w.viewState()->head(), 1);
    QCOMPARE(overview->current(), std::make_pair(2, 1));
}

void TestModelWindow::editingWQMovesPredictionAndHeatmapAndUndoRestores()
{
    openModel();
    ui::MainWindow& w = *m_window;
    w.viewState()->setHead(0);
    const core::Matrix heatmapBefore = w.heatmap()->figureData().values;
    const ui::Prediction predictionBefore = doc().modelSession()->prediction();

    // Type into W_Q's first cell of the shown layer (layer 1) through its table.
    ui::MatrixTableModel* wq = w.matrixEditor()->tableModel(ui::MatrixId::Query);
    const double old = wq->data(wq->index(0, 0), ui::ValueRole).toDouble();
    QVERIFY(wq->setData(wq->index(0, 0), QStringLiteral("6.5"), Qt::EditRole));
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->editCount(), 1);
    QVERIFY(wq->data(wq->index(0, 0), ui::EditedRole).toBool());

    const core::Matrix heatmapEdited = w.heatmap()->figureData().values;
    const ui::Prediction predictionEdited = doc().modelSession()->prediction();
    QVERIFY(maxDifference(heatmapEdited, heatmapBefore) > 1e-6);
    QVERIFY(std::abs(predictionEdited.entries[0].probability - predictionBefore.entries[0].probability) > 1e-9);
    // Each candidate knows its probability without the edit: the first one before is the first one then.
    QCOMPARE(predictionBefore.entries[0].unedited, predictionBefore.entries[0].probability);

    // Equal to the core's own computation of the saved edited session.
    const QString path = m_dir.filePath(QStringLiteral("edited.json"));
    QString error;
    QVERIFY2(w.saveFile(path, &error), qPrintable(error));
    const Fresh fresh = freshComputation(path, 0);
    QVERIFY(maxDifference(heatmapEdited, fresh.weights) <= 1e-12);
    QCOMPARE(predictionEdited.entries.size(), fresh.top.size());
    for (std::size_t i = 0; i < fresh.top.size(); ++i) {
        QCOMPARE(predictionEdited.entries[i].id, fresh.top[i].id);
        QVERIFY(std::abs(predictionEdited.entries[i].probability - fresh.top[i].probability) <= 1e-12);
    }

    // Undo gives both back exactly.
    doc().undoStack()->undo();
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->editCount(), 0);
    QCOMPARE(wq->data(wq->index(0, 0), ui::ValueRole).toDouble(), old);
    QVERIFY(w.heatmap()->figureData().values == heatmapBefore);
    const ui::Prediction predictionUndone = doc().modelSession()->prediction();
    QCOMPARE(predictionUndone.entries.size(), predictionBefore.entries.size());
    for (std::size_t i = 0; i < predictionBefore.entries.size(); ++i) {
        QCOMPARE(predictionUndone.entries[i].id, predictionBefore.entries[i].id);
        QCOMPARE(predictionUndone.entries[i].probability, predictionBefore.entries[i].probability);
    }
    doc().undoStack()->redo();
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->prediction().entries[0].probability, predictionEdited.entries[0].probability);
}

void TestModelWindow::saveAndReopenGiveTheSameState()
{
    openModel();
    ui::MainWindow& w = *m_window;
    doc().setShownLayer(1);
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(doc().setCell(ui::MatrixId::Value, 3, 5, -1.25));
    QVERIFY(doc().setCell(ui::MatrixId::Output, 32, 7, 0.75));  // b_O, the row below W_O
    QVERIFY(doc().setTokenText(QStringLiteral("Attention is all you need")));
    QVERIFY(doc().waitForModel(60000));
    const core::AttentionModel shown = doc().model();
    const ui::Prediction prediction = doc().modelSession()->prediction();
    const QString path = m_dir.filePath(QStringLiteral("session.json"));
    QString error;
    QVERIFY2(w.saveFile(path, &error), qPrintable(error));
    QVERIFY(!doc().isModified());

    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    QVERIFY2(m_window->openFile(path, &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().shownLayer(), 1);
    QCOMPARE(doc().tokenText(), QStringLiteral("Attention is all you need"));
    QCOMPARE(doc().modelSession()->editCount(), 2);
    QVERIFY(doc().model() == shown);
    QCOMPARE(doc().modelSession()->prediction().entries.size(), prediction.entries.size());
    for (std::size_t i = 0; i < prediction.entries.size(); ++i)
        QCOMPARE(doc().modelSession()->prediction().entries[i].probability, prediction.entries[i].probability);
}

void TestModelWindow::biasRowsAreEditableAndEditsAreMarked()
{
    openModel();
    ui::MainWindow& w = *m_window;
    ui::MatrixTableModel* wk = w.matrixEditor()->tableModel(ui::MatrixId::Key);
    QCOMPARE(wk->rowCount(), 33);  // W_K's 32 rows and b_K
    QCOMPARE(wk->headerData(32, Qt::Vertical).toString(), QStringLiteral("b_K"));
    QCOMPARE(wk->data(wk->index(32, 4), ui::ValueRole).toDouble(), (*doc().model().bk)(0, 4));
    QVERIFY(wk->setData(wk->index(32, 4), 2.5, Qt::EditRole));
    QCOMPARE((*doc().model().bk)(0, 4), 2.5);
    QCOMPARE(doc().undoStack()->undoText(), QStringLiteral("Changed b_K column 5 to 2.5"));
    QVERIFY(wk->data(wk->index(32, 4), ui::EditedRole).toBool());
    QVERIFY(!wk->data(wk->index(32, 3), ui::EditedRole).toBool());
    // A wide number typed into a weight widens its column: it shows whole, in bold, never cut.
    QTableView* table = w.matrixEditor()->tableView(ui::MatrixId::Key);
    const int before = table->horizontalHeader()->sectionSize(2);
    QVERIFY(wk->setData(wk->index(1, 2), -12345.5, Qt::EditRole));
    QFont bold = table->font();
    bold.setBold(true);
    const QString shown = wk->data(wk->index(1, 2), Qt::DisplayRole).toString();
    QVERIFY2(table->horizontalHeader()->sectionSize(2) > QFontMetrics(bold).horizontalAdvance(shown),
             qPrintable(QStringLiteral("%1 in a column of %2 px").arg(shown).arg(table->horizontalHeader()->sectionSize(2))));
    QVERIFY(table->horizontalHeader()->sectionSize(2) > before);
    // A model's X is the layer's LayerNorm output: shown, not edited.
    ui::MatrixTableModel* x = w.matrixEditor()->tableModel(ui::MatrixId::Embeddings);
    QVERIFY(!(x->flags(x->index(0, 0)) & Qt::ItemIsEditable));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(doc().resetLayer());
    QCOMPARE(doc().modelSession()->editCount(), 0);
    QVERIFY(!wk->data(wk->index(32, 4), ui::EditedRole).toBool());
}

/** A block pasted over W_Q's last two rows and b_Q below them sets all three rows in one undo step; Copy of
 *  rows that take in b_K gives b_K's numbers; Scale takes b_O with W_O. */
void TestModelWindow::pasteCopyAndScaleReachTheBiasRow()
{
    openModel();
    ui::MainWindow& w = *m_window;
    ui::MatrixEditorPanel* editor = w.matrixEditor();
    const core::AttentionModel checkpoint = doc().model();
    const int d = int(checkpoint.wq.rows());
    QCOMPARE(d, 32);
    const int steps = doc().undoStack()->count();

    // Paste 3 × 2 at W_Q row 31, column 3: W_Q rows 31 and 32, then b_Q (numbers a float32 holds exactly).
    editor->setCurrentMatrix(ui::MatrixId::Query);
    QTableView* wqTable = editor->tableView(ui::MatrixId::Query);
    ui::MatrixTableModel* wq = editor->tableModel(ui::MatrixId::Query);
    wqTable->setCurrentIndex(wq->index(d - 2, 2));
    QVERIFY(editor->pasteText(QStringLiteral("1.5\t-2\n0.25\t3\n4.5\t-0.125\n")));
    QCOMPARE(doc().undoStack()->count(), steps + 1);
    QCOMPARE(doc().undoStack()->undoText(), QStringLiteral("Pasted 3 × 2 cells into W_Q"));
    QCOMPARE(doc().model().wq(d - 2, 2), 1.5);
    QCOMPARE(doc().model().wq(d - 2, 3), -2.0);
    QCOMPARE(doc().model().wq(d - 1, 2), 0.25);
    QCOMPARE(doc().model().wq(d - 1, 3), 3.0);
    QCOMPARE((*doc().model().bq)(0, 2), 4.5);
    QCOMPARE((*doc().model().bq)(0, 3), -0.125);
    // Nothing else moved: the rest of b_Q and W_Q are the checkpoint's.
    QCOMPARE((*doc().model().bq)(0, 1), (*checkpoint.bq)(0, 1));
    QVERIFY(doc().model().wq.topRows(d - 2) == checkpoint.wq.topRows(d - 2));
    QCOMPARE(doc().modelSession()->editCount(), 6);
    QVERIFY(wq->data(wq->index(d, 2), ui::EditedRole).toBool());
    QVERIFY(wq->data(wq->index(d, 3), ui::EditedRole).toBool());
    QVERIFY(!wq->data(wq->index(d, 4), ui::EditedRole).toBool());
    QCOMPARE(wq->data(wq->index(d, 3), ui::ValueRole).toDouble(), -0.125);
    // The sparse edits to be saved: the six cells, the bias as query_bias row 0.
    std::vector<core::ModelSessionEdit> edits = doc().modelSession()->fileSession(QString(), QString()).edits;
    QCOMPARE(int(edits.size()), 6);
    const auto has = [&](core::ModelWeight weight, int row, int col, double value) {
        return std::any_of(edits.begin(), edits.end(), [&](const core::ModelSessionEdit& e) {
            return e.layer == 1 && e.weight == weight && e.row == row && e.col == col && e.value == value;
        });
    };
    QVERIFY(has(core::ModelWeight::QueryBias, 0, 2, 4.5));
    QVERIFY(has(core::ModelWeight::QueryBias, 0, 3, -0.125));
    QVERIFY(has(core::ModelWeight::Query, d - 1, 3, 3.0));
    // The pass takes the bias: the shown layer equals the core's own computation of the saved session.
    QVERIFY(doc().waitForModel(60000));
    const QString path = m_dir.filePath(QStringLiteral("pasted.json"));
    QString error;
    QVERIFY2(w.saveFile(path, &error), qPrintable(error));
    const Fresh fresh = freshComputation(path, 0);
    QCOMPARE(*fresh.layer.bq, *doc().model().bq);
    QVERIFY(maxDifference(w.heatmap()->figureData().values, fresh.weights) <= 1e-12);

    // Undo gives every cell back, the bias too, and nothing is marked.
    doc().undoStack()->undo();
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(doc().model().wq == checkpoint.wq);
    QVERIFY(*doc().model().bq == *checkpoint.bq);
    QCOMPARE(doc().modelSession()->editCount(), 0);
    QVERIFY(doc().modelSession()->fileSession(QString(), QString()).edits.empty());
    QVERIFY(!wq->data(wq->index(d, 2), ui::EditedRole).toBool());
    doc().undoStack()->redo();
    QCOMPARE((*doc().model().bq)(0, 3), -0.125);
    doc().undoStack()->undo();

    // Copy of W_K's last row and b_K, pasted into W_V's: the same numbers, b_V included.
    editor->setCurrentMatrix(ui::MatrixId::Key);
    QTableView* wkTable = editor->tableView(ui::MatrixId::Key);
    wkTable->selectionModel()->select(QItemSelection(wkTable->model()->index(d - 1, 0), wkTable->model()->index(d, 3)),
                                      QItemSelectionModel::ClearAndSelect);
    editor->copySelection();
    core::BlockError parseError;
    const auto copied = core::parseBlock(QApplication::clipboard()->text().toStdString(), parseError);
    QVERIFY2(copied, parseError.message().c_str());
    QCOMPARE(copied->rows(), 2);
    QVERIFY(copied->row(0) == checkpoint.wk.row(d - 1).leftCols(4));
    QVERIFY(copied->row(1) == checkpoint.bk->leftCols(4));
    editor->setCurrentMatrix(ui::MatrixId::Value);
    QTableView* wvTable = editor->tableView(ui::MatrixId::Value);
    wvTable->setCurrentIndex(wvTable->model()->index(d - 1, 0));
    QVERIFY(editor->pasteText(QApplication::clipboard()->text()));
    QVERIFY(doc().model().bv->leftCols(4) == checkpoint.bk->leftCols(4));
    QVERIFY(doc().model().wv.row(d - 1).leftCols(4) == checkpoint.wk.row(d - 1).leftCols(4));
    QVERIFY(doc().model().bv->rightCols(d - 4) == checkpoint.bv->rightCols(d - 4));
    doc().undoStack()->undo();

    // Scale × 2 of W_O takes b_O with it, one step; twice a float32 is a float32, so exactly.
    editor->setCurrentMatrix(ui::MatrixId::Output);
    editor->scale();
    QCOMPARE(doc().undoStack()->undoText(), QStringLiteral("Scaled W_O and b_O by 2"));
    QVERIFY(*doc().model().wo == *checkpoint.wo * 2.0);
    QVERIFY(*doc().model().bo == *checkpoint.bo * 2.0);
    QCOMPARE(doc().modelSession()->editCount(), int(checkpoint.wo->size() + checkpoint.bo->size()));
    doc().undoStack()->undo();
    QVERIFY(*doc().model().bo == *checkpoint.bo);
    QCOMPARE(doc().modelSession()->editCount(), 0);
}

void TestModelWindow::zeroingAHeadAndResets()
{
    openModel();
    const double before = doc().modelSession()->prediction().entries[0].probability;
    // A cell of the head's rows edited before: kept beside the ablation, and back once the head is.
    QVERIFY(doc().setCell(ui::MatrixId::Output, 9, 3, 2.5));
    QVERIFY(doc().zeroHead(1));
    QCOMPARE(doc().undoStack()->undoText(), QStringLiteral("Zeroed head 2 of layer 1"));
    QVERIFY(doc().waitForModel(60000));
    const core::Matrix& wo = *doc().model().wo;
    QVERIFY(wo.middleRows(8, 8).isZero(0));
    QVERIFY(!wo.middleRows(0, 8).isZero(0));
    // One record, not 8 × 32 cells: the edit count is the one cell, and the file says "head 2 of layer 1".
    QCOMPARE(doc().modelSession()->editCount(), 1);
    const core::ModelSession file = doc().modelSession()->fileSession(QString(), QString());
    QCOMPARE(file.ablations, (std::vector<core::ModelSessionAblation>{{1, 2}}));
    QCOMPARE(int(file.edits.size()), 1);
    // It shows where heads are named: the overview's cell and the heatmap's head chooser.
    const std::shared_ptr<const render::AttentionGrid> grid = doc().modelSession()->grid();
    QVERIFY(grid && grid->isZeroed(0, 1) && !grid->isZeroed(0, 0) && !grid->isZeroed(1, 1));
    QCOMPARE(render::headCellLabel(*grid, 0, 1), QStringLiteral("zeroed"));
    auto* headBox = m_window->findChild<QComboBox*>(QStringLiteral("headBox"));
    QTRY_COMPARE(headBox->itemText(1), QStringLiteral("2 of 4 (zeroed)"));
    QCOMPARE(headBox->itemText(0), QStringLiteral("1 of 4"));
    // Next Token says what changed, in words a count agrees with
    auto* status = m_window->findChild<QLabel*>(QStringLiteral("predictionStatus"));
    QTRY_VERIFY2(status->text().contains(QStringLiteral("with 1 edited weight and 1 zeroed head;")),
                 qPrintable(status->text()));
    // The head's output no longer reaches the stream: the prediction is that of the pass whose rows of W_O for
    // the head are 0 (set cell by cell on a pass of its own), and it moved (a random model's does by far).
    std::string error;
    const auto checkpoint = core::Gpt2Checkpoint::load(m_folder.toStdString(), error);
    QVERIFY2(checkpoint, error.c_str());
    core::Gpt2Forward zeroed(checkpoint);
    QVERIFY(zeroed.setTokens(doc().modelSession()->ids(), error));
    for (int r = 8; r < 16; ++r)
        for (int c = 0; c < 32; ++c)
            QVERIFY(zeroed.setEdit(0, core::ModelWeight::Output, r, c, 0.0f, error));
    zeroed.run();
    const std::vector<core::TokenCandidate> top = zeroed.topTokens(1);
    QCOMPARE(doc().modelSession()->prediction().entries[0].id, top[0].id);
    QVERIFY(std::abs(doc().modelSession()->prediction().entries[0].probability - top[0].probability) < 1e-6);
    QVERIFY(std::abs(doc().modelSession()->prediction().entries[0].probability - before) > 1e-6);
    doc().undoStack()->undo();  // the head back: the cell edited in its rows shows again
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(!doc().modelSession()->isAblated(0, 1));
    QCOMPARE(doc().model().wo->coeff(9, 3), 2.5);
    doc().undoStack()->redo();
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().model().wo->coeff(9, 3), 0.0);
    doc().setShownLayer(2);
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(doc().setCell(ui::MatrixId::Query, 0, 0, 3.0));
    QVERIFY(doc().resetLayer());  // layer 3 only: layer 1's zeroed head and edited cell stay
    QCOMPARE(doc().modelSession()->editCount(), 1);
    QVERIFY(doc().modelSession()->isAblated(0, 1));
    QVERIFY(doc().resetAll());
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->editCount(), 0);
    QCOMPARE(doc().modelSession()->prediction().entries[0].probability, before);
}

void TestModelWindow::textPastThePositionsIsRefused()
{
    openModel();
    ui::MainWindow& w = *m_window;
    const QString text = doc().tokenText();
    QLineEdit* line = w.tokenBar()->lineEdit();
    const QString longText = QStringLiteral("one two three four five six seven eight nine ten eleven twelve thirteen "
                                            "fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one "
                                            "twenty-two twenty-three twenty-four twenty-five");
    line->setFocus();
    line->selectAll();
    QTest::keyClicks(line, longText);
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(line->text(), longText);  // what was typed stays in the line
    QVERIFY2(w.tokenBar()->message().contains(QStringLiteral("32")), qPrintable(w.tokenBar()->message()));
    QVERIFY(doc().tokenText().size() < longText.size());
    QVERIFY(int(doc().modelSession()->ids().size()) <= 32);
    Q_UNUSED(text);
}

void TestModelWindow::brokenFolderLeavesTheDocumentUnchanged()
{
    openModel();
    ui::MainWindow& w = *m_window;
    QVERIFY(doc().setCell(ui::MatrixId::Query, 1, 1, 0.5));
    QVERIFY(doc().waitForModel(60000));
    const core::AttentionModel before = doc().model();
    const int steps = doc().undoStack()->count();
    QString error;
    QVERIFY(!w.session()->openModelFolder(m_broken, &error));
    QVERIFY2(error.contains(QStringLiteral("merges.txt")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("model.safetensors")), qPrintable(error));
    QVERIFY(doc().isModelSession());
    QVERIFY(doc().model() == before);
    QCOMPARE(doc().undoStack()->count(), steps);
    QCOMPARE(doc().modelSession()->editCount(), 1);
    QVERIFY(!w.session()->openModelFolder(m_dir.filePath(QStringLiteral("no-such-folder")), &error));
    QVERIFY(error.contains(QStringLiteral("not a folder")));
    QVERIFY(doc().model() == before);

    // a sharded folder has its weights (the index names the shards): the message blames what does fail, and no family
    QTemporaryDir sharded;
    for (const char* name : {"config.json", "tokenizer.json", "model.safetensors.index.json"}) {
        QFile f(sharded.filePath(QString::fromLatin1(name)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{}");
    }
    QVERIFY(ui::ModelLoader::folderProblems(sharded.path()).isEmpty());
    const QString refusal = ui::ModelLoader::refusal(sharded.path(), QStringLiteral("config.json: no architectures"));
    QVERIFY2(!refusal.contains(QStringLiteral("GPT-2")) && refusal.contains(QStringLiteral("no architectures")),
             qPrintable(refusal));
}

void TestModelWindow::cancelStopsTheLoadAndLeavesTheDocument()
{
    openModel();
    QVERIFY(doc().setCell(ui::MatrixId::Query, 1, 1, 0.5));
    QVERIFY(doc().waitForModel(60000));
    const core::AttentionModel before = doc().model();
    const int steps = doc().undoStack()->count();
    const QString text = doc().tokenText();
    const std::vector<ui::Prediction::Entry> prediction = doc().modelSession()->prediction().entries;

    // Every thread of the window's pool is held until Cancel has been pressed in the busy bar's dialog, so the
    // load's worker starts only after it: it must stop at its first step instead of reading the checkpoint.
    QThreadPool* pool = ui::backgroundPool();
    QSemaphore held;
    std::promise<void> opened;
    std::shared_future<void> gate;
    QTimer press;
    bool pressed = false;
    const auto cancelNextLoad = [&] {
        opened = {};
        gate = opened.get_future().share();
        for (int t = 0; t < pool->maxThreadCount(); ++t)
            pool->start([&held, gate = gate] {
                held.release();
                gate.wait();
            });
        held.acquire(pool->maxThreadCount());
        pressed = false;
        press.start(20);
    };
    QObject::connect(&press, &QTimer::timeout, [&] {
        for (QWidget* w : QApplication::topLevelWidgets()) {
            auto* progress = qobject_cast<QProgressDialog*>(w);
            if (!progress || progress->objectName() != QLatin1String("modelProgress") || !progress->isVisible())
                continue;
            press.stop();
            QPushButton* cancel = progress->findChild<QPushButton*>();
            QVERIFY(cancel);
            QTest::mouseClick(cancel, Qt::LeftButton);
            pressed = true;
            opened.set_value();
            return;
        }
    });

    core::ModelSession session;
    session.modelPath = m_folder.toStdString();
    session.layer = 2;
    session.text = "Another text";
    cancelNextLoad();
    ui::ModelLoader::Outcome outcome;
    QString error = QStringLiteral("not cleared");
    QVERIFY(!ui::ModelLoader::load(session, QString(), ui::windowModelNames(), m_window.get(), &error, &outcome));
    QVERIFY(pressed);
    QVERIFY(outcome.cancelled);
    QVERIFY(outcome.workerStopped);  // the worker asked, stopped and is gone: load() waited for it
    QVERIFY(error.isEmpty());

    // The same through File › Recent Models' path: nothing changes, no message.
    cancelNextLoad();
    m_window->session()->openModelInteractively(m_folder);
    QVERIFY(pressed);
    QVERIFY(doc().isModelSession());
    QVERIFY(doc().model() == before);
    QCOMPARE(doc().undoStack()->count(), steps);
    QCOMPARE(doc().modelSession()->editCount(), 1);
    QCOMPARE(doc().tokenText(), text);
    QCOMPARE(doc().modelSession()->prediction().entries.size(), prediction.size());
    for (std::size_t i = 0; i < prediction.size(); ++i)
        QCOMPARE(doc().modelSession()->prediction().entries[i].probability, prediction[i].probability);
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(w))
            QVERIFY2(!box->isVisible(), qPrintable(box->text()));
}

void TestModelWindow::otherPositionsArePredicted()
{
    openModel();
    ui::MainWindow& w = *m_window;
    QComboBox* position = w.predictionPanel()->positionBox();
    QCOMPARE(position->count(), 10);  // the last token, then each of the nine
    position->setCurrentIndex(2);
    emit position->activated(2);  // after token 2, "␣cat"
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->prediction().position, 1);
    // The same as the last position of the text cut after "cat" (attention is causal).
    const auto cut = checkpointPass("The cat");
    QVERIFY(cut);
    const auto top = cut->topTokens(10);
    for (std::size_t i = 0; i < top.size(); ++i) {
        QCOMPARE(doc().modelSession()->prediction().entries[i].id, top[i].id);
        QVERIFY(std::abs(doc().modelSession()->prediction().entries[i].probability - top[i].probability) < 1e-5);
    }
}

void TestModelWindow::aChosenPositionTheTextLosesFallsBackToTheLast()
{
    openModel();
    ui::MainWindow& w = *m_window;
    QComboBox* position = w.predictionPanel()->positionBox();
    position->setCurrentIndex(6);
    emit position->activated(6);  // after token 6
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->prediction().position, 5);
    QSignalSpy moved(&doc(), &ui::Document::predictionPositionChanged);
    // A text of two tokens has no token 6: the box and the document both say the last token.
    QLineEdit* line = w.tokenBar()->lineEdit();
    line->setFocus();
    line->selectAll();
    QTest::keyClicks(line, QStringLiteral("The cat"));
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().predictionPosition(), -1);
    QCOMPARE(position->currentIndex(), 0);
    QCOMPARE(doc().modelSession()->prediction().position, 1);
    QVERIFY(!moved.isEmpty());
    QCOMPARE(moved.last().at(0).toInt(), -1);
    // Typed on past six tokens, it stays with the last one rather than going back to token 6.
    QTest::keyClicks(line, QStringLiteral(" sat on the mat because it was tired and then"));
    QVERIFY(doc().waitForModel(60000));
    const int n = int(doc().modelSession()->ids().size());
    QVERIFY(n > 6);
    QCOMPARE(position->count(), n + 1);
    QCOMPARE(doc().predictionPosition(), -1);
    QCOMPARE(position->currentIndex(), 0);
    QCOMPARE(doc().modelSession()->prediction().position, n - 1);
    QVERIFY2(w.predictionPanel()->status().contains(QString::number(n)), qPrintable(w.predictionPanel()->status()));
}

void TestModelWindow::theChangeReadsAsTheProbabilitiesDo()
{
    // A checkpoint whose next tokens are all about as likely (wte a hundredth of the test checkpoint's, as GPT-2's
    // shape with random weights gives): each near 0.002 %, which reads with four decimals.
    testutil::Folder flat = testutil::randomGpt2FolderWithTokenizer(kTokenizer);
    testutil::Tensor* wte = testutil::findTensor(flat, "wte.weight");
    QVERIFY(wte && wte->dtype == "F32");
    for (std::size_t i = 0; i + 4 <= wte->bytes.size(); i += 4) {
        float v = 0;
        std::memcpy(&v, wte->bytes.data() + i, 4);
        v *= 0.01f;
        std::memcpy(wte->bytes.data() + i, &v, 4);
    }
    const QString folder = m_dir.filePath(QStringLiteral("flat-gpt2"));
    QVERIFY(QDir().mkpath(folder));
    testutil::write(flat, folder.toStdString());
    ui::MainWindow& w = *m_window;
    QString error;
    QVERIFY2(w.session()->openModelFolder(folder, &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(doc().modelSession()->prediction().entries.front().probability < 0.0001);
    // A large b_O in the last layer moves them by less than a hundredth of a point.
    doc().setShownLayer(2);
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(doc().setCell(ui::MatrixId::Output, 32, 5, 100.0));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(!doc().modelSession()->prediction().comparing);
    QTableWidget* table = w.predictionPanel()->table();
    const auto number = [](QString text) {
        text.remove(QStringLiteral(" %")).remove(QStringLiteral(" pts")).remove(QStringLiteral("Without edits: "));
        text.remove(QStringLiteral("▲ +")).remove(QStringLiteral("▼ −"));
        bool ok = false;
        const double v = QLocale().toDouble(text, &ok);
        return ok ? v : std::nan("");
    };
    const auto decimals = [](const QString& text) {
        const QString digits = QString(text).remove(QStringLiteral(" %")).remove(QStringLiteral(" pts"));
        return int(digits.size() - digits.lastIndexOf(QLocale().decimalPoint()) - 1);
    };
    int moved = 0;
    for (int r = 0; r < 10; ++r) {
        const QString shown = table->item(r, 2)->text(), change = table->item(r, 3)->text();
        const double now = number(shown), before = number(table->item(r, 3)->toolTip());
        const QString row = QStringLiteral("%1 | %2 | %3").arg(shown, change, table->item(r, 3)->toolTip());
        QVERIFY2(!std::isnan(now) && !std::isnan(before), qPrintable(row));
        // "=" exactly when the two read alike; else the way and the size of the difference of what they read.
        QCOMPARE(change == QStringLiteral("="), now == before);
        if (now == before)
            continue;
        ++moved;
        QVERIFY2(change.startsWith(now > before ? QStringLiteral("▲") : QStringLiteral("▼")), qPrintable(row));
        QVERIFY2(decimals(change) >= decimals(shown), qPrintable(row));
        const double tolerance = 0.5 * std::pow(10.0, -decimals(shown)) + 0.5 * std::pow(10.0, -decimals(table->item(r, 3)->toolTip())) + 1e-12;
        QVERIFY2(std::abs(number(change) - std::abs(now - before)) <= tolerance, qPrintable(row));
    }
    QVERIFY(moved > 0);
}

void TestModelWindow::theHeadViewFollowsTheShownLayer()
{
    openModel();
    doc().setShownLayer(1);
    QVERIFY(doc().waitForModel(60000));
    const QString path = m_dir.filePath(QStringLiteral("headview.json"));
    QString error;
    QVERIFY2(m_window->saveFile(path, &error), qPrintable(error));
    // A session of layer 2 opened in a new window: its head view shows layer 2, all heads (as --export-lines).
    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    QVERIFY2(m_window->openFile(path, &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
    ui::MainWindow& w = *m_window;
    ui::HeadViewWidget* heads = w.headView();
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("headViewDock"));
    QVERIFY(dock);
    dock->show();
    dock->raise();
    QTRY_VERIFY(heads->grid() && heads->grid()->layers == 3);
    QCOMPARE(heads->layer(), 1);
    QCOMPARE(heads->head(), -1);
    const QString svg = m_dir.filePath(QStringLiteral("headview.svg"));
    VERIFY_WRITTEN(w.fileActions()->exportHeadView(svg));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(file.readAll()).contains(QStringLiteral("Layer 2 ·")));
    // The main layer chooser moves it.
    auto* layerBox = w.findChild<QComboBox*>(QStringLiteral("layerBox"));
    layerBox->setCurrentIndex(2);
    emit layerBox->activated(2);
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(heads->layer(), 2);
    // A layer picked in the head view stays, through an edit, while the window shows the same layer.
    auto* ownLayer = heads->findChild<QComboBox*>(QStringLiteral("headViewLayerBox"));
    ownLayer->setCurrentIndex(0);
    emit ownLayer->activated(0);
    QCOMPARE(heads->layer(), 0);
    QVERIFY(doc().setCell(ui::MatrixId::Query, 0, 0, 2.0));
    QVERIFY(doc().waitForModel(60000));
    QCoreApplication::processEvents();
    QCOMPARE(heads->layer(), 0);
    QCOMPARE(doc().shownLayer(), 2);
    // One head shown alone follows the window's head (and layer); all heads overlaid stay overlaid.
    auto* ownHead = heads->findChild<QComboBox*>(QStringLiteral("headViewHeadBox"));
    ownHead->setCurrentIndex(2);
    emit ownHead->activated(2);
    QCOMPARE(heads->head(), 1);
    w.viewState()->setHead(3);
    QCOMPARE(heads->head(), 3);
    QCOMPARE(heads->layer(), 2);
    QCOMPARE(heads->shownHeads(), std::vector<int>{3});
    ownHead->setCurrentIndex(0);
    emit ownHead->activated(0);
    w.viewState()->setHead(0);
    QCOMPARE(heads->head(), -1);
    QCOMPARE(heads->shownHeads(), (std::vector<int>{0, 1, 2, 3}));
}

void TestModelWindow::anOverflowingPassSaysSoInsteadOfRanking()
{
    openModel();
    ui::MainWindow& w = *m_window;
    doc().setShownLayer(1);
    QVERIFY(doc().waitForModel(60000));
    // Values float32 holds whose products do not: v = x·W_V + b_V overflows, and every later token with it.
    ui::MatrixTableModel* wv = w.matrixEditor()->tableModel(ui::MatrixId::Value);
    QVERIFY(wv->setData(wv->index(0, 0), QStringLiteral("3.4e38"), Qt::EditRole));
    QVERIFY(wv->setData(wv->index(32, 0), QStringLiteral("3.4e38"), Qt::EditRole));
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->prediction().overflowLayer, std::optional<int>(1));
    QVERIFY(doc().modelSession()->prediction().entries.empty());
    const QString status = w.predictionPanel()->status();
    QVERIFY2(status.contains(QStringLiteral("overflowed float32 in layer 2")), qPrintable(status));
    QVERIFY(!w.predictionPanel()->table()->isVisibleTo(w.predictionPanel()));
    // Undone, the candidates come back.
    doc().undoStack()->undo();
    doc().undoStack()->undo();
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(!doc().modelSession()->prediction().overflowLayer);
    QCOMPARE(int(doc().modelSession()->prediction().entries.size()), 10);
    QVERIFY(w.predictionPanel()->table()->isVisibleTo(w.predictionPanel()));
    QVERIFY(!w.predictionPanel()->table()->item(0, 2)->text().contains(QStringLiteral("NaN")));
}

void TestModelWindow::exportsAndSlidesShowTheShownLayer()
{
    openModel();
    ui::MainWindow& w = *m_window;
    doc().setShownLayer(1);
    QVERIFY(doc().waitForModel(60000));
    w.viewState()->setHead(2);
    const QString png = m_dir.filePath(QStringLiteral("layer2.png"));
    VERIFY_WRITTEN(w.exportHeatmap(png));
    QVERIFY(QImage(png).width() > 100);
    // Every slide says which model and layer; those of a head say which head.
    const auto trace = doc().trace();
    QVERIFY(trace);
    const std::vector<render::Slide> slides = ui::buildSlides(*trace, 2, 0);
    QVERIFY(!slides.empty());
    for (const render::Slide& s : slides)
        QVERIFY2(s.title.startsWith(QStringLiteral("tiny-gpt2 · layer 2 of 3 · ")), qPrintable(s.title));
    QVERIFY(std::any_of(slides.begin(), slides.end(),
                        [](const render::Slide& s) { return s.title.contains(QStringLiteral("head 3")); }));
    QVERIFY(slides.front().formula.contains(QStringLiteral("LayerNorm(residual stream entering layer 2)")));
}

QTEST_MAIN(TestModelWindow)
void TestModelWindow::aNewTextOfTheShownLayerRereadsOnlyX()
{
    openModel();
    ui::MainWindow& w = *m_window;
    ui::MatrixTableModel* wq = w.matrixEditor()->tableModel(ui::MatrixId::Query);
    ui::MatrixTableModel* x = w.matrixEditor()->tableModel(ui::MatrixId::Embeddings);
    // An edit in layer 1, then layer 2 shown: its X comes from the pass with that edit.
    QVERIFY(doc().setCell(ui::MatrixId::Query, 1, 2, 2.5));
    QVERIFY(doc().waitForModel(60000));
    std::vector<ui::ModelChange> seen;
    const auto watch =
        connect(&doc(), &ui::Document::modelChanged, this, [&](const ui::ModelChange& c) { seen.push_back(c); });
    doc().setShownLayer(1);
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(!seen.empty());
    QCOMPARE(int(seen.back().kind), int(ui::ModelChange::Kind::Model));  // another layer: anything changed
    // An edit of the shown layer, then a new text: the same layer's weights, with that edit, new tokens and X.
    QVERIFY(doc().setCell(ui::MatrixId::Key, 0, 1, -1.25));
    QVERIFY(doc().waitForModel(60000));
    QSignalSpy wqChanged(wq, &QAbstractItemModel::dataChanged), wqReset(wq, &QAbstractItemModel::modelReset);
    QSignalSpy xReset(x, &QAbstractItemModel::modelReset);
    seen.clear();
    QVERIFY(doc().setTokenText(QStringLiteral("The cat sat on the mat, and then it slept.")));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(!seen.empty());
    QCOMPARE(int(seen.back().kind), int(ui::ModelChange::Kind::Tokens));
    QCOMPARE(wqChanged.count() + wqReset.count(), 0);  // W_Q's table read nothing again
    QCOMPARE(xReset.count(), 1);                        // X has new rows
    QCOMPARE(x->rowCount(), doc().model().n());
    const auto sameAsFresh = [&](const char* file) {
        const QString path = m_dir.filePath(QString::fromLatin1(file));
        QString error;
        if (!w.saveFile(path, &error))
            return false;
        core::AttentionModel expected = freshComputation(path, 0).layer;
        for (std::string& token : expected.tokens)
            token = core::readableToken(token);
        return doc().model() == expected;
    };
    QVERIFY(sameAsFresh("newtext.json"));
    // Every edit reset (the text stays): the tokens are the same, X moved with the edit of layer 1.
    seen.clear();
    QVERIFY(doc().resetAll());
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(!seen.empty());
    QCOMPARE(int(seen.back().kind), int(ui::ModelChange::Kind::Matrix));
    QVERIFY(seen.back().isValuesOf(ui::MatrixId::Embeddings));
    QVERIFY(sameAsFresh("reset.json"));
    disconnect(watch);
}

void TestModelWindow::thePredictionTableChangesInOneStep()
{
    openModel();
    QTableWidget* table = m_window->predictionPanel()->table();
    QSignalSpy predictions(&doc(), &ui::Document::predictionChanged);
    QSignalSpy cells(table->model(), &QAbstractItemModel::dataChanged);
    QVERIFY(doc().setTokenText(QStringLiteral("A dog ran far away.")));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(predictions.count() >= 1);
    // One change of the whole table per prediction (told of each cell, the view measured all of them again).
    QCOMPARE(cells.count(), predictions.count());
    const QModelIndex first = cells.back().at(0).toModelIndex(), last = cells.back().at(1).toModelIndex();
    QCOMPARE(first.row(), 0);
    QCOMPARE(first.column(), 0);
    QCOMPARE(last.row(), table->rowCount() - 1);
    QCOMPARE(last.column(), table->columnCount() - 1);
    // And it shows the new prediction.
    const ui::Prediction& p = doc().modelSession()->prediction();
    QCOMPARE(int(p.entries.size()), table->rowCount());
    for (int r = 0; r < table->rowCount(); ++r)
        QCOMPARE(table->item(r, 1)->text(), QString::fromStdString(p.entries[std::size_t(r)].token));
}

void TestModelWindow::aNewTextWithEditsShowsTheEditedPassFirst()
{
    // With edits, a new text runs GPT-2 twice: the edited pass is shown as soon as it is done, its Change column
    // waiting ("…"), and the comparison with the checkpoint without edits follows. An edit alone (the pass
    // without edits is up to date) comes in one step.
    openModel();
    QTableWidget* table = m_window->predictionPanel()->table();
    struct Seen {
        ui::Prediction prediction;
        QStringList changes;
    };
    std::vector<Seen> seen;
    const auto watch = connect(&doc(), &ui::Document::predictionChanged, this, [&] {
        Seen s{doc().modelSession()->prediction(), {}};
        for (int r = 0; r < table->rowCount(); ++r)
            s.changes << table->item(r, 3)->text();
        seen.push_back(s);
    });
    QVERIFY(doc().setCell(ui::MatrixId::Query, 0, 0, 6.5));
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(int(seen.size()), 1);
    QVERIFY(!seen[0].prediction.comparing);
    QVERIFY(!seen[0].changes.contains(QStringLiteral("…")));

    seen.clear();
    QVERIFY(doc().setTokenText(QStringLiteral("A dog ran far away.")));
    doc().endTypingBurst();
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(int(seen.size()), 2);
    const ui::Prediction& shown = seen[0].prediction;
    const ui::Prediction& compared = seen[1].prediction;
    QVERIFY(shown.edited && shown.comparing);
    QVERIFY(compared.edited && !compared.comparing);
    QCOMPARE(seen[0].changes, QStringList(10, QStringLiteral("…")));
    QVERIFY(!seen[1].changes.contains(QStringLiteral("…")));
    // The comparison changes nothing of the edited pass's entries ...
    QCOMPARE(compared.entries.size(), shown.entries.size());
    for (std::size_t i = 0; i < shown.entries.size(); ++i) {
        QCOMPARE(compared.entries[i].id, shown.entries[i].id);
        QCOMPARE(compared.entries[i].probability, shown.entries[i].probability);
    }
    // ... and its probabilities without the edits are those of a fresh pass over the checkpoint.
    const auto plain = checkpointPass("A dog ran far away.");
    QVERIFY(plain);
    std::vector<int> ids;
    for (const ui::Prediction::Entry& e : compared.entries)
        ids.push_back(e.id);
    const std::vector<double> without = core::candidateProbabilities(plain->logits(), ids);
    bool moved = false;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        QVERIFY(std::abs(compared.entries[i].unedited - without[i]) <= 1e-12);
        moved = moved || std::abs(compared.entries[i].unedited - compared.entries[i].probability) > 1e-9;
    }
    QVERIFY(moved);  // the edit moved the prediction: the comparison is not the edited pass again
    disconnect(watch);
}

void TestModelWindow::theComparisonFollowsInTheSameJob_data()
{
    QTest::addColumn<bool>("blocking");
    QTest::addRow("with the event loop") << false;
    QTest::addRow("waited for without one") << true;
}

void TestModelWindow::theComparisonFollowsInTheSameJob()
{
    // A new text with edits: one job runs both passes. The edited pass comes first (comparing, with the shown
    // layer and the grid), then the comparison (no layer again, the same grid). Waited for without an event loop,
    // the first result cannot come on its own: it is delivered before the last, in order, and never after it.
    QFETCH(bool, blocking);
    std::string error;
    const auto checkpoint = core::Gpt2Checkpoint::load(m_folder.toStdString(), error);
    QVERIFY2(checkpoint, error.c_str());
    auto forward = std::make_shared<core::Gpt2Forward>(checkpoint);
    QVERIFY(forward->setTokens(checkpoint->tokenizer().encode("The cat sat."), error));
    forward->run();
    ui::ModelRunner::Request request;
    request.ids = checkpoint->tokenizer().encode("A dog ran far away.");
    request.edits = {{0, core::ModelWeight::Query, 0, 0, 6.5f}, {1, core::ModelWeight::Value, 2, 3, -4.0f}};
    request.layer = 1;
    request.wantLayer = true;
    request.modelName = "tiny";
    std::vector<ui::ModelRunResult> got;
    ui::ModelRunner runner([&] { return request; }, [&](ui::ModelRunResult r) { got.push_back(std::move(r)); });
    runner.reset(forward);
    runner.request();
    if (blocking)
        runner.finish();
    else
        QTRY_VERIFY_WITH_TIMEOUT(!runner.isPending(), 60000);
    QCoreApplication::processEvents();  // a first result still on its way would come now: it must not
    QCOMPARE(runner.jobsStarted(), quint64(1));
    QCOMPARE(int(got.size()), 2);
    const ui::ModelRunResult& first = got.front();
    const ui::ModelRunResult& last = got.back();
    QVERIFY(last.prediction.edited && !last.prediction.comparing);
    QVERIFY(last.grid);
    QVERIFY(first.prediction.edited && first.prediction.comparing);
    QVERIFY(first.layer && first.validatedLayer);
    QCOMPARE(first.layer->origin->layer, 2);
    QVERIFY(!last.layer && !last.validatedLayer);
    QCOMPARE(last.grid.get(), first.grid.get());
    QCOMPARE(last.prediction.entries.size(), first.prediction.entries.size());
    for (std::size_t i = 0; i < first.prediction.entries.size(); ++i)
        QCOMPARE(last.prediction.entries[i].probability, first.prediction.entries[i].probability);
    // The comparison is a fresh pass over the checkpoint's weights.
    const auto plain = checkpointPass("A dog ran far away.");
    QVERIFY(plain);
    std::vector<int> ids;
    for (const ui::Prediction::Entry& e : last.prediction.entries)
        ids.push_back(e.id);
    const std::vector<double> without = core::candidateProbabilities(plain->logits(), ids);
    for (std::size_t i = 0; i < ids.size(); ++i)
        QVERIFY(std::abs(last.prediction.entries[i].unedited - without[i]) <= 1e-12);
}

#include "tst_modelwindow.moc"
