/** The explorer window, driven like a user: typing tokens, editing weights, undo, options, files, drops. */

#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "dialoganswer.h"
#include "testutil.h"
#include "ui/document/document.h"
#include "ui/document/viewstate.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/views/heatmap/heatmapcanvas.h"
#include "ui/views/heatmap/heatmapwidget.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/steps/optionspanel.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/steps/tokenbar.h"
#include "ui/views/widgets/tokenchips.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QClipboard>
#include <QCheckBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QInputMethodEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPaintEvent>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

using testutil::mat;
using ui::MatrixId;

namespace {

/** Answers the next modal message box with button. */
void answerNextMessageBox(QMessageBox::StandardButton button)
{
    QTimer::singleShot(0, [button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (box && box->button(button))
            box->button(button)->click();
    });
}

/** Counts the paint events each widget gets, and the layout requests of one widget (the window). */
class PaintCounter : public QObject {
public:
    explicit PaintCounter(QWidget* window) : m_window(window) { qApp->installEventFilter(this); }
    ~PaintCounter() override { qApp->removeEventFilter(this); }
    QHash<const QObject*, int> paints;
    QHash<const QObject*, QRegion> exposed;  ///< what the paint events asked for
    int windowLayouts = 0;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Paint) {
            ++paints[watched];
            exposed[watched] += static_cast<QPaintEvent*>(event)->region();
        }
        else if (event->type() == QEvent::LayoutRequest && watched == m_window)
            ++windowLayouts;
        return false;
    }

private:
    QWidget* m_window;
};

/** "QTabBar qt_tabwidget_tabbar < QTabWidget < …": a widget and the widgets it sits in, for a message. */
QString widgetPath(const QObject* o)
{
    QStringList parts;
    for (; o; o = o->parent())
        parts << QString::fromLatin1(o->metaObject()->className()) + QLatin1Char(' ') + o->objectName();
    return parts.join(QStringLiteral(" < "));
}

/** "w0 w1 … w(n−1)": n tokens. */
QString numberedWords(int n)
{
    QStringList words;
    for (int i = 0; i < n; ++i)
        words << QStringLiteral("w%1").arg(i);
    return words.join(QLatin1Char(' '));
}

/** The pixels the window shows where widget is (its backing store, as painted so far). */
QImage shownPixels(QWidget* widget)
{
    const QPoint at = widget->mapTo(widget->window(), QPoint(0, 0));
    return widget->screen()
        ->grabWindow(widget->window()->winId(), at.x(), at.y(), widget->width(), widget->height())
        .toImage()
        .convertToFormat(QImage::Format_RGB32);
}

using testutil::writeText;

void dropFile(QWidget* target, const QString& path)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint at = target->rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
}

/** Presses every binding the platform has for key (Ctrl+Y and Ctrl+Shift+Z both redo on some) on the focus widget,
 *  the way a user's key goes: through the shortcut override, then the window's shortcuts, then the widget. */
void pressStandardKey(QKeySequence::StandardKey key, int binding = 0)
{
    const QList<QKeySequence> keys = QKeySequence::keyBindings(key);
    QVERIFY(binding < keys.size());
    QTest::keySequence(QApplication::focusWidget(), keys[binding]);
}

/** The submenu of File titled title ("Open &Recent"), filled as when it opens. */
QMenu* fileSubmenu(ui::MainWindow& w, const QString& title)
{
    QMenu* file = w.menuBar()->actions().value(0)->menu();
    for (QAction* a : file->actions())
        if (a->menu() && a->text() == title) {
            emit a->menu()->aboutToShow();
            return a->menu();
        }
    return nullptr;
}

/** The entry of a recent menu for path, or null. */
QAction* recentEntry(QMenu* menu, const QString& path)
{
    for (QAction* a : menu->actions())
        if (a->statusTip() == path)
            return a;
    return nullptr;
}

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();

    void typingTokensChangesTheHeatmap();
    void chineseGivesOneTokenPerCharacter();
    void emptyTextIsRefusedInline();
    void lineFollowsUndoWithoutMovingTheCursor();
    void chipClickSelectsTheQuery();
    void everyChipCanBeScrolledToAndChosen();
    void editingWQChangesEveryStep();
    void aCellEditRepaintsOnlyWhatShowsIt();
    void anEditShowsWhatAWholePaintWould();
    void undoRestoresEveryMatrixAndRedoReplays();
    void undoShortcutAndModifiedMark();
    void undoKeysInTheTokenLineUndoTheDocument();
    void contextMenuUndoInTheTokenLineUndoesTheDocument();
    void undoKeysInAnOptionBoxUndoTheDocument();
    void undoKeysInACellEditorUndoItsTyping();
    void optionsAreLiveAndOneStepEach();
    void sliderDragIsOneUndoStep();
    void refusedDimensionsAreShown();
    void saveThenOpenReproducesTheSession();
    void aSavedFileKeepsTheChosenHeadAndQuery();
    void droppedFileOpens();
    void brokenFileLeavesTheDocumentUntouched();
    void aRecentEntryThatIsGoneLeavesTheList();
    void unsavedChangesPrompt();
    void presetsAndStatusBar();
    void logScaleSaysWhatItCannotPlace();
    void exportsSayWhatTheLogScaleCouldNotPlace();
    void exportWritesTheShownFigure();
    void layoutIsRestored();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

/** Scores of a log colour scale with cells at 0 and below: the status bar says how many and how they are drawn. */
void TestMainWindow::logScaleSaysWhatItCannotPlace()
{
    ui::MainWindow& w = *m_window;
    // One dimension, Q = K = X = (1, −1): the scores are [[1, −1], [−1, 1]], two of them below 0.
    const QString path = m_dir.filePath(QStringLiteral("signs.json"));
    QVERIFY(writeText(path, "{\"format\": \"attention-explorer-session\", \"version\": 1, \"tokens\": [\"a\", \"b\"], "
                            "\"embeddings\": [[1], [-1]], \"weights\": {\"query\": [[1]], \"key\": [[1]], \"value\": [[1]]}, "
                            "\"options\": {\"scale\": false}}"));
    QString error;
    QVERIFY2(w.openFile(path, &error), qPrintable(error));
    w.viewState()->setHeatmapStep(core::Step::Scores);
    QVERIFY(w.document()->waitForTrace(10000));
    w.heatmap()->setColourRange(render::ColourRange::Log);
    QTRY_COMPARE(w.statusBar()->currentMessage(), render::logScaleNote(2));
    QVERIFY(w.statusBar()->currentMessage().startsWith(QStringLiteral("2 cells")));
    w.heatmap()->setColourRange(render::ColourRange::Fixed);
}

/** File › Export Heatmap, Overview, Report and Handout with the log colour range: a finished export whose heatmaps
 *  had cells at 0 or below says the command line's note of them in the status bar; any other says what it wrote. */
void TestMainWindow::exportsSayWhatTheLogScaleCouldNotPlace()
{
    ui::MainWindow& w = *m_window;
    auto session = [this](const QString& name, const char* embeddings) {
        const QString path = m_dir.filePath(name);
        const QByteArray text = QByteArray("{\"format\": \"attention-explorer-session\", \"version\": 1, "
                                           "\"tokens\": [\"a\", \"b\"], \"embeddings\": ")
            + embeddings
            + ", \"weights\": {\"query\": [[1]], \"key\": [[1]], \"value\": [[1]]}, \"options\": {\"scale\": false}}";
        return writeText(path, text) ? path : QString();
    };
    // Scores ±900: the weights of a token to the other are exactly 0, as are the scores below 0 in the report.
    const QString zeros = session(QStringLiteral("zero-weights.json"), "[[30], [-30]]");
    // Scores 1, 2, 2, 4: every heatmap positive.
    const QString positive = session(QStringLiteral("positive.json"), "[[1], [2]]");
    QVERIFY(!zeros.isEmpty() && !positive.isEmpty());
    w.viewState()->setHeatmapStep(core::Step::Weights);
    w.heatmap()->setColourRange(render::ColourRange::Log);
    struct Export {
        const char* action;
        const char* file;
        const char* done;
        bool oneHeatmap;
    };
    const Export exports[] = {{"exportHeatmapAction", "heatmap.png", "Exported %1", true},
                              {"exportOverviewAction", "overview.svg", "Exported %1", false},
                              {"exportReportAction", "report.pdf", "Wrote the report %1", false},
                              {"exportHandoutAction", "handout.pdf", "Wrote the handout %1", false}};
    for (const QString& path : {zeros, positive}) {
        QString error;
        QVERIFY2(w.openFile(path, &error), qPrintable(error));
        QVERIFY(w.document()->waitForTrace(10000));
        // What each export's heatmaps hold at 0 or below: the weights' two zeros in the heatmap, the overview
        // and the handout; those and the scores' and scaled scores' two negatives in the report.
        const bool hasZeros = path == zeros;
        for (const Export& e : exports) {
            const Eigen::Index cells = !hasZeros ? 0 : std::strcmp(e.file, "report.pdf") == 0 ? 6 : 2;
            // A name of its own for each session: no box asks whether to replace the file.
            const QString file = QFileInfo(path).baseName() + QLatin1Char('-') + QString::fromLatin1(e.file);
            const QString done = QString::fromUtf8(e.done).arg(file);
            const QString note = e.oneHeatmap ? render::logScaleNote(cells) : render::logScaleNoteOfHeatmaps(cells);
            w.statusBar()->clearMessage();
            const QStringList errors =
                testutil::triggerAnswering(w.findChild<QAction*>(QLatin1String(e.action)), m_dir.filePath(file));
            QVERIFY2(errors.isEmpty(), qPrintable(errors.join(QLatin1Char('\n'))));
            QVERIFY(QFileInfo::exists(m_dir.filePath(file)));
            QCOMPARE(w.statusBar()->currentMessage(), hasZeros ? note : done);
        }
        // Copy Heatmap Image says it too, of the one heatmap it copies.
        w.statusBar()->clearMessage();
        w.findChild<QAction*>(QLatin1String("copyHeatmapAction"))->trigger();
        QVERIFY(!QGuiApplication::clipboard()->image().isNull());
        if (hasZeros)
            QCOMPARE(w.statusBar()->currentMessage(), render::logScaleNote(2));
        else
            QVERIFY(w.statusBar()->currentMessage().startsWith(QLatin1String("Copied the heatmap")));
    }
    w.heatmap()->setColourRange(render::ColourRange::Fixed);
}

void TestMainWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QCoreApplication::setApplicationVersion(QStringLiteral("9.8.7"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestMainWindow::init()
{
    QSettings().clear();
    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    m_window->document()->waitForTrace();
}

void TestMainWindow::cleanup()
{
    if (m_window)
        m_window->document()->undoStack()->setClean();
    m_window.reset();
}

void TestMainWindow::typingTokensChangesTheHeatmap()
{
    ui::MainWindow& w = *m_window;
    QLineEdit* line = w.tokenBar()->lineEdit();
    QCOMPARE(w.heatmap()->figureData().values.rows(), 3);

    line->setFocus();
    line->selectAll();
    QTest::keyClicks(line, QStringLiteral("the cat sat on the mat"));
    w.document()->waitForTrace();
    const QStringList expected = {QStringLiteral("the"), QStringLiteral("cat"), QStringLiteral("sat"),
                                  QStringLiteral("on"),  QStringLiteral("the"), QStringLiteral("mat")};
    QTRY_COMPARE(w.heatmap()->figureData().values.rows(), 6);
    QCOMPARE(w.heatmap()->figureData().values.cols(), 6);
    QCOMPARE(w.heatmap()->figureData().rowLabels, expected);
    QCOMPARE(w.heatmap()->figureData().colLabels, expected);
    QCOMPARE(w.tokenBar()->chips()->tokens(), expected);
    QCOMPARE(w.document()->tokenText(), line->text());

    // One more word: one more row and column, and the chip shows up with its index.
    QTest::keyClicks(line, QStringLiteral(" today"));
    w.document()->waitForTrace();
    QTRY_COMPARE(w.heatmap()->figureData().values.rows(), 7);
    QCOMPARE(w.heatmap()->figureData().rowLabels.last(), QStringLiteral("today"));
    QVERIFY(!w.tokenBar()->chips()->chipRect(6).isEmpty());
}

void TestMainWindow::chineseGivesOneTokenPerCharacter()
{
    ui::MainWindow& w = *m_window;
    QLineEdit* line = w.tokenBar()->lineEdit();
    line->setFocus();
    line->clear();

    // An input method commits the sentence in one go.
    const QString sentence = QStringLiteral("注意力机制很有趣");
    QInputMethodEvent commit;
    commit.setCommitString(sentence);
    QApplication::sendEvent(line, &commit);
    QCOMPARE(line->text(), sentence);
    w.document()->waitForTrace();
    QTRY_COMPARE(w.heatmap()->figureData().values.rows(), int(sentence.size()));
    QStringList characters;
    for (const QChar c : sentence)
        characters << QString(c);
    QCOMPARE(w.heatmap()->figureData().rowLabels, characters);
    QCOMPARE(w.tokenBar()->chips()->tokens(), characters);

    // A key press that carries a character (no key code) appends one more token.
    QTest::sendKeyEvent(QTest::Click, line, Qt::Key_unknown, QStringLiteral("。"), Qt::NoModifier);
    w.document()->waitForTrace();
    QTRY_COMPARE(w.heatmap()->figureData().values.rows(), int(sentence.size()) + 1);
    QCOMPARE(w.heatmap()->figureData().rowLabels.last(), QStringLiteral("。"));
}

void TestMainWindow::emptyTextIsRefusedInline()
{
    ui::MainWindow& w = *m_window;
    QLineEdit* line = w.tokenBar()->lineEdit();
    const int steps = w.document()->undoStack()->count();
    const core::AttentionModel before = w.document()->model();
    line->setFocus();
    line->selectAll();
    QTest::keyClick(line, Qt::Key_Backspace);
    QCOMPARE(line->text(), QString());
    QVERIFY(!w.tokenBar()->message().isEmpty());
    QCOMPARE(w.document()->undoStack()->count(), steps);
    QVERIFY(w.document()->model() == before);
    QVERIFY(w.heatmap()->hasFigure());

    QTest::keyClicks(line, QStringLiteral("x"));
    QVERIFY(w.tokenBar()->message().isEmpty());
    QCOMPARE(w.document()->model().n(), 1);
}

void TestMainWindow::lineFollowsUndoWithoutMovingTheCursor()
{
    ui::MainWindow& w = *m_window;
    QLineEdit* line = w.tokenBar()->lineEdit();
    line->setFocus();
    line->selectAll();
    QTest::keyClicks(line, QStringLiteral("a b d"));
    line->setCursorPosition(4);
    QTest::keyClicks(line, QStringLiteral("c "));
    QCOMPARE(line->text(), QStringLiteral("a b c d"));
    QCOMPARE(line->cursorPosition(), 6);
    QCOMPARE(w.document()->model().n(), 4);

    // A burst of typing is one undo step; the line follows the document both ways.
    const QString original = QStringLiteral("Input 1 Input 2 Input 3");
    w.document()->undoStack()->undo();
    QCOMPARE(w.document()->tokenText(), original);
    QCOMPARE(line->text(), original);
    w.document()->undoStack()->redo();
    QCOMPARE(line->text(), QStringLiteral("a b c d"));
    QCOMPARE(w.tokenBar()->chips()->tokens().size(), 4);
}

void TestMainWindow::chipClickSelectsTheQuery()
{
    ui::MainWindow& w = *m_window;
    ui::TokenChips* chips = w.tokenBar()->chips();
    QTRY_VERIFY(!chips->chipRect(2).isEmpty());
    QTest::mouseClick(chips, Qt::LeftButton, Qt::NoModifier, chips->chipRect(2).center());
    QCOMPARE(w.viewState()->selectedQuery(), 2);
    QCOMPARE(chips->selected(), 2);
    QCOMPARE(w.heatmap()->canvas()->renderer()->style().selectedRow, 2);
}

/** A long text's chips scroll: the last one can be brought into view and chosen as the query (the chips once
 *  stopped at about 49, the rest cut off with no scroll bar). */
void TestMainWindow::everyChipCanBeScrolledToAndChosen()
{
    ui::MainWindow& w = *m_window;
    QStringList words;
    for (int i = 0; i < 300; ++i)
        words << QStringLiteral("w%1").arg(i);
    QVERIFY(w.document()->setTokenText(words.join(QLatin1Char(' '))));
    w.document()->waitForTrace();
    ui::TokenChips* chips = w.tokenBar()->chips();
    QTRY_COMPARE(chips->tokens().size(), 300);
    auto* scroll = qobject_cast<QScrollArea*>(chips->parentWidget()->parentWidget());
    QVERIFY(scroll);
    QTRY_VERIFY(!chips->chipRect(299).isEmpty());
    const QRect last = chips->chipRect(299);
    QVERIFY2(last.bottom() < chips->height(),
             qPrintable(QStringLiteral("the last chip at %1 below the chips' %2").arg(last.bottom()).arg(chips->height())));
    QVERIFY(scroll->verticalScrollBar()->maximum() > 0);
    scroll->ensureVisible(last.center().x(), last.center().y());
    QCoreApplication::processEvents();
    const QPoint inViewport = chips->mapTo(scroll->viewport(), last.center());
    QVERIFY(scroll->viewport()->rect().contains(inViewport));
    QTest::mouseClick(chips, Qt::LeftButton, Qt::NoModifier, last.center());
    QCOMPARE(w.viewState()->selectedQuery(), 299);
    w.document()->undoStack()->setClean();
}

void TestMainWindow::editingWQChangesEveryStep()
{
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    QVERIFY(doc->setCell(MatrixId::Query, 0, 0, 2.0));
    doc->waitForTrace();
    const core::HeadTrace& h = doc->trace()->heads.at(0);

    // W_Q = [[2,0,1],[1,0,0],[0,0,1],[0,1,1]], X = [[1,0,1,0],[0,2,0,2],[1,1,1,1]]:
    // q₁ = 1·[2,0,1] + 1·[0,0,1] = [2,0,2]
    // q₂ = 2·[1,0,0] + 2·[0,1,1] = [2,2,2]
    // q₃ = [2,0,1] + [1,0,0] + [0,0,1] + [0,1,1] = [3,1,3]
    QCOMPARE(testutil::matrixDifference(h.queries, mat({{2, 0, 2}, {2, 2, 2}, {3, 1, 3}}), 0), QByteArray());
    // K is unchanged: [[0,1,1],[4,4,0],[2,3,1]].
    // score(1,·) = [2·0+0·1+2·1, 2·4+0·4+2·0, 2·2+0·3+2·1] = [2, 8, 6]
    // score(2,·) = [0+2+2, 8+8+0, 4+6+2]               = [4, 16, 12]
    // score(3,·) = [0+1+3, 12+4+0, 6+3+3]              = [4, 16, 12]
    QCOMPARE(testutil::matrixDifference(h.scores, mat({{2, 8, 6}, {4, 16, 12}, {4, 16, 12}}), 0), QByteArray());
    // No scaling in the worked example: softmax of each row, written against the row maximum.
    const double s1 = 1 + std::exp(-6.0) + std::exp(-2.0);  // row [2,8,6] − 8 = [−6, 0, −2]
    const double s2 = 1 + std::exp(-12.0) + std::exp(-4.0);  // row [4,16,12] − 16 = [−12, 0, −4]
    const core::Matrix weights = mat({{std::exp(-6.0) / s1, 1 / s1, std::exp(-2.0) / s1},
                                      {std::exp(-12.0) / s2, 1 / s2, std::exp(-4.0) / s2},
                                      {std::exp(-12.0) / s2, 1 / s2, std::exp(-4.0) / s2}});
    QCOMPARE(testutil::matrixDifference(h.weights, weights, 1e-12), QByteArray());
    QVERIFY(std::abs(weights(0, 1) - 0.878878) < 1e-6);
    // outputs(i) = Σ_j w_ij · v_j with V = [[1,2,3],[2,8,0],[2,6,3]] (unchanged).
    core::Matrix outputs(3, 3);
    for (int i = 0; i < 3; ++i) {
        const double a = weights(i, 0), b = weights(i, 1), c = weights(i, 2);
        outputs(i, 0) = a * 1 + b * 2 + c * 2;
        outputs(i, 1) = a * 2 + b * 8 + c * 6;
        outputs(i, 2) = a * 3 + b * 0 + c * 3;
    }
    QCOMPARE(testutil::matrixDifference(h.outputs, outputs, 1e-12), QByteArray());
    QVERIFY(std::abs(outputs(0, 1) - (2 * 0.0021785 + 8 * 0.878878 + 6 * 0.118943)) < 1e-4);

    // The heatmap shows the new weights.
    QCOMPARE(testutil::matrixDifference(w.heatmap()->figureData().values, weights, 1e-12), QByteArray());
}

void TestMainWindow::aCellEditRepaintsOnlyWhatShowsIt()
{
    // An edit of one cell of X reaches that cell of the matrix editor and every figure of the trace. The tokens, the
    // options, the matrices' tabs and tools show nothing of it: they are not painted again, and the window is not
    // laid out again (which starts an animation of every dock). 100 tokens: the steps are thumbnails, whose size
    // does not follow their numbers (a table's columns do).
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    QVERIFY(doc->setTokenText(numberedWords(100)));
    doc->waitForTrace();
    auto* canvas = w.heatmap()->canvas();
    auto* matrices = w.findChild<QDockWidget*>(QStringLiteral("matricesDock"));
    auto* table = w.findChild<QAbstractScrollArea*>(QStringLiteral("matrix_embeddings"));
    QVERIFY(matrices && table);
    const QWidget* cells = table->viewport();
    const auto inQuietDock = [](const QObject* painted) {
        for (const QObject* o = painted; o; o = o->parent()) {
            const QString name = o->objectName();
            if (name == QLatin1String("tokensDock") || name == QLatin1String("optionsDock")
                || name == QLatin1String("matricesDock"))
                return true;
        }
        return false;
    };
    // Nothing else repaints those docks meanwhile: no text cursor blinks, and the new tokens are laid out.
    if (QWidget* focus = QApplication::focusWidget())
        focus->clearFocus();
    for (int wait = 0; wait < 20; ++wait) {
        PaintCounter before(&w);
        QTest::qWait(250);
        const QList<const QObject*> painted = before.paints.keys();
        if (std::none_of(painted.begin(), painted.end(), inQuietDock))
            break;
    }
    for (int edit = 0; edit < 3; ++edit) {
        PaintCounter counter(&w);
        QVERIFY(doc->setCell(MatrixId::Embeddings, edit, 1, 5.0 + edit));
        doc->waitForTrace();
        QTRY_VERIFY(counter.paints.contains(canvas));
        QTest::qWait(100);  // anything painted later than the heatmap
        QVERIFY2(counter.paints.contains(cells), "the edited cell was not painted");
        QCOMPARE(counter.windowLayouts, 0);
        for (auto it = counter.paints.cbegin(); it != counter.paints.cend(); ++it) {
            const QObject* painted = it.key();
            bool inCells = false;
            for (const QObject* o = painted; o; o = o->parent())
                inCells = inCells || o == cells;
            QVERIFY2(!inQuietDock(painted) || inCells,
                     qPrintable(QStringLiteral("painted after a cell edit: ") + widgetPath(painted)));
        }
    }
}

void TestMainWindow::anEditShowsWhatAWholePaintWould()
{
    // New values that move the legend (the scores' range) repaint the whole heatmap; new values in the same layout
    // repaint only the area of its cells (the weights' legend is 0 to 1). Either way the window then shows what
    // painting the whole figure gives.
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    QVERIFY(doc->setTokenText(numberedWords(100)));
    doc->waitForTrace();
    w.resize(1280, 800);
    QTest::qWait(500);  // the docks' animations to their new places (200 ms) are over
    auto* canvas = w.heatmap()->canvas();
    for (const core::Step step : {core::Step::Scores, core::Step::Weights}) {
        w.viewState()->setHeatmapStep(step);
        QTest::qWait(200);
        PaintCounter counter(&w);
        QVERIFY(doc->setCell(MatrixId::Embeddings, 3, 1, step == core::Step::Weights ? 4.0 : 9.0));
        doc->waitForTrace();
        QTRY_VERIFY(counter.paints.contains(canvas));
        QTest::qWait(50);
        const bool whole = QRegion(canvas->rect()).subtracted(counter.exposed.value(canvas)).isEmpty();
        const QImage shown = shownPixels(canvas);
        canvas->repaint();  // the whole figure
        const QImage painted = shownPixels(canvas);
        QVERIFY2(shown == painted, qPrintable(QStringLiteral("the window shows another figure after an edit of step %1")
                                                  .arg(int(step))));
        QCOMPARE(whole, step == core::Step::Scores);
    }
}

void TestMainWindow::undoRestoresEveryMatrixAndRedoReplays()
{
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    QUndoStack* stack = doc->undoStack();
    const core::AttentionModel original = doc->model();
    const QString originalText = doc->tokenText();

    QVERIFY(doc->setCell(MatrixId::Query, 0, 0, 2.0));
    QVERIFY(doc->setCell(MatrixId::Key, 1, 2, -1.5));
    QVERIFY(doc->setCell(MatrixId::Embeddings, 2, 3, 0.25));
    QVERIFY(doc->setTokenText(QStringLiteral("a b c d")));
    core::Options o = doc->model().options;
    o.scale = true;
    o.mask = core::Mask::Causal;
    doc->setOptions(o);
    QVERIFY(doc->setDimensions(5, 2, 3, 2));
    doc->setOutputProjection(true);
    QVERIFY(doc->setCell(MatrixId::Value, 0, 1, 7.0));
    const core::AttentionModel final = doc->model();
    const int edits = stack->index();
    QCOMPARE(edits, 8);

    while (stack->canUndo())
        stack->undo();
    QVERIFY(doc->model() == original);
    for (MatrixId id : {MatrixId::Embeddings, MatrixId::Query, MatrixId::Key, MatrixId::Value})
        QCOMPARE(testutil::matrixDifference(doc->matrix(id), *ui::matrixOf(original, id), 0), QByteArray());
    QVERIFY(!doc->model().wo);
    QCOMPARE(w.tokenBar()->lineEdit()->text(), originalText);
    doc->waitForTrace();
    QCOMPARE(w.heatmap()->figureData().values.rows(), 3);

    while (stack->canRedo())
        stack->redo();
    QVERIFY(doc->model() == final);
    QCOMPARE(stack->index(), edits);
    QCOMPARE(w.tokenBar()->lineEdit()->text(), QStringLiteral("a b c d"));
    doc->waitForTrace();
    QCOMPARE(w.heatmap()->figureData().values.rows(), 4);
}

void TestMainWindow::undoShortcutAndModifiedMark()
{
    ui::MainWindow& w = *m_window;
    QVERIFY(w.windowTitle().contains(QStringLiteral("[*]")));
    QVERIFY(!w.isWindowModified());
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("Illustrated: Self-Attention")));

    QVERIFY(w.document()->setCell(MatrixId::Query, 0, 0, 5.0));
    QVERIFY(w.isWindowModified());

    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.heatmap()->canvas()->setFocus();
    QTest::keySequence(&w, QKeySequence(QKeySequence::Undo));
    QCOMPARE(w.document()->matrix(MatrixId::Query)(0, 0), 1.0);
    QVERIFY(!w.isWindowModified());
    QTest::keySequence(&w, QKeySequence(QKeySequence::Redo));
    QCOMPARE(w.document()->matrix(MatrixId::Query)(0, 0), 5.0);
    QVERIFY(w.isWindowModified());
}

void TestMainWindow::undoKeysInTheTokenLineUndoTheDocument()
{
    ui::MainWindow& w = *m_window;
    QUndoStack* stack = w.document()->undoStack();
    QLineEdit* line = w.tokenBar()->lineEdit();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::mouseClick(line, Qt::LeftButton);
    QCOMPARE(QApplication::focusWidget(), line);
    QTest::keySequence(line, QKeySequence(QKeySequence::SelectAll));
    QTest::keyClicks(line, QStringLiteral("a b"));
    QTest::keyClick(line, Qt::Key_Return);
    QTest::keyClicks(line, QStringLiteral(" c"));
    QTest::keyClick(line, Qt::Key_Return);
    QCOMPARE(w.document()->tokenText(), QStringLiteral("a b c"));
    const int steps = stack->count();

    // Undo takes back the last burst of typing, as Edit › Undo does, and keeps it for redo: the line's own
    // undo put back its text from before and sent it as a new edit, which wiped the redo history.
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(line->text(), QStringLiteral("a b"));
    QCOMPARE(w.document()->tokenText(), QStringLiteral("a b"));
    QCOMPARE(w.document()->model().n(), 2);
    QCOMPARE(stack->count(), steps);
    QVERIFY(stack->canRedo());
    for (int binding = 0; binding < QKeySequence::keyBindings(QKeySequence::Redo).size(); ++binding) {
        pressStandardKey(QKeySequence::Redo, binding);
        QCOMPARE(line->text(), QStringLiteral("a b c"));
        QCOMPARE(stack->count(), steps);
        pressStandardKey(QKeySequence::Undo);
        QCOMPARE(line->text(), QStringLiteral("a b"));
    }
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(line->text(), QStringLiteral("Input 1 Input 2 Input 3"));
    QCOMPARE(w.document()->model().n(), 3);

    // With nothing left to undo the key does nothing at all, not the line's own undo.
    while (stack->canUndo())
        stack->undo();
    const QString first = line->text();
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(line->text(), first);
    QCOMPARE(stack->count(), steps);
}

void TestMainWindow::contextMenuUndoInTheTokenLineUndoesTheDocument()
{
    ui::MainWindow& w = *m_window;
    QUndoStack* stack = w.document()->undoStack();
    QLineEdit* line = w.tokenBar()->lineEdit();
    line->setFocus();
    line->selectAll();
    QTest::keyClicks(line, QStringLiteral("a b"));
    QTest::keyClick(line, Qt::Key_Return);
    QTest::keyClicks(line, QStringLiteral(" c"));
    QTest::keyClick(line, Qt::Key_Return);
    const int steps = stack->count();

    // The line's own menu, whose Undo and Redo are the document's: its own Undo sent its older text as a new edit.
    // Opens the line's context menu and chooses the entry titled text if it is enabled; whether it was.
    const auto choose = [line](const QString& text) {
        auto chosen = std::make_shared<int>(-1);  // not shown yet
        QTimer::singleShot(0, line, [chosen, text] {
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            if (!menu)
                return;
            *chosen = 0;
            for (QAction* action : menu->actions())
                if (action->text().section(QLatin1Char('\t'), 0, 0) == text && action->isEnabled()) {
                    action->trigger();
                    *chosen = 1;
                }
            menu->close();
        });
        const QPoint at = line->rect().center();
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, line->mapToGlobal(at));
        QApplication::sendEvent(line, &event);
        for (int i = 0; i < 100 && *chosen < 0; ++i)
            QTest::qWait(10);
        return *chosen == 1;
    };
    const QString undo = QLineEdit::tr("&Undo"), redo = QLineEdit::tr("&Redo");
    QVERIFY(!choose(redo));
    QVERIFY(choose(undo));
    QCOMPARE(line->text(), QStringLiteral("a b"));
    QCOMPARE(stack->count(), steps);
    QVERIFY(choose(redo));
    QCOMPARE(line->text(), QStringLiteral("a b c"));
    QCOMPARE(w.document()->model().n(), 3);
    QCOMPARE(stack->count(), steps);
}

void TestMainWindow::undoKeysInAnOptionBoxUndoTheDocument()
{
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    auto* temperature = w.optionsPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("temperatureBox"));
    auto* dModel = w.optionsPanel()->findChild<QSpinBox*>(QStringLiteral("dModelBox"));
    QVERIFY(temperature && dModel);
    const int dModelBefore = doc->model().dModel();

    for (QAbstractSpinBox* box : std::initializer_list<QAbstractSpinBox*>{temperature, dModel}) {
        QTest::mouseClick(box, Qt::LeftButton);
        QCOMPARE(QApplication::focusWidget(), box);
        box->selectAll();
        QTest::keyClicks(box, QStringLiteral("3"));
        QTest::keyClick(box, Qt::Key_Return);
    }
    QCOMPARE(doc->model().options.temperature, 3.0);
    QCOMPARE(doc->model().dModel(), 3);

    // In the box last typed into: the first undo takes back d_model, the second the temperature.
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(doc->model().dModel(), dModelBefore);
    QCOMPARE(dModel->value(), dModelBefore);
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(doc->model().options.temperature, 1.0);
    QCOMPARE(temperature->value(), 1.0);
    pressStandardKey(QKeySequence::Redo);
    QCOMPARE(doc->model().options.temperature, 3.0);
    QCOMPARE(temperature->value(), 3.0);

    // Typed but not entered, the number is not in the document yet: undo takes back the typing, and only that.
    const int steps = doc->undoStack()->index();
    const QString shown = temperature->text();
    QTest::mouseClick(temperature, Qt::LeftButton);
    QCOMPARE(QApplication::focusWidget(), temperature);
    temperature->selectAll();
    QTest::keyClicks(temperature, QStringLiteral("7"));
    QCOMPARE(temperature->text(), QStringLiteral("7"));
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(temperature->text(), shown);
    QCOMPARE(doc->undoStack()->index(), steps);
    QCOMPARE(doc->model().options.temperature, 3.0);
    QTest::keyClick(temperature, Qt::Key_Return);
    QCOMPARE(doc->undoStack()->index(), steps);
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(doc->model().options.temperature, 1.0);
}

void TestMainWindow::undoKeysInACellEditorUndoItsTyping()
{
    // A cell being edited holds typing that is not in the document until Enter: as in a spreadsheet, undo
    // takes back that typing; once the cell is entered, undo in the table takes back the edit.
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTableView* table = w.matrixEditor()->tableView(MatrixId::Query);
    w.matrixEditor()->findChild<QTabWidget*>()->setCurrentWidget(table);
    const QModelIndex cell = table->model()->index(0, 0);
    const double before = doc->matrix(MatrixId::Query)(0, 0);
    const int steps = doc->undoStack()->count();
    table->setFocus();
    table->setCurrentIndex(cell);
    table->edit(cell);
    auto* editor = qobject_cast<QLineEdit*>(QApplication::focusWidget());
    QVERIFY(editor && table->isAncestorOf(editor));
    const QString shown = editor->text();
    QTest::keyClicks(editor, QStringLiteral("7"));
    QCOMPARE(editor->text(), QStringLiteral("7"));
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(editor->text(), shown);
    QCOMPARE(doc->undoStack()->count(), steps);
    QCOMPARE(doc->matrix(MatrixId::Query)(0, 0), before);

    editor->setText(QStringLiteral("7"));
    QTest::keyClick(editor, Qt::Key_Return);  // the delegate commits on its next turn of the event loop
    QTRY_COMPARE(doc->matrix(MatrixId::Query)(0, 0), 7.0);
    QTRY_COMPARE(QApplication::focusWidget(), table);
    pressStandardKey(QKeySequence::Undo);
    QCOMPARE(doc->matrix(MatrixId::Query)(0, 0), before);
}

void TestMainWindow::optionsAreLiveAndOneStepEach()
{
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    auto* scale = w.optionsPanel()->findChild<QCheckBox*>(QStringLiteral("scaleBox"));
    QVERIFY(scale);
    QVERIFY(!scale->isChecked());
    const int before = doc->undoStack()->count();
    scale->click();
    QVERIFY(doc->model().options.scale);
    QCOMPARE(doc->undoStack()->count(), before + 1);
    doc->waitForTrace();
    // Scores ÷ √3: the published scaled output of the worked example.
    QVERIFY(std::abs(doc->trace()->heads[0].outputs(0, 0) - 1.8639) < 1e-4);

    auto* wo = w.optionsPanel()->findChild<QCheckBox*>(QStringLiteral("outputProjectionBox"));
    wo->click();
    QVERIFY(doc->model().wo.has_value());
    doc->undoStack()->undo();
    QVERIFY(!doc->model().wo.has_value());
    QVERIFY(!wo->isChecked());
    doc->undoStack()->undo();
    QVERIFY(!scale->isChecked());
}

void TestMainWindow::sliderDragIsOneUndoStep()
{
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    auto* slider = w.optionsPanel()->findChild<QSlider*>(QStringLiteral("temperatureSlider"));
    QVERIFY(slider);
    const int before = doc->undoStack()->count();
    slider->setSliderDown(true);
    for (int p = slider->value() + 10; p <= slider->value() + 200; p += 10)
        slider->setValue(p);
    slider->setSliderDown(false);
    const double dragged = doc->model().options.temperature;
    QVERIFY(dragged > 1.0);
    QCOMPARE(doc->undoStack()->count(), before + 1);
    doc->undoStack()->undo();
    QCOMPARE(doc->model().options.temperature, 1.0);

    auto* spin = w.optionsPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("temperatureBox"));
    spin->setValue(0.5);
    QCOMPARE(doc->model().options.temperature, 0.5);
    QCOMPARE(slider->value(), ui::OptionsPanel::sliderPosition(0.5));
}

void TestMainWindow::refusedDimensionsAreShown()
{
    ui::MainWindow& w = *m_window;
    ui::Document* doc = w.document();
    auto* heads = w.optionsPanel()->findChild<QSpinBox*>(QStringLiteral("headsBox"));
    auto* dk = w.optionsPanel()->findChild<QSpinBox*>(QStringLiteral("dkBox"));
    heads->setValue(2);
    QCOMPARE(doc->model().heads(), 2);
    QCOMPARE(doc->model().dK(), 2);  // d_model / h, as changing the heads offers
    QVERIFY(w.optionsPanel()->message().isEmpty());

    const core::AttentionModel before = doc->model();
    dk->setValue(4000);  // 2 heads × 4000 columns is more than the engine accepts
    QVERIFY(!w.optionsPanel()->message().isEmpty());
    QVERIFY(doc->model() == before);
    QCOMPARE(dk->value(), 2);
}

void TestMainWindow::saveThenOpenReproducesTheSession()
{
    ui::MainWindow& w = *m_window;
    QVERIFY(w.document()->setTokenText(QStringLiteral("Attention is all you need")));
    QVERIFY(w.document()->setCell(MatrixId::Value, 1, 2, -0.125));
    const QString path = m_dir.filePath(QStringLiteral("round trip.json"));
    QString error;
    QVERIFY2(w.saveFile(path, &error), qPrintable(error));
    QVERIFY(!w.isWindowModified());
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("round trip.json")));
    QCOMPARE(w.recentFiles().value(0), path);

    ui::MainWindow other;
    QVERIFY2(other.openFile(path, &error), qPrintable(error));
    QVERIFY(other.document()->model() == w.document()->model());
    QVERIFY(other.document()->session().extras() == w.document()->session().extras());
    QCOMPARE(core::serializeSession(other.document()->plainSession()->fileSession()),
             core::serializeSession(w.document()->plainSession()->fileSession()));
    QCOMPARE(other.tokenBar()->lineEdit()->text(), w.document()->tokenText());
}

void TestMainWindow::aSavedFileKeepsTheChosenHeadAndQuery()
{
    ui::MainWindow& w = *m_window;
    QVERIFY(w.loadPreset(QStringLiteral("multi-head")));
    QTRY_VERIFY(w.document()->trace() && w.document()->trace()->model->heads() == 2);
    w.viewState()->setHead(1);
    w.viewState()->setSelectedQuery(2);
    const QString path = m_dir.filePath(QStringLiteral("view.json"));
    QString error;
    QVERIFY2(w.saveFile(path, &error), qPrintable(error));

    ui::MainWindow other;
    QVERIFY2(other.openFile(path, &error), qPrintable(error));
    QTRY_COMPARE(other.viewState()->head(), 1);
    QTRY_COMPARE(other.viewState()->selectedQuery(), 2);
    QVERIFY(!other.document()->session().extras().contains("view"));  // the window's, not the session's

    // a view that does not fit the session (a head it lacks) is left out; the rest still applies
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    nlohmann::json j = nlohmann::json::parse(file.readAll().toStdString());
    file.close();
    QCOMPARE(j["view"]["head"].get<int>(), 2);
    j["view"] = {{"head", 99}, {"query", 3}};
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QByteArray::fromStdString(j.dump()));
    file.close();
    ui::MainWindow third;
    QVERIFY2(third.openFile(path, &error), qPrintable(error));
    QTRY_COMPARE(third.viewState()->selectedQuery(), 2);
    QCOMPARE(third.viewState()->head(), 0);
}

void TestMainWindow::droppedFileOpens()
{
    ui::MainWindow& w = *m_window;
    core::Session session = *core::preset("causal-sentence");
    const QString path = m_dir.filePath(QStringLiteral("dropped.json"));
    QVERIFY(writeText(path, QByteArray::fromStdString(core::serializeSession(session))));
    QSignalSpy opened(w.document(), &ui::Document::filePathChanged);
    dropFile(&w, path);
    QCOMPARE(opened.count(), 1);
    QCOMPARE(w.document()->filePath(), path);
    QVERIFY(w.document()->model() == session.model);
    w.document()->waitForTrace();
    QCOMPARE(w.heatmap()->figureData().values.rows(), session.model.n());
}

void TestMainWindow::brokenFileLeavesTheDocumentUntouched()
{
    ui::MainWindow& w = *m_window;
    QVERIFY(w.document()->setCell(MatrixId::Key, 0, 0, 3.0));
    w.document()->undoStack()->setClean();
    const core::AttentionModel before = w.document()->model();
    const QString title = w.windowTitle();
    const QString path = m_dir.filePath(QStringLiteral("broken.json"));
    QVERIFY(writeText(path, R"({"format": "attention-explorer-session", "version": 1, "tokens": ["a", "b"],
                               "embeddings": [[1, 2], [3]]})"));
    QString error;
    QVERIFY(!w.openFile(path, &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(w.document()->model() == before);
    QVERIFY(w.document()->filePath().isEmpty());
    QCOMPARE(w.windowTitle(), title);
    QCOMPARE(w.document()->undoStack()->count(), 1);

    // Dropped, it shows the message and changes nothing either.
    dropFile(&w, path);
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("errorBox"));
    QVERIFY(box);
    QVERIFY(box->informativeText().contains(QStringLiteral("embeddings")));
    box->close();
    QVERIFY(w.document()->model() == before);
}

void TestMainWindow::aRecentEntryThatIsGoneLeavesTheList()
{
    ui::MainWindow& w = *m_window;
    QString error;
    const QString gone = m_dir.filePath(QStringLiteral("gone.json"));
    const QString kept = m_dir.filePath(QStringLiteral("kept.json"));
    const QString broken = m_dir.filePath(QStringLiteral("broken recent.json"));
    for (const QString& path : {gone, kept, broken})
        QVERIFY2(w.saveFile(path, &error), qPrintable(error));
    QVERIFY(writeText(broken, "{"));
    QVERIFY(QFile::remove(gone));
    const QString goneModel = m_dir.filePath(QStringLiteral("gone-model"));
    const QString keptModel = m_dir.filePath(QStringLiteral("kept-model"));
    QVERIFY(QDir().mkpath(keptModel));
    QSettings().setValue(QStringLiteral("recentModels"), QStringList{goneModel, keptModel});

    // Each is refused with its message; the entry that is gone goes, the one still there stays.
    const auto openEntry = [&](const QString& menuTitle, const QString& path) {
        QMenu* menu = fileSubmenu(w, menuTitle);
        QVERIFY(menu);
        QAction* entry = recentEntry(menu, path);
        QVERIFY2(entry, qPrintable(path));
        entry->trigger();
        auto* box = w.findChild<QMessageBox*>(QStringLiteral("errorBox"));
        QVERIFY(box && box->isVisible());
        delete box;
    };
    openEntry(QStringLiteral("Open &Recent"), gone);
    QCOMPARE(w.recentFiles(), (QStringList{broken, kept}));
    QVERIFY(!recentEntry(fileSubmenu(w, QStringLiteral("Open &Recent")), gone));
    openEntry(QStringLiteral("Open &Recent"), broken);
    QCOMPARE(w.recentFiles(), (QStringList{broken, kept}));

    openEntry(QStringLiteral("Recent Mo&dels"), goneModel);
    QCOMPARE(w.session()->recentModels(), QStringList{keptModel});
    openEntry(QStringLiteral("Recent Mo&dels"), keptModel);
    QCOMPARE(w.session()->recentModels(), QStringList{keptModel});
}

void TestMainWindow::unsavedChangesPrompt()
{
    ui::MainWindow& w = *m_window;
    QVERIFY(w.maybeSave());  // nothing to ask
    QVERIFY(w.document()->setCell(MatrixId::Query, 1, 1, 9.0));

    answerNextMessageBox(QMessageBox::Cancel);
    QVERIFY(!w.maybeSave());
    QVERIFY(w.isWindowModified());

    // Cancel on a preset keeps the edit; Discard loads the preset.
    QAction* preset = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->data().toString() == QStringLiteral("thinking-machines"))
            preset = a;
    QVERIFY(preset);
    answerNextMessageBox(QMessageBox::Cancel);
    preset->trigger();
    QCOMPARE(w.document()->matrix(MatrixId::Query)(1, 1), 9.0);
    answerNextMessageBox(QMessageBox::Discard);
    preset->trigger();
    QCOMPARE(w.document()->model().dModel(), 512);
    QVERIFY(!w.isWindowModified());
}

void TestMainWindow::presetsAndStatusBar()
{
    ui::MainWindow& w = *m_window;
    auto* dims = w.findChild<QLabel*>(QStringLiteral("dimensionsLabel"));
    QVERIFY(dims);
    QCOMPARE(dims->text(), QStringLiteral("n 3 · d_model 4 · d_k 3 · d_v 3 · heads 1"));
    int presets = 0;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->data().userType() == QMetaType::QString && !a->shortcut().isEmpty())
            ++presets;
    QCOMPARE(presets, int(core::presetList().size() + core::modelPresetList().size()));  // each with its key

    QVERIFY(w.loadPreset(QStringLiteral("multi-head")));
    QCOMPARE(dims->text(), QStringLiteral("n 6 · d_model 8 · d_k 4 · d_v 4 · heads 2"));
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("Two heads and W_O")));
    QVERIFY(!w.loadPreset(QStringLiteral("no-such-preset")));

    QVERIFY(w.document()->setCell(MatrixId::Query, 0, 0, 1.5));
    QCOMPARE(w.statusBar()->currentMessage(), w.document()->undoStack()->undoText());
    w.document()->undoStack()->undo();
    QVERIFY(w.statusBar()->currentMessage().contains(w.document()->undoStack()->redoText()));
}

void TestMainWindow::exportWritesTheShownFigure()
{
    ui::MainWindow& w = *m_window;
    w.viewState()->setHeatmapStep(core::Step::Scores);
    const QString png = m_dir.filePath(QStringLiteral("scores.png"));
    VERIFY_WRITTEN(w.exportHeatmap(png));
    const QImage image(png);
    QVERIFY(!image.isNull());
    render::HeatmapRenderer renderer(w.heatmap()->figureData(), w.heatmap()->figureStyle());
    QCOMPARE(image.size(), renderer.preferredSize());
    QCOMPARE(w.heatmapPreferredSize(), renderer.preferredSize());
    // The pixel size the export dialog asks for is the size written.
    const QString big = m_dir.filePath(QStringLiteral("scores-big.png"));
    VERIFY_WRITTEN(w.exportHeatmap(big, QSize(1600, 1200)));
    QCOMPARE(QImage(big).size(), QSize(1600, 1200));

    const QString svg = m_dir.filePath(QStringLiteral("scores.svg"));
    VERIFY_WRITTEN(w.exportHeatmap(svg));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("Input 3"));

    const render::ExportResult failed = w.exportHeatmap(m_dir.filePath(QStringLiteral("no-such-dir/x.png")));
    QVERIFY(!failed.written);
    QVERIFY(!failed.error.isEmpty());
}

void TestMainWindow::layoutIsRestored()
{
    auto* options = m_window->findChild<QDockWidget*>(QStringLiteral("optionsDock"));
    QVERIFY(options);
    QVERIFY(options->isVisible());
    options->hide();
    m_window->heatmap()->setAnnotate(false);
    QVERIFY(m_window->close());
    m_window.reset();

    ui::MainWindow again;
    again.show();
    auto* restored = again.findChild<QDockWidget*>(QStringLiteral("optionsDock"));
    QVERIFY(restored);
    QVERIFY(!restored->isVisible());
    QVERIFY(!again.heatmap()->annotate());
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
