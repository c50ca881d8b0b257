/** The decoder families of SPEC §6 through the program, as a script calls it: `--compute` on a model session and on
 *  `--model DIR --text TEXT` for each case of tests/family_reference.py (Llama with grouped heads, Llama 3's rope
 *  scaling, Qwen2's biases over two shards, Qwen3's q/k norms, NeoX's partial rotary), each folder given a small
 *  byte-level tokenizer.json whose ids are worked out by hand below. The printed shown layer (x, every head's
 *  queries and keys before and after the rotation, the K/V head's values, weights, outputs, output), every layer's
 *  attention and the logits are compared with the float64 reference within 2e-5 of the largest entry, with edits of
 *  every kind the family has and a zeroed head. The instruments of SPEC §8 on a model session of each case (an edited
 *  weight, a zeroed head): the logit lens, direct logit attribution, activation patching and greedy generation against
 *  the reference's instruments written from transformers' definitions; the attribution's parts sum to its logit. Then
 *  the refusals a script meets. */

#include "familycase.h"
#include "gpt2reference.h"
#include "programrun.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

using nlohmann::json;
using testutil::flat;

namespace {

/** Columns [first, first + count) of a JSON matrix, flat by rows. */
std::vector<double> columns(const json& m, int first, int count)
{
    std::vector<double> out;
    for (const json& row : m)
        for (int c = first; c < first + count; ++c)
            out.push_back(row[std::size_t(c)].get<double>());
    return out;
}

/** Same length as testutil::familyText, one letter apart: "Ġ h at" for "Ġ m at". */
const char* const corruptText = "the cat sat on a hat";
const std::vector<int> corruptIds = {0, 28, 5, 31, 27, 19, 30, 27, 15, 14, 27, 1, 27, 8, 30};
/** Token arguments as a script writes them: a text of one token (without the BOS), or #ID. */
const int targetId = 30; // "at"
const int answerId = 13; // "m"
const int wrongId = 8;   // "#8", h
/** The attribution's position, 1-based as on the command line. */
constexpr int position = 9;
constexpr double probabilityTolerance = 1e-5;

/** The sum of an attribution's parts. */
double partsOf(const json& a)
{
    double sum = a["embeddings"].get<double>() + a["bias"].get<double>();
    for (const json& layer : a["heads"])
        for (const json& h : layer)
            sum += h.get<double>();
    for (const json& m : a["mlps"])
        sum += m.get<double>();
    return sum;
}

/** [logit, embeddings, bias, heads…, mlps…] of an attribution. */
std::vector<double> attributionNumbers(const json& a)
{
    std::vector<double> out = {a["logit"], a["embeddings"], a["bias"]};
    for (double v : flat(a["heads"]))
        out.push_back(v);
    for (double v : flat(a["mlps"]))
        out.push_back(v);
    return out;
}

} // namespace

class TestFamiliesCli : public QObject {
    Q_OBJECT

    QString m_python;
    QTemporaryDir m_cases; ///< every case written once, each in its folder, with the tokenizer

    QString caseFolder(const QString& name) const { return m_cases.filePath(name); }

    /** The program's --compute of args; fails the test when it does not exit 0 with JSON. */
    json compute(const QStringList& args)
    {
        const testutil::Run run = testutil::runProgram(QStringLiteral(AE_BINARY), QStringList{QStringLiteral("--compute")} + args);
        if (run.status != 0) {
            qWarning("exit %d: %s", run.status, run.err.constData());
            return {};
        }
        return json::parse(run.out.toStdString(), nullptr, false);
    }

    /** A version-2 session of case name with testutil::familyText, the layer (1-based), edits and zeroed heads,
     *  written beside the case's folder; its path, or empty when it cannot be written. */
    QString writeSession(const QString& name, int layer, const json& edits, const json& ablations)
    {
        const json session = {{"format", "attention-explorer-session"}, {"version", 2},
                              {"model", {{"path", name.toStdString()}, {"layer", layer}}},
                              {"text", testutil::familyText}, {"edits", edits}, {"ablations", ablations}};
        const QString file = m_cases.filePath(name + QStringLiteral(".json"));
        return testutil::writeText(file.toStdString(), session.dump()) ? file : QString();
    }

    /** The program's run of args; fails the test when it does not exit 0. */
    testutil::Run program(const QStringList& args)
    {
        const testutil::Run run = testutil::runProgram(QStringLiteral(AE_BINARY), args);
        if (run.status != 0)
            qWarning("exit %d: %s", run.status, run.err.constData());
        return run;
    }

    json readJson(const QString& path)
    {
        return json::parse(testutil::readText(path.toStdString()), nullptr, false);
    }

    /** The printed JSON against the reference's pass over the same folder, ids, edits and ablations. */
    void compareWithReference(const json& got, const QString& folder, int layer, const json& edits,
                              const json& ablations)
    {
        QStringList ids;
        for (int id : got["token_ids"])
            ids << QString::number(id);
        QString error;
        const QByteArray out = testutil::runPython(m_python, testutil::familyScript(),
                                                   {QStringLiteral("run"), folder, ids.join(QLatin1Char(',')),
                                                    QString::fromStdString(edits.dump()),
                                                    QString::fromStdString(ablations.dump())},
                                                   &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const json want = json::parse(out.toStdString());
        const json config = json::parse(testutil::readText((folder + QStringLiteral("/config.json")).toStdString()));
        const int heads = config["num_attention_heads"];
        const int kvHeads = config.value("num_key_value_heads", heads);
        const int d = config["hidden_size"];
        const int hd = config.value("head_dim", d / heads);
        const std::size_t l = std::size_t(layer - 1);

        QCOMPARE(got["layer"].get<int>(), layer);
        QCOMPARE(got["architecture"].get<std::string>(), config["architectures"][0].get<std::string>());
        QCOMPARE(got["kv_heads"].get<int>(), kvHeads);
        QCOMPARE(int(got["attentions"].size()), int(config["num_hidden_layers"]));
        for (std::size_t a = 0; a < got["attentions"].size(); ++a)
            for (int h = 0; h < heads; ++h)
                CHECK_CLOSE(flat(got["attentions"][a][std::size_t(h)]), flat(want["attentions"][a][std::size_t(h)]),
                            "layer " + std::to_string(a) + " head " + std::to_string(h) + " attention");
        CHECK_CLOSE(flat(got["next_token"]["logits"]), flat(want["logits"].back()), std::string("logits"));
        CHECK_CLOSE(flat(got["x"]), flat(want["x"][l]), std::string("x"));
        const int group = heads / kvHeads;
        for (int h = 0; h < heads; ++h) {
            const json& head = got["heads"][std::size_t(h)];
            const std::string at = "head " + std::to_string(h) + " ";
            const int g = h / group;
            CHECK_CLOSE(flat(head["queries"]), columns(want["queries"][l], h * hd, hd), at + "queries");
            CHECK_CLOSE(flat(head["queries_unrotated"]), columns(want["queries_unrotated"][l], h * hd, hd),
                        at + "queries_unrotated");
            CHECK_CLOSE(flat(head["keys"]), columns(want["keys"][l], g * hd, hd), at + "keys of its K/V head");
            CHECK_CLOSE(flat(head["keys_unrotated"]), columns(want["keys_unrotated"][l], g * hd, hd),
                        at + "keys_unrotated");
            CHECK_CLOSE(flat(head["values"]), columns(want["values"][l], g * hd, hd), at + "values of its K/V head");
            CHECK_CLOSE(flat(head["weights"]), flat(want["attentions"][l][std::size_t(h)]), at + "weights");
        }
        CHECK_CLOSE(flat(got["output"]), flat(want["output"][l]), std::string("output"));
    }

private slots:
    void initTestCase()
    {
        m_python = testutil::pythonWith(QStringLiteral("torch"));
        if (m_python.isEmpty())
            return;
        const QString error = testutil::writeFamilyCases(m_python, m_cases.path());
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void compute_data() { testutil::addProgramCaseRows(); }

    /** --model DIR --text TEXT: the ids and tokens worked out by hand, the rotary description, and every number
     *  against the reference; then a session file with edits of every kind the family has and a zeroed head. */
    void compute()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the reference cannot run");
        QFETCH(QString, name);
        const QString folder = caseFolder(name);
        const json plain = compute({QStringLiteral("--model"), folder, QStringLiteral("--text"), QString::fromLatin1(testutil::familyText), QStringLiteral("--layer"), QStringLiteral("2")});
        QVERIFY(plain.is_object());
        QCOMPARE(plain["token_ids"].get<std::vector<int>>(), testutil::familyTextIds);
        QCOMPARE(plain["tokens"].get<std::vector<std::string>>(), testutil::familyTextTokens);
        const json config = json::parse(testutil::readText((folder + QStringLiteral("/config.json")).toStdString()));
        const bool neox = name.startsWith(QLatin1String("neox"));
        const int hd = config.value("head_dim", int(config["hidden_size"]) / int(config["num_attention_heads"]));
        QCOMPARE(plain["rotary"]["dims"].get<int>(), neox ? hd / 4 : hd);
        QCOMPARE(plain["rotary"]["theta"].get<double>(),
                 neox ? config["rotary_emb_base"].get<double>() : config["rope_theta"].get<double>());
        compareWithReference(plain, folder, 2, json::array(), json::array());
        if (QTest::currentTestFailed())
            return;

        const int q = int(config["num_attention_heads"]) * hd;
        const int kv = int(config.value("num_key_value_heads", int(config["num_attention_heads"]))) * hd;
        json edits = json::array({{{"layer", 1}, {"weight", "query"}, {"row", 3}, {"col", 5}, {"value", 2.5}},
                                  {{"layer", 2}, {"weight", "key"}, {"row", 7}, {"col", kv - 1}, {"value", -3.0}},
                                  {{"layer", 2}, {"weight", "value"}, {"row", 10}, {"col", 2}, {"value", 4.0}},
                                  {{"layer", 2}, {"weight", "output"}, {"row", q - 1}, {"col", 0}, {"value", -2.5}}});
        if (name == QLatin1String("qwen2") || name == QLatin1String("llama3") || neox)
            for (const char* w : {"query_bias", "key_bias", "value_bias"})
                edits.push_back({{"layer", 2}, {"weight", w}, {"row", 0}, {"col", 3}, {"value", 3.0}});
        if (name == QLatin1String("qwen3")) {
            edits.push_back({{"layer", 2}, {"weight", "query_norm"}, {"row", 0}, {"col", 2}, {"value", 3.0}});
            edits.push_back({{"layer", 2}, {"weight", "key_norm"}, {"row", 0}, {"col", 5}, {"value", -1.5}});
        }
        const json ablations = json::array({{{"layer", 2}, {"head", 2}}});
        const QString file = writeSession(name, 2, edits, ablations);
        QVERIFY(!file.isEmpty());
        const json edited = compute({file});
        QVERIFY(edited.is_object());
        compareWithReference(edited, folder, 2, edits, ablations);
        // The zeroed head's output reaches nothing: its rows of W_O count as 0.
        QVERIFY(flat(edited["output"]) != flat(plain["output"]));
    }

    void instruments_data()
    {
        testutil::addProgramCaseRows();
        // the sequential residual too: its MLP reads x + attention, which the attribution's MLP share must follow
        QTest::addRow("neox_sequential") << QStringLiteral("neox_sequential");
    }

    /** A session with an edit and a zeroed head; lens, attribution, patching and --generate against the reference. */
    void instruments()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the reference cannot run");
        QFETCH(QString, name);
        const QString folder = m_cases.filePath(name);
        const json edits = json::array({{{"layer", 1}, {"weight", "value"}, {"row", 3}, {"col", 5}, {"value", 2.5}},
                                        {{"layer", 2}, {"weight", "query"}, {"row", 7}, {"col", 2}, {"value", -3.0}}});
        const json ablations = json::array({{{"layer", 2}, {"head", 2}}});
        const QString source = writeSession(name, 1, edits, ablations);
        QVERIFY(!source.isEmpty());
        const QString lensFile = m_cases.filePath(name + QStringLiteral("-lens.json"));
        const QString attributionFile = m_cases.filePath(name + QStringLiteral("-attribution.json"));
        const QString patchingFile = m_cases.filePath(name + QStringLiteral("-patching.json"));
        QCOMPARE(program({source, QStringLiteral("--export-lens"), lensFile, QStringLiteral("--target"), QStringLiteral("at")})
                     .status, 0);
        QCOMPARE(program({source, QStringLiteral("--export-attribution"), attributionFile, QStringLiteral("--target"),
                          QStringLiteral("#%1").arg(targetId), QStringLiteral("--position"), QString::number(position)})
                     .status, 0);
        QCOMPARE(program({source, QStringLiteral("--export-patching"), patchingFile, QStringLiteral("--corrupt"),
                          QString::fromLatin1(corruptText), QStringLiteral("--answer"), QStringLiteral("m"),
                          QStringLiteral("--wrong"), QStringLiteral("#%1").arg(wrongId)})
                     .status, 0);
        const testutil::Run generated = program({source, QStringLiteral("--generate"), QStringLiteral("4")});
        QCOMPARE(generated.status, 0);

        const json request = {{"ids", testutil::familyTextIds}, {"target", targetId}, {"position", position - 1},
                              {"corrupt_ids", corruptIds}, {"answer", answerId}, {"wrong", wrongId},
                              {"generate", 4}, {"edits", edits}, {"ablations", ablations}};
        QString error;
        const QByteArray out = testutil::runPython(m_python, testutil::familyScript(),
                                                   {QStringLiteral("instruments"), folder,
                                                    QString::fromStdString(request.dump())},
                                                   &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const json want = json::parse(out.toStdString());

        // The lens: L + 1 rows of n cells, the same most probable token, its probability and the target's within
        // 1e-5: the logits are float32 (SPEC §6), and those of these models reach 28, so float32's rounding alone
        // moves a probability by up to 1e-6 (the pass's own rounding before them about as much again).
        const json lens = readJson(lensFile);
        QVERIFY(lens.is_object());
        QCOMPARE(lens["lens"].size(), want["lens"].size());
        for (std::size_t l = 0; l < want["lens"].size(); ++l) {
            QCOMPARE(lens["lens"][l].size(), testutil::familyTextIds.size());
            for (std::size_t p = 0; p < testutil::familyTextIds.size(); ++p) {
                const json &got = lens["lens"][l][p], &w = want["lens"][l][p];
                const QString at = QStringLiteral("lens layer %1 position %2: ").arg(l).arg(p);
                const double gotP = got["probability"], wantP = w["probability"];
                QVERIFY2(std::fabs(gotP - wantP) <= probabilityTolerance, qPrintable(at + QStringLiteral("probability %1, torch %2").arg(gotP).arg(wantP)));
                const double gotT = got["target_probability"], wantT = w["target_probability"];
                QVERIFY2(std::fabs(gotT - wantT) <= probabilityTolerance, qPrintable(at + QStringLiteral("target %1, torch %2").arg(gotT).arg(wantT)));
                QVERIFY2(got["id"] == w["id"], qPrintable(at + QStringLiteral("token %1, torch %2")
                                                              .arg(QString::fromStdString(got["id"].dump()), QString::fromStdString(w["id"].dump()))));
            }
        }

        // Attribution: every part, and the parts sum to the logit (the program's and the reference's).
        const json attribution = readJson(attributionFile);
        QVERIFY(attribution.is_object());
        QCOMPARE(attribution["target"].get<int>(), targetId);
        QCOMPARE(attribution["position"].get<int>(), position);
        CHECK_CLOSE(attributionNumbers(attribution), attributionNumbers(want["attribution"]), std::string("attribution"));
        const double logit = attribution["logit"];
        QVERIFY2(std::fabs(partsOf(attribution) - logit) <= 1e-9 * std::max(1.0, std::fabs(logit)),
                 qPrintable(QStringLiteral("parts %1, logit %2").arg(partsOf(attribution), 0, 'g', 17).arg(logit, 0, 'g', 17)));
        const double wantLogit = want["attribution"]["logit"];
        QVERIFY2(std::fabs(partsOf(want["attribution"]) - wantLogit) <= 1e-9 * std::max(1.0, std::fabs(wantLogit)),
                 "the reference's parts do not sum to its logit");
        QCOMPARE(attribution["heads"][1][1].get<double>(), 0.0); // the zeroed head writes nothing

        // Patching: the clean and corrupted metrics, every restored stream row and head.
        const json patching = readJson(patchingFile);
        QVERIFY(patching.is_object());
        std::vector<double> got = {patching["clean"], patching["corrupt"]}, wanted = {want["clean"], want["corrupt"]};
        for (const char* grid : {"residual", "heads"}) {
            QCOMPARE(patching[grid].size(), want[grid].size());
            for (double v : flat(patching[grid]))
                got.push_back(v);
            for (double v : flat(want[grid]))
                wanted.push_back(v);
        }
        QCOMPARE(got.size(), wanted.size());
        CHECK_CLOSE(got, wanted, std::string("patching"));
        QVERIFY(std::fabs(patching["clean"].get<double>() - patching["corrupt"].get<double>()) > 1e-3);
        QCOMPARE(patching["heads"][1][1].get<double>(), patching["corrupt"].get<double>());

        // Greedy generation: the reference's tokens; the text is the typed one and what follows (no BOS).
        const json g = json::parse(generated.out.toStdString(), nullptr, false);
        QVERIFY(g.is_object());
        QCOMPARE(g["token_ids"].get<std::vector<int>>(), want["generated"].get<std::vector<int>>());
        QVERIFY2(g["text"].get<std::string>().starts_with(testutil::familyText), g["text"].get<std::string>().c_str());
    }

    /** What a script meets: an edit of a weight the family lacks, a cell past the K/V columns, a token argument of
     *  two tokens, a missing tokenizer: exit 2, naming the file and the fault. */
    void refusals()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the cases cannot be written");
        const QString llama = caseFolder(QStringLiteral("llama"));
        const auto refused = [](const QStringList& args, const QString& says) {
            const testutil::Run run = testutil::runProgram(QStringLiteral(AE_BINARY), args);
            QCOMPARE(run.status, 2);
            QVERIFY2(QString::fromUtf8(run.err).contains(says), run.err.constData());
            QVERIFY(run.out.isEmpty());
        };
        const auto sessionWith = [&](const json& edit) {
            const json s = {{"format", "attention-explorer-session"}, {"version", 2},
                            {"model", {{"path", "llama"}, {"layer", 1}}}, {"text", "the cat"},
                            {"edits", json::array({edit})}};
            const QString file = m_cases.filePath(QStringLiteral("refused.json"));
            testutil::writeText(file.toStdString(), s.dump());
            return file;
        };
        refused({QStringLiteral("--compute"), sessionWith({{"layer", 1}, {"weight", "query_norm"}, {"row", 0}, {"col", 0},
                                           {"value", 1.0}})},
                QStringLiteral("edits[0]: query_norm: LlamaForCausalLM as config.json describes it has no such weight"));
        // W_K has kv_heads · head_dim = 2 · 16 columns here, not the 64 of W_Q
        refused({QStringLiteral("--compute"), sessionWith({{"layer", 1}, {"weight", "key"}, {"row", 0}, {"col", 32}, {"value", 1.0}})},
                QStringLiteral("col 32 is outside 0 … 31 (key has 32 columns)"));
        refused({QStringLiteral("--compute"), sessionWith({{"layer", 3}, {"weight", "key"}, {"row", 0}, {"col", 0}, {"value", 1.0}})},
                QStringLiteral("edits[0].layer: 3 is past the model's last layer (2)"));
        // a token argument is the text's own tokens, without the BOS the tokenizer puts before a text
        refused({QStringLiteral("--export-lens"), m_cases.filePath(QStringLiteral("lens.json")), QStringLiteral("--model"), llama,
                 QStringLiteral("--text"), QStringLiteral("the cat"), QStringLiteral("--target"), QStringLiteral("cat")},
                QStringLiteral("--target: \"cat\" is 2 tokens of this model, not one"));
        QTemporaryDir bare;
        for (const QString& file : QDir(llama).entryList(QDir::Files))
            if (file != QLatin1String("tokenizer.json"))
                QVERIFY(QFile::copy(QDir(llama).filePath(file), bare.filePath(file)));
        refused({QStringLiteral("--compute"), QStringLiteral("--model"), bare.path(), QStringLiteral("--text"),
                 QStringLiteral("the cat")},
                bare.path() + QStringLiteral("/tokenizer.json"));
    }
};

QTEST_GUILESS_MAIN(TestFamiliesCli)
#include "tst_familiescli.moc"
