/** Autosave and recovery, driven through the real window: a window that is killed leaves its
 *  unsaved session behind, the next window offers it back and it equals the one that was lost;
 *  saving, discarding and quitting clean up; an unwritable data folder says why once. Closing from
 *  the teaching mode asks about unsaved changes too.
 *
 *  The killed window runs in a child process: this same program, started with
 *  AE_AUTOSAVE_CHILD set, edits a session, autosaves it, says "ready" and waits to be killed. */

#include "core/session/modelsession.h"
#include "core/session/sessionfile.h"
#include "gpt2folder_random.h"
#include "isolation.h"
#include "ui/document/autosave.h"
#include "ui/document/document.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/teaching/teachingview.h"
#include "testutil.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <cstdio>
#include <memory>

using ui::MatrixId;

namespace {

const char* childVariable = "AE_AUTOSAVE_CHILD";        // the session file the child saves, then edits
const char* childModelVariable = "AE_AUTOSAVE_CHILD_MODEL";  // or a model folder the child opens, then edits
const char* expectedVariable = "AE_AUTOSAVE_EXPECTED";  // where the child writes what it lost

QString autosaveFolder()
{
    return ui::Autosave::defaultFolder();
}

QStringList autosaves()
{
    return QDir(autosaveFolder()).entryList({QStringLiteral("session-*.json")}, QDir::Files);
}

using testutil::readText;
using testutil::writeText;

/** Clicks the button named buttonName in the next modal box; records the box's texts. */
void answerNextBox(const QString& buttonName, QString* text = nullptr, QWidget** parent = nullptr)
{
    QTimer::singleShot(0, [=] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box)
            return;
        if (text)
            *text = box->windowTitle() + QLatin1Char('\n') + box->text() + QLatin1Char('\n') + box->informativeText();
        if (parent)
            *parent = box->parentWidget();
        if (auto* button = box->findChild<QAbstractButton*>(buttonName))
            button->click();
    });
}

/** Answers the next modal message box with a standard button. */
void answerNextBox(QMessageBox::StandardButton which, QWidget** parent = nullptr)
{
    QTimer::singleShot(0, [=] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box)
            return;
        if (parent)
            *parent = box->parentWidget();
        if (box->button(which))
            box->button(which)->click();
    });
}

/** Edits every part of a session: tokens, each matrix, W_O, the options. False when one was refused. */
bool editEverything(ui::Document* doc)
{
    if (!doc->setTokenText(QStringLiteral("the session 会 be lost")))
        return false;
    doc->setOutputProjection(true);
    if (!doc->setCell(MatrixId::Embeddings, 0, 1, -0.125) || !doc->setCell(MatrixId::Embeddings, 4, 3, 1e-300)
        || !doc->setCell(MatrixId::Query, 1, 2, 2.5) || !doc->setCell(MatrixId::Key, 3, 0, -7.0)
        || !doc->setCell(MatrixId::Value, 2, 1, 0.1) || !doc->setCell(MatrixId::Output, 0, 2, 0.333))
        return false;
    core::Options options = doc->model().options;
    options.temperature = 0.37;
    options.mask = core::Mask::Causal;
    options.positionalEncoding = core::PositionalEncoding::Sinusoidal;
    options.scale = false;
    doc->setOptions(options);
    return doc->model().options == options;
}

/** Autosaves now, as the timer would, and waits for the write to be done. */
void autosaveAndWait(ui::MainWindow& window)
{
    window.autosave()->autosaveNow();
    window.autosave()->waitForWrite();
}

/** The child: a window that saves a file, edits it, autosaves, and is then killed; or one that opens a model
 *  folder, edits two weights and the text, and never saves. */
int runChild()
{
    const QString original = qEnvironmentVariable(childVariable);
    testutil::isolateApplication(QStringLiteral("tst_autosave"), QFileInfo(original).absolutePath());
    ui::MainWindow window;
    window.show();
    ui::Document* doc = window.document();
    QString error;
    const QString modelFolder = qEnvironmentVariable(childModelVariable);
    std::string lost;
    if (!modelFolder.isEmpty()) {
        if (!window.session()->openModelFolder(modelFolder, &error) || !doc->waitForModel(60000)) {
            std::fprintf(stderr, "child: %s\n", qPrintable(error));
            return 1;
        }
        if (!doc->setCell(MatrixId::Query, 0, 1, 3.5) || !doc->setCell(MatrixId::Value, 2, 0, -0.25)
            || !doc->setTokenText(QStringLiteral("abc cab"))) {
            std::fputs("child: an edit was refused\n", stderr);
            return 1;
        }
        doc->endTypingBurst();
        if (!doc->waitForModel(60000))
            return 1;
        lost = core::serializeModelSession(doc->modelSession()->fileSession(QString(), QString()));
    } else {
        if (!window.saveFile(original, &error)) {
            std::fprintf(stderr, "child: %s\n", qPrintable(error));
            return 1;
        }
        if (!editEverything(doc))
            return 1;
        lost = core::serializeSession(doc->plainSession()->fileSession());
    }
    autosaveAndWait(window);
    if (!QFile::exists(window.autosave()->filePath()))
        return 1;
    if (!writeText(qEnvironmentVariable(expectedVariable), QByteArray::fromStdString(lost)))
        return 1;
    std::fputs("ready\n", stdout);
    std::fflush(stdout);
    return QApplication::exec();  // until killed
}

void compareMatrices(const core::Matrix& actual, const core::Matrix& expected, const char* name)
{
    QVERIFY2(actual.rows() == expected.rows() && actual.cols() == expected.cols(), name);
    QVERIFY2(actual == expected, name);  // the file keeps every double exactly
}

}  // namespace

class TestAutosave : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();

    void killedWindowIsRecoveredAsItWas();
    void killedModelSessionIsRecoveredAsItWas();
    void runningWindowIsNotOffered();
    void discardDeletesTheAutosave();
    void decideLaterKeepsIt();
    void writesOnlyWhatChanged();
    void cleanSaveRemovesIt();
    void quittingRemovesIt();
    void unwritableFolderSaysWhyOnce();
    void quittingFromTeachingModeAsks();

private:
    /** Starts the child (a plain session saved as original, or modelFolder opened), waits until it has autosaved,
     *  checks that no other window may take its autosave yet, and kills it. */
    void runAndKillChild(const QString& original, const QString& modelFolder, const QString& expectedPath);

    QTemporaryDir m_dir;
};

void TestAutosave::initTestCase()
{
    QVERIFY(m_dir.isValid());
    testutil::isolateApplication(QStringLiteral("tst_autosave"), m_dir.filePath(QStringLiteral("settings")));
    // Never the user's own folder: under this test's temporary folder, and in test mode.
    QVERIFY2(autosaveFolder().startsWith(QDir(m_dir.path()).canonicalPath() + QLatin1Char('/'))
                 || autosaveFolder().startsWith(m_dir.path() + QLatin1Char('/')),
             qPrintable(autosaveFolder()));
    QVERIFY(autosaveFolder().contains(QStringLiteral(".qttest")));
}

void TestAutosave::init()
{
    QSettings().clear();
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    QFile::remove(autosaveFolder());  // a blocking file the previous test may have left
    QDir(autosaveFolder()).removeRecursively();
    QVERIFY(QDir().mkpath(data));
}

void TestAutosave::cleanup()
{
    QFile::remove(autosaveFolder());
    QDir(autosaveFolder()).removeRecursively();
}

void TestAutosave::runAndKillChild(const QString& original, const QString& modelFolder, const QString& expectedPath)
{
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(childVariable), original);
    if (!modelFolder.isEmpty())
        env.insert(QString::fromLatin1(childModelVariable), modelFolder);
    env.insert(QString::fromLatin1(expectedVariable), expectedPath);
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(QCoreApplication::applicationFilePath(), {});
    QVERIFY(child.waitForStarted(30000));
    QByteArray said;
    while (!said.contains("ready") && child.state() == QProcess::Running && child.waitForReadyRead(60000))
        said += child.readAllStandardOutput();
    QVERIFY2(said.contains("ready"), said.constData());
    QCOMPARE(autosaves().size(), 1);

    // While its window lives, nobody else may take its autosave.
    QVERIFY(ui::Autosave::findRecoverable(autosaveFolder()).empty());

    child.kill();  // SIGKILL: no destructor, no clean-up, the lock file stays behind
    QVERIFY(child.waitForFinished(30000));
}

void TestAutosave::killedWindowIsRecoveredAsItWas()
{
    const QString original = m_dir.filePath(QStringLiteral("lesson.json"));
    const QString expectedPath = m_dir.filePath(QStringLiteral("lost.json"));
    runAndKillChild(original, QString(), expectedPath);
    if (QTest::currentTestFailed())
        return;
    const QString left = autosaveFolder() + QLatin1Char('/') + autosaves().value(0);
    QVERIFY(QFile::exists(left));

    const QByteArray lostText = readText(expectedPath);
    std::string error;
    const auto lost = core::parseSession(lostText.toStdString(), error);
    QVERIFY2(lost, error.c_str());

    ui::MainWindow window;
    window.show();
    QVERIFY(!window.isWindowModified());
    QString offered;
    answerNextBox(QStringLiteral("recoverButton"), &offered);
    QVERIFY(window.offerRecovery());
    QVERIFY2(offered.contains(QStringLiteral("5 tokens")), qPrintable(offered));
    QVERIFY2(offered.contains(QStringLiteral("lesson.json")), qPrintable(offered));

    ui::Document* doc = window.document();
    const core::AttentionModel& m = doc->model();
    QCOMPARE(m.tokens, lost->model.tokens);
    QCOMPARE(QString::fromStdString(m.tokens.at(2)), QStringLiteral("会"));
    compareMatrices(m.embeddings, lost->model.embeddings, "embeddings");
    compareMatrices(m.wq, lost->model.wq, "weights.query");
    compareMatrices(m.wk, lost->model.wk, "weights.key");
    compareMatrices(m.wv, lost->model.wv, "weights.value");
    QVERIFY(m.wo && lost->model.wo);
    compareMatrices(*m.wo, *lost->model.wo, "weights.output");
    QCOMPARE(m.embeddings(0, 1), -0.125);
    QCOMPARE(m.embeddings(4, 3), 1e-300);
    QCOMPARE((*m.wo)(0, 2), 0.333);
    QVERIFY(m.options == lost->model.options);
    QCOMPARE(m.options.temperature, 0.37);
    QVERIFY(doc->session().extras() == lost->extras);  // the autosave's own key is gone again
    QCOMPARE(QByteArray::fromStdString(core::serializeSession(doc->plainSession()->fileSession())), lostText);

    // Unsaved, knows where it came from, and says so.
    QVERIFY(doc->isModified());
    QVERIFY(window.isWindowModified());
    QCOMPARE(doc->filePath(), original);
    QVERIFY2(window.windowTitle().contains(QStringLiteral("lesson.json")), qPrintable(window.windowTitle()));
    QVERIFY2(window.windowTitle().contains(QStringLiteral("recovered")), qPrintable(window.windowTitle()));
    // The window keeps it under its own name; the dead one's file is gone.
    QVERIFY(!QFile::exists(left));
    QVERIFY(QFile::exists(window.autosave()->filePath()));
    QVERIFY(ui::Autosave::findRecoverable(autosaveFolder()).empty());

    // Closing asks before losing it; cancel keeps the window, discard removes the autosave.
    answerNextBox(QMessageBox::Cancel);
    QVERIFY(!window.close());
    QVERIFY(QFile::exists(window.autosave()->filePath()));
    answerNextBox(QMessageBox::Discard);
    QVERIFY(window.close());
    QVERIFY(autosaves().isEmpty());
}

/** A model session's edits and text survive a kill as a plain session's do: the next window loads the checkpoint
 *  again and puts them back, unsaved. */
void TestAutosave::killedModelSessionIsRecoveredAsItWas()
{
    const QString folder = m_dir.filePath(QStringLiteral("tiny-gpt2"));
    QVERIFY(QDir().mkpath(folder));
    testutil::write(testutil::randomGpt2Folder("F32", "", 2, 32, 4, false, 7, 64), folder.toStdString());  // room for the sample text
    const QString expectedPath = m_dir.filePath(QStringLiteral("lost-model.json"));
    runAndKillChild(m_dir.filePath(QStringLiteral("unused.json")), folder, expectedPath);
    if (QTest::currentTestFailed())
        return;
    const QString left = autosaveFolder() + QLatin1Char('/') + autosaves().value(0);
    QVERIFY(QFile::exists(left));
    const QByteArray lostText = readText(expectedPath);

    ui::MainWindow window;
    window.show();
    QString offered;
    answerNextBox(QStringLiteral("recoverButton"), &offered);
    QVERIFY(window.offerRecovery());
    QVERIFY2(offered.contains(QStringLiteral("2 edits of its weights")), qPrintable(offered));
    ui::Document* doc = window.document();
    QVERIFY(doc->isModelSession());
    QVERIFY(doc->waitForModel(60000));
    QCOMPARE(QByteArray::fromStdString(core::serializeModelSession(doc->modelSession()->fileSession(QString(), QString()))), lostText);
    QCOMPARE(doc->matrix(MatrixId::Query)(0, 1), 3.5);
    QVERIFY(doc->isModified());
    QVERIFY(doc->filePath().isEmpty());  // never saved
    QVERIFY(!QFile::exists(left));
    QVERIFY(QFile::exists(window.autosave()->filePath()));
    answerNextBox(QMessageBox::Discard);
    QVERIFY(window.close());
    QVERIFY(autosaves().isEmpty());
}

void TestAutosave::runningWindowIsNotOffered()
{
    ui::MainWindow first;
    QVERIFY(first.document()->setCell(MatrixId::Query, 0, 0, 5.0));
    autosaveAndWait(first);
    QVERIFY(QFile::exists(first.autosave()->filePath()));

    ui::MainWindow second;
    QVERIFY(second.autosave()->filePath() != first.autosave()->filePath());
    QVERIFY(!second.offerRecovery());  // no box: first is alive and holds its lock
    QVERIFY(!second.document()->isModified());
    QVERIFY(QFile::exists(first.autosave()->filePath()));
    first.document()->undoStack()->setClean();
}

/** Leaves an autosave as a window would that died without removing it: the file without a lock. */
QString leaveOrphan(double marker)
{
    QString path;
    {
        ui::MainWindow gone;
        [&] { QVERIFY(gone.document()->setCell(MatrixId::Value, 1, 1, marker)); }();
        autosaveAndWait(gone);
        path = gone.autosave()->filePath();
        // Destroyed with the changes unsaved (as at a crash): the file stays and its lock goes.
    }
    return path;
}

void TestAutosave::discardDeletesTheAutosave()
{
    const QString orphan = leaveOrphan(42.0);
    QVERIFY(QFile::exists(orphan));
    QVERIFY(!QFile::exists(QString(orphan).replace(QStringLiteral(".json"), QStringLiteral(".lock"))));

    ui::MainWindow window;
    answerNextBox(QStringLiteral("discardRecoveryButton"));
    QVERIFY(!window.offerRecovery());
    QVERIFY(!QFile::exists(orphan));
    QVERIFY(!window.document()->isModified());
    QVERIFY(window.document()->matrix(MatrixId::Value)(1, 1) != 42.0);
    QVERIFY(!window.offerRecovery());  // nothing left to offer
}

void TestAutosave::decideLaterKeepsIt()
{
    const QString orphan = leaveOrphan(43.0);
    {
        ui::MainWindow window;
        answerNextBox(QStringLiteral("laterButton"));
        QVERIFY(!window.offerRecovery());
        QVERIFY(QFile::exists(orphan));
        QVERIFY(!window.document()->isModified());
    }
    ui::MainWindow next;
    answerNextBox(QStringLiteral("recoverButton"));
    QVERIFY(next.offerRecovery());
    QCOMPARE(next.document()->matrix(MatrixId::Value)(1, 1), 43.0);
    QVERIFY(next.document()->filePath().isEmpty());  // it was never saved
    QVERIFY(next.windowTitle().contains(QStringLiteral("recovered")));
    next.document()->undoStack()->setClean();
}

void TestAutosave::writesOnlyWhatChanged()
{
    ui::MainWindow window;
    ui::Autosave* autosave = window.autosave();
    QCOMPARE(autosave->timer()->interval(), ui::Autosave::defaultIntervalMs);
    QVERIFY(autosave->timer()->isActive());
    QSignalSpy written(autosave, &ui::Autosave::written);

    autosave->autosaveNow();  // nothing unsaved: nothing written
    autosave->waitForWrite();
    QCOMPARE(written.count(), 0);
    QVERIFY(!QFile::exists(autosave->filePath()));

    QVERIFY(window.document()->setCell(MatrixId::Key, 0, 0, 3.0));
    QVERIFY(QMetaObject::invokeMethod(autosave->timer(), "timeout"));  // as if 30 s had passed
    autosave->waitForWrite();
    QCOMPARE(written.count(), 1);
    QVERIFY(QFile::exists(autosave->filePath()));

    autosave->autosaveNow();  // no change since: not written again
    autosave->waitForWrite();
    QCOMPARE(written.count(), 1);

    QVERIFY(window.document()->setCell(MatrixId::Key, 0, 0, 4.0));
    autosave->autosaveNow();
    autosave->waitForWrite();
    QCOMPARE(written.count(), 2);
    std::string error;
    const auto kept = core::readSessionFile(QFile::encodeName(autosave->filePath()).toStdString(), error);
    QVERIFY2(kept, error.c_str());
    QCOMPARE(kept->model.wk(0, 0), 4.0);
    QVERIFY(kept->extras.contains(ui::Autosave::metaKey));

    // Undone back to the state it started from: nothing unsaved, nothing kept.
    window.document()->undoStack()->undo();
    QVERIFY(!window.document()->isModified());
    QVERIFY(!QFile::exists(autosave->filePath()));
}

void TestAutosave::cleanSaveRemovesIt()
{
    ui::MainWindow window;
    QVERIFY(window.document()->setCell(MatrixId::Query, 2, 2, 8.0));
    autosaveAndWait(window);
    QVERIFY(QFile::exists(window.autosave()->filePath()));
    QString error;
    QVERIFY2(window.saveFile(m_dir.filePath(QStringLiteral("saved.json")), &error), qPrintable(error));
    QVERIFY(!QFile::exists(window.autosave()->filePath()));

    // A save while a write is still on the worker removes what that write leaves.
    QVERIFY(window.document()->setCell(MatrixId::Query, 2, 2, 9.0));
    window.autosave()->autosaveNow();
    QVERIFY2(window.saveFile(m_dir.filePath(QStringLiteral("saved.json")), &error), qPrintable(error));
    window.autosave()->waitForWrite();
    QVERIFY(!QFile::exists(window.autosave()->filePath()));
    QVERIFY(autosaves().isEmpty());
}

void TestAutosave::quittingRemovesIt()
{
    ui::MainWindow window;
    window.show();
    QVERIFY(window.document()->setCell(MatrixId::Query, 2, 2, 8.0));
    autosaveAndWait(window);
    QVERIFY(QFile::exists(window.autosave()->filePath()));
    answerNextBox(QMessageBox::Discard);
    QVERIFY(window.close());
    QVERIFY(autosaves().isEmpty());
}

void TestAutosave::unwritableFolderSaysWhyOnce()
{
    // A file where the folder should be: no folder can be made there, whoever runs the test.
    QVERIFY(writeText(autosaveFolder(), "not a folder"));
    ui::MainWindow window;
    window.show();
    QSignalSpy failed(window.autosave(), &ui::Autosave::failed);
    QVERIFY(window.document()->setCell(MatrixId::Query, 0, 1, 2.0));
    autosaveAndWait(window);
    QCOMPARE(failed.count(), 1);
    const QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(QDir::toNativeSeparators(autosaveFolder())), qPrintable(message));
    auto* box = window.findChild<QMessageBox*>(QStringLiteral("errorBox"));
    QVERIFY(box);
    QVERIFY(box->informativeText().contains(QDir::toNativeSeparators(autosaveFolder())));

    // Further edits and ticks do not say it again; the document keeps its changes.
    QVERIFY(window.document()->setCell(MatrixId::Query, 0, 1, 3.0));
    window.autosave()->autosaveNow();
    autosaveAndWait(window);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(window.findChildren<QMessageBox*>(QStringLiteral("errorBox")).size(), 1);
    QVERIFY(window.document()->isModified());
    QCOMPARE(window.document()->matrix(MatrixId::Query)(0, 1), 3.0);

    // Once the folder can be made again, autosaving resumes.
    QVERIFY(QFile::remove(autosaveFolder()));
    QSignalSpy written(window.autosave(), &ui::Autosave::written);
    QVERIFY(window.document()->setCell(MatrixId::Query, 0, 1, 4.0));
    autosaveAndWait(window);
    QCOMPARE(written.count(), 1);
    window.document()->undoStack()->setClean();
}

void TestAutosave::quittingFromTeachingModeAsks()
{
    ui::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(window.document()->setCell(MatrixId::Key, 1, 1, 6.0));
    QTest::keyClick(&window, Qt::Key_F5);
    auto* teaching = window.findChild<ui::TeachingView*>();
    QVERIFY(teaching);
    QTRY_VERIFY(teaching->isVisible());
    teaching->activateWindow();
    QTRY_COMPARE(QApplication::activeWindow(), teaching);

    // Ctrl+Q on the slides asks, over the slides, and Cancel keeps everything up.
    QWidget* parent = nullptr;
    answerNextBox(QMessageBox::Cancel, &parent);
    QTest::keyClick(teaching, Qt::Key_Q, Qt::ControlModifier);
    QCOMPARE(parent, teaching);
    QVERIFY(window.isVisible());
    QVERIFY(teaching->isVisible());
    QCOMPARE(window.document()->matrix(MatrixId::Key)(1, 1), 6.0);

    // Closing the main window behind the slides asks the same.
    parent = nullptr;
    answerNextBox(QMessageBox::Cancel, &parent);
    QVERIFY(!window.close());
    QCOMPARE(parent, teaching);
    QVERIFY(window.isVisible());

    // Discard quits.
    teaching->activateWindow();
    QTRY_COMPARE(QApplication::activeWindow(), teaching);
    parent = nullptr;
    answerNextBox(QMessageBox::Discard, &parent);
    QTest::keyClick(teaching, Qt::Key_Q, Qt::ControlModifier);
    QCOMPARE(parent, teaching);
    QVERIFY(!window.isVisible());
}

int main(int argc, char** argv)
{
    QApplication application(argc, argv);
    if (qEnvironmentVariableIsSet(childVariable))
        return runChild();
    TestAutosave test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_autosave.moc"
