/** The command line of SPEC §3, driven as a script would: start the program, read what it wrote. */

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

#ifdef Q_OS_UNIX
#include <csignal>
#include <sys/resource.h>
#endif

#include "decimalcomma.h"
#include "fifo.h"
#include "pdftext.h"
#include "programrun.h"
#include "testutil.h"

namespace {

using testutil::Run;

/** The program, as a bare script starts it (programrun.h). */
Run run(const QStringList& arguments, const QString& locale = {})
{
    return testutil::runProgram(QStringLiteral(AE_BINARY), arguments, locale);
}

#ifdef Q_OS_UNIX
/** The program with every file it writes cut at limit bytes, as a full disk cuts it: a write past the
 *  limit fails (EFBIG) and does not stop the program (SIGXFSZ ignored). Needs no root and no small disk. */
Run runCutAt(const QStringList& arguments, rlim_t limit)
{
    return testutil::runProgram(QStringLiteral(AE_BINARY), arguments, {}, {}, 300000, [limit] {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit r{limit, limit};
        ::setrlimit(RLIMIT_FSIZE, &r);
    });
}
#endif

/** Every entry of a folder, hidden ones too: a file's name and bytes, a folder's name and "<folder>". */
QMap<QString, QByteArray> folderContents(const QString& folder)
{
    QMap<QString, QByteArray> contents;
    const QDir dir(folder);
    for (const QFileInfo& info : dir.entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot)) {
        QFile file(info.filePath());
        contents[info.fileName()] = info.isDir() ? QByteArray("<folder>")
                                                 : file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<unreadable>");
    }
    return contents;
}

const char* workedExample = R"({
  "format": "attention-explorer-session",
  "version": 1,
  "tokens": ["Thinking", "Machines", "Rock"],
  "embeddings": [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]],
  "weights": {
    "query":  [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]],
    "key":    [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
    "value":  [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]],
    "output": null
  },
  "options": {"heads": 1, "scale": false, "temperature": 1.0, "mask": "none", "positional_encoding": "none"}
})";

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& content)
{
    const QString path = dir.filePath(name);
    return testutil::writeText(path, content) ? path : QString();
}

/** Largest |actual − expected| over a JSON matrix; infinity when the shapes differ. */
double difference(const QJsonValue& actual, const std::vector<std::vector<double>>& expected)
{
    const QJsonArray rows = actual.toArray();
    if (rows.size() != qsizetype(expected.size()))
        return INFINITY;
    double worst = 0;
    for (qsizetype r = 0; r < rows.size(); ++r) {
        const QJsonArray row = rows[r].toArray();
        if (row.size() != qsizetype(expected[std::size_t(r)].size()))
            return INFINITY;
        for (qsizetype c = 0; c < row.size(); ++c)
            worst = std::max(worst, std::fabs(row[c].toDouble() - expected[std::size_t(r)][std::size_t(c)]));
    }
    return worst;
}

/** The actions as --help lists them, in its order. */
QStringList actionsInHelpOrder()
{
    const Run help = run({QStringLiteral("--help")});
    QStringList actions;
    static const QRegularExpression option(QStringLiteral("^  (--(compute|export-[a-z]+|generate|list-presets))\\b"),
                                           QRegularExpression::MultilineOption);
    for (auto it = option.globalMatch(QString::fromUtf8(help.out)); it.hasNext();)
        actions << it.next().captured(1);
    return actions;
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void computePrintsTheWorkedExample()
    {
        const Run r = run({QStringLiteral("--compute"), writeFile(m_dir, QStringLiteral("example.json"), workedExample)});
        QCOMPARE(r.status, 0);
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(r.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(o.value(QStringLiteral("tokens")).toArray().size(), 3);
        const QJsonObject h = o.value(QStringLiteral("heads")).toArray().at(0).toObject();
        // SPEC §4: integers exactly, the softmax within 1e-4.
        QCOMPARE(difference(h.value(QStringLiteral("keys")), {{0, 1, 1}, {4, 4, 0}, {2, 3, 1}}), 0.0);
        QCOMPARE(difference(h.value(QStringLiteral("queries")), {{1, 0, 2}, {2, 2, 2}, {2, 1, 3}}), 0.0);
        QCOMPARE(difference(h.value(QStringLiteral("values")), {{1, 2, 3}, {2, 8, 0}, {2, 6, 3}}), 0.0);
        QCOMPARE(difference(h.value(QStringLiteral("scores")), {{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}), 0.0);
        QCOMPARE(difference(h.value(QStringLiteral("scaled_scores")), {{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}), 0.0);
        QVERIFY(difference(h.value(QStringLiteral("weights")), {{0.063379, 0.468311, 0.468311},
                                                                 {0.0000060337, 0.982008, 0.017986},
                                                                 {0.00029539, 0.880537, 0.119168}})
                < 1e-6);
        const std::vector<std::vector<double>> outputs = {
            {1.9366, 6.6831, 1.5951}, {2.0000, 7.9640, 0.0540}, {1.9997, 7.7599, 0.3584}};
        QVERIFY(difference(h.value(QStringLiteral("outputs")), outputs) < 1e-4);
        QVERIFY(difference(o.value(QStringLiteral("concat")), outputs) < 1e-4);
        QVERIFY(difference(o.value(QStringLiteral("output")), outputs) < 1e-4);
        QVERIFY(difference(o.value(QStringLiteral("x")), {{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}}) == 0.0);
    }

    void computePrintsNumbersThatReadBackExactly()
    {
        // 0.1 and 1/3 are not short in binary: the printed text must carry every bit.
        QByteArray session = workedExample;
        session.replace("[[1, 0, 1, 0], [0, 2", "[[0.1, 0.3333333333333333, 1, 0], [0, 2");
        const Run r = run({QStringLiteral("--compute"), writeFile(m_dir, QStringLiteral("exact.json"), session)});
        QCOMPARE(r.status, 0);
        const QJsonArray x = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("x")).toArray();
        QCOMPARE(x.at(0).toArray().at(0).toDouble(), 0.1);
        QCOMPARE(x.at(0).toArray().at(1).toDouble(), 0.3333333333333333);
        // Q(0, 0) = 0.1·1 + (1/3)·1 + 1·0 + 0·0, summed in double as the engine does.
        const QJsonArray q = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("heads")).toArray()
                                 .at(0).toObject().value(QStringLiteral("queries")).toArray();
        QCOMPARE(q.at(0).toArray().at(0).toDouble(), 0.1 + 0.3333333333333333);
    }

    void computeAddsTheBiases()
    {
        // The worked example with b_Q = [1, 0, −1], b_V = [0, 0, 0.5], W_O = I and b_O = [10, 0, 0]: Q and V are
        // SPEC §4's plus their bias on every row, K is unchanged, output = concat + b_O.
        QByteArray session = workedExample;
        session.replace(R"("output": null)", R"("output": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "query_bias": [1, 0, -1],
            "value_bias": [0, 0, 0.5], "output_bias": [10, 0, 0])");
        const Run r = run({QStringLiteral("--compute"), writeFile(m_dir, QStringLiteral("biases.json"), session)});
        QCOMPARE(r.status, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonObject h = o.value(QStringLiteral("heads")).toArray().at(0).toObject();
        QCOMPARE(difference(h.value(QStringLiteral("queries")), {{2, 0, 1}, {3, 2, 1}, {3, 1, 2}}), 0.0);
        QCOMPARE(difference(h.value(QStringLiteral("keys")), {{0, 1, 1}, {4, 4, 0}, {2, 3, 1}}), 0.0);
        QCOMPARE(difference(h.value(QStringLiteral("values")), {{1, 2, 3.5}, {2, 8, 0.5}, {2, 6, 3.5}}), 0.0);
        const QJsonArray concat = o.value(QStringLiteral("concat")).toArray();
        std::vector<std::vector<double>> shifted;
        for (const QJsonValue& row : concat) {
            const QJsonArray r = row.toArray();
            shifted.push_back({r.at(0).toDouble() + 10, r.at(1).toDouble(), r.at(2).toDouble()});
        }
        QVERIFY(difference(o.value(QStringLiteral("output")), shifted) < 1e-12);
    }

    /** On a German desktop (decimal comma) the program reads the same session and writes the same
     *  JSON and figures, byte for byte, as under C. */
    void decimalCommaLocaleChangesNoOutput_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("file");  // the output file to compare; empty: standard output
        QTest::addRow("compute") << QStringList{QStringLiteral("--compute"), QStringLiteral("exact.json")} << QString();
        QTest::addRow("annotated heatmap")
            << QStringList{QStringLiteral("--export-heatmap"), QStringLiteral("out.svg"), QStringLiteral("--session"),
                           QStringLiteral("exact.json"), QStringLiteral("--step"), QStringLiteral("scores"),
                           QStringLiteral("--annotate")}
            << QStringLiteral("out.svg");
    }

    void decimalCommaLocaleChangesNoOutput()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, file);
        QByteArray session = workedExample;
        session.replace("[[1, 0, 1, 0], [0, 2", "[[0.1, 0.3333333333333333, 1.5, 0], [0, 2");
        session.replace("\"temperature\": 1.0", "\"temperature\": 0.7");
        const QString input = writeFile(m_dir, QStringLiteral("exact.json"), session);
        arguments.replaceInStrings(QStringLiteral("exact.json"), input);
        const QString output = m_dir.filePath(file);
        if (!file.isEmpty())
            arguments.replaceInStrings(file, output);
        QByteArray texts[2];
        const QString locales[2] = {QStringLiteral("C.UTF-8"), QString::fromLatin1(testutil::decimalCommaLocale)};
        for (int i = 0; i < 2; ++i) {
            const Run r = run(arguments, locales[i]);
            QVERIFY2(r.status == 0, r.err.constData());
            QFile f(output);
            texts[i] = file.isEmpty() ? r.out : (f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray());
            QVERIFY(!texts[i].isEmpty());
        }
        QCOMPARE(texts[1], texts[0]);
        if (file.isEmpty()) {
            const QJsonObject o = QJsonDocument::fromJson(texts[1]).object();
            QCOMPARE(o.value(QStringLiteral("x")).toArray().at(0).toArray().at(0).toDouble(), 0.1);
        } else {
            const QString svg = QString::fromUtf8(texts[1]);  // the annotations: ">0.57<", not ">0,57<"
            QVERIFY2(svg.contains(QRegularExpression(QStringLiteral(">−?[0-9]+\\.[0-9]{2}<"))), qPrintable(svg));
            QVERIFY(!svg.contains(QRegularExpression(QStringLiteral(">−?[0-9]+,[0-9]{2}<"))));
        }
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::addRow("not json") << QByteArray("{ nope") << QStringLiteral("not valid JSON");
        QTest::addRow("empty") << QByteArray() << QStringLiteral("empty");
        QTest::addRow("wrong format") << QByteArray(R"({"format":"x","version":1,"tokens":["a"]})")
                                      << QStringLiteral("format");
        QTest::addRow("newer version") << QByteArray(R"({"format":"attention-explorer-session","version":9,"tokens":["a"]})")
                                       << QStringLiteral("newer than this program reads (version 2)");
        QByteArray shape = workedExample;
        shape.replace(R"("key":    [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]])", R"("key": [[0, 0, 1], [1, 1, 0], [0, 1, 0]])");
        QTest::addRow("shape") << shape << QStringLiteral("weights.key: expected 4 rows (d_model), got 3");
        QByteArray bias = workedExample;
        bias.replace(R"("output": null)", R"("output": null, "query_bias": [1, 2])");
        QTest::addRow("bias shape") << bias << QStringLiteral("weights.query_bias: expected 3 columns (h·d_k), got 2");
    }

    void refusals()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString path = writeFile(m_dir, QStringLiteral("refused.json"), content);
        const Run r = run({QStringLiteral("--compute"), path});
        QCOMPARE(r.status, 2);
        QVERIFY(r.out.isEmpty());
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(err.contains(expected), qPrintable(err));
        QVERIFY2(err.contains(path), qPrintable(err));  // names the file
        QVERIFY2(!err.contains(QStringLiteral("XDG_RUNTIME_DIR")), qPrintable(err));
    }

    /** A session given as a pipe, /dev/stdin or a FIFO (`--compute <(cat s.json)`) has its text only once: the
     *  program reads it once and prints what it prints for the file. */
    void computeReadsAPipeOnce()
    {
        const QString file = writeFile(m_dir, QStringLiteral("piped.json"), workedExample);
        const Run fromFile = run({QStringLiteral("--compute"), file});
        QCOMPARE(fromFile.status, 0);

        QProcess p;
        p.start(QStringLiteral(AE_BINARY), {QStringLiteral("--compute"), QStringLiteral("/dev/stdin")});
        QVERIFY(p.waitForStarted());
        p.write(workedExample);
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QCOMPARE(p.readAllStandardOutput(), fromFile.out);

        const QString fifo = m_dir.filePath(QStringLiteral("piped.fifo"));
        const testutil::FifoWriter writer(fifo.toStdString(), workedExample);
        QVERIFY(writer.made());
        const Run fromFifo = testutil::runProgram(QStringLiteral(AE_BINARY), {QStringLiteral("--compute"), fifo}, {}, {},
                                                  60000);
        QVERIFY2(fromFifo.status == 0, fromFifo.err.constData()); // -1: it hung, opening the FIFO a second time
        QCOMPARE(fromFifo.out, fromFile.out);
    }

    void missingFileIsRefused()
    {
        const Run r = run({QStringLiteral("--compute"), m_dir.filePath(QStringLiteral("absent.json"))});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.contains("absent.json"));
    }

    void listPresets()
    {
        const Run r = run({QStringLiteral("--list-presets")});
        QCOMPARE(r.status, 0);
        const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QStringList names;
        for (const QString& line : lines) {
            QCOMPARE(line.count(QLatin1Char('\t')), 1);
            QVERIFY(!line.section(QLatin1Char('\t'), 1).isEmpty());
            names << line.section(QLatin1Char('\t'), 0, 0);
        }
        for (const char* name : {"illustrated", "illustrated-scaled", "thinking-machines", "causal-sentence",
                                 "multi-head", "chinese"})
            QVERIFY2(names.contains(QLatin1String(name)), name);
    }

    void helpAndVersion()
    {
        const Run help = run({QStringLiteral("--help")});
        QCOMPARE(help.status, 0);
        QVERIFY(help.out.contains("--export-heatmap"));
        const Run version = run({QStringLiteral("--version")});
        QCOMPARE(version.status, 0);
        QVERIFY(version.out.startsWith("attention-explorer "));
    }

    void exportPng_data()
    {
        QTest::addColumn<QStringList>("source");
        QTest::addRow("default") << QStringList();
        QTest::addRow("causal") << QStringList{QStringLiteral("--preset"), QStringLiteral("causal-sentence")};
        QTest::addRow("chinese tokens") << QStringList{QStringLiteral("--tokens"), QStringLiteral("注意力机制")};
        QTest::addRow("two heads, scores")
            << QStringList{QStringLiteral("--preset"), QStringLiteral("multi-head"), QStringLiteral("--head"),
                           QStringLiteral("2"), QStringLiteral("--step"), QStringLiteral("scores")};
    }

    void exportPng()
    {
        QFETCH(QStringList, source);
        const QString out = m_dir.filePath(QStringLiteral("heatmap.png"));
        QFile::remove(out);
        const Run r = run(QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--size"),
                                      QStringLiteral("640x480"), QStringLiteral("--annotate")}
                          + source);
        QVERIFY2(r.status == 0, r.err.constData());
        QImage image(out);
        QCOMPARE(image.size(), QSize(640, 480));
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 10, "the image is nearly uniform");
    }

    void exportSvgAndPdf()
    {
        const QString svg = m_dir.filePath(QStringLiteral("heatmap.svg"));
        QCOMPARE(run({QStringLiteral("--export-heatmap"), svg, QStringLiteral("--preset"), QStringLiteral("chinese")}).status, 0);
        QSvgRenderer renderer(svg);
        QVERIFY(renderer.isValid());
        QVERIFY(!renderer.defaultSize().isEmpty());

        const QString pdf = m_dir.filePath(QStringLiteral("heatmap.pdf"));
        QCOMPARE(run({QStringLiteral("--export-heatmap"), pdf, QStringLiteral("--colormap"), QStringLiteral("cividis")}).status, 0);
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.read(5), QByteArray("%PDF-"));
    }

    void exportRefusals_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("status");
        const QString out = QStringLiteral("refused.png");
        QTest::addRow("ending") << QStringList{QStringLiteral("--export-heatmap"), QStringLiteral("refused.gif")} << 2;
        QTest::addRow("step") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--step"),
                                             QStringLiteral("queries")}
                              << 2;
        QTest::addRow("head") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--head"),
                                             QStringLiteral("2")}
                              << 2;
        QTest::addRow("size") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--size"),
                                             QStringLiteral("big")}
                              << 2;
        QTest::addRow("colormap") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--colormap"),
                                                 QStringLiteral("rainbow")}
                                  << 2;
        QTest::addRow("preset") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--preset"),
                                               QStringLiteral("nope")}
                                << 2;
        QTest::addRow("no tokens") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--tokens"),
                                                  QStringLiteral("   ")}
                                   << 2;
        QTest::addRow("two sources") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--preset"),
                                                    QStringLiteral("chinese"), QStringLiteral("--tokens"), QStringLiteral("a")}
                                     << 2;
        QTest::addRow("unknown option") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--frobnicate")}
                                        << 2;
        QTest::addRow("unwritable") << QStringList{QStringLiteral("--export-heatmap"), QStringLiteral("no/such/folder/x.png")}
                                    << 1;
        QTest::addRow("handout ending") << QStringList{QStringLiteral("--export-handout"), out} << 2;
        QTest::addRow("handout source") << QStringList{QStringLiteral("--export-handout"), QStringLiteral("refused.pdf"),
                                                       QStringLiteral("--tokens"), QStringLiteral("   ")}
                                        << 2;
        QTest::addRow("handout unwritable")
            << QStringList{QStringLiteral("--export-handout"), QStringLiteral("no/such/folder/x.pdf")} << 1;
        QTest::addRow("slides ending") << QStringList{QStringLiteral("--export-slides"), out} << 2;
        QTest::addRow("slides preset") << QStringList{QStringLiteral("--export-slides"), QStringLiteral("refused.pdf"),
                                                      QStringLiteral("--preset"), QStringLiteral("nope")}
                                       << 2;
        QTest::addRow("slides unwritable") << QStringList{QStringLiteral("--export-slides"), QStringLiteral("no/such/folder/x.pdf")}
                                           << 1;
    }

    void exportRefusals()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, status);
        const QString before = QDir::currentPath();
        QDir::setCurrent(m_dir.path());
        const Run r = run(arguments);
        QDir::setCurrent(before);
        QCOMPARE(r.status, status);
        QVERIFY2(!r.err.trimmed().isEmpty(), "a refusal says why");
        // Nothing is written, not even a partial file.
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("refused.png"))));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("refused.gif"))));
    }

    void exportSlides_data()
    {
        QTest::addColumn<QStringList>("source");
        QTest::addColumn<int>("pages");
        // The seven steps and every token at once; two heads add concat, concat · W_O and the output (8 + 8 + 8
        // columns are too many for one slide).
        QTest::addRow("worked example") << QStringList{} << 8;
        QTest::addRow("multi-head") << QStringList{QStringLiteral("--preset"), QStringLiteral("multi-head")} << 11;
        QTest::addRow("eight tokens") << QStringList{QStringLiteral("--tokens"),
                                                     QStringLiteral("the quick brown fox jumps over the dog")}
                                      << 8;
    }

    void exportSlides()
    {
        QFETCH(QStringList, source);
        QFETCH(int, pages);
        const QString tag = QString::fromUtf8(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'));
        const QString out = m_dir.filePath(QStringLiteral("slides-%1.pdf").arg(tag));
        const Run r = run(QStringList{QStringLiteral("--export-slides"), out} + source);
        QVERIFY2(r.status == 0, r.err.constData());
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.read(5), QByteArray("%PDF-"));
        QCOMPARE(pdftext::pageCount(out), pages);
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing: the slides' text is not checked");
        const QSizeF page = pdftext::pageSize(out);
        QVERIFY2(page.width() > page.height(), "the slides are landscape");
        if (source.isEmpty()) {
            // The softmax slide (5) of SPEC §4's example gives its answer in full, as real text.
            const QString softmax = pdftext::pdfText(out, 5, 5);
            QVERIFY2(softmax.contains(QStringLiteral("w(1,2) = exp(4 − 4) / Σ = 1 / 2.1353 = 0.4683")),
                     qPrintable(softmax));
        }
    }

    /** --query and --head choose what the slides and the report's weighted values walk; under a causal mask the
     *  slides walk the last query unless told (query 1 would see only itself). */
    void slidesAndReportWalkTheQueryAndHeadAsked()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext (poppler-utils) is missing");
        const QStringList causal{QStringLiteral("--preset"), QStringLiteral("causal-sentence")};
        const QString slides = m_dir.filePath(QStringLiteral("walk-slides.pdf"));
        Run r = run(QStringList{QStringLiteral("--export-slides"), slides} + causal);
        QVERIFY2(r.status == 0, r.err.constData());
        QString scores = pdftext::pdfText(slides, 3, 3);
        QVERIFY2(scores.contains(QStringLiteral("query 8 ")), qPrintable(scores));
        r = run(QStringList{QStringLiteral("--export-slides"), slides, QStringLiteral("--query"), QStringLiteral("3")} + causal);
        QVERIFY2(r.status == 0, r.err.constData());
        scores = pdftext::pdfText(slides, 3, 3);
        QVERIFY2(scores.contains(QStringLiteral("query 3 ")) && !scores.contains(QStringLiteral("query 8 ")),
                 qPrintable(scores));

        r = run({QStringLiteral("--export-slides"), slides, QStringLiteral("--preset"), QStringLiteral("multi-head"),
                 QStringLiteral("--head"), QStringLiteral("2")});
        QVERIFY2(r.status == 0, r.err.constData());
        const QString projections = pdftext::pdfText(slides, 2, 2);
        QVERIFY2(projections.contains(QStringLiteral("head 2")) && !projections.contains(QStringLiteral("head 1")),
                 qPrintable(projections));

        r = run(QStringList{QStringLiteral("--export-slides"), slides, QStringLiteral("--query"), QStringLiteral("9")} + causal);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains("--query: expected a number from 1 to 8, got \"9\""), r.err.constData());

        const QString report = m_dir.filePath(QStringLiteral("walk-report.pdf"));
        r = run(QStringList{QStringLiteral("--export-report"), report, QStringLiteral("--query"), QStringLiteral("5")} + causal);
        QVERIFY2(r.status == 0, r.err.constData());
        const QString text = pdftext::pdfText(report);
        QVERIFY2(text.contains(QStringLiteral("query 5 (")) && !text.contains(QStringLiteral("query 1 (")),
                 qPrintable(text));

        r = run({QStringLiteral("--export-heatmap"), m_dir.filePath(QStringLiteral("walk.svg")), QStringLiteral("--query"),
                 QStringLiteral("2")});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.err.contains("--query does not apply to --export-heatmap"), r.err.constData());
    }

    void optionsAnActionDoesNotReadAreNoted()
    {
        // The action still runs and succeeds; standard error says which options it left alone.
        const QString code = m_dir.filePath(QStringLiteral("noted.py"));
        Run r = run({QStringLiteral("--export-code"), code, QStringLiteral("--colormap"), QStringLiteral("magma"),
                     QStringLiteral("--colour-range"), QStringLiteral("row")});
        QCOMPARE(r.status, 0);
        QVERIFY(QFileInfo::exists(code));
        QVERIFY2(r.err.contains("--colormap does not apply to --export-code"), r.err.constData());
        QVERIFY2(r.err.contains("--colour-range does not apply to --export-code"), r.err.constData());

        // What an action reads is not noted: the overview takes the colour map and range, not --step.
        const QString overview = m_dir.filePath(QStringLiteral("noted.png"));
        r = run({QStringLiteral("--export-overview"), overview, QStringLiteral("--colormap"), QStringLiteral("magma"),
                 QStringLiteral("--colour-range"), QStringLiteral("row"), QStringLiteral("--step"),
                 QStringLiteral("scores")});
        QCOMPARE(r.status, 0);
        QVERIFY2(!r.err.contains("--colormap") && !r.err.contains("--colour-range"), r.err.constData());
        QVERIFY2(r.err.contains("--step does not apply to --export-overview"), r.err.constData());

        // Two actions: the first runs, the second is named as not done.
        const QString heatmap = m_dir.filePath(QStringLiteral("noted-heatmap.png"));
        const QString report = m_dir.filePath(QStringLiteral("noted-report.pdf"));
        r = run({QStringLiteral("--export-heatmap"), heatmap, QStringLiteral("--export-report"), report,
                 QStringLiteral("--annotate")});
        QCOMPARE(r.status, 0);
        QVERIFY(QFileInfo::exists(heatmap));
        QVERIFY(!QFileInfo::exists(report));
        QVERIFY2(r.err.contains("--export-report is not done"), r.err.constData());
        QVERIFY2(!r.err.contains("--annotate"), r.err.constData());

        // --annotate where the cells are too small for numbers: the heatmap is written without them, and says so.
        QStringList words;
        for (int i = 0; i < 60; ++i)
            words << QStringLiteral("w%1").arg(i);
        const QString crowded = m_dir.filePath(QStringLiteral("crowded.png"));
        r = run({QStringLiteral("--export-heatmap"), crowded, QStringLiteral("--tokens"), words.join(QLatin1Char(' ')),
                 QStringLiteral("--size"), QStringLiteral("300x300"), QStringLiteral("--annotate")});
        QCOMPARE(r.status, 0);
        QVERIFY(QFileInfo::exists(crowded));
        QVERIFY2(r.err.contains("--annotate: the 60 × 60 cells are too small"), r.err.constData());
    }

    void computeTakesASourceAfterOtherOptions_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("firstToken");
        QTest::addRow("--lang first") << QStringList{QStringLiteral("--compute"), QStringLiteral("--lang"),
                                                     QStringLiteral("en"), QStringLiteral("--preset"),
                                                     QStringLiteral("illustrated")}
                                      << QStringLiteral("Input 1");
        QTest::addRow("--annotate first") << QStringList{QStringLiteral("--compute"), QStringLiteral("--annotate"),
                                                         QStringLiteral("--tokens"), QStringLiteral("The cat")}
                                          << QStringLiteral("The");
        QTest::addRow("--compute last") << QStringList{QStringLiteral("--tokens"), QStringLiteral("The cat"),
                                                       QStringLiteral("--compute")}
                                        << QStringLiteral("The");
    }

    void computeTakesASourceAfterOtherOptions()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, firstToken);
        const Run r = run(arguments);
        QVERIFY2(r.status == 0, r.err.constData());
        const QJsonObject trace = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(trace.value(QStringLiteral("tokens")).toArray().first().toString(), firstToken);
    }

    void anOptionWithoutItsValueIsRefused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString out = m_dir.filePath(QStringLiteral("missing-value.png"));
        QTest::addRow("--session") << QStringList{QStringLiteral("--session"), QStringLiteral("--export-heatmap"), out}
                                   << QStringLiteral("--session: missing its FILE (--export-heatmap after it is an option)");
        QTest::addRow("--preset") << QStringList{QStringLiteral("--export-heatmap"), out, QStringLiteral("--preset"),
                                                 QStringLiteral("--annotate")}
                                  << QStringLiteral("--preset: missing its NAME (--annotate after it is an option)");
        QTest::addRow("--export-heatmap") << QStringList{QStringLiteral("--export-heatmap"), QStringLiteral("--preset"),
                                                         QStringLiteral("illustrated")}
                                          << QStringLiteral("--export-heatmap: missing its OUT");
        QTest::addRow("--tokens") << QStringList{QStringLiteral("--tokens"), QStringLiteral("--compute")}
                                  << QStringLiteral("--tokens: missing its TEXT");
    }

    void anOptionWithoutItsValueIsRefused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const Run r = run(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("missing-value.png"))));
    }

    void aFileOnItsOwnIsTheSource_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("out");
        QTest::addRow("heatmap") << QStringLiteral("--export-heatmap") << QStringLiteral("h.png");
        QTest::addRow("code") << QStringLiteral("--export-code") << QStringLiteral("c.py");
        QTest::addRow("steps") << QStringLiteral("--export-steps") << QStringLiteral("steps");
    }

    void aFileOnItsOwnIsTheSource()
    {
        // `attention-explorer --export-… OUT FILE` writes what `--session FILE` writes, not the built-in example.
        QFETCH(QString, action);
        QFETCH(QString, out);
        QByteArray session = workedExample;
        session.replace("\"Rock\"", "\"Stone\"");
        const QString file = writeFile(m_dir, QStringLiteral("positional.json"), session);
        const QString dir = m_dir.filePath(QStringLiteral("positional-") + out);
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/given")) && QDir().mkpath(dir + QStringLiteral("/flag")));
        const QString given = dir + QStringLiteral("/given/") + out, flag = dir + QStringLiteral("/flag/") + out;
        Run r = run({action, given, file});
        QVERIFY2(r.status == 0, r.err.constData());
        r = run({action, flag, QStringLiteral("--session"), file});
        QVERIFY2(r.status == 0, r.err.constData());
        const auto bytes = [](const QString& path) {
            QFile f(QFileInfo(path).isDir() ? path + QStringLiteral("/trace.json") : path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        QVERIFY(!bytes(given).isEmpty());
        QCOMPARE(bytes(given), bytes(flag));
        if (action == QLatin1String("--export-steps"))
            QVERIFY(bytes(given).contains("Stone"));
    }

    void strayArgumentsAreRefused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString a = m_dir.filePath(QStringLiteral("stray-a.json")), b = m_dir.filePath(QStringLiteral("stray-b.json"));
        const QString out = m_dir.filePath(QStringLiteral("stray.py"));
        QTest::addRow("--compute two files") << QStringList{QStringLiteral("--compute"), a, b}
                                             << QStringLiteral("%1: one file is read (%2)").arg(b, a);
        QTest::addRow("an export, two files") << QStringList{QStringLiteral("--export-code"), out, a, b}
                                              << QStringLiteral("%1: one file is read (%2)").arg(b, a);
        QTest::addRow("a file and a preset")
            << QStringList{QStringLiteral("--export-code"), out, a, QStringLiteral("--preset"), QStringLiteral("chinese")}
            << QStringLiteral("give one source: a file, --session, --preset, --tokens or --model (given: %1, --preset)")
                   .arg(a);
        QTest::addRow("--list-presets") << QStringList{QStringLiteral("--list-presets"), a}
                                        << QStringLiteral("%1: --list-presets reads no file").arg(a);
    }

    void strayArgumentsAreRefused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        for (const QString& name : {QStringLiteral("stray-a.json"), QStringLiteral("stray-b.json")})
            QVERIFY(!writeFile(m_dir, name, workedExample).isEmpty());
        const Run r = run(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("stray.py"))));
    }

    void failedExportKeepsTheOldFile()
    {
        const QString out = m_dir.filePath(QStringLiteral("keep.png"));
        QFile f(out);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("old contents");
        f.close();
        QCOMPARE(run({QStringLiteral("--export-heatmap"), out, QStringLiteral("--head"), QStringLiteral("7")}).status, 2);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("old contents"));
    }

    /** A write cut short (a full disk) fails every export, names the file and keeps the old one; no
     *  writer may take a short write for success (an SVG once did, cut mid-tag, with status 0). */
    void shortWriteFailsAndKeepsTheOldFile_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("name");
        QTest::newRow("svg") << "--export-heatmap" << "keep.svg";
        QTest::newRow("png") << "--export-heatmap" << "keep.png";
        QTest::newRow("pdf") << "--export-heatmap" << "keep.pdf";
        QTest::newRow("code") << "--export-code" << "keep.py";
        QTest::newRow("report") << "--export-report" << "keep.pdf";
        QTest::newRow("handout") << "--export-handout" << "keep.pdf";
        QTest::newRow("slides") << "--export-slides" << "keep.pdf";
        QTest::newRow("overview") << "--export-overview" << "keep.svg";
    }

    void shortWriteFailsAndKeepsTheOldFile()
    {
#ifdef Q_OS_UNIX
        QFETCH(QString, action);
        QFETCH(QString, name);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = writeFile(dir, name, "OLD\n");
        const Run r = runCutAt({action, out}, 1024);
        QCOMPARE(r.status, 1);
        QVERIFY2(r.err.contains(name.toUtf8()), r.err.constData());
        QVERIFY2(!r.err.contains("Unknown error"), r.err.constData());
        const QMap<QString, QByteArray> expected{{name, "OLD\n"}};
        QCOMPARE(folderContents(dir.path()), expected);
#else
        QSKIP("needs a limit on the size of a file the program writes (Unix)");
#endif
    }

    /** A log colour scale cannot place scores of 0 and below: a note names how many and how they are drawn. */
    void logColourRangeNotesCellsItCannotPlace()
    {
        // One dimension, Q = K = X = (1, −1): the scores are [[1, −1], [−1, 1]], two of them below 0.
        const QString session = writeFile(m_dir, QStringLiteral("signs.json"),
                                          "{\"format\": \"attention-explorer-session\", \"version\": 1, \"tokens\": [\"a\", \"b\"], "
                                          "\"embeddings\": [[1], [-1]], \"weights\": {\"query\": [[1]], \"key\": [[1]], "
                                          "\"value\": [[1]]}, \"options\": {\"scale\": false}}");
        const QString out = m_dir.filePath(QStringLiteral("signs.png"));
        const QStringList arguments = {QStringLiteral("--export-heatmap"), out, QStringLiteral("--session"), session,
                                       QStringLiteral("--step"), QStringLiteral("scores")};
        const Run log = run(arguments + QStringList{QStringLiteral("--colour-range"), QStringLiteral("log")});
        QCOMPARE(log.status, 0);
        QVERIFY(QFile::exists(out));
        QVERIFY2(log.err.startsWith("attention-explorer: note: --colour-range log: 2 cells are 0 or below"), log.err.constData());
        const Run fixed = run(arguments);  // the fixed range places them all
        QCOMPARE(fixed.status, 0);
        QVERIFY2(fixed.err.isEmpty(), fixed.err.constData());
    }

    /** --export-steps into a path that names a file says so, and leaves the file as it was. */
    void stepExportIntoAFileSaysItIsAFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = writeFile(dir, QStringLiteral("steps"), "mine\n");
        QVERIFY(!file.isEmpty());
        const Run r = run({QStringLiteral("--export-steps"), file, QStringLiteral("--preset"), QStringLiteral("illustrated")});
        QCOMPARE(r.status, 1);
        QCOMPARE(QString::fromUtf8(r.err), QStringLiteral("attention-explorer: %1 is a file, not a folder\n").arg(file));
        QCOMPARE(folderContents(dir.path()), (QMap<QString, QByteArray>{{QStringLiteral("steps"), "mine\n"}}));
    }

    /** A failed export of the steps leaves the folder exactly as it was: every new file is written
     *  before any old one is replaced. */
    void failedStepExportLeavesTheFolderAsItWas()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString folder = dir.filePath(QStringLiteral("steps"));
        QCOMPARE(run({QStringLiteral("--export-steps"), folder, QStringLiteral("--preset"), QStringLiteral("multi-head")}).status, 0);
        QVERIFY(!writeFile(dir, QStringLiteral("steps/notes.txt"), "mine\n").isEmpty());
        const QStringList illustrated = {QStringLiteral("--export-steps"), folder, QStringLiteral("--preset"),
                                         QStringLiteral("illustrated")};
#ifdef Q_OS_UNIX
        {
            // The illustrated trace.json (some 2 KB) cannot be written whole; its CSV files can.
            const QMap<QString, QByteArray> before = folderContents(folder);
            const Run r = runCutAt(illustrated, 1024);
            QCOMPARE(r.status, 1);
            QVERIFY2(r.err.contains("trace.json"), r.err.constData());
            QVERIFY2(!r.err.contains("Unknown error"), r.err.constData());
            QCOMPARE(folderContents(folder), before);
        }
#endif
        // A folder where a file must go.
        QVERIFY(QFile::remove(QDir(folder).filePath(QStringLiteral("trace.json"))));
        QVERIFY(QDir(folder).mkdir(QStringLiteral("trace.json")));
        const QMap<QString, QByteArray> before = folderContents(folder);
        const Run r = run(illustrated);
        QCOMPARE(r.status, 1);
        QVERIFY2(r.err.contains("trace.json"), r.err.constData());
        QCOMPARE(folderContents(folder), before);

#ifdef Q_OS_UNIX
        // Into a folder not there yet: none is left behind.
        const QString fresh = dir.filePath(QStringLiteral("fresh"));
        QCOMPARE(runCutAt({QStringLiteral("--export-steps"), fresh, QStringLiteral("--preset"), QStringLiteral("illustrated")},
                          1024).status, 1);
        QVERIFY(!QFileInfo::exists(fresh));
#endif
    }

    /** Exported into a folder that holds an earlier export, the folder describes the new computation
     *  alone: the earlier step files the new one does not write go, the user's other files stay. */
    void stepExportReplacesAnEarlierOne()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto exportSteps = [](const QString& folder, const QString& preset) {
            return run({QStringLiteral("--export-steps"), folder, QStringLiteral("--preset"), preset}).status;
        };
        const QString reference = dir.filePath(QStringLiteral("reference"));
        QCOMPARE(exportSteps(reference, QStringLiteral("illustrated")), 0);
        QMap<QString, QByteArray> expected = folderContents(reference);
        QCOMPARE(expected.size(), 14);

        const QString folder = dir.filePath(QStringLiteral("steps"));
        QCOMPARE(exportSteps(folder, QStringLiteral("multi-head")), 0);
        QVERIFY(QFileInfo::exists(QDir(folder).filePath(QStringLiteral("head2_weights.csv"))));
        QVERIFY(QFileInfo::exists(QDir(folder).filePath(QStringLiteral("w_o.csv"))));
        for (const char* mine : {"notes.txt", "head2_weights.csv.bak", "head2_mine.csv"})
            expected[QString::fromLatin1(mine)] = QByteArray("mine ") + mine;
        for (auto it = expected.cbegin(); it != expected.cend(); ++it)
            if (it.value().startsWith("mine "))
                QVERIFY(!writeFile(dir, QStringLiteral("steps/") + it.key(), it.value()).isEmpty());
        QCOMPARE(exportSteps(folder, QStringLiteral("illustrated")), 0);
        QCOMPARE(folderContents(folder), expected);

        // A folder without trace.json holds no earlier export: files with a step's name are the user's.
        const QString other = dir.filePath(QStringLiteral("other"));
        QVERIFY(QDir().mkpath(other));
        QVERIFY(!writeFile(dir, QStringLiteral("other/head2_weights.csv"), "0.5\n").isEmpty());
        QCOMPARE(exportSteps(other, QStringLiteral("illustrated")), 0);
        QVERIFY(QFileInfo::exists(QDir(other).filePath(QStringLiteral("head2_weights.csv"))));
    }

    void windowWithoutDisplaySaysSo()
    {
        const Run r = run({});
        QCOMPARE(r.status, 1);
        QVERIFY2(r.err.contains("no display"), r.err.constData());
        // It names every action that needs no window.
        for (const QString& action : actionsInHelpOrder())
            QVERIFY2(r.err.contains((action + QLatin1Char(' ')).toUtf8()) || r.err.contains((action + QLatin1Char(',')).toUtf8()),
                     qPrintable(action + QStringLiteral(": ") + QString::fromUtf8(r.err)));
    }

    void ofTwoActionsTheFirstInHelpRuns()
    {
        const QStringList order = actionsInHelpOrder();
        QCOMPARE(order.size(), 15);
        const QString dir = m_dir.filePath(QStringLiteral("two-actions"));
        QVERIFY(QDir().mkpath(dir));
        const QMap<QString, QString> value = {  // --compute takes the source in place of FILE
            {QStringLiteral("--export-heatmap"), dir + QStringLiteral("/h.png")},
            {QStringLiteral("--export-report"), dir + QStringLiteral("/r.pdf")},
            {QStringLiteral("--export-handout"), dir + QStringLiteral("/ho.pdf")},
            {QStringLiteral("--export-code"), dir + QStringLiteral("/c.py")},
            {QStringLiteral("--export-slides"), dir + QStringLiteral("/s.pdf")},
            {QStringLiteral("--export-steps"), dir + QStringLiteral("/steps")},
            {QStringLiteral("--export-overview"), dir + QStringLiteral("/o.png")},
            {QStringLiteral("--export-lines"), dir + QStringLiteral("/l.png")},
            {QStringLiteral("--export-lens"), dir + QStringLiteral("/lens.json")},
            {QStringLiteral("--export-attribution"), dir + QStringLiteral("/a.json")},
            {QStringLiteral("--export-block"), dir + QStringLiteral("/b.png")},
            {QStringLiteral("--export-patching"), dir + QStringLiteral("/p.json")},
            {QStringLiteral("--generate"), QStringLiteral("1")},
        };
        // The instruments read a model: on the preset the one that runs refuses it, by its name.
        const QStringList instruments = {QStringLiteral("--export-lens"), QStringLiteral("--export-attribution"),
                                         QStringLiteral("--export-block"), QStringLiteral("--export-patching"),
                                         QStringLiteral("--generate")};
        // Each action with the next in --help's order, given first: the one --help lists first runs, the other is
        // named as not done.
        for (qsizetype i = 0; i + 1 < order.size(); ++i) {
            const QString& first = order[i];
            const QString& second = order[i + 1];
            QStringList arguments;
            for (const QString& action : {second, first}) {
                arguments << action;
                if (value.contains(action))
                    arguments << value[action];
            }
            arguments << QStringLiteral("--preset") << QStringLiteral("illustrated");
            const Run r = run(arguments);
            const QString what = arguments.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(r.err);
            if (instruments.contains(first))
                QVERIFY2(r.status == 2 && r.err.contains((first + QStringLiteral(": needs a model")).toUtf8()),
                         qPrintable(what));
            else
                QVERIFY2(r.status == 0, qPrintable(what));
            QVERIFY2(r.err.contains(
                         QStringLiteral("%1 is not done: one action at a time, and %2 runs").arg(second, first).toUtf8()),
                     qPrintable(what));
        }
        // The reviewer's two: --compute FILE runs before --list-presets, the slides before the steps.
        const QString file = writeFile(m_dir, QStringLiteral("two-actions.json"), workedExample);
        const Run r = run({QStringLiteral("--compute"), file, QStringLiteral("--list-presets")});
        QCOMPARE(r.status, 0);
        QVERIFY(QJsonDocument::fromJson(r.out).isObject());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
