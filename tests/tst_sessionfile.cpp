/** The session file of SPEC §2: reading, writing, round trips and refusals. */

#include "core/attention/embedding.h"
#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace core;
using nlohmann::json;
using testutil::mat;

namespace {

const char* const specExample = R"({
  "format": "attention-explorer-session",
  "version": 1,
  "tokens": ["Thinking", "Machines"],
  "embeddings": [[1, 0, 1, 0], [0, 2, 0, 2]],
  "weights": {
    "query":  [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]],
    "key":    [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
    "value":  [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]],
    "output": null
  },
  "options": {
    "heads": 1,
    "scale": true,
    "temperature": 1.0,
    "mask": "none",
    "positional_encoding": "none"
  }
})";

/** The SPEC example with some parts replaced (each argument is the JSON after the key, or the whole member). */
QByteArray session(const char* weights = nullptr, const char* options = nullptr, const char* embeddings = nullptr,
                   const char* tokens = nullptr, const char* head = nullptr)
{
    const char* defaultWeights = R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]],
        "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]})";
    QByteArray s = "{";
    s += head ? head : R"("format": "attention-explorer-session", "version": 1)";
    s += QByteArray(", \"tokens\": ") + (tokens ? tokens : R"(["Thinking", "Machines"])");
    s += QByteArray(", \"embeddings\": ") + (embeddings ? embeddings : "[[1, 0, 1, 0], [0, 2, 0, 2]]");
    s += QByteArray(", \"weights\": ") + (weights ? weights : defaultWeights);
    if (options)
        s += QByteArray(", \"options\": ") + options;
    return s + "}";
}

std::string text(const QByteArray& b)
{
    return std::string(b.constData(), std::size_t(b.size()));
}

using testutil::sameBits;

}  // namespace

/** QVERIFY2 that two JSON values are equal, printing both when they are not. */
#define COMPARE_JSON(actual, expected)                                                                 \
    do {                                                                                               \
        const json a_ = (actual), e_ = (expected);                                                     \
        QVERIFY2(a_ == e_, ("actual " + a_.dump() + "\nexpected " + e_.dump()).c_str());               \
    } while (false)

class TestSessionFile : public QObject {
    Q_OBJECT

private slots:
    void roundTripPresets_data();
    void roundTripPresets();
    void unknownKeysSurvive();
    void biasesRoundTrip();
    void numbersReadBack_data();
    void numbersReadBack();
    void specExampleParses();
    void defaults();
    void refusals_data();
    void refusals();
    void derivedEmbeddings();
    void readMissingAndFolder();
    void readTooLarge();
    void readFileRoundTrip();
};

void TestSessionFile::roundTripPresets_data()
{
    QTest::addColumn<QString>("name");
    const auto list = presetList();
    QVERIFY(list.size() >= 6);
    for (const PresetInfo& p : list)
        QTest::addRow("%s", p.name.c_str()) << QString::fromStdString(p.name);
}

void TestSessionFile::roundTripPresets()
{
    QFETCH(QString, name);
    const auto original = preset(name.toStdString());
    QVERIFY(original);
    QVERIFY2(!validate(original->model), validate(original->model)->c_str());
    const std::string serialized = serializeSession(*original);
    std::string error;
    const auto back = parseSession(serialized, error);
    QVERIFY2(back, error.c_str());
    QVERIFY(back->model == original->model);
    COMPARE_JSON(back->extras, original->extras);
    QCOMPARE(serializeSession(*back), serialized);
    // the output is plain JSON with the required keys
    const json j = json::parse(serialized);
    COMPARE_JSON(j["format"], json("attention-explorer-session"));
    COMPARE_JSON(j["version"], json(1));
    QVERIFY2(serialized.find("_bias") == std::string::npos, "a model without biases writes none");
}

void TestSessionFile::unknownKeysSurvive()
{
    const QByteArray file = session(
        R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
            "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], "bias": {"q": [0.5, -1e-7], "note": "ünïcode ✓"}})",
        R"({"heads": 1, "dropout": 0.1, "future": [1, {"deep": null}]})");
    QByteArray withTop = file;
    withTop.chop(1);
    withTop += R"(, "title": "注意力", "view": {"zoom": 2.5, "head": 1}, "seed": 18446744073709551615})";

    std::string error;
    const auto s = parseSession(text(withTop), error);
    QVERIFY2(s, error.c_str());
    const json expectedExtras = json::parse(R"({"title": "注意力", "view": {"zoom": 2.5, "head": 1},
        "seed": 18446744073709551615, "weights": {"bias": {"q": [0.5, -1e-7], "note": "ünïcode ✓"}},
        "options": {"dropout": 0.1, "future": [1, {"deep": null}]}})");
    COMPARE_JSON(s->extras, expectedExtras);

    const std::string out = serializeSession(*s);
    const json written = json::parse(out);
    COMPARE_JSON(written["title"], expectedExtras["title"]);
    COMPARE_JSON(written["view"], expectedExtras["view"]);
    COMPARE_JSON(written["seed"], expectedExtras["seed"]);
    COMPARE_JSON(written["weights"]["bias"], expectedExtras["weights"]["bias"]);
    COMPARE_JSON(written["options"]["dropout"], json(0.1));
    COMPARE_JSON(written["options"]["future"], expectedExtras["options"]["future"]);
    const auto again = parseSession(out, error);
    QVERIFY2(again, error.c_str());
    COMPARE_JSON(again->extras, expectedExtras);
    QVERIFY(again->model == s->model);
}

void TestSessionFile::biasesRoundTrip()
{
    // The worked example with W_O and all four biases (and an unknown key beside them).
    const QByteArray file = session(
        R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
            "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], "output": [[1, 0], [0, 1], [1, 1]],
            "query_bias": [0.1, -2, 0.3333333333333333], "key_bias": [0, 1e-300, -0.0],
            "value_bias": [1.5, 2.5, 3.5], "output_bias": [7, -7], "later": true})");
    std::string error;
    const auto s = parseSession(text(file), error);
    QVERIFY2(s, error.c_str());
    const AttentionModel& m = s->model;
    QVERIFY(m.bq && m.bk && m.bv && m.bo);
    COMPARE_MATRIX(*m.bq, mat({{0.1, -2, 1.0 / 3.0}}), 0);
    QVERIFY(sameBits((*m.bk)(0, 1), 1e-300) && sameBits((*m.bk)(0, 2), -0.0));
    COMPARE_MATRIX(*m.bv, mat({{1.5, 2.5, 3.5}}), 0);
    COMPARE_MATRIX(*m.bo, mat({{7, -7}}), 0);
    COMPARE_JSON(s->extras, json::parse(R"({"weights": {"later": true}})"));

    // Written back under the same keys, one row each; read again, the same model; written again, the same text.
    const std::string out = serializeSession(*s);
    const json j = json::parse(out);
    COMPARE_JSON(j["weights"]["query_bias"], json::parse("[0.1, -2, 0.3333333333333333]"));
    COMPARE_JSON(j["weights"]["output_bias"], json::parse("[7, -7]"));
    COMPARE_JSON(j["weights"]["later"], json(true));
    const auto back = parseSession(out, error);
    QVERIFY2(back, error.c_str());
    QVERIFY(back->model == m);
    QVERIFY(sameBits((*back->model.bk)(0, 2), -0.0));
    QCOMPARE(serializeSession(*back), out);

    // Only the biases a model has are written; null reads as absent.
    const QByteArray some = session(
        R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
            "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], "value_bias": [1, 2, 3], "query_bias": null})");
    const auto v = parseSession(text(some), error);
    QVERIFY2(v, error.c_str());
    QVERIFY(!v->model.bq && !v->model.bk && v->model.bv && !v->model.bo);
    const json written = json::parse(serializeSession(*v));
    QVERIFY(!written["weights"].contains("query_bias") && !written["weights"].contains("output_bias"));
    COMPARE_JSON(written["weights"]["value_bias"], json::parse("[1, 2, 3]"));
}

void TestSessionFile::numbersReadBack_data()
{
    QTest::addColumn<double>("value");
    QTest::addRow("0.1") << 0.1;
    QTest::addRow("1/3") << 1.0 / 3.0;
    QTest::addRow("-2/3") << -2.0 / 3.0;
    QTest::addRow("1e-300") << 1e-300;
    QTest::addRow("smallest subnormal") << 5e-324;
    QTest::addRow("-0.0") << -0.0;
    QTest::addRow("0") << 0.0;
    QTest::addRow("1e300") << 1e300;
    QTest::addRow("largest double") << 1.7976931348623157e308;
    QTest::addRow("2^53 + 2") << 9007199254740994.0;
    QTest::addRow("1e15") << 1e15;
    QTest::addRow("123456789012") << 123456789012.0;
    QTest::addRow("-7") << -7.0;
    QTest::addRow("pi") << M_PI;
}

void TestSessionFile::numbersReadBack()
{
    QFETCH(double, value);
    Session s{illustratedModel(), json::object()};
    s.model.embeddings(1, 2) = value;
    s.model.wq(3, 0) = -value;
    s.model.wo = mat({{value, 1, 2}, {3, 4, 5}, {6, 7, 8}});
    if (value > 0)
        s.model.options.temperature = value;
    std::string error;
    const auto back = parseSession(serializeSession(s), error);
    QVERIFY2(back, error.c_str());
    QVERIFY2(sameBits(back->model.embeddings(1, 2), value),
             QByteArray::number(back->model.embeddings(1, 2), 'g', 17).constData());
    QVERIFY2(sameBits(back->model.wq(3, 0), -value), QByteArray::number(back->model.wq(3, 0), 'g', 17).constData());
    QVERIFY(back->model.wo);
    QVERIFY(sameBits((*back->model.wo)(0, 0), value));
    QVERIFY(sameBits(back->model.options.temperature, s.model.options.temperature));
}

void TestSessionFile::specExampleParses()
{
    std::string error;
    const auto s = parseSession(specExample, error);
    QVERIFY2(s, error.c_str());
    const AttentionModel& m = s->model;
    QCOMPARE(m.tokens, (std::vector<std::string>{"Thinking", "Machines"}));
    COMPARE_MATRIX(m.embeddings, mat({{1, 0, 1, 0}, {0, 2, 0, 2}}), 0.0);
    COMPARE_MATRIX(m.wq, mat({{1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0, 1, 1}}), 0.0);
    COMPARE_MATRIX(m.wk, mat({{0, 0, 1}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}}), 0.0);
    COMPARE_MATRIX(m.wv, mat({{0, 2, 0}, {0, 3, 0}, {1, 0, 3}, {1, 1, 0}}), 0.0);
    QVERIFY(!m.wo);
    QCOMPARE(m.options, Options{});
    QCOMPARE(m.options.heads, 1);
    QVERIFY(m.options.scale);
    QCOMPARE(m.options.temperature, 1.0);
    QCOMPARE(m.options.mask, Mask::None);
    QCOMPARE(m.options.positionalEncoding, PositionalEncoding::None);
    QVERIFY2(s->extras.empty(), s->extras.dump().c_str());
}

void TestSessionFile::defaults()
{
    std::string error;
    const auto s = parseSession(text(session(nullptr, R"({"mask": "causal", "positional_encoding": "sinusoidal",
        "temperature": 0.5, "scale": false, "heads": 3})")), error);
    QVERIFY2(s, error.c_str());
    QCOMPARE(s->model.options.heads, 3);
    QVERIFY(!s->model.options.scale);
    QCOMPARE(s->model.options.temperature, 0.5);
    QCOMPARE(s->model.options.mask, Mask::Causal);
    QCOMPARE(s->model.options.positionalEncoding, PositionalEncoding::Sinusoidal);
    const auto noOptions = parseSession(text(session()), error);
    QVERIFY2(noOptions, error.c_str());
    QCOMPARE(noOptions->model.options, Options{});
    const auto withOutput = parseSession(text(session(R"({"query": [[1], [0], [0], [0]], "key": [[1], [1], [1], [1]],
        "value": [[2, 0], [0, 2], [1, 1], [0, 0]], "output": [[1, 2, 3], [4, 5, 6]]})")), error);
    QVERIFY2(withOutput, error.c_str());
    QVERIFY(withOutput->model.wo);
    COMPARE_MATRIX(*withOutput->model.wo, mat({{1, 2, 3}, {4, 5, 6}}), 0.0);
}

void TestSessionFile::refusals_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("fragment");

    QTest::addRow("wrong format") << session(nullptr, nullptr, nullptr, nullptr,
                                             R"("format": "something-else", "version": 1)")
                                  << QStringLiteral("format");
    QTest::addRow("missing format") << session(nullptr, nullptr, nullptr, nullptr, R"("version": 1)")
                                    << QStringLiteral("format");
    QTest::addRow("missing version") << session(nullptr, nullptr, nullptr, nullptr,
                                                R"("format": "attention-explorer-session")")
                                     << QStringLiteral("version");
    // The program reads version 2 (a model session, SPEC §5): a newer file is told so, and which version it reads.
    QTest::addRow("version 3 is newer")
        << session(nullptr, nullptr, nullptr, nullptr, R"("format": "attention-explorer-session", "version": 3)")
        << QStringLiteral("version: the file is version 3, newer than this program reads (version 2); a newer "
                          "Attention Explorer is needed");
    QTest::addRow("version 2 is a model session")
        << session(nullptr, nullptr, nullptr, nullptr, R"("format": "attention-explorer-session", "version": 2)")
        << QStringLiteral("version: expected 1 (a plain session), got 2 (a model session");
    QTest::addRow("version 2^64-1 is newer")
        << session(nullptr, nullptr, nullptr, nullptr,
                   R"("format": "attention-explorer-session", "version": 18446744073709551615)")
        << QStringLiteral("newer");
    QTest::addRow("version 0") << session(nullptr, nullptr, nullptr, nullptr,
                                          R"("format": "attention-explorer-session", "version": 0)")
                               << QStringLiteral("version");
    QTest::addRow("version text") << session(nullptr, nullptr, nullptr, nullptr,
                                             R"("format": "attention-explorer-session", "version": "1")")
                                  << QStringLiteral("version");
    QTest::addRow("ragged embeddings") << session(nullptr, nullptr, "[[1, 0, 1, 0], [0, 2, 0]]")
                                       << QStringLiteral("embeddings");
    QTest::addRow("ragged says ragged") << session(nullptr, nullptr, "[[1, 0, 1, 0], [0, 2, 0]]")
                                        << QStringLiteral("ragged");
    QTest::addRow("string in a matrix")
        << session(R"({"query": [[1, 0, 1], [1, 0, "x"], [0, 0, 1], [0, 1, 1]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
                     "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]})")
        << QStringLiteral("weights.query[1][2]");
    QTest::addRow("1e400") << session(nullptr, nullptr, "[[1, 0, 1, 0], [0, 1e400, 0, 2]]")
                           << QStringLiteral("embeddings[1][1]");
    QTest::addRow("1e400 is not finite") << session(nullptr, nullptr, "[[1, 0, 1, 0], [0, 1e400, 0, 2]]")
                                         << QStringLiteral("finite");
    QTest::addRow("-1e400 in weights")
        << session(R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, -1e400]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
                     "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]})")
        << QStringLiteral("weights.query[3][2]");
    QTest::addRow("1e400 temperature") << session(nullptr, R"({"temperature": 1e400})")
                                       << QStringLiteral("options.temperature");
    QTest::addRow("3 embedding rows for 2 tokens")
        << session(nullptr, nullptr, "[[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]]")
        << QStringLiteral("embeddings: expected 2 rows");
    QTest::addRow("weights.key 3 rows")
        << session(R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0]],
                     "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]})")
        << QStringLiteral("weights.key: expected 4 rows (d_model), got 3");
    QTest::addRow("weights.output rows")
        << session(R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
                     "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], "output": [[1], [2]]})")
        << QStringLiteral("weights.output: expected 3 rows");
    QTest::addRow("key columns differ from query")
        << session(R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "key": [[0, 0], [1, 1], [0, 1], [1, 1]],
                     "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]]})")
        << QStringLiteral("weights.key");
    QTest::addRow("heads do not divide") << session(nullptr, R"({"heads": 2})") << QStringLiteral("heads");
    const auto biased = [](const char* bias) {
        return session((std::string(R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]],
            "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], "value": [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], )")
                        + bias + "}")
                           .c_str());
    };
    QTest::addRow("query_bias columns") << biased(R"("query_bias": [1, 2])")
                                        << QStringLiteral("weights.query_bias: expected 3 columns (h·d_k), got 2");
    QTest::addRow("value_bias columns") << biased(R"("value_bias": [1, 2, 3, 4])")
                                        << QStringLiteral("weights.value_bias: expected 3 columns (h·d_v), got 4");
    QTest::addRow("output_bias columns") << biased(R"("output": [[1], [2], [3]], "output_bias": [1, 2])")
                                         << QStringLiteral("weights.output_bias: expected 1 column (d_out), got 2");
    QTest::addRow("output_bias without output") << biased(R"("output_bias": [1, 2, 3])")
                                                << QStringLiteral("weights.output_bias: given without weights.output");
    QTest::addRow("key_bias as a matrix") << biased(R"("key_bias": [[1, 2, 3]])")
                                          << QStringLiteral("weights.key_bias[0]: expected a number, got a list of 3");
    QTest::addRow("value_bias text") << biased(R"("value_bias": "1 2 3")")
                                     << QStringLiteral("weights.value_bias: expected a list of numbers (one row)");
    QTest::addRow("query_bias empty") << biased(R"("query_bias": [])")
                                      << QStringLiteral("weights.query_bias: expected at least 1 number, got 0");
    QTest::addRow("query_bias 1e400") << biased(R"("query_bias": [1, 1e400, 0])")
                                      << QStringLiteral("weights.query_bias[1]: expected a finite number");
    QTest::addRow("key_bias true") << biased(R"("key_bias": [0, true, 0])")
                                   << QStringLiteral("weights.key_bias[1]: expected a number, got true");
    QTest::addRow("heads 0") << session(nullptr, R"({"heads": 0})") << QStringLiteral("options.heads");
    QTest::addRow("heads 1.5") << session(nullptr, R"({"heads": 1.5})") << QStringLiteral("options.heads");
    QTest::addRow("heads text") << session(nullptr, R"({"heads": "1"})") << QStringLiteral("options.heads");
    QTest::addRow("temperature 0") << session(nullptr, R"({"temperature": 0})") << QStringLiteral("options.temperature");
    QTest::addRow("temperature -1") << session(nullptr, R"({"temperature": -1})")
                                    << QStringLiteral("options.temperature");
    QTest::addRow("scale 1") << session(nullptr, R"({"scale": 1})") << QStringLiteral("options.scale");
    QTest::addRow("mask diagonal") << session(nullptr, R"({"mask": "diagonal"})") << QStringLiteral("options.mask");
    QTest::addRow("positional_encoding learned") << session(nullptr, R"({"positional_encoding": "learned"})")
                                                 << QStringLiteral("options.positional_encoding");
    QTest::addRow("options not an object") << session(nullptr, "[1]") << QStringLiteral("options");
    QTest::addRow("missing tokens")
        << QByteArray(R"({"format": "attention-explorer-session", "version": 1, "embeddings": [[1]],
                         "weights": {"query": [[1]], "key": [[1]], "value": [[1]]}})")
        << QStringLiteral("tokens");
    QTest::addRow("tokens empty") << session(nullptr, nullptr, nullptr, "[]") << QStringLiteral("tokens");
    QTest::addRow("tokens not a list") << session(nullptr, nullptr, nullptr, R"("Thinking Machines")")
                                       << QStringLiteral("tokens");
    QTest::addRow("a token that is a number") << session(nullptr, nullptr, nullptr, R"(["Thinking", 5])")
                                              << QStringLiteral("tokens[1]");
    QTest::addRow("missing weights.value")
        << session(R"({"query": [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], "key": [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]]})")
        << QStringLiteral("weights.value");
    QTest::addRow("embeddings without weights")
        << QByteArray(R"({"format": "attention-explorer-session", "version": 1, "tokens": ["a"], "embeddings": [[1]]})")
        << QStringLiteral("weights");
    QTest::addRow("empty matrix") << session(nullptr, nullptr, "[]") << QStringLiteral("embeddings");
    QTest::addRow("empty row") << session(nullptr, nullptr, "[[], []]") << QStringLiteral("embeddings[0]");
    QTest::addRow("not JSON") << QByteArray("this is not JSON") << QStringLiteral("JSON");
    QTest::addRow("truncated JSON") << session().left(60) << QStringLiteral("JSON");
    QTest::addRow("empty file") << QByteArray() << QStringLiteral("empty");
    QTest::addRow("only whitespace") << QByteArray(" \n\t ") << QStringLiteral("JSON");
    QTest::addRow("top-level array") << QByteArray(R"([{"format": "attention-explorer-session"}])")
                                     << QStringLiteral("top level");
    QTest::addRow("top-level number") << QByteArray("1") << QStringLiteral("top level");
    QTest::addRow("nesting 10000 deep") << QByteArray(10000, '[') << QStringLiteral("nested");
    QTest::addRow("nesting 10000 deep, closed") << QByteArray(10000, '[') + QByteArray(10000, ']')
                                                << QStringLiteral("nested");
    QTest::addRow("objects 10000 deep") << QByteArray("{\"a\":").repeated(10000) + "1" + QByteArray(10000, '}')
                                        << QStringLiteral("nested");
    QTest::addRow("invalid UTF-8 in a token") << session(nullptr, nullptr, nullptr, "[\"a\xff\", \"b\"]")
                                              << QStringLiteral("JSON");
}

void TestSessionFile::refusals()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, fragment);
    std::string error;
    std::optional<Session> s;
    try {
        s = parseSession(text(json), error);
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QStringLiteral("parseSession threw: ") + QString::fromUtf8(e.what())));
    }
    QVERIFY2(!s, "the session was accepted");
    QVERIFY2(QString::fromStdString(error).contains(fragment),
             qPrintable(QStringLiteral("message: ") + QString::fromStdString(error)));
}

void TestSessionFile::derivedEmbeddings()
{
    const QByteArray file = R"({"format": "attention-explorer-session", "version": 1,
        "tokens": ["the", "cat", "the", "注意"], "weights": {"query": [[1, 0], [0, 1], [1, 1]],
        "key": [[1, 0], [0, 1], [1, 1]], "value": [[1], [1], [1]]}})";
    std::string error;
    const auto a = parseSession(text(file), error);
    QVERIFY2(a, error.c_str());
    const auto b = parseSession(text(file), error);
    QVERIFY2(b, error.c_str());
    const Matrix& e = a->model.embeddings;
    QCOMPARE(e.rows(), Eigen::Index(4));
    QCOMPARE(e.cols(), Eigen::Index(3));  // d_model from the weights
    COMPARE_MATRIX(e, b->model.embeddings, 0.0);
    COMPARE_MATRIX(e.row(0), e.row(2), 0.0);
    QVERIFY(e.row(0) != e.row(1));
    COMPARE_MATRIX(e.row(1), tokenEmbedding("cat", 3), 0.0);

    // No embeddings and no weights: typed tokens with the program's defaults.
    const auto typed = parseSession(R"({"format": "attention-explorer-session", "version": 1,
        "tokens": ["a", "b", "a"], "options": {"mask": "causal"}})", error);
    QVERIFY2(typed, error.c_str());
    QCOMPARE(typed->model.embeddings.cols(), Eigen::Index(defaultDModel));
    COMPARE_MATRIX(typed->model.embeddings.row(0), typed->model.embeddings.row(2), 0.0);
    COMPARE_MATRIX(typed->model.wq, illustratedModel().wq, 0.0);
    QCOMPARE(typed->model.options.mask, Mask::Causal);
    QVERIFY(modelForTokens({"a", "b", "a"}).embeddings == typed->model.embeddings);
}

void TestSessionFile::readMissingAndFolder()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string missing = dir.filePath(QStringLiteral("nothing-here.json")).toStdString();
    std::string error;
    QVERIFY(!readSessionFile(missing, error));
    QVERIFY2(error.find(missing) != std::string::npos, error.c_str());

    error.clear();
    const std::string folder = dir.path().toStdString();
    QVERIFY(!readSessionFile(folder, error));
    QVERIFY2(error.find(folder) != std::string::npos, error.c_str());
    QVERIFY2(error.find("folder") != std::string::npos, error.c_str());

    error.clear();
    const std::string broken = dir.filePath(QStringLiteral("broken.json")).toStdString();
    std::ofstream(broken) << "{";
    QVERIFY(!readSessionFile(broken, error));
    QVERIFY2(error.rfind(broken + ": ", 0) == 0, error.c_str());
}

void TestSessionFile::readTooLarge()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("huge.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize(qint64(maxSessionFileBytes) + 1));  // sparse: cheap to make
    f.close();
    std::string error;
    QVERIFY(!readSessionFile(path.toStdString(), error));
    QVERIFY2(error.find(path.toStdString()) != std::string::npos, error.c_str());
    QVERIFY2(error.find("64 MiB") != std::string::npos, error.c_str());

    // exactly the limit is read (and refused as not JSON, not as too large)
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.resize(qint64(maxSessionFileBytes)));
    f.close();
    error.clear();
    QVERIFY(!readSessionFile(path.toStdString(), error));
    QVERIFY2(error.find("64 MiB") == std::string::npos, error.c_str());
}

void TestSessionFile::readFileRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("ünï session.json")).toStdString();
    const auto original = preset("multi-head");
    QVERIFY(original);
    std::string error;
    QVERIFY(testutil::writeText(path, serializeSession(*original)));
    const auto back = readSessionFile(path, error);
    QVERIFY2(back, error.c_str());
    QVERIFY(back->model == original->model);
    COMPARE_JSON(back->extras, original->extras);
}

QTEST_APPLESS_MAIN(TestSessionFile)
#include "tst_sessionfile.moc"
