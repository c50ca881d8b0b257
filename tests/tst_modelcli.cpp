/** The command line on a real model (SPEC §5), driven as a script would: `--compute --model DIR --text`,
 *  model session files with edits, `--layer`, and the exports, on a tiny random GPT-2 checkpoint the test
 *  writes. What --compute prints is checked against the independent PyTorch float64 reference
 *  (tests/gpt2_reference.py): every layer's attention, the shown layer's x, queries, keys, values (with their
 *  biases) and output, and the logits, within 2e-5 of the largest entry; the token ids against the model's
 *  own tokenizer. Broken folders and sessions are refused with exit status 2 and a message naming what. */

#include "core/models/gpt2checkpoint.h"
#include "gpt2folder_random.h"
#include "gpt2reference.h"
#include "programrun.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

using nlohmann::json;
using testutil::flat;

namespace {

const char* const sentence = "The cat sat on the mat, tired.";

using testutil::Run;

/** The program, as a bare script starts it (programrun.h). */
Run run(const QStringList& arguments, const QString& workingDirectory = {})
{
    return testutil::runProgram(QStringLiteral(AE_BINARY), arguments, {}, workingDirectory);
}

using testutil::writeText;

/** A model session file (SPEC §5) naming folder, with the given layer and edits. */
std::string modelSession(const std::string& folder, int layer, const json& edits)
{
    return json{{"format", "attention-explorer-session"},
                {"version", 2},
                {"model", {{"path", folder}, {"layer", layer}}},
                {"text", sentence},
                {"edits", edits}}
        .dump(2);
}

/** Checks --compute's JSON against the reference's for the shown layer (1-based). */
void compareWithReference(const json& got, const json& want, int shown)
{
    QCOMPARE(got["layer"].get<int>(), shown);
    const auto& attentions = got["attentions"];
    QCOMPARE(attentions.size(), want["attentions"].size());
    for (std::size_t l = 0; l < attentions.size(); ++l)
        for (std::size_t h = 0; h < attentions[l].size(); ++h)
            CHECK_CLOSE(flat(attentions[l][h]), flat(want["attentions"][l][h]),
                        "layer " + std::to_string(l + 1) + " head " + std::to_string(h + 1) + " attention");
    CHECK_CLOSE(flat(got["x"]), flat(want["x"]), std::string("x"));
    const auto& heads = got["heads"];
    QCOMPARE(heads.size(), want["queries"].size());
    for (std::size_t h = 0; h < heads.size(); ++h) {
        const std::string head = " of head " + std::to_string(h + 1);
        CHECK_CLOSE(flat(heads[h]["queries"]), flat(want["queries"][h]), "queries" + head);
        CHECK_CLOSE(flat(heads[h]["keys"]), flat(want["keys"][h]), "keys" + head);
        CHECK_CLOSE(flat(heads[h]["values"]), flat(want["values"][h]), "values" + head);
        // the steps of the shown layer are its attention
        CHECK_CLOSE(flat(heads[h]["weights"]), flat(want["attentions"][std::size_t(shown - 1)][h]), "weights" + head);
    }
    CHECK_CLOSE(flat(got["output"]), flat(want["output"]), std::string("output"));
    CHECK_CLOSE(flat(got["next_token"]["logits"]), flat(want["logits"]), std::string("logits"));
}

}  // namespace

class TestModelCli : public QObject {
    Q_OBJECT

    QString m_python;
    QTemporaryDir m_dir;
    QString m_folder;  ///< a 3-layer checkpoint: n_embd 32, 4 heads, 32 positions, the 257 byte tokens
    std::vector<int> m_ids;

    json compute(const QStringList& arguments, const QString& workingDirectory = {})
    {
        const Run r = run(QStringList{QStringLiteral("--compute")} + arguments, workingDirectory);
        if (r.status != 0) {
            qWarning("%s", r.err.constData());
            return {};
        }
        return json::parse(r.out.toStdString());
    }

    json reference(int shown, const json& edits)
    {
        QString error;
        const json want = testutil::reference(m_python, m_folder.toStdString(), m_ids, shown, edits, &error);
        if (!error.isEmpty())
            qWarning("%s", qPrintable(error));
        return want;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_folder = m_dir.filePath(QStringLiteral("tiny-gpt2"));
        QVERIFY(QDir().mkpath(m_folder));
        testutil::write(testutil::randomGpt2Folder("F32"), m_folder.toStdString());
        std::string error;
        const auto checkpoint = core::Gpt2Checkpoint::load(m_folder.toStdString(), error);
        QVERIFY2(checkpoint, error.c_str());
        m_ids = checkpoint->tokenizer().encode(sentence);
        m_python = testutil::pythonWith(QStringLiteral("torch"));
    }

    void computeOnAModelPrintsSpecFiveKeys()
    {
        const json got = compute({QStringLiteral("--model"), m_folder, QStringLiteral("--text"),
                                  QString::fromUtf8(sentence), QStringLiteral("--layer"), QStringLiteral("2")});
        for (const char* key : {"tokens", "x", "heads", "concat", "output", "token_ids", "layer", "attentions", "next_token"})
            QVERIFY2(got.contains(key), key);
        QCOMPARE(got["token_ids"].get<std::vector<int>>(), m_ids);
        // as the vocabulary writes them: this one has the 256 bytes in GPT-2's alphabet, a space as Ġ
        QCOMPARE(got["tokens"].size(), m_ids.size());
        QCOMPARE(got["tokens"][0].get<std::string>(), std::string("T"));
        QCOMPARE(got["tokens"][3].get<std::string>(), std::string("\xC4\xA0"));  // Ġ
        QCOMPARE(got["attentions"].size(), std::size_t(3));
        QCOMPARE(got["attentions"][0].size(), std::size_t(4));
        QCOMPARE(got["heads"].size(), std::size_t(4));

        // the top ten: the most probable of the logits' softmax, in order
        const std::vector<double> logits = flat(got["next_token"]["logits"]);
        QCOMPARE(logits.size(), std::size_t(257));
        const double max = *std::max_element(logits.begin(), logits.end());
        double sum = 0;
        for (double l : logits)
            sum += std::exp(l - max);
        const auto& top = got["next_token"]["top"];
        QCOMPARE(top.size(), std::size_t(10));
        for (std::size_t i = 0; i < top.size(); ++i) {
            const int id = top[i]["id"].get<int>();
            const double p = std::exp(logits[std::size_t(id)] - max) / sum;
            QVERIFY(std::fabs(top[i]["probability"].get<double>() - p) < 1e-6);
            if (i > 0)
                QVERIFY(top[i]["probability"].get<double>() <= top[i - 1]["probability"].get<double>());
        }
        const int better = int(std::count_if(logits.begin(), logits.end(), [&](double l) {
            return l > logits[std::size_t(top[9]["id"].get<int>())];
        }));
        QCOMPARE(better, 9);
    }

    void computeMatchesTheTorchReference_data()
    {
        QTest::addColumn<int>("layer");
        QTest::newRow("layer 1") << 1;
        QTest::newRow("layer 3") << 3;
    }

    void computeMatchesTheTorchReference()
    {
        if (m_python.isEmpty())
            QSKIP("PyTorch is not installed (python3-torch)");
        QFETCH(int, layer);
        const json got = compute({QStringLiteral("--model"), m_folder, QStringLiteral("--text"),
                                  QString::fromUtf8(sentence), QStringLiteral("--layer"), QString::number(layer)});
        QVERIFY(!got.is_null());
        compareWithReference(got, reference(layer, json::array()), layer);
    }

    /** A session file with a relative model path and edits of weights and biases in the first and the last
     *  layer equals the reference with those weights changed; --layer shows another layer of the same. */
    void sessionWithEditsMatchesTheTorchReference()
    {
        if (m_python.isEmpty())
            QSKIP("PyTorch is not installed (python3-torch)");
        const json edits = json::array({
            {{"layer", 1}, {"weight", "query"}, {"row", 0}, {"col", 3}, {"value", 2.5}},
            {{"layer", 1}, {"weight", "key_bias"}, {"row", 0}, {"col", 9}, {"value", -3}},
            {{"layer", 3}, {"weight", "value"}, {"row", 7}, {"col", 30}, {"value", 1.75}},
            {{"layer", 3}, {"weight", "output"}, {"row", 4}, {"col", 4}, {"value", -2}},
            {{"layer", 3}, {"weight", "output_bias"}, {"row", 0}, {"col", 0}, {"value", 4}},
        });
        const QString file = m_dir.filePath(QStringLiteral("edited.json"));
        writeText(file, QByteArray::fromStdString(modelSession("tiny-gpt2", 3, edits)));
        // run from another folder: the model's path is taken from the session file's folder
        const json got = compute({file}, QDir::rootPath());
        QVERIFY(!got.is_null());
        compareWithReference(got, reference(3, edits), 3);

        const json first = compute({QStringLiteral("--session"), file, QStringLiteral("--layer"), QStringLiteral("1")});
        QVERIFY(!first.is_null());
        compareWithReference(first, reference(1, edits), 1);

        // the edits move the result: the unedited model differs
        const json plain = compute({QStringLiteral("--model"), m_folder, QStringLiteral("--text"),
                                    QString::fromUtf8(sentence), QStringLiteral("--layer"), QStringLiteral("3")});
        QVERIFY(testutil::compare(flat(plain["output"]), flat(got["output"])).relative > 1e-3);
    }

    /** The exports take a model as a source and draw its shown layer. */
    void exportsTakeAModel()
    {
        const QStringList source = {QStringLiteral("--model"), m_folder, QStringLiteral("--text"),
                                    QString::fromUtf8(sentence), QStringLiteral("--layer"), QStringLiteral("2")};
        const QString png = m_dir.filePath(QStringLiteral("heat.png"));
        Run r = run(QStringList{QStringLiteral("--export-heatmap"), png, QStringLiteral("--head"), QStringLiteral("4")}
                    + source);
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY(!QImage(png).isNull());
        r = run(QStringList{QStringLiteral("--export-heatmap"), png, QStringLiteral("--head"), QStringLiteral("5")}
                + source);
        QCOMPARE(r.status, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(QStringLiteral("from 1 to 4")), r.err.constData());

        const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
        r = run(QStringList{QStringLiteral("--export-report"), pdf} + source);
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY(QFileInfo(pdf).size() > 1000);

        const QString steps = m_dir.filePath(QStringLiteral("steps"));
        r = run(QStringList{QStringLiteral("--export-steps"), steps} + source);
        QVERIFY2(r.status == 0, r.err.constData());
        const json fromSteps = [&] {
            std::ifstream in(QDir(steps).filePath(QStringLiteral("trace.json")).toStdString());
            return json::parse(in);
        }();
        const json computed = compute(source);
        QCOMPARE(flat(fromSteps["output"]), flat(computed["output"]));
        QVERIFY(QFile::exists(QDir(steps).filePath(QStringLiteral("head4_weights.csv"))));

        if (m_python.isEmpty())
            QSKIP("PyTorch is not installed (python3-torch): the generated code was not run");
        const QString code = m_dir.filePath(QStringLiteral("layer2.py"));
        r = run(QStringList{QStringLiteral("--export-code"), code} + source);
        QVERIFY2(r.status == 0, r.err.constData());
        // The generated PyTorch, run, reproduces the layer's attention from its X, with the biases.
        QString error;
        const QByteArray printed = testutil::runExportedCode(m_python, code, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const json ran = json::parse(printed.toStdString());
        for (std::size_t h = 0; h < 4; ++h)
            CHECK_CLOSE(flat(ran["weights"][h]), flat(computed["heads"][h]["weights"]), "generated weights " + std::to_string(h + 1));
        CHECK_CLOSE(flat(ran["output"]), flat(computed["output"]), std::string("generated output"));
    }

    void refusals_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString folder = QStringLiteral("@folder@");
        const QStringList model = {QStringLiteral("--compute"), QStringLiteral("--model"), folder};
        QTest::newRow("layer 0") << model + QStringList{QStringLiteral("--text"), QStringLiteral("hi"), QStringLiteral("--layer"), QStringLiteral("0")}
                                 << QStringLiteral("--layer: expected a number from 1 to 3");
        QTest::newRow("layer past the model") << model + QStringList{QStringLiteral("--text"), QStringLiteral("hi"), QStringLiteral("--layer"), QStringLiteral("4")}
                                              << QStringLiteral("--layer: expected a number from 1 to 3");
        QTest::newRow("text past n_positions") << model + QStringList{QStringLiteral("--text"), QStringLiteral("a ").repeated(40)}
                                               << QStringLiteral("32");
        // A refusal of what the flags gave is named by the flag, as the command line always wrote it.
        QTest::newRow("text past n_positions, by its flag") << model + QStringList{QStringLiteral("--text"), QStringLiteral("a ").repeated(40)}
                                                            << QStringLiteral("attention-explorer: --text: the text is ");
        QTest::newRow("missing folder, by its flag") << QStringList{QStringLiteral("--compute"), QStringLiteral("--model"), QStringLiteral("/nonexistent/gpt2"), QStringLiteral("--text"), QStringLiteral("hi")}
                                                     << QStringLiteral("attention-explorer: --model: /nonexistent/gpt2: is not a folder");
        QTest::newRow("no text") << model << QStringLiteral("--text");
        QTest::newRow("empty text") << model + QStringList{QStringLiteral("--text"), QString()} << QStringLiteral("--text");
        QTest::newRow("missing folder") << QStringList{QStringLiteral("--compute"), QStringLiteral("--model"), QStringLiteral("/nonexistent/gpt2"), QStringLiteral("--text"), QStringLiteral("hi")}
                                        << QStringLiteral("/nonexistent/gpt2");
        QTest::newRow("pickle only") << QStringList{QStringLiteral("--compute"), QStringLiteral("--model"), QStringLiteral("@pickle@"), QStringLiteral("--text"), QStringLiteral("hi")}
                                     << QStringLiteral("pytorch_model.bin");
        QTest::newRow("text without a model") << QStringList{QStringLiteral("--compute"), QStringLiteral("--preset"), QStringLiteral("illustrated"), QStringLiteral("--text"), QStringLiteral("hi")}
                                              << QStringLiteral("--text: give it with --model");
        QTest::newRow("layer of a plain source") << QStringList{QStringLiteral("--export-heatmap"), QStringLiteral("@out@"), QStringLiteral("--preset"), QStringLiteral("illustrated"), QStringLiteral("--layer"), QStringLiteral("2")}
                                                 << QStringLiteral("--layer");
        QTest::newRow("two sources") << model + QStringList{QStringLiteral("--text"), QStringLiteral("hi"), QStringLiteral("--preset"), QStringLiteral("illustrated")}
                                     << QStringLiteral("give one source");
        QTest::newRow("edit of an unknown weight") << QStringList{QStringLiteral("--compute"), QStringLiteral("@badweight@")}
                                                   << QStringLiteral("badweight.json");
        QTest::newRow("edit past the model") << QStringList{QStringLiteral("--compute"), QStringLiteral("@badcell@")}
                                             << QStringLiteral("badcell.json");
        QTest::newRow("edit in a layer past the model") << QStringList{QStringLiteral("--compute"), QStringLiteral("@badlayer@")}
                                                        << QStringLiteral("badlayer.json");
        QTest::newRow("edit past float32 in a layer not shown") << QStringList{QStringLiteral("--compute"), QStringLiteral("@bigvalue@")}
                                                                << QStringLiteral("bigvalue.json: edits[0].value: expected a finite number that float32 holds");
    }

    void refusals()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const QString pickle = m_dir.filePath(QStringLiteral("pickled"));
        QDir().mkpath(pickle);
        writeText(QDir(pickle).filePath(QStringLiteral("config.json")),
                  QByteArray::fromStdString(testutil::gpt2Config(3, 32, 4, 32, 257).dump()));
        writeText(QDir(pickle).filePath(QStringLiteral("pytorch_model.bin")), "PK\x03\x04");
        for (const char* name : {"vocab.json", "merges.txt"}) {  // the folder as Hugging Face gives it, but pickled
            QFile::remove(QDir(pickle).filePath(QLatin1String(name)));
            QVERIFY(QFile::copy(QDir(m_folder).filePath(QLatin1String(name)), QDir(pickle).filePath(QLatin1String(name))));
        }
        const std::string folder = m_folder.toStdString();
        writeText(m_dir.filePath(QStringLiteral("badweight.json")),
                  QByteArray::fromStdString(modelSession(folder, 1, json::array({{{"layer", 1}, {"weight", "mlp"}, {"row", 0}, {"col", 0}, {"value", 1}}}))));
        writeText(m_dir.filePath(QStringLiteral("badcell.json")),
                  QByteArray::fromStdString(modelSession(folder, 1, json::array({{{"layer", 1}, {"weight", "query"}, {"row", 32}, {"col", 0}, {"value", 1}}}))));
        writeText(m_dir.filePath(QStringLiteral("badlayer.json")),
                  QByteArray::fromStdString(modelSession(folder, 1, json::array({{{"layer", 4}, {"weight", "query"}, {"row", 0}, {"col", 0}, {"value", 1}}}))));
        writeText(m_dir.filePath(QStringLiteral("bigvalue.json")),
                  QByteArray::fromStdString(modelSession(folder, 1, json::array({{{"layer", 2}, {"weight", "query"}, {"row", 0}, {"col", 0}, {"value", 1e300}}}))));
        for (QString& a : arguments) {
            a.replace(QStringLiteral("@folder@"), m_folder);
            a.replace(QStringLiteral("@pickle@"), pickle);
            a.replace(QStringLiteral("@out@"), m_dir.filePath(QStringLiteral("refused.png")));
            for (const char* name : {"badweight", "badcell", "badlayer", "bigvalue"})
                a.replace(QStringLiteral("@%1@").arg(QLatin1String(name)), m_dir.filePath(QLatin1String(name) + QStringLiteral(".json")));
        }
        const Run r = run(arguments);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.out.isEmpty(), r.out.left(200).constData());
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("refused.png"))));
    }

    /** With AE_GPT2_DIR naming a real GPT-2 folder: the command line against the reference on its weights. */
    void realGpt2()
    {
        const QString dir = qEnvironmentVariable("AE_GPT2_DIR");
        if (dir.isEmpty())
            QSKIP("AE_GPT2_DIR does not name a GPT-2 folder (see ARCHITECTURE.md, Tests)");
        if (m_python.isEmpty())
            QSKIP("PyTorch is not installed (python3-torch)");
        const QString text = QStringLiteral("The quick brown fox jumps over the lazy dog because it");
        const json got = compute({QStringLiteral("--model"), dir, QStringLiteral("--text"), text,
                                  QStringLiteral("--layer"), QStringLiteral("6")});
        QVERIFY(!got.is_null());
        QString error;
        const json want = testutil::reference(m_python, dir.toStdString(), got["token_ids"].get<std::vector<int>>(), 6,
                                              json::array(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        compareWithReference(got, want, 6);
    }
};

QTEST_GUILESS_MAIN(TestModelCli)
#include "tst_modelcli.moc"
