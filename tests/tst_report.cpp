#include "ui/export/reportwriter.h"

#include "core/attention.h"
#include "core/presets.h"
#include "pdftext.h"

#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using pdftext::pageCount;
using pdftext::pdfText;

namespace {

core::Trace presetTrace(const char* name)
{
    return core::compute(core::preset(name)->model);
}

}  // namespace

class TestReport : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void stepTitles()
    {
        const QStringList seven = exports::reportStepTitles(presetTrace("illustrated"));
        QCOMPARE(seven.size(), 7);
        QCOMPARE(seven.first(), QStringLiteral("Step 1 · Tokens → X"));
        QCOMPARE(seven.last(), QStringLiteral("Step 7 · Sum → Z"));
        const QStringList eight = exports::reportStepTitles(presetTrace("multi-head"));
        QCOMPARE(eight.size(), 8);
        QVERIFY(eight.last().startsWith(QLatin1String("Step 8")));
    }

    void onePagePerStep_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("pages");
        QTest::newRow("illustrated") << QStringLiteral("illustrated") << 1 + 7;
        QTest::newRow("illustrated-scaled") << QStringLiteral("illustrated-scaled") << 1 + 7;
        QTest::newRow("chinese") << QStringLiteral("chinese") << 1 + 7;
    }

    void onePagePerStep()
    {
        QFETCH(QString, preset);
        QFETCH(int, pages);
        const core::Trace trace = presetTrace(preset.toLatin1().constData());
        const QString path = m_dir.filePath(preset + QStringLiteral(".pdf"));
        QString error;
        QVERIFY2(exports::writeReport(trace, preset, path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
        QCOMPARE(pageCount(path), pages);

        const QString all = pdfText(path);
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        QVERIFY2(all.contains(preset), qPrintable(all.left(300)));
        // Page k + 1 is step k, and says so.
        const QStringList titles = exports::reportStepTitles(trace);
        for (int k = 0; k < titles.size(); ++k) {
            const QString page = pdfText(path, k + 2, k + 2);
            QVERIFY2(page.contains(titles[k]), qPrintable(QStringLiteral("page %1 lacks \"%2\": %3")
                                                              .arg(k + 2)
                                                              .arg(titles[k], page.left(200))));
        }
    }

    void numbersOfTheWorkedExample()
    {
        const QString path = m_dir.filePath(QStringLiteral("numbers.pdf"));
        QString error;
        QVERIFY2(exports::writeReport(presetTrace("illustrated"), QString(), path, &error), qPrintable(error));
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        // SPEC §4: the scores on the scores page, the first weights and outputs rounded to 4 decimals.
        QVERIFY(pdfText(path, 4, 4).contains(QLatin1String("4 16 12")));
        QVERIFY(pdfText(path, 6, 6).contains(QLatin1String("0.0634 0.4683 0.4683")));
        QVERIFY(pdfText(path, 8, 8).contains(QLatin1String("1.9366 6.6831 1.5951")));
    }

    void chineseTokensRender()
    {
        const QString path = m_dir.filePath(QStringLiteral("chinese.pdf"));
        QString error;
        QVERIFY2(exports::writeReport(presetTrace("chinese"), QStringLiteral("注意力"), path, &error), qPrintable(error));
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        const QString text = pdfText(path, 1, 1);
        QVERIFY2(text.contains(QStringLiteral("注意力")) && text.contains(QStringLiteral("趣")), qPrintable(text));
    }

    void largeMatricesBecomeHeatmaps()
    {
        const QString path = m_dir.filePath(QStringLiteral("large.pdf"));
        QString error;
        QVERIFY2(exports::writeReport(presetTrace("thinking-machines"), QString(), path, &error), qPrintable(error));
        QVERIFY(pageCount(path) >= 8);
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        // 512 columns of X are not printed as numbers: page 2 holds far fewer than 1024 decimals.
        const QString page = pdfText(path, 2, 2);
        QVERIFY2(page.count(QRegularExpression(QStringLiteral("-?\\d\\.\\d{2,}"))) < 100, qPrintable(page.left(300)));
    }

    void failedWriteLeavesNothing()
    {
        const QString path = m_dir.filePath(QStringLiteral("missing/folder/report.pdf"));
        QString error;
        QVERIFY(!exports::writeReport(presetTrace("illustrated"), QString(), path, &error));
        QVERIFY(error.contains(QLatin1String("report.pdf")));
        QVERIFY(!QFileInfo::exists(path));
    }

    void commandLine_data()
    {
        QTest::addColumn<QStringList>("source");
        QTest::addColumn<QString>("out");
        QTest::addColumn<int>("status");
        QTest::newRow("preset") << QStringList{QStringLiteral("--preset"), QStringLiteral("illustrated")}
                                << QStringLiteral("ok.pdf") << 0;
        QTest::newRow("default source") << QStringList{} << QStringLiteral("default.pdf") << 0;
        QTest::newRow("tokens") << QStringList{QStringLiteral("--tokens"), QStringLiteral("我 爱 attention")}
                                << QStringLiteral("tokens.pdf") << 0;
        QTest::newRow("unknown preset") << QStringList{QStringLiteral("--preset"), QStringLiteral("nope")}
                                        << QStringLiteral("refused.pdf") << 2;
        QTest::newRow("broken session") << QStringList{QStringLiteral("--session"), QStringLiteral("broken.json")}
                                        << QStringLiteral("broken.pdf") << 2;
        QTest::newRow("not a pdf") << QStringList{} << QStringLiteral("report.png") << 2;
        QTest::newRow("unwritable") << QStringList{} << QStringLiteral("no/such/folder/x.pdf") << 1;
    }

    void commandLine()
    {
        QFETCH(QStringList, source);
        QFETCH(QString, out);
        QFETCH(int, status);
        QFile broken(m_dir.filePath(QStringLiteral("broken.json")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write(R"({"format": "attention-explorer-session", "version": 1, "tokens": [)");
        broken.close();
        const QString path = m_dir.filePath(out);
        QFile::remove(path);
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        p.start(QStringLiteral(AE_BINARY), QStringList{QStringLiteral("--export-report"), path} + source);
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), status);
        if (status == 0) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY(f.read(5) == "%PDF-");
            QCOMPARE(pageCount(path), 8);
        } else {
            QVERIFY(!p.readAllStandardError().isEmpty());
            QVERIFY(!QFileInfo::exists(path));
        }
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
