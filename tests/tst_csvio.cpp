#include "core/attention/csvio.h"

#include "core/attention/attention.h"
#include "core/session/presets.h"
#include "core/attention/tracejson.h"
#include "ui/export/exportfiles.h"

#include "decimalcomma.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>

namespace {

std::optional<core::Matrix> parse(const QByteArray& text, std::string& error, bool header = false, char delimiter = 0)
{
    core::CsvReadOptions options;
    options.allowHeader = header;
    options.delimiter = delimiter;
    return core::parseCsv(text.toStdString(), error, options);
}

}  // namespace

class TestCsvio : public QObject {
    Q_OBJECT

private slots:
    void roundTripIsExact_data()
    {
        QTest::addColumn<char>("delimiter");
        QTest::newRow("comma") << ',';
        QTest::newRow("tab") << '\t';
        QTest::newRow("semicolon") << ';';
    }

    void roundTripIsExact()
    {
        QFETCH(char, delimiter);
        std::mt19937_64 rng(3);
        core::Matrix m = testutil::randomMatrix(rng, 7, 5, -1e3, 1e3);
        m(0, 0) = 0.1;
        m(0, 1) = -0.0;
        m(1, 0) = std::numeric_limits<double>::denorm_min();
        m(1, 1) = std::numeric_limits<double>::max();
        m(2, 2) = 1.0 / 3.0;
        m(3, 3) = 1e-300;
        const std::string text = core::formatCsv(m, delimiter);
        std::string error;
        const auto back = core::parseCsv(text, error);
        QVERIFY2(back, error.c_str());
        QVERIFY(*back == m);  // bit for bit
        QVERIFY(std::signbit((*back)(0, 1)));
    }

    void writesPlainRows()
    {
        QCOMPARE(core::formatCsv(testutil::mat({{1, 0.5}, {-2, 1e-7}})), std::string("1,0.5\n-2,1e-07\n"));
    }

    void reads_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("header");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<double>("last");
        QTest::newRow("plain") << QByteArray("1,2,3\n4,5,6\n") << false << 2 << 3 << 6.0;
        QTest::newRow("no final newline") << QByteArray("1,2\n3,4") << false << 2 << 2 << 4.0;
        QTest::newRow("CRLF and blank lines") << QByteArray("1,2\r\n\r\n3,4\r\n\r\n") << false << 2 << 2 << 4.0;
        QTest::newRow("byte-order mark") << QByteArray("\xEF\xBB\xBF" "1;2\n3;4\n") << false << 2 << 2 << 4.0;
        QTest::newRow("tabs") << QByteArray("1\t2\n3\t-4.5\n") << false << 2 << 2 << -4.5;
        QTest::newRow("semicolons, decimal comma") << QByteArray("1,5;2\n3;4,25\n") << false << 2 << 2 << 4.25;
        QTest::newRow("spaces, quotes, plus") << QByteArray(" 1 , \"2\" \n+3,  4e1 \n") << false << 2 << 2 << 40.0;
        QTest::newRow("header allowed") << QByteArray("a,b,c\n1,2,3\n") << true << 1 << 3 << 3.0;
        QTest::newRow("numeric first row kept with header allowed") << QByteArray("1,2\n3,4\n") << true << 2 << 2 << 4.0;
        QTest::newRow("commas separate, never decimal") << QByteArray("1,5,2\n") << false << 1 << 3 << 2.0;
        QTest::newRow("one number") << QByteArray("42") << false << 1 << 1 << 42.0;
    }

    void reads()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, header);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(double, last);
        std::string error;
        const auto m = parse(text, error, header);
        QVERIFY2(m, error.c_str());
        QCOMPARE(m->rows(), rows);
        QCOMPARE(m->cols(), cols);
        QCOMPARE((*m)(rows - 1, cols - 1), last);
    }

    void refuses_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("header");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << QByteArray("") << false << QStringLiteral("no numbers");
        QTest::newRow("only blank lines") << QByteArray("\n \n\t\n") << false << QStringLiteral("no numbers");
        QTest::newRow("header not allowed") << QByteArray("a,b\n1,2\n") << false
                                            << QStringLiteral("row 1, column 1: \"a\" is not a finite number");
        QTest::newRow("header only") << QByteArray("a,b\n") << true << QStringLiteral("no numbers");
        QTest::newRow("word in row 3") << QByteArray("1,2\n3,4\n5,x\n") << false
                                       << QStringLiteral("row 3, column 2: \"x\" is not a finite number");
        QTest::newRow("second header") << QByteArray("a,b\nc,d\n") << true << QStringLiteral("row 2, column 1");
        QTest::newRow("empty cell") << QByteArray("1,,3\n") << false << QStringLiteral("row 1, column 2");
        QTest::newRow("nan") << QByteArray("1,nan\n") << false << QStringLiteral("row 1, column 2: \"nan\"");
        QTest::newRow("inf") << QByteArray("inf,1\n") << false << QStringLiteral("row 1, column 1: \"inf\"");
        QTest::newRow("overflow") << QByteArray("1e999\n") << false << QStringLiteral("row 1, column 1");
        QTest::newRow("ragged") << QByteArray("1,2,3\n4,5\n") << false
                                << QStringLiteral("row 2 has 2 columns, the rows above 3");
        QTest::newRow("ragged after blank line") << QByteArray("1,2\n\n3\n") << false << QStringLiteral("row 3 has 1");
        QTest::newRow("mixed separators") << QByteArray("1;2\n3,4\n") << false << QStringLiteral("row 2 has 1 columns");
    }

    void refuses()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, header);
        QFETCH(QString, message);
        std::string error;
        const auto m = parse(text, error, header);
        QVERIFY2(!m, "refusable text was read");
        QVERIFY2(QString::fromStdString(error).contains(message),
                 qPrintable(QStringLiteral("\"%1\" does not contain \"%2\"").arg(QString::fromStdString(error), message)));
    }

    void explicitDelimiter()
    {
        std::string error;
        const auto m = parse("1,5;2\n", error, false, ',');
        QVERIFY(!m);
        QVERIFY2(QString::fromStdString(error).contains(QLatin1String("column 2")), error.c_str());
    }

    void stepFilesOfTheWorkedExample()
    {
        const core::Trace trace = core::compute(core::illustratedModel());
        const auto files = core::stepFiles(trace);
        QStringList names;
        for (const auto& f : files)
            names << QString::fromStdString(f.name);
        QCOMPARE(names, QStringList({QStringLiteral("x.csv"), QStringLiteral("w_q.csv"), QStringLiteral("w_k.csv"),
                                     QStringLiteral("w_v.csv"), QStringLiteral("head1_queries.csv"),
                                     QStringLiteral("head1_keys.csv"), QStringLiteral("head1_values.csv"),
                                     QStringLiteral("head1_scores.csv"), QStringLiteral("head1_scaled_scores.csv"),
                                     QStringLiteral("head1_weights.csv"), QStringLiteral("head1_outputs.csv"),
                                     QStringLiteral("concat.csv"), QStringLiteral("output.csv"),
                                     QStringLiteral("trace.json")}));
        auto text = [&](const char* name) {
            for (const auto& f : files)
                if (f.name == name)
                    return f.text;
            return std::string();
        };
        // SPEC §4: scores of the worked example.
        QCOMPARE(text("head1_scores.csv"), std::string("2,4,4\n4,16,12\n4,12,10\n"));
        QCOMPARE(text("head1_queries.csv"), std::string("1,0,2\n2,2,2\n2,1,3\n"));
        std::string error;
        const auto weights = core::parseCsv(text("head1_weights.csv"), error);
        QVERIFY2(weights, error.c_str());
        COMPARE_MATRIX(*weights, trace.heads[0].weights, 0);
        QCOMPARE((*weights)(1, 1), trace.heads[0].weights(1, 1));
        QCOMPARE(text("trace.json"), core::traceToJsonText(trace) + "\n");
    }

    void stepFilesPerHeadAndWo()
    {
        const auto session = core::preset("multi-head");
        QVERIFY(session);
        const core::Trace trace = core::compute(session->model);
        const auto files = core::stepFiles(trace);
        int perHead = 0;
        bool wo = false;
        for (const auto& f : files) {
            perHead += f.name.starts_with("head2_") ? 1 : 0;
            wo = wo || f.name == "w_o.csv";
            if (f.name == "output.csv") {
                std::string error;
                const auto m = core::parseCsv(f.text, error);
                QVERIFY2(m, error.c_str());
                COMPARE_MATRIX(*m, trace.output, 0);
            }
        }
        QCOMPARE(perHead, 7);
        QVERIFY(wo);
    }

    void stepFilesOfBiases()
    {
        // A model with biases writes each one beside its weight, one row, every bit kept; one without writes none.
        core::AttentionModel m = core::preset("multi-head")->model;
        QVERIFY(m.wo);
        auto names = [](const std::vector<core::StepFile>& files) {
            QStringList list;
            for (const auto& f : files)
                list << QString::fromStdString(f.name);
            return list;
        };
        QVERIFY(!names(core::stepFiles(core::compute(m))).contains(QStringLiteral("b_q.csv")));
        m.bq = testutil::mat({{0.1, -2.5, 1.0 / 3.0, 4, 0, 1, 2, 3}});
        m.bo = core::Matrix::Constant(1, m.wo->cols(), -0.75);
        const auto files = core::stepFiles(core::compute(m));
        const QStringList all = names(files);
        QVERIFY(all.contains(QStringLiteral("b_q.csv")) && all.contains(QStringLiteral("b_o.csv")));
        QVERIFY(!all.contains(QStringLiteral("b_k.csv")) && !all.contains(QStringLiteral("b_v.csv")));
        QVERIFY(all.indexOf(QStringLiteral("b_q.csv")) < all.indexOf(QStringLiteral("head1_queries.csv")));
        for (const auto& f : files) {
            if (f.name != "b_q.csv")
                continue;
            std::string error;
            const auto row = core::parseCsv(f.text, error);
            QVERIFY2(row, error.c_str());
            COMPARE_MATRIX(*row, *m.bq, 0);
        }
    }

    /** The names an earlier export may have left (and a new one may remove): every name stepFiles gives,
     *  and no other. */
    void stepFileNames()
    {
        core::AttentionModel m = core::preset("multi-head")->model;
        m.bq = core::Matrix::Zero(1, m.wq.cols());
        m.bk = core::Matrix::Zero(1, m.wk.cols());
        m.bv = core::Matrix::Zero(1, m.wv.cols());
        m.bo = core::Matrix::Zero(1, m.wo->cols());
        const auto files = core::stepFiles(core::compute(m));
        QCOMPARE(files.size(), std::size_t(1 + 4 + 4 + 2 * 7 + 2 + 1));
        for (const core::StepFile& file : files)
            QVERIFY2(core::isStepFileName(file.name), file.name.c_str());
        for (const char* name : {"head12_weights.csv", "head3_scaled_scores.csv", "w_o.csv", "b_o.csv"})
            QVERIFY2(core::isStepFileName(name), name);
        for (const char* name : {"notes.txt", "head0_weights.csv", "head01_keys.csv", "head_keys.csv", "head2_.csv",
                                 "head2_mine.csv", "head2_weights.csv.bak", "head2_weights.tsv", "X.csv", "x.CSV",
                                 ".csv", "trace.json.bak", "w_x.csv", "head2concat.csv", "head2_concat.csv", ""})
            QVERIFY2(!core::isStepFileName(name), name);
    }

    void stepFilesIntoAFolder()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const core::Trace trace = core::compute(core::illustratedModel());
        const QString folder = dir.filePath(QStringLiteral("steps"));
        QString error;
        QStringList written;
        QVERIFY2(exports::writeStepFiles(trace, folder, &error, &written), qPrintable(error));
        QCOMPARE(written.size(), 14);
        QCOMPARE(QDir(folder).entryList(QDir::Files).size(), 14);
        const auto weights = exports::readMatrixFile(QDir(folder).filePath(QStringLiteral("head1_weights.csv")), &error);
        QVERIFY2(weights, qPrintable(error));
        QVERIFY(*weights == trace.heads[0].weights);

        // A file where the folder should be: refused, nothing left behind.
        const QString blocked = dir.filePath(QStringLiteral("blocked"));
        QFile file(blocked);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        QVERIFY(!exports::writeStepFiles(trace, blocked + QStringLiteral("/inner"), &error));
        QVERIFY(!error.isEmpty());
    }

    void matrixFilesByEnding()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const core::Matrix m = testutil::mat({{0.1, -2}, {3e-9, 4}});
        QString error;
        for (const char* name : {"m.csv", "m.tsv", "m.txt", "m.npy"}) {
            const QString path = dir.filePath(QString::fromLatin1(name));
            QVERIFY2(exports::writeMatrixFile(path, m, &error), qPrintable(error));
            const auto back = exports::readMatrixFile(path, &error);
            QVERIFY2(back, qPrintable(error));
            QVERIFY(*back == m);
        }
        QFile tsv(dir.filePath(QStringLiteral("m.tsv")));
        QVERIFY(tsv.open(QIODevice::ReadOnly));
        QVERIFY(tsv.readAll().contains('\t'));

        QFile bad(dir.filePath(QStringLiteral("bad.csv")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("x,y\n1,2\n3,oops\n");
        bad.close();
        QVERIFY(!exports::readMatrixFile(bad.fileName(), &error));
        QVERIFY2(error.startsWith(bad.fileName()) && error.contains(QLatin1String("row 3, column 2")), qPrintable(error));
        QVERIFY(!exports::readMatrixFile(dir.filePath(QStringLiteral("absent.npy")), &error));
        QVERIFY(error.contains(QLatin1String("absent.npy")));
    }

    /** On a German desktop (decimal comma) the files are byte for byte the same and read back exactly. */
    void decimalCommaLocaleWritesTheSameFiles()
    {
        auto session = core::preset("multi-head");
        QVERIFY(session);
        session->model.embeddings(0, 0) = 0.9;
        session->model.options.temperature = 0.7;
        const core::Trace trace = core::compute(session->model);
        const std::vector<core::StepFile> underC = core::stepFiles(trace);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        testutil::DecimalCommaLocale de;
        QVERIFY2(de.active(), de.missing());
        QString error;
        QVERIFY2(exports::writeStepFiles(trace, dir.path(), &error), qPrintable(error));
        for (const core::StepFile& file : underC) {
            QFile written(QDir(dir.path()).filePath(QString::fromStdString(file.name)));
            QVERIFY(written.open(QIODevice::ReadOnly));
            QVERIFY2(written.readAll().toStdString() == file.text, file.name.c_str());
        }
        const auto x = exports::readMatrixFile(QDir(dir.path()).filePath(QStringLiteral("x.csv")), &error);
        QVERIFY2(x, qPrintable(error));
        QVERIFY(*x == trace.x());  // bit for bit
        const auto weights = exports::readMatrixFile(QDir(dir.path()).filePath(QStringLiteral("head2_weights.csv")), &error);
        QVERIFY2(weights, qPrintable(error));
        QVERIFY(*weights == trace.heads[1].weights);
    }

    void randomTextNeverCrashes()
    {
        std::mt19937_64 rng(11);
        const char alphabet[] = "0123456789.,;\t\n\r\"+-eE xn";
        std::string error;
        for (int i = 0; i < 5000; ++i) {
            std::string text(rng() % 60, ' ');
            for (char& c : text)
                c = alphabet[rng() % (sizeof alphabet - 1)];
            const auto m = core::parseCsv(text, error, {0, bool(i % 2)});
            if (m)
                QVERIFY(m->allFinite() && m->size() > 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestCsvio)
#include "tst_csvio.moc"
