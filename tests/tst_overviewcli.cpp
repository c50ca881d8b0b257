/** The overview and head view on the command line (`--export-overview`, `--export-lines`) and
 *  `--colour-range`, driven as a script would: plain sources, a small random GPT-2 with the real
 *  tokenizer, a version-2 session with an edit, and every refusal (exit 2, nothing written). */

#include "gpt2folder_random.h"
#include "pdftext.h"
#include "programrun.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMap>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <sstream>
#include <tuple>

namespace {

using testutil::Run;

Run run(const QStringList& arguments)
{
    return testutil::runProgram(QStringLiteral(AE_BINARY), arguments);
}

using testutil::readText;

/** A random 3-layer GPT-2 (n_embd 32, 4 heads) with GPT-2's own tokenizer and vocabulary of 50 257. */
testutil::Folder realTokenizerFolder()
{
    testutil::Folder f = testutil::randomGpt2Folder("F32", "", 3, 32, 4);
    const std::string data = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer/";
    f.vocab = nlohmann::json::parse(readText(data + "encoder.json"));
    f.merges = readText(data + "vocab.bpe");
    const int vocab = int(f.vocab.size());
    f.config["vocab_size"] = vocab;
    std::mt19937_64 random(11);
    std::normal_distribution<float> normal;
    std::vector<float> wte(std::size_t(vocab) * 32);
    for (float& v : wte)
        v = 0.5f * normal(random);
    testutil::Tensor* t = testutil::findTensor(f, "wte.weight");
    t->shape = {std::uint64_t(vocab), 32};
    t->bytes = testutil::encodeValues(wte, "F32");
    return f;
}

}  // namespace

class TestOverviewCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model;

    QString out(const QString& name) const { return m_dir.filePath(name); }

    /** Runs and expects exit status 2 with message in the error, and no file at path. */
    void refused(const QStringList& arguments, const QString& path, const QString& message)
    {
        const Run r = run(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(!QFileInfo::exists(path));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_model = m_dir.filePath(QStringLiteral("gpt2-tiny"));
        QVERIFY(QDir().mkpath(m_model));
        testutil::write(realTokenizerFolder(), m_model.toStdString());
    }

    void overviewOfAMultiHeadSession()
    {
        for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
            const QString path = out(QStringLiteral("multi.") + suffix);
            const Run r = run({QStringLiteral("--export-overview"), path, QStringLiteral("--preset"), QStringLiteral("multi-head")});
            QVERIFY2(r.status == 0, r.err.constData());
            if (suffix == QLatin1String("png")) {
                const QImage image(path);
                QVERIFY(!image.isNull());
                QVERIFY(image.width() > image.height());  // one layer of two heads
            } else if (suffix == QLatin1String("svg")) {
                QVERIFY(QSvgRenderer(path).isValid());
                const QString svg = QString::fromUtf8(readText(path));
                for (const char* text : {"head 1", "head 2", "layer 1", "layers: 1 · heads: 2 · tokens: 6"})
                    QVERIFY2(svg.contains(QString::fromUtf8(text)), text);
                QVERIFY(!svg.contains(QStringLiteral("head 3")));
            } else {
                QVERIFY(readText(path).startsWith("%PDF"));
                const QString text = pdftext::pdfText(path);
                if (!text.isEmpty())
                    QVERIFY2(text.contains(QStringLiteral("head 2")), qPrintable(text));
            }
        }
    }

    void overviewOfAModel()
    {
        const QString svg = out(QStringLiteral("model.svg"));
        const Run r = run({QStringLiteral("--export-overview"), svg, QStringLiteral("--model"), m_model, QStringLiteral("--text"),
                           QStringLiteral("The cat sat on the mat because it was tired")});
        QVERIFY2(r.status == 0, r.err.constData());
        const QString text = QString::fromUtf8(readText(svg));
        QVERIFY(text.contains(QStringLiteral("layer 3")));
        QVERIFY(text.contains(QStringLiteral("head 4")));
        QVERIFY(!text.contains(QStringLiteral("layer 4")));
        // GPT-2's tokenizer: ten words, ten tokens.
        QVERIFY2(text.contains(QStringLiteral("layers: 3 · heads: 4 · tokens: 10")), qPrintable(text.left(2000)));

        // A version-2 session with an edit of layer 2 draws other attention than the unedited model.
        const QString plain = out(QStringLiteral("model-plain.png")), edited = out(QStringLiteral("model-edited.png"));
        QCOMPARE(run({QStringLiteral("--export-overview"), plain, QStringLiteral("--model"), m_model, QStringLiteral("--text"),
                      QStringLiteral("The cat sat on the mat")})
                     .status,
                 0);
        const nlohmann::json session = {{"format", "attention-explorer-session"},
                                        {"version", 2},
                                        {"model", {{"path", m_model.toStdString()}, {"layer", 2}}},
                                        {"text", "The cat sat on the mat"},
                                        {"edits", {{{"layer", 2}, {"weight", "query"}, {"row", 0}, {"col", 0}, {"value", 40.0}},
                                                   {{"layer", 2}, {"weight", "key"}, {"row", 1}, {"col", 0}, {"value", 40.0}}}}};
        const QString sessionPath = out(QStringLiteral("edited.json"));
        std::ofstream(sessionPath.toStdString()) << session.dump(1);
        const Run e = run({QStringLiteral("--export-overview"), edited, QStringLiteral("--session"), sessionPath});
        QVERIFY2(e.status == 0, e.err.constData());
        const QImage a(plain), b(edited);
        QCOMPARE(a.size(), b.size());
        QVERIFY(a != b);
    }

    void headViewOfEveryHeadOrOne()
    {
        const QString all = out(QStringLiteral("lines-all.svg"));
        QCOMPARE(run({QStringLiteral("--export-lines"), all, QStringLiteral("--preset"), QStringLiteral("multi-head")}).status, 0);
        const QString text = QString::fromUtf8(readText(all));
        for (const char* t : {"Layer 1 · heads 1, 2", "queries", "keys", "Attention", "things"})
            QVERIFY2(text.contains(QString::fromUtf8(t)), t);

        const QString one = out(QStringLiteral("lines-2.png"));
        QCOMPARE(run({QStringLiteral("--export-lines"), one, QStringLiteral("--preset"), QStringLiteral("multi-head"),
                      QStringLiteral("--head"), QStringLiteral("2")})
                     .status,
                 0);
        QVERIFY(!QImage(one).isNull());
        // A session has one layer: --layer 1 is taken, as SPEC lists it for every source; --layer 2 is refused.
        QCOMPARE(run({QStringLiteral("--export-lines"), one, QStringLiteral("--preset"), QStringLiteral("multi-head"),
                      QStringLiteral("--layer"), QStringLiteral("1")})
                     .status,
                 0);
        const Run second = run({QStringLiteral("--export-lines"), one, QStringLiteral("--preset"),
                                QStringLiteral("multi-head"), QStringLiteral("--layer"), QStringLiteral("2")});
        QCOMPARE(second.status, 2);
        QVERIFY2(second.err.contains("--layer: the preset is not a model and has one layer"), second.err.constData());

        const QString model = out(QStringLiteral("lines-model.pdf"));
        const Run r = run({QStringLiteral("--export-lines"), model, QStringLiteral("--model"), m_model, QStringLiteral("--text"),
                           QStringLiteral("The cat sat on the mat"), QStringLiteral("--layer"), QStringLiteral("3"),
                           QStringLiteral("--head"), QStringLiteral("all")});
        QVERIFY2(r.status == 0, r.err.constData());
        const QString pdf = pdftext::pdfText(model);
        if (!pdf.isEmpty())
            QVERIFY2(pdf.contains(QStringLiteral("Layer 3 · heads 1, 2, 3, 4")), qPrintable(pdf));
    }

    void colourRangeOnEveryHeatmapExport()
    {
        const QString fixed = out(QStringLiteral("fixed.png")), matrix = out(QStringLiteral("matrix.png"));
        QCOMPARE(run({QStringLiteral("--export-heatmap"), fixed, QStringLiteral("--preset"), QStringLiteral("causal-sentence")}).status, 0);
        QCOMPARE(run({QStringLiteral("--export-heatmap"), matrix, QStringLiteral("--preset"), QStringLiteral("causal-sentence"),
                      QStringLiteral("--colour-range"), QStringLiteral("matrix")})
                     .status,
                 0);
        QVERIFY(QImage(fixed) != QImage(matrix));
        const QString svg = out(QStringLiteral("row-overview.svg"));
        QCOMPARE(run({QStringLiteral("--export-overview"), svg, QStringLiteral("--preset"), QStringLiteral("causal-sentence"),
                      QStringLiteral("--colour-range"), QStringLiteral("row")})
                     .status,
                 0);
        QVERIFY(QString::fromUtf8(readText(svg)).contains(QStringLiteral("each row min–max")));
    }

    /** The report's and the handout's attention heatmaps take --colour-range: their legends name it and the
     *  page's pixels change with it. */
    void colourRangeReachesTheReportAndTheHandout()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext is not installed");
        for (const QString& kind : {QStringLiteral("report"), QStringLiteral("handout")}) {
            QMap<QString, QString> texts;
            QMap<QString, QImage> pages;
            for (const QString& range : {QStringLiteral("fixed"), QStringLiteral("row"), QStringLiteral("log")}) {
                const QString path = out(kind + QLatin1Char('-') + range + QStringLiteral(".pdf"));
                QStringList arguments{QStringLiteral("--export-") + kind, path, QStringLiteral("--preset"),
                                      QStringLiteral("causal-sentence")};
                if (range != QLatin1String("fixed"))  // fixed is the default
                    arguments << QStringLiteral("--colour-range") << range;
                const Run r = run(arguments);
                QVERIFY2(r.status == 0, r.err.constData());
                texts[range] = pdftext::pdfText(path);
                // The handout's heatmaps are on its one page; the report's weights on the page of step 5.
                int page = 1;
                if (kind == QLatin1String("report"))
                    for (int k = 1; k <= pdftext::pageCount(path); ++k)
                        if (pdftext::pdfText(path, k, k).contains(QStringLiteral("Step 5")))
                            page = k;
                pages[range] = pdftext::pdfPage(path, page, 60);
            }
            QVERIFY2(texts[QStringLiteral("fixed")].contains(QStringLiteral("fixed range")), qPrintable(kind));
            QVERIFY2(!texts[QStringLiteral("fixed")].contains(QStringLiteral("each row min–max")), qPrintable(kind));
            QVERIFY2(texts[QStringLiteral("row")].contains(QStringLiteral("each row min–max")), qPrintable(kind));
            QVERIFY2(texts[QStringLiteral("row")].contains(QStringLiteral("row max")), qPrintable(kind));
            QVERIFY2(texts[QStringLiteral("log")].contains(QStringLiteral("log scale")), qPrintable(kind));
            if (pages[QStringLiteral("fixed")].isNull())
                continue;  // pdftoppm is not installed
            QCOMPARE(pages[QStringLiteral("row")].size(), pages[QStringLiteral("fixed")].size());
            QVERIFY2(pages[QStringLiteral("row")] != pages[QStringLiteral("fixed")], qPrintable(kind));
            QVERIFY2(pages[QStringLiteral("log")] != pages[QStringLiteral("fixed")], qPrintable(kind));
        }
    }

    /** The overview, the report and the handout say once on standard error how many cells of the heatmaps they draw
     *  a log colour range cannot place, and nothing when there are none or the range is not log. */
    void logColourRangeNoteOnEveryExport_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("suffix");
        QTest::addColumn<bool>("zeros");
        QTest::addColumn<QString>("range");
        QTest::addColumn<QString>("note");
        // One dimension, Q = K = X = (30, −30), unscaled: the scores are [[900, −900], [−900, 900]] and the weights
        // [[1, 0], [0, 1]] (e^−1800 is 0): 2 cells in the weights, 2 more in each of the scores and scaled scores.
        const QString none;
        for (const auto& [flag, suffix, count] : {std::tuple{"overview", "png", "2"}, std::tuple{"report", "pdf", "6"},
                                                   std::tuple{"handout", "pdf", "2"}}) {
            const QString note = QStringLiteral("attention-explorer: note: --colour-range log: %1 cells of the heatmaps "
                                                "drawn are 0 or below, which a log scale cannot place; they are drawn in "
                                                "the colour of the lowest end of their heatmap's scale.\n")
                                     .arg(QLatin1String(count));
            const QString f = QStringLiteral("--export-") + QLatin1String(flag);
            QTest::addRow("%s zeros log", flag) << f << QString::fromLatin1(suffix) << true << QStringLiteral("log") << note;
            QTest::addRow("%s zeros fixed", flag) << f << QString::fromLatin1(suffix) << true << QStringLiteral("fixed") << none;
            QTest::addRow("%s worked example log", flag) << f << QString::fromLatin1(suffix) << false << QStringLiteral("log") << none;
        }
    }

    void logColourRangeNoteOnEveryExport()
    {
        QFETCH(QString, flag);
        QFETCH(QString, suffix);
        QFETCH(bool, zeros);
        QFETCH(QString, range);
        QFETCH(QString, note);
        const QString session = out(QStringLiteral("zero-weights.json"));
        testutil::writeText(session.toStdString(),
                            "{\"format\": \"attention-explorer-session\", \"version\": 1, \"tokens\": [\"a\", \"b\"], "
                            "\"embeddings\": [[30], [-30]], \"weights\": {\"query\": [[1]], \"key\": [[1]], "
                            "\"value\": [[1]]}, \"options\": {\"scale\": false}}");
        const QString path = out(QStringLiteral("lognote") + flag + QLatin1Char('-') + range + QLatin1Char('.') + suffix);
        QStringList arguments{flag, path, QStringLiteral("--colour-range"), range};
        if (zeros)
            arguments << QStringLiteral("--session") << session;  // else the worked example: every weight above 0
        const Run r = run(arguments);
        QCOMPARE(r.status, 0);
        QVERIFY(QFileInfo(path).size() > 0);
        QCOMPARE(QString::fromUtf8(r.err), note);
        QVERIFY(r.out.isEmpty());
    }

    /** A model's tokens read in every export as the window shows them ("␣cat"); --compute keeps the
     *  vocabulary's own ("Ġcat", SPEC §5). */
    void modelExportsShowReadableTokens()
    {
        const QStringList source{QStringLiteral("--model"), m_model, QStringLiteral("--text"),
                                 QStringLiteral("The cat sat on the mat"), QStringLiteral("--layer"), QStringLiteral("2")};
        const QString readable = QStringLiteral("\u2423cat"), vocabulary = QStringLiteral("\u0120cat");
        for (const QString& flag : {QStringLiteral("--export-heatmap"), QStringLiteral("--export-lines")}) {
            const QString svg = out(flag.mid(2) + QStringLiteral("-tokens.svg"));
            const Run r = run(QStringList{flag, svg} + source);
            QVERIFY2(r.status == 0, r.err.constData());
            const QString text = QString::fromUtf8(readText(svg));
            QVERIFY2(text.contains(readable), qPrintable(flag));
            QVERIFY2(!text.contains(vocabulary), qPrintable(flag));
        }
        const QString report = out(QStringLiteral("model-report.pdf"));
        const Run r = run(QStringList{QStringLiteral("--export-report"), report} + source);
        QVERIFY2(r.status == 0, r.err.constData());
        const QString text = pdftext::pdfText(report);
        if (!text.isEmpty()) {
            QVERIFY2(text.contains(readable), qPrintable(text.left(3000)));
            QVERIFY(!text.contains(vocabulary));
            // The shown layer says where its X comes from, as in the window.
            QVERIFY2(text.contains(QStringLiteral("residual stream entering layer 2")), qPrintable(text.left(3000)));
        }
        const Run json = run(QStringList{QStringLiteral("--compute")} + source);
        QVERIFY2(json.status == 0, json.err.constData());
        const auto tokens = nlohmann::json::parse(json.out.toStdString())["tokens"];
        QCOMPARE(QString::fromStdString(tokens.at(1).get<std::string>()), vocabulary);
    }

    void refusals()
    {
        const QString p = out(QStringLiteral("never.png"));
        refused({QStringLiteral("--export-overview"), p, QStringLiteral("--colour-range"), QStringLiteral("linear")}, p,
                QStringLiteral("--colour-range: expected one of fixed, matrix, row, log"));
        refused({QStringLiteral("--export-heatmap"), p, QStringLiteral("--colour-range"), QStringLiteral("")}, p,
                QStringLiteral("--colour-range"));
        refused({QStringLiteral("--export-lines"), p, QStringLiteral("--preset"), QStringLiteral("multi-head"),
                 QStringLiteral("--head"), QStringLiteral("3")},
                p, QStringLiteral("--head: expected a number from 1 to 2 or all"));
        refused({QStringLiteral("--export-lines"), p, QStringLiteral("--head"), QStringLiteral("none")}, p,
                QStringLiteral("--head"));
        const QString txt = out(QStringLiteral("never.txt"));
        refused({QStringLiteral("--export-overview"), txt}, txt, QStringLiteral("must end in .png, .svg or .pdf"));
        refused({QStringLiteral("--export-lines"), p, QStringLiteral("--preset"), QStringLiteral("multi-head"),
                 QStringLiteral("--layer"), QStringLiteral("2")},
                p, QStringLiteral("--layer"));
        refused({QStringLiteral("--export-lines"), p, QStringLiteral("--model"), m_model, QStringLiteral("--text"),
                 QStringLiteral("hi"), QStringLiteral("--layer"), QStringLiteral("4")},
                p, QStringLiteral("--layer: expected a number from 1 to 3"));
        refused({QStringLiteral("--export-overview"), p, QStringLiteral("--model"), m_dir.filePath(QStringLiteral("missing")),
                 QStringLiteral("--text"), QStringLiteral("hi")},
                p, QStringLiteral("--model"));
        // More tokens than the head view draws.
        QString longText;
        for (int i = 0; i < 140; ++i)
            longText += QStringLiteral("w%1 ").arg(i);
        refused({QStringLiteral("--export-lines"), p, QStringLiteral("--tokens"), longText}, p,
                QStringLiteral("the head view draws up to 128 tokens"));
    }
};

QTEST_GUILESS_MAIN(TestOverviewCli)
#include "tst_overviewcli.moc"
