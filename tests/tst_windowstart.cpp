/** The window's start from the command line (app/): what `attention-explorer [FILE]` and a source given without an
 *  action open, and a refused file or folder, which leaves the worked example as it was and says so in a box. */

#include "app/commandline.h"
#include "app/windowstart.h"
#include "core/session/builtinmodel.h"
#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "core/text/tokenizer.h"
#include "gpt2folder_tokenizer.h"
#include "isolation.h"
#include "ui/document/document.h"
#include "ui/document/modelsession.h"
#include "ui/i18n/language.h"
#include "ui/views/shell/mainwindow.h"

#include <QApplication>
#include <QFile>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

namespace {

const std::string kTokenizer = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";

/** runCommandLine as main calls it for the window: -1 and what the window opens with. */
int start(const QStringList& arguments, app::WindowSource* source)
{
    return app::runCommandLine(QStringList{QStringLiteral("attention-explorer")} + arguments, source);
}

std::vector<std::string> presetTokens(const char* name)
{
    return core::preset(name)->model.tokens;
}

}  // namespace

class TestWindowStart : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_windowstart"), m_dir.filePath(QStringLiteral("settings")));
        m_file = m_dir.filePath(QStringLiteral("session.json"));
        QFile f(m_file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(core::serializeSession(*core::preset("multi-head")).c_str());
        f.close();
        m_truncated = m_dir.filePath(QStringLiteral("trunc.json"));
        QFile t(m_truncated);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(R"({"format": "attention-explorer-session", "version": 1, "tokens": ["a", )");
        t.close();
        m_folder = m_dir.filePath(QStringLiteral("tiny-gpt2"));
        QVERIFY(QDir().mkpath(m_folder));
        testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer), m_folder.toStdString());
    }

    void init() { QSettings().clear(); }

    void aSourceWithoutAnActionIsTheWindows()
    {
        app::WindowSource s;
        QCOMPARE(start({}, &s), -1);
        QVERIFY(s.file.isEmpty() && s.modelFolder.isEmpty() && !s.session);  // the worked example

        s = {};
        QCOMPARE(start({m_file}, &s), -1);
        QCOMPARE(s.file, m_file);
        s = {};
        QCOMPARE(start({QStringLiteral("--session"), m_file}, &s), -1);
        QCOMPARE(s.file, m_file);

        s = {};
        QCOMPARE(start({QStringLiteral("--preset"), QStringLiteral("chinese")}, &s), -1);
        QVERIFY(s.session);
        QCOMPARE(s.session->model.tokens, presetTokens("chinese"));

        s = {};
        QCOMPARE(start({QStringLiteral("--tokens"), QStringLiteral("hello tiny world")}, &s), -1);
        QVERIFY(s.session);
        QCOMPARE(s.session->model.tokens, core::tokenize("hello tiny world"));

        s = {};
        QCOMPARE(start({QStringLiteral("--model"), m_folder, QStringLiteral("--text"), QStringLiteral("The cat"),
                        QStringLiteral("--layer"), QStringLiteral("2")},
                       &s),
                 -1);
        QCOMPARE(s.modelFolder, m_folder);
        QCOMPARE(s.modelText, QStringLiteral("The cat"));
        QCOMPARE(s.modelLayer, 2);
    }

    void argumentsAnActionRefusesTheWindowRefuses_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addRow("two files") << QStringList{QStringLiteral("a.json"), QStringLiteral("b.json")};
        QTest::addRow("a file and a preset") << QStringList{QStringLiteral("a.json"), QStringLiteral("--preset"),
                                                            QStringLiteral("chinese")};
        QTest::addRow("unknown preset") << QStringList{QStringLiteral("--preset"), QStringLiteral("nope")};
        QTest::addRow("--text alone") << QStringList{QStringLiteral("--text"), QStringLiteral("hi")};
        QTest::addRow("--layer of a preset") << QStringList{QStringLiteral("--layer"), QStringLiteral("2")};
        QTest::addRow("--layer 0") << QStringList{QStringLiteral("--model"), QStringLiteral("m"),
                                                  QStringLiteral("--layer"), QStringLiteral("0")};
    }

    void argumentsAnActionRefusesTheWindowRefuses()
    {
        QFETCH(QStringList, arguments);
        app::WindowSource s;
        QCOMPARE(start(arguments, &s), 2);
    }

    void opensTheSource()
    {
        ui::MainWindow window;
        window.show();
        app::WindowSource s;
        QCOMPARE(start({QStringLiteral("--preset"), QStringLiteral("chinese")}, &s), -1);
        app::openWindowSource(window, s);
        QCOMPARE(window.document()->model().tokens, presetTokens("chinese"));
        QVERIFY(!window.document()->isModified());

        ui::MainWindow second;
        second.show();
        s = {};
        QCOMPARE(start({m_file}, &s), -1);
        app::openWindowSource(second, s);
        QCOMPARE(second.document()->model().tokens, presetTokens("multi-head"));
        QCOMPARE(second.document()->filePath(), QFileInfo(m_file).absoluteFilePath());
    }

    void opensTheModelAtItsLayer()
    {
        ui::MainWindow window;
        window.show();
        app::WindowSource s;
        QCOMPARE(start({QStringLiteral("--model"), m_folder, QStringLiteral("--layer"), QStringLiteral("2")}, &s), -1);
        app::openWindowSource(window, s);
        QVERIFY(window.document()->waitForModel(60000));
        QCOMPARE(window.document()->shownLayer(), 1);  // 0-based: the second
        QCOMPARE(window.document()->tokenText(), QStringLiteral("The cat sat on the mat because it was"));
        QVERIFY(!window.findChild<QMessageBox*>(QStringLiteral("errorBox")));
    }

    /** --model builtin opens the model in the box, wherever it is, as File › Open Built-in Model does; with --text
     *  on that text; never as a folder named "builtin" beside the working directory. */
    void opensTheBuiltinModel()
    {
        ui::MainWindow window;
        window.show();
        app::WindowSource s;
        QCOMPARE(start({QStringLiteral("--model"), QStringLiteral("builtin")}, &s), -1);
        app::openWindowSource(window, s);
        QVERIFY(window.document()->waitForModel(60000));
        QVERIFY(window.document()->isModelSession());
        QCOMPARE(window.document()->tokenText().toStdString(), core::modelPreset(core::builtinModelPreset)->text);
        QVERIFY(!window.findChild<QMessageBox*>(QStringLiteral("errorBox")));

        ui::MainWindow second;
        second.show();
        s = {};
        QCOMPARE(start({QStringLiteral("--model"), QStringLiteral("builtin"), QStringLiteral("--text"),
                        QStringLiteral("When Mary and John went to the store, John gave a drink to")},
                       &s),
                 -1);
        app::openWindowSource(second, s);
        QVERIFY(second.document()->waitForModel(60000));
        QCOMPARE(second.document()->tokenText(),
                 QStringLiteral("When Mary and John went to the store, John gave a drink to"));
        QVERIFY(!second.findChild<QMessageBox*>(QStringLiteral("errorBox")));
    }

    void aRefusedFileLeavesTheExampleAndSaysSo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("named");
        QTest::addColumn<QString>("wrong");
        QTest::addRow("truncated file") << QStringList{m_truncated} << m_truncated << QStringLiteral("not valid JSON");
        QTest::addRow("missing file") << QStringList{m_dir.filePath(QStringLiteral("absent.json"))}
                                      << m_dir.filePath(QStringLiteral("absent.json")) << QString();
        // The window names the layer in its own words, not as the flag the layer came from.
        QTest::addRow("model past its layers")
            << QStringList{QStringLiteral("--model"), m_folder, QStringLiteral("--layer"), QStringLiteral("9")}
            << m_folder
            << QString::fromStdString(ui::windowModelNames().layer) + QStringLiteral(": 9 is past the model's last layer");
    }

    void aRefusedFileLeavesTheExampleAndSaysSo()
    {
        // Started from a file manager (Exec=attention-explorer %f), a refusal on standard error alone is unseen.
        QFETCH(QStringList, arguments);
        QFETCH(QString, named);
        QFETCH(QString, wrong);
        ui::MainWindow window;
        window.show();
        const core::AttentionModel example = window.document()->model();
        app::WindowSource s;
        QCOMPARE(start(arguments, &s), -1);
        app::openWindowSource(window, s);
        auto* box = window.findChild<QMessageBox*>(QStringLiteral("errorBox"));
        QVERIFY(box);
        QTRY_VERIFY(box->isVisible());
        QVERIFY2(box->informativeText().contains(named), qPrintable(box->informativeText()));
        QVERIFY2(box->informativeText().contains(wrong), qPrintable(box->informativeText()));
        QVERIFY2(!box->informativeText().contains(QLatin1String("--")), qPrintable(box->informativeText()));
        QVERIFY(window.document()->model() == example);
        QVERIFY(!window.document()->isModified());
        QVERIFY(!window.document()->isModelSession());
        box->close();
    }

    /** In Chinese, the window's words for a model's parts come from the translation. */
    void aRefusedModelIsNamedInTheInterfaceLanguage()
    {
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("zh_CN")));
        const QString layer = QCoreApplication::translate("ModelState", "Layer");
        QVERIFY2(layer != QLatin1String("Layer"), qPrintable(layer));
        ui::MainWindow window;
        window.show();
        app::WindowSource s;
        QCOMPARE(start({QStringLiteral("--model"), m_folder, QStringLiteral("--layer"), QStringLiteral("9")}, &s), -1);
        app::openWindowSource(window, s);
        auto* box = window.findChild<QMessageBox*>(QStringLiteral("errorBox"));
        QVERIFY(box);
        const QString text = box->informativeText();
        box->close();
        QVERIFY(ui::i18n::applyLanguage(QStringLiteral("en")));
        QVERIFY2(text.contains(layer + QStringLiteral(": 9 is past")), qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("--layer")), qPrintable(text));
    }

private:
    QTemporaryDir m_dir;
    QString m_file, m_truncated, m_folder;
};

QTEST_MAIN(TestWindowStart)
#include "tst_windowstart.moc"
