/** The window's error boxes in the interface language: when opening a session file, opening a model folder,
 *  recovering an autosave or importing a matrix fails, the box leads with the window's own sentence, from the
 *  translation, and gives the reason (which names the file) beneath it. */

#include "dialoganswer.h"
#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "isolation.h"
#include "ui/export/exportfiles.h"
#include "ui/document/autosave.h"
#include "ui/document/document.h"
#include "ui/i18n/language.h"
#include "ui/views/shell/fileactions.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"
#include "testutil.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

namespace {

using testutil::writeText;

}  // namespace

class TestErrorBoxes : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_errorboxes"), m_dir.filePath(QStringLiteral("settings")));
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("zh_CN")));
    }

    void init()
    {
        QSettings().clear();
        QDir(ui::Autosave::defaultFolder()).removeRecursively();
    }

    void cleanupTestCase() { ui::i18n::applyLanguage(QStringLiteral("en")); }

    void refusals_data()
    {
        QTest::addColumn<QString>("context");
        QTest::addColumn<QString>("lead");    // the English source of the box's first line
        QTest::addColumn<QString>("named");   // what the detail beneath names
        const QString broken = m_dir.filePath(QStringLiteral("broken.json"));
        const QString folder = m_dir.filePath(QStringLiteral("not-a-model"));
        const QString gone = m_dir.filePath(QStringLiteral("gone-model"));
        const QString matrix = m_dir.filePath(QStringLiteral("matrix.csv"));
        QTest::addRow("session file") << QStringLiteral("ui::SessionController") << QStringLiteral("Could not open the session")
                                      << broken;
        QTest::addRow("model folder") << QStringLiteral("ui::SessionController") << QStringLiteral("Cannot open the model")
                                      << folder;
        QTest::addRow("recovery") << QStringLiteral("ui::SessionController") << QStringLiteral("Could not recover the session")
                                  << gone;
        QTest::addRow("import matrix") << QStringLiteral("ui::FileActions") << QStringLiteral("Could not import the matrix")
                                       << matrix;
    }

    void refusals()
    {
        QFETCH(QString, context);
        QFETCH(QString, lead);
        QFETCH(QString, named);
        const QString translated = QCoreApplication::translate(context.toLatin1().constData(), lead.toUtf8().constData());
        QVERIFY2(translated != lead, qPrintable(lead));  // the translation has it

        ui::MainWindow window;
        window.show();
        const QString tag = QString::fromLatin1(QTest::currentDataTag());
        if (tag == QLatin1String("session file")) {
            QVERIFY(writeText(named, "{\"format\": \"attention-explorer-session\", \"version\": 1, \"tokens\": ["));
            window.session()->openInteractively(named);
        } else if (tag == QLatin1String("model folder")) {
            QVERIFY(QDir().mkpath(named));
            window.session()->openModelInteractively(named);
        } else if (tag == QLatin1String("recovery")) {
            // A window that died with a model session whose folder has gone since.
            QVERIFY(QDir().mkpath(ui::Autosave::defaultFolder()));
            const QJsonObject kept{{QStringLiteral("format"), QStringLiteral("attention-explorer-session")},
                                   {QStringLiteral("version"), 2},
                                   {QStringLiteral("model"), QJsonObject{{QStringLiteral("path"), named}}},
                                   {QStringLiteral("text"), QStringLiteral("hi")}};
            QVERIFY(writeText(ui::Autosave::defaultFolder() + QStringLiteral("/session-gone-1-1.json"),
                              QJsonDocument(kept).toJson()));
            testutil::DialogAnswer answer(QStringLiteral("recoverButton"));
            QVERIFY(!window.offerRecovery());
            QTRY_COMPARE(answer.leads().size(), 2);  // the offer, then the refusal
            QVERIFY2(answer.leads().at(1) == translated, qPrintable(answer.texts().join(QLatin1Char('\n'))));
            QVERIFY2(answer.details().at(1).contains(named), qPrintable(answer.details().at(1)));
            return;
        } else {
            QVERIFY(writeText(named, "1,2\n3\n"));
            window.fileActions()->importMatrixFile(named);
        }
        auto* box = window.findChild<QMessageBox*>(QStringLiteral("errorBox"));
        QVERIFY(box);
        QTRY_VERIFY(box->isVisible());
        QCOMPARE(box->text(), translated);
        QCOMPARE(box->windowTitle(), translated);
        QVERIFY2(box->informativeText().contains(QDir::toNativeSeparators(named)) || box->informativeText().contains(named),
                 qPrintable(box->informativeText()));
        box->close();
    }

    /** The step matrices exported into a path that names a file: the window's message says so in its language. */
    void stepExportIntoAFile()
    {
        const QString file = m_dir.filePath(QStringLiteral("steps-file"));
        QVERIFY(writeText(file, "mine\n"));
        const QString source = QStringLiteral("%1 is a file, not a folder");
        const QString translated = QCoreApplication::translate("Exports", "%1 is a file, not a folder");
        QVERIFY2(translated != source, qPrintable(translated));
        QString error;
        QVERIFY(!exports::writeStepFiles(core::compute(core::illustratedModel()), file, &error));
        QCOMPARE(error, translated.arg(file));
        QFile kept(file);
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), QByteArray("mine\n"));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestErrorBoxes)
#include "tst_errorboxes.moc"
