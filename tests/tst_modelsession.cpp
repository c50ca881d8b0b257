/** The model session file of SPEC §5: its example read and written back, unknown keys kept, model.path taken
 *  from the session file's folder, every refusal with its message (in the file and when the model is opened),
 *  the plain session reader refusing version 2 as a model session, the --compute extras, and a
 *  load or pass stopped between its steps (what Cancel does in the window). */

#include "core/models/gpt2forward.h"
#include "core/session/modelsession.h"
#include "core/formats/numbertext.h"
#include "core/session/sessionfile.h"
#include "fifo.h"
#include "gpt2folder_random.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cstring>
#include <filesystem>
#include <functional>

using core::ModelWeight;
using core::ModelSession;
using nlohmann::json;

namespace {

/** The example of SPEC §5. */
const char* const specExample = R"({
  "format": "attention-explorer-session",
  "version": 2,
  "model": {"path": "models/gpt2", "layer": 5},
  "text": "The cat sat on the mat because it was tired",
  "edits": [
    {"layer": 5, "weight": "query", "row": 0, "col": 3, "value": 0.25},
    {"layer": 5, "weight": "value_bias", "row": 0, "col": 7, "value": -1.5}
  ]
})";

/** A session over the tiny model in the folder "tiny" beside the session file. */
json tinySession()
{
    return {{"format", "attention-explorer-session"},
            {"version", 2},
            {"model", {{"path", "tiny"}, {"layer", 2}}},
            {"text", "The cat sat."},
            {"edits", json::array({{{"layer", 2}, {"weight", "key"}, {"row", 1}, {"col", 2}, {"value", 3.5}},
                                   {{"layer", 1}, {"weight", "output_bias"}, {"row", 0}, {"col", 31}, {"value", -2}}})}};
}

bool sameFloat(const json& j, float want)
{
    return std::bit_cast<std::uint32_t>(float(j.get<double>())) == std::bit_cast<std::uint32_t>(want);
}

} // namespace

class TestModelSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const char* name) const { return QDir(m_dir.path()).filePath(QString::fromUtf8(name)).toStdString(); }

    /** Writes tinySession() to file and opens it. */
    static std::optional<core::OpenedModelSession> openTiny(const std::string& file, std::string& error)
    {
        testutil::writeText(file, tinySession().dump());
        return core::openModelSessionFile(file, error);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("tiny")));
        testutil::write(testutil::randomGpt2Folder("F16"), path("tiny"));
    }

    void readsTheSpecExample()
    {
        std::string error;
        const auto s = core::parseModelSession(specExample, error);
        QVERIFY2(s, error.c_str());
        QCOMPARE(s->modelPath, std::string("models/gpt2"));
        QCOMPARE(s->layer, 5);
        QCOMPARE(s->text, std::string("The cat sat on the mat because it was tired"));
        QCOMPARE(int(s->edits.size()), 2);
        QVERIFY((s->edits[0] == core::ModelSessionEdit{5, ModelWeight::Query, 0, 3, 0.25}));
        QVERIFY((s->edits[1] == core::ModelSessionEdit{5, ModelWeight::ValueBias, 0, 7, -1.5}));
        QVERIFY(s->extras.empty());
        QVERIFY(core::isModelSessionText(specExample));
        QCOMPARE(core::modelFolder(*s, "/data/sessions/cat.json"), std::string("/data/sessions/models/gpt2"));
        ModelSession absolute = *s;
        absolute.modelPath = "/models/gpt2";
        QCOMPARE(core::modelFolder(absolute, "/data/sessions/cat.json"), std::string("/models/gpt2"));
    }

    /** A session read from a pipe or a FIFO (`<(cat s.json)`, /dev/stdin) has its text only once: it is read once. */
    void opensFromAFifo()
    {
        const std::string fifo = path("piped.json");
        const testutil::FifoWriter writer(fifo, tinySession().dump());
        QVERIFY(writer.made());
        std::string error;
        const auto opened = core::openModelSessionFile(fifo, error);
        QVERIFY2(opened, error.c_str());
        QCOMPARE(opened->session.layer, 2);
        QCOMPARE(int(opened->session.edits.size()), 2);
        QCOMPARE(opened->folder, path("tiny"));
    }

    void roundTripKeepsUnknownKeys()
    {
        json j = json::parse(specExample);
        j["title"] = "Tired cats";
        j["view"] = {{"head", 3}};
        j["model"]["revision"] = "main";
        j["edits"][0]["value"] = 0.1; // shortest text, read back to the same double
        std::string error;
        const auto s = core::parseModelSession(j.dump(), error);
        QVERIFY2(s, error.c_str());
        const std::string text = core::serializeModelSession(*s);
        QVERIFY2(text.find("\"value\": 0.1\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("\"format\": \"attention-explorer-session\"") < text.find("\"model\""), text.c_str());
        QVERIFY2(json::parse(text) == j, text.c_str());
        const std::string file = path("roundtrip.json");
        QVERIFY(testutil::writeText(file, text));
        const auto back = core::readModelSessionFile(file, error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(core::serializeModelSession(*back), text);
    }

    /** Zero Head is one record (SPEC §5 "ablations"): it reads and writes as one, and the pass counts that head's
     *  rows of W_O as 0, the edits of those rows kept beside it: the same pass as one whose rows are 0 cell by cell. */
    void ablationsAreOneRecord()
    {
        json j = tinySession();
        j["ablations"] = {{{"layer", 1}, {"head", 2}}};
        j["edits"].push_back({{"layer", 1}, {"weight", "output"}, {"row", 9}, {"col", 3}, {"value", 2.5}});
        const std::string file = path("ablated.json");
        testutil::writeText(file, j.dump());
        std::string error;
        const auto opened = core::openModelSessionFile(file, error);
        QVERIFY2(opened, error.c_str());
        QCOMPARE(opened->session.ablations, (std::vector<core::ModelSessionAblation>{{1, 2}}));
        QVERIFY(json::parse(core::serializeModelSession(opened->session)) == j);
        const auto& f = dynamic_cast<const core::Gpt2Forward&>(*opened->pass);
        QVERIFY(f.ablations().count({0, 1}));
        QVERIFY(f.weightValue(0, ModelWeight::Output, 9, 3) == 2.5f);  // kept beside the ablation
        QVERIFY(f.layerModel(0).wo->middleRows(8, 8).isZero(0));
        core::Gpt2Forward byHand(f.sharedCheckpoint());
        QVERIFY(byHand.setTokens(f.tokens(), error));
        for (const core::ModelEdit& e : f.edits())
            QVERIFY(byHand.setEdit(e.layer, e.weight, e.row, e.col, e.value, error));
        for (int r = 8; r < 16; ++r)
            for (int c = 0; c < 32; ++c)
                QVERIFY(byHand.setEdit(0, ModelWeight::Output, r, c, 0.0f, error));
        byHand.run();
        QVERIFY(byHand.logits() == f.logits());
        // Given back, the head's edited cell counts again: the pass equals one without the ablation.
        core::Gpt2Forward restored(f.sharedCheckpoint());
        QVERIFY(restored.setTokens(f.tokens(), error));
        for (const core::ModelEdit& e : f.edits())
            QVERIFY(restored.setEdit(e.layer, e.weight, e.row, e.col, e.value, error));
        restored.setAblated(0, 1, true);
        restored.run();
        QVERIFY(restored.logits() == f.logits());
        restored.setAblated(0, 1, false);
        restored.run();
        core::Gpt2Forward plain(f.sharedCheckpoint());
        QVERIFY(plain.setTokens(f.tokens(), error));
        for (const core::ModelEdit& e : f.edits())
            QVERIFY(plain.setEdit(e.layer, e.weight, e.row, e.col, e.value, error));
        plain.run();
        QVERIFY(plain.logits() == restored.logits());
        QVERIFY(plain.logits() != f.logits());
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const std::function<void(json&)>& change, const char* message) {
            json j = json::parse(specExample);
            change(j);
            QTest::addRow("%s", name) << QByteArray::fromStdString(j.dump()) << QString::fromUtf8(message);
        };
        QTest::addRow("not JSON") << QByteArray("{\"format\": ") << QStringLiteral("not valid JSON");
        row("version 1", [](json& j) { j["version"] = 1; }, "version: expected 2 (a model session), got 1");
        row("version 3", [](json& j) { j["version"] = 3; },
            "version: the file is version 3, newer than this program reads (version 2)");
        row("version missing", [](json& j) { j.erase("version"); }, "version: missing; expected 2");
        row("format", [](json& j) { j["format"] = "other"; }, "format: expected \"attention-explorer-session\"");
        // Both kinds of file share one header check and one describer, which escapes what it quotes.
        row("format with an escape", [](json& j) { j["format"] = "\x1b[31mred"; },
            "format: expected \"attention-explorer-session\", got the text \"\\u001b[31mred\"");
        row("model missing", [](json& j) { j.erase("model"); }, "model: missing");
        row("path missing", [](json& j) { j["model"].erase("path"); }, "model.path: missing");
        row("path a number", [](json& j) { j["model"]["path"] = 5; },
            "model.path: expected the folder of a GPT-2 checkpoint, got the number 5");
        row("layer 0", [](json& j) { j["model"]["layer"] = 0; },
            "model.layer: expected a whole number from 1 (the first layer), got the number 0");
        row("layer 1.5", [](json& j) { j["model"]["layer"] = 1.5; }, "model.layer: expected a whole number from 1");
        row("text missing", [](json& j) { j.erase("text"); }, "text: missing; expected the text the model reads");
        row("text empty", [](json& j) { j["text"] = ""; }, "text: expected at least one character");
        row("text a list", [](json& j) { j["text"] = {1}; }, "text: expected a string, got a list of 1");
        row("edits an object", [](json& j) { j["edits"] = json::object(); }, "edits: expected a list of edited cells");
        row("unknown weight", [](json& j) { j["edits"][1]["weight"] = "mlp"; },
            "edits[1].weight: expected query, key, value, output, query_bias, key_bias, value_bias, output_bias, query_norm or key_norm, "
            "got the text \"mlp\"");
        row("negative row", [](json& j) { j["edits"][0]["row"] = -1; },
            "edits[0].row: expected a whole number from 0, got the number -1");
        row("edit layer 0", [](json& j) { j["edits"][0]["layer"] = 0; }, "edits[0].layer: expected a whole number from 1");
        row("value missing", [](json& j) { j["edits"][0].erase("value"); }, "edits[0].value: missing");
        row("ablations an object", [](json& j) { j["ablations"] = json::object(); },
            "ablations: expected a list of {layer, head}");
        row("ablation head 0", [](json& j) { j["ablations"] = {{{"layer", 1}, {"head", 0}}}; },
            "ablations[0].head: expected a whole number from 1 (the first head), got the number 0");
        row("ablation head missing", [](json& j) { j["ablations"] = {{{"layer", 1}}}; }, "ablations[0].head: missing");
        row("value text", [](json& j) { j["edits"][0]["value"] = "1"; },
            "edits[0].value: expected a finite number that float32 holds (at most 3.4028235e+38 in size), got the text "
            "\"1\"");
    }

    void refusals()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        std::string error;
        QVERIFY(!core::parseModelSession(text.toStdString(), error));
        QVERIFY2(QString::fromStdString(error).startsWith(message), error.c_str());
    }

    void plainReaderRefusesVersion2()
    {
        std::string error;
        QVERIFY(!core::parseSession(specExample, error));
        QCOMPARE(error, std::string("version: expected 1 (a plain session), got 2 (a model session, which opens with "
                                    "its model)"));
        QVERIFY(!core::isModelSessionText(R"({"format": "attention-explorer-session", "version": 1})"));
    }

    void opensRelativeToTheFile()
    {
        const std::string file = path("cat.json");
        std::string error;
        const auto opened = openTiny(file, error);
        QVERIFY2(opened, error.c_str());
        QCOMPARE(opened->folder, path("tiny"));
        const auto& f = dynamic_cast<const core::Gpt2Forward&>(*opened->pass);
        QVERIFY(f.upToDate());
        QCOMPARE(f.n(), 12);
        QCOMPARE(int(f.edits().size()), 2);
        QVERIFY(f.weightValue(1, ModelWeight::Key, 1, 2) == 3.5f);
        QCOMPARE(f.layerModel(0).bo->coeff(0, 31), -2.0);
        // The same as a pass given the edits by hand.
        core::Gpt2Forward byHand(f.sharedCheckpoint());
        QVERIFY(byHand.setTokens(f.checkpoint().tokenizer().encode("The cat sat."), error));
        QVERIFY(byHand.setEdit(1, ModelWeight::Key, 1, 2, 3.5f, error));
        QVERIFY(byHand.setEdit(0, ModelWeight::OutputBias, 0, 31, -2.0f, error));
        byHand.run();
        QVERIFY(byHand.logits() == f.logits());
        // From another working directory, the path still comes from the file's folder.
        const auto cwd = std::filesystem::current_path();
        std::filesystem::current_path("/");
        const auto again = core::openModelSessionFile(file, error);
        std::filesystem::current_path(cwd);
        QVERIFY2(again, error.c_str());
    }

    void openRefusals_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        const auto row = [](const char* name, const std::function<void(json&)>& change, const char* message) {
            json j = tinySession();
            change(j);
            QTest::addRow("%s", name) << QByteArray::fromStdString(j.dump()) << QString::fromUtf8(message);
        };
        row("layer past n_layer", [](json& j) { j["model"]["layer"] = 4; },
            "model.layer: 4 is past the model's last layer (3, n_layer in ");
        row("edit layer past n_layer", [](json& j) { j["edits"][1]["layer"] = 4; },
            "edits[1].layer: 4 is past the model's last layer (3)");
        row("bias row 1", [](json& j) { j["edits"][1]["row"] = 1; },
            "edits[1]: row 1 is outside 0 … 0 (output_bias has one row)");
        row("row past n_embd", [](json& j) { j["edits"][0]["row"] = 32; },
            "edits[0]: row 32 is outside 0 … 31 (key is n_embd × n_embd, 32 rows)");
        row("col past n_embd", [](json& j) { j["edits"][0]["col"] = 40; },
            "edits[0]: col 40 is outside 0 … 31 (key has n_embd = 32 columns)");
        row("text past n_positions", [](json& j) { j["text"] = std::string(33, 'a'); },
            "text: the text is 33 tokens long, more than the model's n_positions (32)");
        // The weights are float32: a value past its range would be infinite there, and every later number with it.
        row("value past float32, shown layer", [](json& j) { j["edits"][0]["value"] = 1e300; },
            "edits[0].value: expected a finite number that float32 holds (at most 3.4028235e+38 in size), got the "
            "number 1e+300");
        row("value past float32, other layer", [](json& j) { j["edits"][0]["layer"] = 3; j["edits"][0]["value"] = -3.5e38; },
            "edits[0].value: expected a finite number that float32 holds");
        row("value rounding to float32 infinity", [](json& j) { j["edits"][1]["value"] = 0x1.ffffffp+127; },
            "edits[1].value: expected a finite number that float32 holds");
        row("ablation layer past n_layer", [](json& j) { j["ablations"] = {{{"layer", 4}, {"head", 1}}}; },
            "ablations[0].layer: 4 is past the model's last layer (3)");
        row("ablation head past n_head", [](json& j) { j["ablations"] = {{{"layer", 1}, {"head", 5}}}; },
            "ablations[0].head: 5 is past the layer's last head (4, n_head)");
        row("missing folder", [](json& j) { j["model"]["path"] = "no-such-model"; }, "model.path: ");
        row("not a checkpoint", [](json& j) { j["model"]["path"] = "."; }, "model.path: ");
    }

    void openRefusals()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        const std::string file = path("refused.json");
        testutil::writeText(file, text.toStdString());
        std::string error;
        QVERIFY(!core::openModelSessionFile(file, error));
        const QString prefix = QString::fromStdString(file) + QStringLiteral(": ") + message;
        QVERIFY2(QString::fromStdString(error).startsWith(prefix), error.c_str());
        if (QString::fromUtf8(QTest::currentDataTag()) == QLatin1String("missing folder"))
            QVERIFY2(error.find(path("no-such-model") + ": is not a folder") != std::string::npos, error.c_str());
        if (QString::fromUtf8(QTest::currentDataTag()) == QLatin1String("not a checkpoint"))
            QVERIFY2(error.find("config.json") != std::string::npos, error.c_str());
    }

    /** A session without a file (a folder opened as it is) is refused under the names its caller gives the folder,
     *  the text and the layer: the command line's flags, the window's words. */
    void openRefusalsUseTheCallersNames_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<int>("layer");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const QString tiny = QString::fromStdString(path("tiny"));
        QTest::addRow("missing folder") << QString::fromStdString(path("no-such-model")) << 1 << QStringLiteral("hi")
                                        << QStringLiteral("[folder]: ") + QString::fromStdString(path("no-such-model"))
                                               + QStringLiteral(": is not a folder");
        QTest::addRow("layer past n_layer") << tiny << 4 << QStringLiteral("hi")
                                            << QStringLiteral("[layer]: 4 is past the model's last layer (3, n_layer in ");
        QTest::addRow("text past n_positions") << tiny << 1 << QString(33, QLatin1Char('a'))
                                               << QStringLiteral("[text]: the text is 33 tokens long");
    }

    void openRefusalsUseTheCallersNames()
    {
        QFETCH(QString, folder);
        QFETCH(int, layer);
        QFETCH(QString, text);
        QFETCH(QString, message);
        core::ModelSession session;
        session.modelPath = folder.toStdString();
        session.layer = layer;
        session.text = text.toStdString();
        core::ModelSessionNames names;
        names.modelFolder = "[folder]";
        names.text = "[text]";
        names.layer = "[layer]";
        std::string error;
        QVERIFY(!core::openModelSession(session, {}, error, {}, names));
        QVERIFY2(QString::fromStdString(error).startsWith(message), error.c_str());
        // With a file, the same refusal names the file and its key.
        QVERIFY(!core::openModelSession(session, path("named.json"), error));
        QVERIFY2(error.starts_with(path("named.json") + ": "), error.c_str());
        QVERIFY2(error.find("[") == std::string::npos, error.c_str());
    }

    /** The largest values float32 holds are taken: FLT_MAX, and what rounds to it. */
    void editsUpToFloat32Max()
    {
        for (double value : {3.4028234663852886e38, -0x1.fffffefffffffp+127}) {
            json j = tinySession();
            j["edits"][1]["value"] = value;
            std::string error;
            const auto s = core::parseModelSession(j.dump(), error);
            QVERIFY2(s, error.c_str());
            QVERIFY(std::isfinite(float(s->edits[1].value)));
        }
    }

    void computeExtras()
    {
        std::string error;
        const auto opened = openTiny(path("extras.json"), error);
        QVERIFY2(opened, error.c_str());
        const auto& f = dynamic_cast<const core::Gpt2Forward&>(*opened->pass);
        const json j = json::parse(core::modelComputeExtras(*opened->pass, 2).dump());
        QCOMPARE(j["layer"].get<int>(), 2);
        QCOMPARE(j["token_ids"].get<std::vector<int>>(), f.tokens());
        QCOMPARE(j["tokens"][3].get<std::string>(), std::string("Ġ"));
        QCOMPARE(j["tokens"][4].get<std::string>(), std::string("c"));
        QCOMPARE(int(j["attentions"].size()), 3);
        QCOMPARE(int(j["attentions"][2].size()), 4);
        QCOMPARE(int(j["attentions"][2][3].size()), 12);
        QCOMPARE(int(j["attentions"][2][3][11].size()), 12);
        QVERIFY(sameFloat(j["attentions"][2][3][11][5], f.attention(2, 3)(11, 5)));
        QCOMPARE(j["attentions"][1][0][0][1].get<double>(), 0.0);
        const json& logits = j["next_token"]["logits"];
        QCOMPARE(int(logits.size()), 257);
        for (int v = 0; v < 257; ++v)
            QVERIFY(sameFloat(logits[std::size_t(v)], f.logits()(0, v)));
        const json& top = j["next_token"]["top"];
        QCOMPARE(int(top.size()), 10);
        int best = 0;
        for (int v = 1; v < 257; ++v)
            if (f.logits()(0, v) > f.logits()(0, best))
                best = v;
        QCOMPARE(top[0]["id"].get<int>(), best);
        QCOMPARE(top[0]["token"].get<std::string>(), f.checkpoint().tokenizer().token(best));
        double sum = 0;
        for (const json& c : top) {
            QVERIFY(c["probability"].get<double>() > 0 && c["probability"].get<double>() < 1);
            sum += c["probability"].get<double>();
        }
        QVERIFY(sum <= 1.0);
        for (std::size_t i = 1; i < top.size(); ++i)
            QVERIFY(top[i]["probability"].get<double>() <= top[i - 1]["probability"].get<double>());
        // Float32 values in their shortest text.
        QCOMPARE(core::machineFloatNumber(0.1f), std::string("0.1"));
        QCOMPARE(core::machineFloatNumber(-3.4028235e38f), std::string("-3.4028235e+38"));
        QCOMPARE(json(0.1f).dump() == "0.1", false); // as a double the float would print 0.10000000149011612
    }

    void aStoppedOpenGoesNoFurther()
    {
        // The whole open asks as often as it has steps: after config.json, the tokenizer and the header, before
        // each of the 40 tensors (4 + 12 per layer) is read, before each of the 12 large weights (4 per layer) is
        // packed, and before the pass's embedding, layers and logits.
        std::string error;
        const auto session = core::parseModelSession(tinySession().dump(), error);
        QVERIFY2(session, error.c_str());
        const std::string file = path("stopped.json");
        int asked = 0;
        QVERIFY2(core::openModelSession(*session, file, error, [&] { ++asked; return false; }), error.c_str());
        QCOMPARE(asked, 3 + 40 + 12 + 1 + 3 + 1);
        // Told to stop at any one of them, it returns nothing, says why and asks no more: no later tensor is read
        // or packed and no later layer computed.
        for (int at = 1; at <= asked; ++at) {
            int seen = 0;
            error.clear();
            QVERIFY(!core::openModelSession(*session, file, error, [&] { return ++seen == at; }));
            QCOMPARE(error, std::string(core::stoppedMessage));
            QCOMPARE(seen, at);
        }
    }

    void aStoppedPassFinishesAsAFreshOne()
    {
        std::string error;
        const auto ckpt = core::Gpt2Checkpoint::load(path("tiny"), error);
        QVERIFY2(ckpt, error.c_str());
        const std::vector<int> ids = ckpt->tokenizer().encode("The cat sat.");
        const auto same = [](const core::FloatMatrix& a, const core::FloatMatrix& b) {
            return a.rows() == b.rows() && a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
        };
        const auto sameRun = [&](const core::Gpt2Forward& a, const core::Gpt2Forward& b) {
            for (int l = 0; l < a.config().layers; ++l)
                for (int h = 0; h < a.config().heads; ++h)
                    if (!same(a.attention(l, h), b.attention(l, h)))
                        return false;
            return same(a.logits(), b.logits());
        };
        core::Gpt2Forward fresh(ckpt), edited(ckpt);
        QVERIFY(fresh.setTokens(ids, error) && edited.setTokens(ids, error));
        fresh.run();
        QVERIFY(edited.setEdit(1, ModelWeight::Query, 2, 3, 1.5f, error));
        edited.run();
        // Stopped before the embedding, before layer 1, 2, 3 or the logits, the next run() finishes the pass:
        // the same as one that never stopped, bit for bit; also from an edit of layer 2, which redoes only a block
        // of its columns.
        for (int at = 1; at <= 5; ++at) {
            core::Gpt2Forward f(ckpt);
            QVERIFY(f.setTokens(ids, error));
            int seen = 0;
            QVERIFY(!f.run([&] { return ++seen == at; }));
            QVERIFY(!f.upToDate());
            QVERIFY(f.run());
            QVERIFY(f.upToDate());
            QVERIFY2(sameRun(f, fresh), qPrintable(QStringLiteral("stopped at step %1").arg(at)));
            QVERIFY(f.setEdit(1, ModelWeight::Query, 2, 3, 1.5f, error));
            seen = 0;
            if (at <= 3) {  // layer 2, 3 and the logits are left: stop before the at-th of them
                QVERIFY(!f.run([&] { return ++seen == at; }));
                QVERIFY(!f.upToDate());
            }
            QVERIFY(f.run());
            QVERIFY2(sameRun(f, edited), qPrintable(QStringLiteral("edited, stopped at step %1").arg(at)));
        }
    }
};

QTEST_APPLESS_MAIN(TestModelSession)
#include "tst_modelsession.moc"
