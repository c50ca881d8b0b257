#include "core/attention/pytorchexport.h"

#include "core/attention/attention.h"
#include "core/attention/embedding.h"
#include "core/formats/numbertext.h"
#include "core/session/presets.h"

#include "decimalcomma.h"
#include "python.h"
#include "testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <charconv>
#include <cmath>
#include <random>

namespace {

/** Runs each generated file given with runpy and prints its variables as one JSON object keyed by the
 *  file's path; per-head steps as lists of heads. */
const QByteArray kDumpScript = R"PY(
import json, runpy, sys
def plain(t):
    return t.tolist()
def heads(v):
    return [plain(t) for t in v] if isinstance(v, list) else [plain(v)]
result = {}
for path in sys.argv[1:]:
    g = runpy.run_path(path)
    out = {k: heads(g[k]) for k in ("Q", "K", "V", "scores", "scaled_scores", "weights", "weighted_values", "Z")}
    out["X"] = plain(g["X"])
    out["concat"] = plain(g["concat"])
    out["output"] = plain(g["output"])
    out["lists"] = isinstance(g["Q"], list)
    out["dtype"] = str(g["output"].dtype)
    out["tokens"] = g["tokens"]
    out["inputs"] = {k: plain(g[k]) for k in ("embeddings", "W_Q", "W_K", "W_V")}
    out["inputs"]["W_O"] = plain(g["W_O"]) if g["W_O"] is not None else None
    for b in ("b_Q", "b_K", "b_V", "b_O"):
        out["inputs"][b] = [plain(g[b])] if g[b] is not None else None
    out["temperature"] = g["temperature"]
    for k in ("Q_unrotated", "K_unrotated"):
        out[k] = heads(g[k]) if g.get("rotary_dims", 0) > 0 else None
    result[path] = out
print(json.dumps(result))
)PY";

const char* const kCases[] = {"illustrated", "illustrated-scaled", "multi-head", "causal-sentence", "chinese",
                              "everything", "biases", "rotary"};

core::Matrix fromJson(const QJsonValue& value)
{
    const QJsonArray rows = value.toArray();
    core::Matrix m(rows.size(), rows.isEmpty() ? 0 : rows.first().toArray().size());
    for (int r = 0; r < rows.size(); ++r) {
        const QJsonArray row = rows[r].toArray();
        if (row.size() != m.cols())
            return core::Matrix(0, 0);
        for (int c = 0; c < row.size(); ++c)
            m(r, c) = row[c].toDouble();
    }
    return m;
}

core::Matrix headStep(const QJsonObject& o, const char* key, int head)
{
    return fromJson(o.value(QLatin1String(key)).toArray().at(head));
}

/** The numbers of the tensor literal `name = torch.tensor(...)` in code, read with std::from_chars (no
 *  locale), row after row; a NaN where a number does not read. */
std::vector<double> literalNumbers(const std::string& code, const std::string& name)
{
    const std::size_t start = code.find("\n    [\n", code.find(name + " = torch.tensor("));
    const std::size_t end = code.find("\n    ],", start);
    std::vector<double> numbers;
    if (start == std::string::npos || end == std::string::npos)
        return numbers;
    const std::string body = code.substr(start, end - start);
    std::size_t i = 0;
    while ((i = body.find_first_not_of("[], \n", i)) != std::string::npos) {
        const std::size_t j = std::min(body.find_first_of("[], \n", i), body.size());
        double v = std::nan("");
        const auto [ptr, ec] = std::from_chars(body.data() + i, body.data() + j, v);
        numbers.push_back(ec == std::errc() && ptr == body.data() + j ? v : std::nan(""));
        i = j;
    }
    return numbers;
}

/** The matrix's entries row after row. */
std::vector<double> rowMajor(const core::MatrixCRef& m)
{
    std::vector<double> v;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            v.push_back(m(r, c));
    return v;
}

/** A data column "name" with one row per case. */
void addCaseRows()
{
    QTest::addColumn<QString>("name");
    for (const char* name : kCases)
        QTest::newRow(name) << QString::fromLatin1(name);
}

/** Multi-head, causal, sinusoidal, W_O and a temperature, all at once. */
core::AttentionModel everythingModel()
{
    std::mt19937_64 rng(5);
    core::AttentionModel m = testutil::randomModel(rng, 5, 6, 3, 2, 3, 4);
    m.tokens = {"a", "\"quoted\"", "back\\slash", "new\nline", "中文"};
    m.options.mask = core::Mask::Causal;
    m.options.positionalEncoding = core::PositionalEncoding::Sinusoidal;
    m.options.temperature = 0.7;
    m.options.scale = true;
    return m;
}

/** Everything at once, with a bias on Q, K, V and the output. */
core::AttentionModel biasedModel()
{
    std::mt19937_64 rng(8);
    core::AttentionModel m = everythingModel();
    m.bq = testutil::randomMatrix(rng, 1, int(m.wq.cols()));
    m.bk = testutil::randomMatrix(rng, 1, int(m.wk.cols()));
    m.bv = testutil::randomMatrix(rng, 1, int(m.wv.cols()), -3, 3);
    m.bo = testutil::randomMatrix(rng, 1, int(m.wo->cols()), -3, 3);
    return m;
}

/** The options of SPEC §6 at once: rotary positions turning half of d_k, four query heads over two K/V heads with
 *  biases, and q/k norm with weights of its own. */
core::AttentionModel rotaryModel()
{
    std::mt19937_64 rng(11);
    core::AttentionModel m = testutil::randomModel(rng, 6, 8, 4, 4, 3, 5);
    m.tokens = {"one", "two", "three", "four", "five", "six"};
    m.options.kvHeads = 2;
    m.wk = core::Matrix(m.wk.leftCols(8));
    m.wv = core::Matrix(m.wv.leftCols(6));
    m.bk = testutil::randomMatrix(rng, 1, 8);
    m.bv = testutil::randomMatrix(rng, 1, 6);
    m.options.positionalEncoding = core::PositionalEncoding::Rotary;
    m.options.ropeTheta = 50;
    m.options.rotaryFraction = 0.5;
    m.options.qkNorm = true;
    m.qNorm = testutil::randomMatrix(rng, 1, 4, 0.5, 2);
    m.kNorm = testutil::randomMatrix(rng, 1, 4, 0.5, 2);
    m.options.mask = core::Mask::Causal;
    return m;
}

}  // namespace

class TestPytorchExport : public QObject {
    Q_OBJECT

private:
    QString m_python;
    QTemporaryDir m_dir;
    QJsonObject m_results;  ///< the dump of every case's file, keyed by its path

    QString casePath(const QString& name) const { return m_dir.filePath(name + QStringLiteral(".py")); }

    static core::AttentionModel caseModel(const QString& name)
    {
        if (name == QLatin1String("everything"))
            return everythingModel();
        if (name == QLatin1String("biases"))
            return biasedModel();
        if (name == QLatin1String("rotary"))
            return rotaryModel();
        const auto session = core::preset(name.toStdString());
        return session ? session->model : core::AttentionModel();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_python = testutil::pythonWith(QStringLiteral("torch"));
        if (m_python.isEmpty())
            return;
        // One interpreter for every case: importing torch takes seconds.
        QStringList paths;
        for (const char* name : kCases) {
            const QString path = casePath(QString::fromLatin1(name));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromStdString(core::pytorchCode(caseModel(QString::fromLatin1(name)), name)));
            paths << path;
        }
        QString error;
        const QByteArray json = testutil::runPython(m_python, kDumpScript, paths, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        m_results = QJsonDocument::fromJson(json).object();
        QCOMPARE(m_results.size(), paths.size());
    }

    void codeIsReadable()
    {
        const std::string code = core::pytorchCode(core::illustratedModel(), "Illustrated\nimport os");
        const QString text = QString::fromStdString(code);
        for (const char* step : {"# Step 1 · tokens → X", "# Step 2 · queries, keys and values", "# Step 3 · scores",
                                 "# Step 4 · scale", "# Step 5 · softmax", "# Step 6 · weighted values",
                                 "# Step 7 · sum"})
            QVERIFY2(text.contains(QString::fromUtf8(step)), step);
        QVERIFY(text.contains(QLatin1String("import torch")));
        QVERIFY(text.contains(QLatin1String("scale = False")));
        // A title cannot escape its comment line.
        QVERIFY(text.contains(QLatin1String("# Session: Illustrated import os\n")));
        QVERIFY(!text.contains(QLatin1String("\nimport os")));
    }

    /** Numbers as a person writes them ("0.9", not "0.90000000000000002"), yet every one exact. */
    void numbersAreShortestAndExact_data()
    {
        addCaseRows();
    }

    void numbersAreShortestAndExact()
    {
        QFETCH(QString, name);
        core::AttentionModel m = caseModel(name);
        m.embeddings(0, 0) = 0.9;
        m.wq(0, 0) = 0.1;
        m.wk(0, 0) = 1;
        m.wv(0, 0) = 1.0 / 3.0;
        const std::string code = core::pytorchCode(m);
        const QString text = QString::fromStdString(code);
        QVERIFY2(text.contains(QLatin1String("[0.9, ")), qPrintable(text));
        QVERIFY(text.contains(QLatin1String("[0.1, ")));
        QVERIFY(text.contains(QLatin1String("[1.0, ")));  // a float literal, as the comment says
        QVERIFY(text.contains(QLatin1String("[0.3333333333333333, ")));
        QVERIFY(!text.contains(QLatin1String("0.90000000000000002")));
        QVERIFY(!text.contains(QLatin1String("0.10000000000000001")));
        QVERIFY(text.contains(QLatin1String("\ntemperature = ") + QString::fromStdString(core::machineNumber(m.options.temperature))));
        const std::pair<const char*, core::MatrixCRef> inputs[] = {
            {"embeddings", m.embeddings}, {"W_Q", m.wq}, {"W_K", m.wk}, {"W_V", m.wv}};
        for (const auto& [key, matrix] : inputs) {
            const std::vector<double> printed = literalNumbers(code, key);
            const std::vector<double> expected = rowMajor(matrix);
            QCOMPARE(printed.size(), expected.size());
            for (std::size_t i = 0; i < printed.size(); ++i)
                QVERIFY2(printed[i] == expected[i], qPrintable(QStringLiteral("%1 entry %2: %3 printed, %4 held")
                                                                   .arg(QLatin1String(key))
                                                                   .arg(i)
                                                                   .arg(printed[i], 0, 'g', 17)
                                                                   .arg(expected[i], 0, 'g', 17)));
        }
        if (m.wo)
            QCOMPARE(literalNumbers(code, "W_O"), rowMajor(*m.wo));
        if (m.bv)
            QCOMPARE(literalNumbers(code, "b_V"), rowMajor(*m.bv));
        QCOMPARE(text.contains(QLatin1String("\nb_Q = None")), !m.bq);
    }

    /** A program on a German desktop (decimal comma) writes the same file, and Python runs it there. */
    void decimalCommaLocaleWritesTheSameCode()
    {
        const core::AttentionModel model = everythingModel();
        const std::string underC = core::pytorchCode(model, "everything");
        std::string underDe;
        {
            testutil::DecimalCommaLocale de;
            QVERIFY2(de.active(), de.missing());
            underDe = core::pytorchCode(model, "everything");
        }
        QCOMPARE(underDe, underC);
        if (m_python.isEmpty())
            QSKIP("torch is missing: no python3 on PATH can import torch (install python3-torch to run this check)");
        const QString path = m_dir.filePath(QStringLiteral("de.py"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(underDe));
        file.close();
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LC_ALL"), QString::fromLatin1(testutil::decimalCommaLocale));
        p.setProcessEnvironment(env);
        p.start(m_python, {path});
        QVERIFY(p.waitForFinished(240000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains(QLatin1String("output: (5, 4)")));
    }

    void reproducesCompute_data()
    {
        addCaseRows();
    }

    void reproducesCompute()
    {
        QFETCH(QString, name);
        if (m_python.isEmpty())
            QSKIP("torch is missing: no python3 on PATH can import torch (install python3-torch to run this check)");
        const core::AttentionModel model = caseModel(name);
        QVERIFY(!model.tokens.empty());
        const core::Trace trace = core::compute(model);
        const QJsonObject o = m_results.value(casePath(name)).toObject();
        QVERIFY(!o.isEmpty());

        // What Python read from the file is every bit of the model: torch.tensor parsed the literals.
        const QJsonObject inputs = o.value(QLatin1String("inputs")).toObject();
        COMPARE_MATRIX(fromJson(inputs.value(QLatin1String("embeddings"))), model.embeddings, 0);
        COMPARE_MATRIX(fromJson(inputs.value(QLatin1String("W_Q"))), model.wq, 0);
        COMPARE_MATRIX(fromJson(inputs.value(QLatin1String("W_K"))), model.wk, 0);
        COMPARE_MATRIX(fromJson(inputs.value(QLatin1String("W_V"))), model.wv, 0);
        QCOMPARE(inputs.value(QLatin1String("W_O")).isNull(), !model.wo);
        if (model.wo)
            COMPARE_MATRIX(fromJson(inputs.value(QLatin1String("W_O"))), *model.wo, 0);
        const std::pair<const char*, const std::optional<core::Matrix>*> biases[] = {
            {"b_Q", &model.bq}, {"b_K", &model.bk}, {"b_V", &model.bv}, {"b_O", &model.bo}};
        for (const auto& [key, bias] : biases) {
            QCOMPARE(inputs.value(QLatin1String(key)).isNull(), !*bias);
            if (*bias)
                COMPARE_MATRIX(fromJson(inputs.value(QLatin1String(key))), **bias, 0);
        }
        QCOMPARE(o.value(QLatin1String("temperature")).toDouble(), model.options.temperature);

        QCOMPARE(o.value(QLatin1String("dtype")).toString(), QStringLiteral("torch.float64"));
        QCOMPARE(o.value(QLatin1String("lists")).toBool(), trace.headCount() > 1);
        QCOMPARE(o.value(QLatin1String("tokens")).toArray().size(), trace.n());
        QCOMPARE(o.value(QLatin1String("tokens")).toArray().last().toString(),
                 QString::fromStdString(model.tokens.back()));
        const double tol = 1e-9;
        COMPARE_MATRIX(fromJson(o.value(QLatin1String("X"))), trace.x(), tol);
        for (int h = 0; h < trace.headCount(); ++h) {
            const core::HeadTrace& ht = trace.heads[std::size_t(h)];
            COMPARE_MATRIX(headStep(o, "Q", h), ht.queries, tol);
            COMPARE_MATRIX(headStep(o, "K", h), ht.keys, tol);
            COMPARE_MATRIX(headStep(o, "V", h), ht.values, tol);
            COMPARE_MATRIX(headStep(o, "scores", h), ht.scores, tol);
            COMPARE_MATRIX(headStep(o, "scaled_scores", h), trace.scaledScores(h), tol);
            const core::Matrix weights = headStep(o, "weights", h);
            COMPARE_MATRIX(weights, ht.weights, tol);
            COMPARE_MATRIX(headStep(o, "Z", h), ht.outputs, tol);
            QCOMPARE(o.value(QLatin1String("Q_unrotated")).isNull(), ht.queriesUnrotated.size() == 0);
            if (ht.queriesUnrotated.size() > 0) {
                COMPARE_MATRIX(headStep(o, "Q_unrotated", h), ht.queriesUnrotated, tol);
                COMPARE_MATRIX(headStep(o, "K_unrotated", h), ht.keysUnrotated, tol);
            }
            if (model.options.mask == core::Mask::Causal)
                for (int i = 0; i < trace.n(); ++i)
                    for (int j = i + 1; j < trace.n(); ++j)
                        QCOMPARE(weights(i, j), 0.0);
            // weighted_values[i] is the n × d_v matrix of query i.
            const QJsonArray wv = o.value(QLatin1String("weighted_values")).toArray().at(h).toArray();
            QCOMPARE(wv.size(), trace.n());
            for (int i = 0; i < trace.n(); ++i)
                COMPARE_MATRIX(fromJson(wv.at(i)), trace.weightedValues(h, i), tol);
        }
        COMPARE_MATRIX(fromJson(o.value(QLatin1String("concat"))), trace.concat, tol);
        COMPARE_MATRIX(fromJson(o.value(QLatin1String("output"))), trace.output, tol);
    }

    void theWorkedExampleAsPublished()
    {
        if (m_python.isEmpty())
            QSKIP("torch is missing: no python3 on PATH can import torch (install python3-torch to run this check)");
        // SPEC §4, independent of core::compute.
        const QJsonObject o = m_results.value(casePath(QStringLiteral("illustrated"))).toObject();
        COMPARE_MATRIX(headStep(o, "scores", 0), testutil::mat({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}), 0);
        COMPARE_MATRIX(headStep(o, "weights", 0),
                       testutil::mat({{0.063379, 0.468311, 0.468311},
                                      {0.0000060337, 0.982008, 0.017986},
                                      {0.00029539, 0.880537, 0.119168}}),
                       5e-6);
        COMPARE_MATRIX(fromJson(o.value(QLatin1String("output"))),
                       testutil::mat({{1.9366, 6.6831, 1.5951}, {2.0000, 7.9640, 0.0540}, {1.9997, 7.7599, 0.3584}}),
                       1e-4);
    }

    void runsAsAScript()
    {
        if (m_python.isEmpty())
            QSKIP("torch is missing: no python3 on PATH can import torch (install python3-torch to run this check)");
        const auto session = core::preset("multi-head");
        const QString path = m_dir.filePath(QStringLiteral("script.py"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(core::pytorchCode(session->model)));
        file.close();
        QProcess p;
        p.start(m_python, {path});
        QVERIFY(p.waitForFinished(240000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(out.contains(QLatin1String("attention weights, head 2")), qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("output: (6, 8)")), qPrintable(out));
    }

    void commandLineWritesTheCode_data()
    {
        QTest::addColumn<QString>("locale");
        QTest::newRow("the test's locale") << QString();
        // A German desktop: the program's C locale writes "0,9" with printf.
        QTest::newRow("decimal comma") << QString::fromLatin1(testutil::decimalCommaLocale);
    }

    void commandLineWritesTheCode()
    {
        QFETCH(QString, locale);
        const QString out = m_dir.filePath(QStringLiteral("cli.py"));
        QProcess p;
        if (!locale.isEmpty()) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("LC_ALL"), locale);
            p.setProcessEnvironment(env);
        }
        p.start(QStringLiteral(AE_BINARY), {QStringLiteral("--export-code"), out, QStringLiteral("--preset"),
                                            QStringLiteral("causal-sentence")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto session = core::preset("causal-sentence");
        QCOMPARE(file.readAll().toStdString(), core::pytorchCode(session->model, session->extras.value("title", "")));
    }

    void commandLineRefusesWithoutWriting_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown preset") << QStringList{QStringLiteral("--preset"), QStringLiteral("nope")}
                                        << QStringLiteral("nope");
        QTest::newRow("missing session") << QStringList{QStringLiteral("--session"), QStringLiteral("/nonexistent/x.json")}
                                         << QStringLiteral("x.json");
        QTest::newRow("no tokens") << QStringList{QStringLiteral("--tokens"), QStringLiteral("   ")}
                                   << QStringLiteral("--tokens");
        QTest::newRow("two sources") << QStringList{QStringLiteral("--preset"), QStringLiteral("illustrated"),
                                                    QStringLiteral("--tokens"), QStringLiteral("a b")}
                                     << QStringLiteral("one source");
    }

    void commandLineRefusesWithoutWriting()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const QString out = m_dir.filePath(QStringLiteral("refused.py"));
        QFile::remove(out);
        QProcess p;
        p.start(QStringLiteral(AE_BINARY), QStringList{QStringLiteral("--export-code"), out} + arguments);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY(!QFileInfo::exists(out));
    }

    void commandLineUnwritablePathFails()
    {
        QProcess p;
        p.start(QStringLiteral(AE_BINARY), {QStringLiteral("--export-code"), m_dir.filePath(QStringLiteral("no/such/dir/x.py"))});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("no/such/dir/x.py"))));
    }
};

QTEST_GUILESS_MAIN(TestPytorchExport)
#include "tst_pytorchexport.moc"
