/** The window on a small screen under a real window manager (run by windowfit.sh in Xvfb with openbox; on
 *  the offscreen platform, whose screen is nominal, it skips): at the first start and after File › New from a
 *  model session, the whole window, title bar and all, is inside the screen's available area, its status bar
 *  is on screen, and no dock or label is cut. With AE_SCREENSHOT_DIR set the screen is saved for a person. */

#include "gpt2folder_tokenizer.h"
#include "isolation.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QScreen>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

namespace {

const std::string kTokenizer = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";

void settle()
{
    for (int i = 0; i < 10; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(30);
    }
}

/** A widget's rectangle on the screen. */
QRect onScreen(const QWidget* w)
{
    return QRect(w->mapToGlobal(QPoint(0, 0)), w->size());
}

/** What of window is outside the screen's available area or cut: the frame, the status bar, the docks shown,
 *  the labels shown (narrower than their one line, or lower than their wrapped lines). */
QStringList misfits(const QMainWindow& window)
{
    QStringList out;
    const QRect available = window.screen()->availableGeometry();
    const auto outside = [&](const QString& what, const QRect& r) {
        if (!available.contains(r))
            out << QStringLiteral("%1 at %2,%3 %4 × %5 outside the screen's %6 × %7")
                       .arg(what)
                       .arg(r.x())
                       .arg(r.y())
                       .arg(r.width())
                       .arg(r.height())
                       .arg(available.width())
                       .arg(available.height());
    };
    outside(QStringLiteral("the window's frame"), window.frameGeometry());
    const QStatusBar* status = window.statusBar();
    if (!status->isVisible() || status->height() < status->sizeHint().height())
        out << QStringLiteral("the status bar is hidden or squeezed");
    outside(QStringLiteral("the status bar"), onScreen(status));
    const QRect inside(QPoint(0, 0), window.size());
    for (const QDockWidget* dock : window.findChildren<QDockWidget*>()) {
        // A tab behind another is parked outside the window by Qt: not shown.
        if (!dock->isVisible() || dock->isFloating() || !dock->geometry().intersects(inside))
            continue;
        outside(dock->objectName(), onScreen(dock));
        if (dock->widget() && dock->widget()->height() < 40)
            out << QStringLiteral("%1 squeezed to %2 pixels").arg(dock->objectName()).arg(dock->widget()->height());
    }
    return out;
}

}  // namespace

class TestWindowFit : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (QGuiApplication::platformName() == QLatin1String("offscreen"))
            QSKIP("needs a screen and a window manager: run by windowfit.sh in Xvfb with openbox");
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_windowfit"), m_dir.filePath(QStringLiteral("settings")));
    }

    void init() { QSettings().clear(); }  // each row is a first start

    void fitsAtFirstStartAndAfterNewFromAModel_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QStringLiteral("en");
        QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
    }

    void fitsAtFirstStartAndAfterNewFromAModel()
    {
        QFETCH(QString, language);
        QVERIFY(ui::i18n::applyLanguage(language));
        m_language = language;
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        ui::MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // The window manager's frame comes after the window is shown.
        QTRY_VERIFY_WITH_TIMEOUT(window.frameGeometry() != window.geometry(), 10000);
        window.document()->waitForTrace();
        settle();
        QStringList problems = misfits(window);
        saveScreen(QStringLiteral("first-start"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

        const QString folder = m_dir.filePath(QStringLiteral("gpt2"));
        QVERIFY(QDir().mkpath(folder));
        testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer, 2, 32, 2), folder.toStdString());
        QString error;
        QVERIFY2(window.session()->openModelFolder(folder, &error), qPrintable(error));
        QVERIFY(window.document()->waitForModel(120000));
        settle();
        problems = misfits(window);
        saveScreen(QStringLiteral("model"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

        const Qt::WindowStates states = window.windowState();
        auto* newAction = window.findChild<QAction*>(QStringLiteral("newAction"));
        QVERIFY(newAction);
        newAction->trigger();
        QTRY_VERIFY(!window.document()->isModelSession());
        window.document()->waitForTrace();
        settle();
        QTest::qWait(500);  // a window manager answers a window grown past the screen by un-maximizing it
        settle();
        problems = misfits(window);
        saveScreen(QStringLiteral("after-new"));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(window.windowState(), states);
        const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
        QVERIFY2(minimum.width() <= available.width() && minimum.height() <= available.height(),
                 qPrintable(QStringLiteral("minimum %1 × %2").arg(minimum.width()).arg(minimum.height())));
        window.document()->undoStack()->setClean();
    }

private:
    /** With AE_SCREENSHOT_DIR set: the whole screen, frame and all, as name-WIDTHxHEIGHT.png. */
    void saveScreen(const QString& name)
    {
        const QString dir = qEnvironmentVariable("AE_SCREENSHOT_DIR");
        if (dir.isEmpty())
            return;
        QScreen* screen = QGuiApplication::primaryScreen();
        const QSize size = screen->size();
        screen->grabWindow(0).save(
            QStringLiteral("%1/fit-%2-%3-%4x%5.png").arg(dir, m_language, name).arg(size.width()).arg(size.height()));
    }

    QTemporaryDir m_dir;
    QString m_language;
};

QTEST_MAIN(TestWindowFit)
#include "tst_windowfit.moc"
