/** The decoder families (core/models/decoder*) against an independent PyTorch float64 reference written from
 *  transformers' definitions (tests/family_reference.py), on small random checkpoints that script writes: Llama with
 *  grouped K/V heads, Llama 3's rope scaling in F16 with every bias and a tied head, Qwen2's q/k/v biases over two
 *  shards, Qwen3's head_dim and q/k norms in BF16, GPT-NeoX's partial rotary with and without the parallel residual.
 *  Every layer's attention, X, queries and keys before and after the rotation, values and output, and the logits
 *  after every position, within 2e-5 of the largest entry; the same with weight edits of every kind and a zeroed
 *  head, written into the reference's tensors by its own reading of the row convention. Then the refusals:
 *  architectures by name, counts that disagree with each other or with the tensors, a missing shard, a NaN weight
 *  named with its file and tensor. */

#include "core/models/decoderforward.h"
#include "gpt2reference.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cstring>

using core::DecoderCheckpoint;
using core::DecoderForward;
using nlohmann::json;
using testutil::flat;

namespace {

const std::vector<int> ids = {1, 5, 9, 13, 2, 40, 59, 0, 7, 33, 21, 8};

QByteArray script()
{
    QFile f(QStringLiteral(AE_SOURCE_DIR "/tests/family_reference.py"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::vector<double> flatRows(const core::Matrix& m)
{
    return flat(m);
}

} // namespace

class TestFamilies : public QObject {
    Q_OBJECT

    QString m_python;
    QTemporaryDir m_cases; ///< every case written once, each in its folder

    /** Writes the script's case into folder (a NaN in nanTensor when given): a copy of the one written at the start
     *  when there is no NaN. False when it cannot. */
    bool writeCase(const QString& name, const QString& folder, const QString& nanTensor = {})
    {
        if (nanTensor.isEmpty()) {
            const QDir from(m_cases.filePath(name));
            for (const QString& file : from.entryList(QDir::Files))
                if (!QFile::copy(from.filePath(file), QDir(folder).filePath(file)))
                    return false;
            return !from.isEmpty();
        }
        QString error;
        QStringList args{QStringLiteral("write"), name, folder};
        if (!nanTensor.isEmpty())
            args << nanTensor;
        testutil::runPython(m_python, script(), args, &error);
        if (!error.isEmpty())
            qWarning("%s", qPrintable(error));
        return error.isEmpty();
    }

    /** The case written into folder and loaded; nullptr (with a warning) when either fails. */
    std::shared_ptr<const DecoderCheckpoint> loadCase(const QString& name, const QString& folder)
    {
        std::string error;
        const auto ckpt = writeCase(name, folder) ? DecoderCheckpoint::load(folder.toStdString(), error) : nullptr;
        if (!ckpt)
            qWarning("%s", error.c_str());
        return ckpt;
    }

    /** config.json of folder with the keys of patch replaced. */
    static void patchConfig(const QString& folder, const json& patch)
    {
        const std::string path = (folder + QStringLiteral("/config.json")).toStdString();
        json config = json::parse(testutil::readText(path));
        config.merge_patch(patch);
        QVERIFY(testutil::writeText(path, config.dump()));
    }

    static std::string loadError(const QString& folder)
    {
        std::string error;
        const auto ckpt = DecoderCheckpoint::load(folder.toStdString(), error);
        return ckpt ? std::string() : error;
    }

private slots:
    void initTestCase()
    {
        m_python = testutil::pythonWith(QStringLiteral("torch"));
        if (m_python.isEmpty())
            return;
        QString error;
        testutil::runPython(m_python, script(), {QStringLiteral("write-all"), m_cases.path()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void forward_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"llama", "llama3", "qwen2", "qwen3", "neox_parallel", "neox_sequential"})
            QTest::addRow("%s", name) << QString::fromLatin1(name);
    }

    /** Compares pass, run over ids, with the reference over folder with the same edits and ablations (session form). */
    void compareWithReference(const DecoderForward& pass, const QString& folder, const json& edits = json::array(),
                              const json& ablations = json::array())
    {
        QString pyError;
        QStringList idText;
        for (int id : ids)
            idText << QString::number(id);
        const QByteArray out = testutil::runPython(
            m_python, script(),
            {QStringLiteral("run"), folder, idText.join(QLatin1Char(',')), QString::fromStdString(edits.dump()),
             QString::fromStdString(ablations.dump())},
            &pyError);
        QVERIFY2(pyError.isEmpty(), qPrintable(pyError));
        const json want = json::parse(out.toStdString());
        const core::DecoderConfig& c = pass.config();
        for (int l = 0; l < c.layers; ++l) {
            const std::string at = "layer " + std::to_string(l);
            for (int h = 0; h < c.heads; ++h)
                CHECK_CLOSE(flat(pass.attention(l, h)), flat(want["attentions"][l][h]),
                            at + " head " + std::to_string(h) + " attention");
            CHECK_CLOSE(flat(pass.layerInput(l)), flat(want["x"][l]), at + " x");
            CHECK_CLOSE(flatRows(pass.queries(l, false)), flat(want["queries_unrotated"][l]), at + " queries_unrotated");
            CHECK_CLOSE(flatRows(pass.queries(l, true)), flat(want["queries"][l]), at + " queries");
            CHECK_CLOSE(flatRows(pass.keys(l, false)), flat(want["keys_unrotated"][l]), at + " keys_unrotated");
            CHECK_CLOSE(flatRows(pass.keys(l, true)), flat(want["keys"][l]), at + " keys");
            CHECK_CLOSE(flatRows(pass.values(l)), flat(want["values"][l]), at + " values");
            CHECK_CLOSE(flat(pass.attentionOutput(l)), flat(want["output"][l]), at + " output");
        }
        CHECK_CLOSE(flat(pass.logits()), flat(want["logits"][ids.size() - 1]), std::string("logits"));
        for (int p = 0; p < pass.n(); ++p)
            CHECK_CLOSE(flat(pass.logitsAt(p)), flat(want["logits"][p]), "logits after position " + std::to_string(p));
    }

    void forward()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the reference cannot run");
        QFETCH(QString, name);
        QTemporaryDir dir;
        const auto ckpt = loadCase(name, dir.path());
        QVERIFY(ckpt);
        std::string error;
        DecoderForward pass(ckpt, nullptr);
        QVERIFY2(pass.setTokens(ids, error), error.c_str());
        QVERIFY(pass.run());
        compareWithReference(pass, dir.path());
        if (QTest::currentTestFailed())
            return;
        const core::FloatMatrix unedited = pass.logits();

        // Edits of every kind the family has, and a zeroed head, against the reference with the same cells written
        // into its tensors; removing them gives the unedited pass back bit for bit.
        const core::DecoderConfig& c = ckpt->config();
        const int q = c.heads * c.headDim, kv = c.kvHeads * c.headDim;
        json edits = json::array({{{"layer", 1}, {"weight", "query"}, {"row", 3}, {"col", 5}, {"value", 2.5}},
                                  {{"layer", 2}, {"weight", "key"}, {"row", 7}, {"col", kv - 1}, {"value", -3.0}},
                                  {{"layer", 1}, {"weight", "value"}, {"row", 10}, {"col", 2}, {"value", 4.0}},
                                  {{"layer", 2}, {"weight", "output"}, {"row", q - 1}, {"col", 0}, {"value", -2.5}}});
        if (c.qkvBias)
            for (const char* w : {"query_bias", "key_bias", "value_bias"})
                edits.push_back({{"layer", 1}, {"weight", w}, {"row", 0}, {"col", 3}, {"value", 3.0}});
        if (c.outputBias)
            edits.push_back({{"layer", 2}, {"weight", "output_bias"}, {"row", 0}, {"col", 4}, {"value", 1.5}});
        if (c.qkNorm) {
            edits.push_back({{"layer", 1}, {"weight", "query_norm"}, {"row", 0}, {"col", 2}, {"value", 3.0}});
            edits.push_back({{"layer", 2}, {"weight", "key_norm"}, {"row", 0}, {"col", 5}, {"value", -1.5}});
        }
        const json ablations = json::array({{{"layer", 2}, {"head", 2}}});

        for (const json& e : edits) {
            const auto weight = core::modelWeightFromName(e["weight"].get<std::string>());
            QVERIFY(weight);
            QVERIFY2(pass.setEdit(e["layer"].get<int>() - 1, *weight, e["row"], e["col"], e["value"].get<float>(), error),
                     error.c_str());
            QCOMPARE(pass.weightValue(e["layer"].get<int>() - 1, *weight, e["row"], e["col"]), e["value"].get<float>());
        }
        QCOMPARE(int(pass.edits().size()), int(edits.size()));
        pass.setAblated(1, 1, true);
        QVERIFY(pass.run());
        compareWithReference(pass, dir.path(), edits, ablations);
        if (QTest::currentTestFailed())
            return;

        pass.clearEdits();
        pass.setAblated(1, 1, false);
        QVERIFY(pass.run());
        QVERIFY(pass.edits().empty());
        QVERIFY(std::memcmp(pass.logits().data(), unedited.data(), std::size_t(unedited.size()) * sizeof(float)) == 0);
    }

    /** Cells outside a weight, and weights the family does not have, are refused by name. */
    void editRefusals()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QTemporaryDir dir;
        const auto ckpt = loadCase(QStringLiteral("llama"), dir.path());
        QVERIFY(ckpt);
        std::string error;
        DecoderForward pass(ckpt, nullptr);
        QVERIFY(!pass.setEdit(0, core::ModelWeight::QueryNorm, 0, 0, 1.0f, error));
        QCOMPARE(error, std::string("query_norm: LlamaForCausalLM as config.json describes it has no such weight"));
        QVERIFY(!pass.setEdit(0, core::ModelWeight::Key, 0, 32, 1.0f, error));
        QCOMPARE(error, std::string("col 32 is outside 0 … 31 (key has 32 columns)"));
        QVERIFY(!pass.setEdit(2, core::ModelWeight::Query, 0, 0, 1.0f, error));
        QCOMPARE(error, std::string("layer 2 is outside 0 … 1"));
        QVERIFY(pass.edits().empty());
    }

    /** F16 and BF16 weights stay in their two bytes: the checkpoint points into the mapped file. */
    void weightsStayAsStored()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QTemporaryDir dir;
        const auto ckpt = loadCase(QStringLiteral("qwen3"), dir.path());
        QVERIFY(ckpt);
        QCOMPARE(ckpt->embedding().dtype, core::Dtype::BF16);
        QCOMPARE(ckpt->layers()[1].query.dtype, core::Dtype::BF16);
        QCOMPARE(ckpt->layers()[1].query.rows, 4 * 24);
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("patch");
        QTest::addColumn<QStringList>("expected");
        const auto row = [](const char* tag, const char* name, const char* patch, QStringList expected) {
            QTest::newRow(tag) << QString::fromLatin1(name) << QString::fromLatin1(patch) << expected;
        };
        for (const char* arch : {"GemmaForCausalLM", "BertModel", "MistralForCausalLM"})
            row(arch, "llama", qPrintable(QStringLiteral("{\"architectures\": [\"%1\"]}").arg(QLatin1String(arch))),
                {QStringLiteral("config.json: architecture \"%1\" is not supported").arg(QLatin1String(arch)),
                 QStringLiteral("LlamaForCausalLM")});
        row("GPT-2's architecture", "llama", R"({"architectures": ["GPT2LMHeadModel"]})",
            {QStringLiteral("config.json: architecture \"GPT2LMHeadModel\" is GPT-2's, read by its own loader")});
        row("kv heads not dividing heads", "llama", R"({"num_key_value_heads": 3})",
            {QStringLiteral("config.json: num_key_value_heads: 3 K/V heads do not divide num_attention_heads 4")});
        row("heads not dividing hidden_size", "neox_parallel", R"({"num_attention_heads": 5})",
            {QStringLiteral("config.json: num_attention_heads: 5 heads do not divide hidden_size 64")});
        row("hidden_size against the tensors", "llama", R"({"hidden_size": 48})",
            {QStringLiteral("model.safetensors: tensor model.embed_tokens.weight has shape [60, 64], but"),
             QStringLiteral("config.json needs [60, 48]")});
        row("intermediate_size against the tensors", "neox_sequential", R"({"intermediate_size": 100})",
            {QStringLiteral("tensor gpt_neox.layers.0.mlp.dense_h_to_4h.weight has shape [96, 64]"),
             QStringLiteral("(intermediate_size × hidden_size)")});
        row("head_dim against the tensors", "qwen3", R"({"head_dim": 16})",
            {QStringLiteral("tensor model.layers.0.self_attn.q_proj.weight has shape [96, 64]"),
             QStringLiteral("needs [64, 64]")});
        row("more layers than the file", "llama", R"({"num_hidden_layers": 7})",
            {QStringLiteral("tensor model.layers.2.input_layernorm.weight is missing (num_hidden_layers 7"),
             QStringLiteral("the file holds 2 layers")});
        row("a claim of millions of layers", "qwen3", R"({"num_hidden_layers": 16777216})",
            {QStringLiteral("tensor model.layers.2.input_layernorm.weight is missing (num_hidden_layers 16777216")});
        row("a count out of range", "llama", R"({"vocab_size": 0})",
            {QStringLiteral("config.json: vocab_size: expected 1 … 16777216, got 0")});
        row("a count of the wrong type", "neox_parallel", R"({"hidden_size": "64"})",
            {QStringLiteral("config.json: hidden_size: expected an integer, got \"64\"")});
        row("fewer layers than the file", "qwen2", R"({"num_hidden_layers": 1})",
            {QStringLiteral("model.layers.1."), QStringLiteral("is not part of Qwen2ForCausalLM")});
        row("an odd rotary width", "neox_parallel", R"({"rotary_pct": 0.1})",
            {QStringLiteral("config.json: rotary_pct: turns 1 of each head's 16 dims")});
        row("an untied head missing", "llama3", R"({"tie_word_embeddings": false})",
            {QStringLiteral("tensor lm_head.weight is missing"), QStringLiteral("tie_word_embeddings is false")});
        row("rope scaling of another kind", "llama", R"({"rope_scaling": {"rope_type": "yarn", "factor": 4}})",
            {QStringLiteral("config.json: rope_scaling: type \"yarn\" is not supported")});
        row("llama3 scaling incomplete", "llama", R"({"rope_scaling": {"rope_type": "llama3", "factor": 4}})",
            {QStringLiteral("config.json: rope_scaling.low_freq_factor: missing")});
        row("a sliding window", "qwen2", R"({"use_sliding_window": true})",
            {QStringLiteral("config.json: use_sliding_window:")});
        row("another activation", "llama", R"({"hidden_act": "relu"})",
            {QStringLiteral("config.json: hidden_act: relu is not supported")});
    }

    void refusals()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QFETCH(QString, name);
        QFETCH(QString, patch);
        QFETCH(QStringList, expected);
        QTemporaryDir dir;
        QVERIFY(writeCase(name, dir.path()));
        QVERIFY(loadError(dir.path()).empty());
        patchConfig(dir.path(), json::parse(patch.toStdString()));
        const QString error = QString::fromStdString(loadError(dir.path()));
        QVERIFY2(!error.isEmpty(), "the folder was read");
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
        for (const QString& part : expected)
            QVERIFY2(error.contains(part), qPrintable(error + QStringLiteral("\n  lacks: ") + part));
    }

    /** A stop asked for ends the load and the pass where they ask; the pass is whole after the next run(). */
    void stops()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QTemporaryDir dir;
        const auto ckpt = loadCase(QStringLiteral("qwen2"), dir.path());
        QVERIFY(ckpt);
        std::string error;
        QVERIFY(!DecoderCheckpoint::load(dir.path().toStdString(), error, [] { return true; }));
        QCOMPARE(error, std::string(core::stoppedMessage));
        DecoderForward pass(ckpt, nullptr), whole(ckpt, nullptr);
        QVERIFY(pass.setTokens(ids, error) && whole.setTokens(ids, error));
        int asked = 0;
        QVERIFY(!pass.run([&] { return ++asked == 2; }));
        QVERIFY(whole.run());
        QVERIFY(pass.run());
        QVERIFY(std::memcmp(pass.logits().data(), whole.logits().data(), std::size_t(whole.logits().size()) * 4) == 0);
    }

    /** An edit recomputes from its layer on, a pass without edits takes the layers below the lowest edit from one with
     *  them (and the other way round): each ends bit for bit as a fresh pass of the same state. */
    void editsRecomputeFromTheirLayer()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QTemporaryDir dir;
        const auto ckpt = loadCase(QStringLiteral("llama"), dir.path());
        QVERIFY(ckpt);
        const auto same = [](const core::FloatMatrix& a, const core::FloatMatrix& b) {
            return a.rows() == b.rows() && a.cols() == b.cols()
                && std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(float)) == 0;
        };
        const auto sameAs = [&](const DecoderForward& a, const DecoderForward& b) {
            for (int l = 0; l < a.config().layers; ++l)
                for (int h = 0; h < a.config().heads; ++h)
                    if (!same(a.attention(l, h), b.attention(l, h)))
                        return false;
            return same(a.logits(), b.logits()) && same(a.logitsAt(3), b.logitsAt(3));
        };
        std::string error;
        DecoderForward pass(ckpt, nullptr), unedited(ckpt, nullptr);
        QVERIFY(pass.setTokens(ids, error) && unedited.setTokens(ids, error));
        QVERIFY(pass.run());
        // an edit of layer 2 (index 1): the pass is not up to date, and a fresh pass with the edit agrees
        QVERIFY(pass.setEdit(1, core::ModelWeight::Key, 3, 4, 5.0f, error));
        QVERIFY(!pass.upToDate());
        QVERIFY(pass.run());
        DecoderForward fresh(ckpt, nullptr);
        QVERIFY(fresh.setTokens(ids, error) && fresh.setEdit(1, core::ModelWeight::Key, 3, 4, 5.0f, error));
        QVERIFY(fresh.run());
        QVERIFY(sameAs(pass, fresh));
        QVERIFY(!same(pass.logits(), (unedited.run(), unedited.logits())));
        // layer 1 is shared: a pass without edits over new tokens takes it and agrees with a whole run
        DecoderForward taker(ckpt, nullptr);
        QVERIFY(taker.setTokens(ids, error));
        QCOMPARE(taker.takeSharedLayers(pass), 1);
        QVERIFY(taker.run());
        QVERIFY(sameAs(taker, unedited));
        // a zeroed head of layer 1 reaches every layer: nothing is shared then
        QVERIFY(pass.run());
        pass.setAblated(0, 1, true);
        QVERIFY(pass.run());
        DecoderForward none(ckpt, nullptr);
        QVERIFY(none.setTokens(ids, error));
        QCOMPARE(none.takeSharedLayers(pass), 0);
        // the edit given back: the pass is the unedited one again, bit for bit
        pass.setAblated(0, 1, false);
        pass.clearEdit(1, core::ModelWeight::Key, 3, 4);
        QVERIFY(pass.edits().empty());
        QVERIFY(pass.run());
        QVERIFY(sameAs(pass, unedited));
    }

    /** A text whose kept attention (every layer's and head's n × n float32 weights) would pass the memory budget is
     *  refused before any work, saying how many tokens fit; one that fits is taken. Llama-3.2-1B keeps 16 × 32. */
    void attentionFitsTheBudget()
    {
        const long long matrices = 16 * 32;
        const auto fits = [&](long long n) {
            return double(matrices) * double(n) * double(n) * 4 <= double(core::Limits::memoryBudgetBytes);
        };
        long long most = 1;
        while (fits(most + 1))
            ++most;
        std::vector<int> ids(std::size_t(most), 7);
        QVERIFY(!core::tokenIdsProblem(ids, 131072, "max_position_embeddings", 128256, matrices));
        ids.push_back(7);
        const auto problem = core::tokenIdsProblem(ids, 131072, "max_position_embeddings", 128256, matrices);
        QVERIFY(problem);
        QVERIFY2(problem->find("at most " + std::to_string(most) + " tokens") != std::string::npos, problem->c_str());
        QVERIFY2(problem->find("512 heads") != std::string::npos, problem->c_str());
    }

    /** With AE_FAMILY_DIR naming a real checkpoint folder of one of the families (SmolLM2-135M, Qwen2.5-0.5B,
     *  Pythia-70M …), the same comparison on its weights. */
    void realFolder()
    {
        const QString folder = qEnvironmentVariable("AE_FAMILY_DIR");
        if (folder.isEmpty() || m_python.isEmpty())
            QSKIP("set AE_FAMILY_DIR to a model folder (and have python3 with torch) to compare a real checkpoint");
        std::string error;
        const auto ckpt = DecoderCheckpoint::load(folder.toStdString(), error);
        QVERIFY2(ckpt, error.c_str());
        DecoderForward pass(ckpt, nullptr);
        QVERIFY2(pass.setTokens(ids, error), error.c_str());
        QVERIFY(pass.run());
        compareWithReference(pass, folder);
    }

    /** What a loader asks to choose between the families and GPT-2. */
    void namesFamily()
    {
        QVERIFY(core::namesDecoderFamily(R"({"architectures": ["Qwen3ForCausalLM"], "hidden_size": "?"})"));
        QVERIFY(core::namesDecoderFamily(R"({"model_type": "gpt_neox"})"));
        QVERIFY(!core::namesDecoderFamily(R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2"})"));
        QVERIFY(!core::namesDecoderFamily(R"({"model_type": "gpt2"})"));
        QVERIFY(!core::namesDecoderFamily(R"({"architectures": ["GemmaForCausalLM"]})"));
        QVERIFY(!core::namesDecoderFamily("not json"));
    }

    void missingShard()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QTemporaryDir dir;
        QVERIFY(writeCase(QStringLiteral("qwen2"), dir.path()));
        QVERIFY(QFile::remove(dir.filePath(QStringLiteral("model-00002-of-00002.safetensors"))));
        const QString error = QString::fromStdString(loadError(dir.path()));
        QVERIFY2(error.startsWith(dir.filePath(QStringLiteral("model-00002-of-00002.safetensors: missing ("))),
                 qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("model.safetensors.index.json names it for tensor model.")),
                 qPrintable(error));
    }

    void nanWeight_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<QString>("entry");
        QTest::newRow("F32 matrix") << QStringLiteral("llama") << QStringLiteral("model.layers.1.self_attn.k_proj.weight")
                                    << QStringLiteral("[0][1]");
        QTest::newRow("BF16 vector") << QStringLiteral("qwen3") << QStringLiteral("model.layers.0.self_attn.q_norm.weight")
                                     << QStringLiteral("[1]");
        QTest::newRow("F16 head") << QStringLiteral("llama3") << QStringLiteral("model.embed_tokens.weight")
                                  << QStringLiteral("[0][1]");
    }

    void nanWeight()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QFETCH(QString, name);
        QFETCH(QString, tensor);
        QFETCH(QString, entry);
        QTemporaryDir dir;
        QVERIFY(writeCase(name, dir.path(), tensor));
        const QString error = QString::fromStdString(loadError(dir.path()));
        QCOMPARE(error, dir.filePath(QStringLiteral("model.safetensors")) + QStringLiteral(": tensor ") + tensor +
                            QStringLiteral(": value ") + entry +
                            QStringLiteral(" is NaN; every weight must be a finite number"));
    }
};

QTEST_GUILESS_MAIN(TestFamilies)
#include "tst_families.moc"
