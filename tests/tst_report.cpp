#include "ui/export/reportwriter.h"

#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "core/text/tokenizer.h"
#include "ui/render/stepfigure.h"
#include "ui/export/handoutwriter.h"
#include "ui/render/colormap.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/render/stepwording.h"
#include "pdftext.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocumentFragment>

using pdftext::pageCount;

namespace {
/** The report's text in the order it was painted: a typeset formula's pieces stay together. */
QString pdfText(const QString& path, int first = 0, int last = 0)
{
    return pdftext::pdfText(path, first, last, pdftext::Order::Painted);
}
}  // namespace

namespace {

core::Trace presetTrace(const char* name)
{
    return core::compute(core::preset(name)->model);
}

/** text without any white space (pdftotext spaces subscripts and lines its own way) nor ligatures. */
QString compact(const QString& text)
{
    QString out;
    for (const QChar c : text.normalized(QString::NormalizationForm_KC))  // "ﬀ" is "ff"
        if (!c.isSpace())
            out += c;
    return out;
}

/** A formula as rich text read as plain text the way it is printed: subscripts are letters after the
 *  symbol, e.g. "Q = X·WQ". */
QString printedFormula(const QString& rich)
{
    return compact(QTextDocumentFragment::fromHtml(rich).toPlainText());
}

/** Page page (from 1) of the PDF at path rendered at 60 dpi; a null image when pdftoppm is missing. */
QImage renderPage(const QString& path, int page, const QString& folder)
{
    const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
    if (pdftoppm.isEmpty())
        return {};
    const QString base = QDir(folder).filePath(QFileInfo(path).completeBaseName() + QStringLiteral("-page"));
    QProcess p;
    p.start(pdftoppm, {QStringLiteral("-png"), QStringLiteral("-r"), QStringLiteral("60"), QStringLiteral("-singlefile"),
                       QStringLiteral("-f"), QString::number(page), QStringLiteral("-l"), QString::number(page), path, base});
    p.waitForFinished(60000);
    return QImage(base + QStringLiteral(".png")).convertToFormat(QImage::Format_RGB32);
}

/** How many pixels of image are within 2 of colour in every channel. */
int pixelsOf(const QImage& image, QRgb colour)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y) {
        const QRgb* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x)
            if (std::abs(qRed(line[x]) - qRed(colour)) <= 2 && std::abs(qGreen(line[x]) - qGreen(colour)) <= 2
                && std::abs(qBlue(line[x]) - qBlue(colour)) <= 2)
                ++count;
    }
    return count;
}

/** The cells of the step's heatmap that image lacks (fewer than 40 pixels of their colour), as "(row, col)";
 *  coloured as the window colours them (the step's default colour map and range). */
QStringList missingCells(const QImage& image, const core::Trace& trace, core::Step step, int head)
{
    render::HeatmapStyle style;
    style.colormap = render::defaultColormap(step);
    const render::HeatmapRenderer renderer(ui::heatmapData(trace, step, head), style);
    QStringList missing;
    for (int r = 0; r < trace.n(); ++r)
        for (int c = 0; c < trace.n(); ++c)
            if (pixelsOf(image, renderer.cellColor(r, c)) < 40)
                missing << QStringLiteral("(%1, %2)").arg(r).arg(c);
    return missing;
}

/** The page (from 1) whose text holds needle (white space ignored), or 0; on page 1 the contents list every
 *  step's title, so there it must be there twice. */
int pageWith(const QString& path, int pages, const QString& needle)
{
    for (int page = 1; page <= pages; ++page)
        if (compact(pdfText(path, page, page)).count(compact(needle)) >= (page == 1 ? 2 : 1))
            return page;
    return 0;
}

bool havePoppler()
{
    return !QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty()
        && !QStandardPaths::findExecutable(QStringLiteral("pdftoppm")).isEmpty();
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
        // The concatenation and projection end step 7, as in the steps panel and on the slides.
        QCOMPARE(eight.last(), QStringLiteral("Step 7 · Concatenate the heads and project"));
    }

    void stepsFlowWithoutHalfEmptyPages_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::newRow("illustrated") << QStringLiteral("illustrated");
        QTest::newRow("illustrated-scaled") << QStringLiteral("illustrated-scaled");
        QTest::newRow("chinese") << QStringLiteral("chinese");
        QTest::newRow("multi-head") << QStringLiteral("multi-head");
    }

    void stepsFlowWithoutHalfEmptyPages()
    {
        QFETCH(QString, preset);
        const core::Trace trace = presetTrace(preset.toLatin1().constData());
        const QString path = m_dir.filePath(preset + QStringLiteral(".pdf"));
        VERIFY_WRITTEN(exports::writeReport(trace, preset, path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
        // Fewer pages than a title page and a page per step, as the report had.
        const QStringList titles = exports::reportStepTitles(trace);
        const int pages = pageCount(path);
        QVERIFY2(pages >= 2 && pages < 1 + titles.size(), qPrintable(QString::number(pages)));

        if (!havePoppler())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        QVERIFY2(pdfText(path).contains(preset), qPrintable(pdfText(path).left(300)));
        // Every step is there, in order, and starts with its formula on the page of its title.
        int previous = 1;
        for (int k = 0; k < titles.size(); ++k) {
            const QString title = QString(titles[k]).remove(QLatin1Char('_'));  // subscripts are typeset
            const int page = pageWith(path, pages, title);
            QVERIFY2(page >= previous, qPrintable(QStringLiteral("\"%1\" is on page %2").arg(title).arg(page)));
            const QString formula =
                k < 7 ? printedFormula(render::StepWording::step(k + 1, *trace.model).formula) : QString();
            QVERIFY2(compact(pdfText(path, page, page)).contains(formula),
                         qPrintable(QStringLiteral("page %1 lacks %2").arg(page).arg(formula)));
            previous = page;
        }
    }

    void numbersOfTheWorkedExample()
    {
        const QString path = m_dir.filePath(QStringLiteral("numbers.pdf"));
        const core::Trace trace = presetTrace("illustrated");
        VERIFY_WRITTEN(exports::writeReport(trace, QString(), path));
        if (!havePoppler())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        // SPEC §4: the scores, the first weights and outputs rounded to 4 decimals, each on the page of its
        // step: a step is not split across pages.
        const QStringList titles = exports::reportStepTitles(trace);
        const int pages = pageCount(path);
        QVERIFY(pdfText(path, pageWith(path, pages, titles[2]), pageWith(path, pages, titles[2])).contains(QLatin1String("4 16 12")));
        QVERIFY(pdfText(path, pageWith(path, pages, titles[4]), pageWith(path, pages, titles[4]))
                    .contains(QLatin1String("0.0634 0.4683 0.4683")));
        QVERIFY(pdfText(path, pageWith(path, pages, titles[6]), pageWith(path, pages, titles[6]))
                    .contains(QLatin1String("1.9366 6.6831 1.5951")));
    }

    void heatmapsBesideTheTables_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::newRow("illustrated") << QStringLiteral("illustrated");
        QTest::newRow("multi-head") << QStringLiteral("multi-head");
    }

    void heatmapsBesideTheTables()
    {
        QFETCH(QString, preset);
        const core::Trace trace = presetTrace(preset.toLatin1().constData());
        const QString path = m_dir.filePath(preset + QStringLiteral("-heatmaps.pdf"));
        VERIFY_WRITTEN(exports::writeReport(trace, QString(), path));
        if (!havePoppler())
            QSKIP("pdftoppm (poppler-utils) is missing: the report's pixels are not checked");
        const QStringList titles = exports::reportStepTitles(trace);
        const int pages = pageCount(path);
        // Scores, scaled scores and weights: every cell of every head's heatmap in its colour, on the step's page.
        const core::Step steps[] = {core::Step::Scores, core::Step::ScaledScores, core::Step::Weights};
        for (int k = 0; k < 3; ++k) {
            const int page = pageWith(path, pages, QString(titles[2 + k]).remove(QLatin1Char('_')));
            QVERIFY(page > 0);
            const QImage image = renderPage(path, page, m_dir.path());
            QVERIFY(!image.isNull());
            for (int head = 0; head < trace.headCount(); ++head) {
                const QStringList missing = missingCells(image, trace, steps[k], head);
                QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("%1, head %2, page %3 lacks the colours of cells %4")
                                                           .arg(titles[2 + k])
                                                           .arg(head + 1)
                                                           .arg(page)
                                                           .arg(missing.join(QStringLiteral(", ")))));
            }
        }
    }

    /** Under the causal mask the weights' table greys the cells the mask hides (the grey of the page's
     *  rules, which the table without the mask shows only as thin lines). */
    void maskedCellsAreGreyedInTheTables()
    {
        if (!havePoppler())
            QSKIP("pdftoppm (poppler-utils) is missing: the report's pixels are not checked");
        int grey[2] = {0, 0};
        for (const bool causal : {false, true}) {
            core::AttentionModel model = core::preset("illustrated")->model;
            model.options.mask = causal ? core::Mask::Causal : core::Mask::None;
            const core::Trace trace = core::compute(model);
            const QString path = m_dir.filePath(causal ? QStringLiteral("causal.pdf") : QStringLiteral("open.pdf"));
            VERIFY_WRITTEN(exports::writeReport(trace, QString(), path));
            const QStringList titles = exports::reportStepTitles(trace);
            const int page = pageWith(path, pageCount(path), QString(titles[4]).remove(QLatin1Char('_')));
            QVERIFY(page > 0);
            const QImage image = renderPage(path, page, m_dir.path());
            QVERIFY(!image.isNull());
            grey[causal] = pixelsOf(image, qRgb(0xd0, 0xd4, 0xd9));
        }
        // Three masked cells of some 50 × 12 pixels at 60 dpi, less their hatching and numbers.
        QVERIFY2(grey[1] > grey[0] + 600, qPrintable(QStringLiteral("%1 grey pixels with the mask, %2 without")
                                                         .arg(grey[1])
                                                         .arg(grey[0])));
    }

    void formulasHaveSubscripts()
    {
        const QString path = m_dir.filePath(QStringLiteral("subscripts.pdf"));
        VERIFY_WRITTEN(exports::writeReport(presetTrace("illustrated"), QString(), path));
        if (!havePoppler())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        // "W_Q", "d_k" and "q_i" are typeset: the subscript is a glyph of its own after the letter.
        const QString all = compact(pdfText(path));
        QVERIFY2(!all.contains(QLatin1Char('_')), qPrintable(all.mid(all.indexOf(QLatin1Char('_')) - 40, 80)));
        QVERIFY2(all.contains(QStringLiteral("Q=X·WQ")), qPrintable(all.left(600)));
        QVERIFY(all.contains(QStringLiteral("Divideby√dk")));
    }

    void handoutIsOnePage_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::newRow("illustrated") << QStringLiteral("illustrated");
        QTest::newRow("multi-head") << QStringLiteral("multi-head");
        QTest::newRow("causal-sentence") << QStringLiteral("causal-sentence");
        QTest::newRow("thinking-machines") << QStringLiteral("thinking-machines");
        QTest::newRow("chinese") << QStringLiteral("chinese");
    }

    void handoutIsOnePage()
    {
        QFETCH(QString, preset);
        const core::Trace trace = presetTrace(preset.toLatin1().constData());
        const QString path = m_dir.filePath(preset + QStringLiteral("-handout.pdf"));
        VERIFY_WRITTEN(exports::writeHandout(trace, preset, path));
        QCOMPARE(pageCount(path), 1);
        if (!havePoppler())
            QSKIP("pdftotext (poppler-utils) is missing: the handout's text is not checked");
        // The seven formulas, typeset, and the heatmap of the weights of every head.
        const QString text = compact(pdfText(path));
        QVERIFY2(text.contains(preset), qPrintable(text.left(200)));
        for (int number = 1; number <= render::StepWording::count; ++number) {
            const QString formula = printedFormula(render::StepWording::step(number, *trace.model).formula);
            QVERIFY2(text.contains(formula), qPrintable(QStringLiteral("no formula %1: %2").arg(number).arg(formula)));
        }
        const QImage image = renderPage(path, 1, m_dir.path());
        QVERIFY(!image.isNull());
        if (trace.n() <= 16)  // the cells of longer sequences are too small at 60 dpi to count
            for (int head = 0; head < trace.headCount(); ++head) {
                const QStringList missing = missingCells(image, trace, core::Step::Weights, head);
                QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("head %1 lacks the colours of cells %2")
                                                           .arg(head + 1)
                                                           .arg(missing.join(QStringLiteral(", ")))));
            }
    }

    void handoutOfManyTokensStaysOnOnePage()
    {
        // 300 tokens: the token line is cut with a count, the heatmap shrinks; the page stays one.
        QStringList words;
        for (int i = 0; i < 300; ++i)
            words << QStringLiteral("word%1").arg(i);
        const core::AttentionModel model = core::modelForTokens(core::tokenize(words.join(QLatin1Char(' ')).toStdString()));
        const QString path = m_dir.filePath(QStringLiteral("long-handout.pdf"));
        VERIFY_WRITTEN(exports::writeHandout(core::compute(model), QString(), path));
        QCOMPARE(pageCount(path), 1);
        if (!havePoppler())
            QSKIP("pdftotext (poppler-utils) is missing: the handout's text is not checked");
        QVERIFY(pdfText(path).contains(QLatin1String("more")));
    }

    /** A token of 20 000 letters is cut in the report's and the handout's token lists: it neither runs off the page
     *  nor adds one. */
    void longTokensAreCutInTheTokenList()
    {
        core::AttentionModel shortOne = core::modelForTokens({"short", "x"});
        core::AttentionModel longOne = shortOne;
        longOne.tokens[1] = std::string(20000, 'x');
        const QString shortPath = m_dir.filePath(QStringLiteral("short-token.pdf"));
        const QString longPath = m_dir.filePath(QStringLiteral("long-token.pdf"));
        VERIFY_WRITTEN(exports::writeReport(core::compute(shortOne), QString(), shortPath));
        VERIFY_WRITTEN(exports::writeReport(core::compute(longOne), QString(), longPath));
        QCOMPARE(pageCount(longPath), pageCount(shortPath));
        const QString handout = m_dir.filePath(QStringLiteral("long-token-handout.pdf"));
        VERIFY_WRITTEN(exports::writeHandout(core::compute(longOne), QString(), handout));
        QCOMPARE(pageCount(handout), 1);
        if (!havePoppler())
            QSKIP("pdftotext (poppler-utils) is missing: the text is not checked");
        for (const QString& path : {longPath, handout}) {
            const QString text = pdfText(path, 1, 1);
            QVERIFY2(text.contains(QString(39, QLatin1Char('x')) + QChar(0x2026)), qPrintable(path));
            QVERIFY2(!text.contains(QString(41, QLatin1Char('x'))), qPrintable(path));
        }
    }

    void chineseTokensRender()
    {
        const QString path = m_dir.filePath(QStringLiteral("chinese.pdf"));
        VERIFY_WRITTEN(exports::writeReport(presetTrace("chinese"), QStringLiteral("注意力"), path));
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        const QString text = pdfText(path, 1, 1);
        QVERIFY2(text.contains(QStringLiteral("注意力")) && text.contains(QStringLiteral("趣")), qPrintable(text));
    }

    void largeMatricesBecomeHeatmaps()
    {
        const QString path = m_dir.filePath(QStringLiteral("large.pdf"));
        const core::Trace trace = presetTrace("thinking-machines");
        VERIFY_WRITTEN(exports::writeReport(trace, QString(), path));
        const int pages = pageCount(path);
        QVERIFY(pages >= 2);
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing: the report's text is not checked");
        // 512 columns of X are not printed as numbers: step 1's page holds far fewer than 1024 decimals,
        // and a note gives the shape of the heatmap that stands for them.
        const int first = pageWith(path, pages, exports::reportStepTitles(trace).first());
        const QString page = pdfText(path, first, first);
        QVERIFY2(page.count(QRegularExpression(QStringLiteral("-?\\d\\.\\d{2,}"))) < 100, qPrintable(page.left(300)));
        QVERIFY2(page.contains(QStringLiteral("2 × 512: too many numbers to print")), qPrintable(page));
    }

    void failedWriteLeavesNothing()
    {
        const QString path = m_dir.filePath(QStringLiteral("missing/folder/report.pdf"));
        const render::ExportResult result = exports::writeReport(presetTrace("illustrated"), QString(), path);
        QVERIFY(!result.written);
        QVERIFY(result.error.contains(QLatin1String("report.pdf")));
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
            const int pages = pageCount(path);
            QVERIFY2(pages >= 2 && pages < 8, qPrintable(QString::number(pages)));
        } else {
            QVERIFY(!p.readAllStandardError().isEmpty());
            QVERIFY(!QFileInfo::exists(path));
        }
    }

    void handoutCommandLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("status");
        QTest::newRow("worked example") << QStringList{QStringLiteral("--export-handout"), QStringLiteral("h.pdf")} << 0;
        QTest::newRow("preset in Chinese")
            << QStringList{QStringLiteral("--export-handout"), QStringLiteral("h.pdf"), QStringLiteral("--preset"),
                           QStringLiteral("multi-head"), QStringLiteral("--lang"), QStringLiteral("zh_CN")}
            << 0;
        QTest::newRow("not a pdf") << QStringList{QStringLiteral("--export-handout"), QStringLiteral("h.png")} << 2;
        QTest::newRow("unknown preset") << QStringList{QStringLiteral("--export-handout"), QStringLiteral("h.pdf"),
                                                       QStringLiteral("--preset"), QStringLiteral("nope")}
                                        << 2;
    }

    void handoutCommandLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, status);
        const QString path = m_dir.filePath(arguments[1]);
        QFile::remove(path);
        arguments[1] = path;
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        p.start(QStringLiteral(AE_BINARY), arguments);
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), status);
        if (status != 0) {
            QVERIFY(!p.readAllStandardError().isEmpty());
            QVERIFY(!QFileInfo::exists(path));
            return;
        }
        QCOMPARE(pageCount(path), 1);
        if (arguments.contains(QStringLiteral("zh_CN")) && havePoppler())
            QVERIFY2(pdfText(path).contains(QStringLiteral("七个步骤")), qPrintable(pdfText(path).left(300)));
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
