/** The Block view's value (core/models/blockview) on GPT-2 and on the Llama, Qwen3 and NeoX cases (parallel and
 *  sequential residual) against an independent PyTorch float64 reference (tests/block_reference.py), with a weight
 *  edited and a head zeroed: every vector of each layer at three positions, the top neurons and their
 *  pre-activations, what every layer's attention and MLP add at every position, the final norm and the logits. */

#include "core/models/blockview.h"
#include "core/models/decodercheckpoint.h"
#include "core/models/decoderforward.h"
#include "core/models/gpt2forward.h"
#include "familycase.h"
#include "gpt2folder_random.h"
#include "gpt2reference.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>

using nlohmann::json;

namespace {

const std::vector<int> ids = {1, 5, 9, 13, 2, 40, 59, 0, 7, 33, 21, 8};

/** The reference's JSON for folder with ids, the edits and ablations (session form). */
json referenceOf(const QString& python, const QString& folder, const json& edits, const json& ablations,
                 QString* error)
{
    QFile script(QStringLiteral(AE_SOURCE_DIR "/tests/block_reference.py"));
    if (!script.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read block_reference.py");
        return {};
    }
    QStringList idText;
    for (int id : ids)
        idText << QString::number(id);
    const QByteArray out = testutil::runPython(
        python, script.readAll(),
        {QStringLiteral(AE_SOURCE_DIR "/tests"), folder, idText.join(QLatin1Char(',')),
         QString::fromStdString(edits.dump()), QString::fromStdString(ablations.dump())},
        error, 600000);
    return error->isEmpty() ? json::parse(out.toStdString()) : json();
}

std::vector<double> flatJson(const json& j)
{
    std::vector<double> out;
    testutil::flatten(j, out);
    return out;
}

double normOf(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
        s += x * x;
    return std::sqrt(s);
}

} // namespace

class TestBlockView : public QObject {
    Q_OBJECT

    QString m_python;
    QTemporaryDir m_cases;

private slots:
    void initTestCase()
    {
        m_python = testutil::pythonWith(QStringLiteral("torch"));
        if (m_python.isEmpty())
            return;
        QString error;
        testutil::runPython(m_python, testutil::familyScript(), {QStringLiteral("write-all"), m_cases.path()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(QDir(m_cases.path()).mkdir(QStringLiteral("gpt2")));
        testutil::write(testutil::randomGpt2Folder("F32", "", 3, 32, 4, false, 7, 64),
                        m_cases.filePath(QStringLiteral("gpt2")).toStdString());
    }

    void matchesTorch_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : {"gpt2", "llama", "qwen3", "neox_parallel", "neox_sequential"})
            QTest::addRow("%s", name) << QString::fromLatin1(name);
    }

    void matchesTorch()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the reference cannot run");
        QFETCH(QString, name);
        const QString folder = m_cases.filePath(name);
        std::string error;
        std::unique_ptr<core::ModelPass> pass;
        if (name == QStringLiteral("gpt2")) {
            const auto ckpt = core::Gpt2Checkpoint::load(folder.toStdString(), error);
            QVERIFY2(ckpt, error.c_str());
            pass = std::make_unique<core::Gpt2Forward>(ckpt);
        } else {
            const auto ckpt = core::DecoderCheckpoint::load(folder.toStdString(), error);
            QVERIFY2(ckpt, error.c_str());
            pass = std::make_unique<core::DecoderForward>(ckpt, nullptr);
        }
        QVERIFY2(pass->setTokens(ids, error), error.c_str());
        // an edit of the first layer and a zeroed head of the second reach every number below
        QVERIFY2(pass->setEdit(0, core::ModelWeight::Value, 3, 5, 2.5f, error), error.c_str());
        pass->setAblated(1, 1, true);
        pass->run();
        QString why;
        const json want = referenceOf(m_python, folder,
                                      json::array({{{"layer", 1}, {"weight", "value"}, {"row", 3}, {"col", 5},
                                                    {"value", 2.5}}}),
                                      json::array({{{"layer", 2}, {"head", 2}}}), &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));

        const int layers = pass->shape().layers, n = pass->n();
        QCOMPARE(pass->shape().parallelResidual, name == QStringLiteral("neox_parallel"));
        for (int l = 0; l < layers; ++l)
            for (int p : {0, n / 2, n - 1}) {
                const core::BlockView b = core::blockView(*pass, l, p, 6, 5);
                const std::string at = "layer " + std::to_string(l) + " position " + std::to_string(p) + ": ";
                const auto row = [&](const char* key, int layer) { return flatJson(want[key][layer][p]); };
                std::vector<double> after = row("streams", l);
                const std::vector<double> attention = row("attention", l);
                for (std::size_t i = 0; i < after.size(); ++i)
                    after[i] += attention[i];
                const std::tuple<const char*, const core::BlockVector*, std::vector<double>> vectors[] = {
                    {"stream in", &b.streamIn, row("streams", l)},
                    {"norm 1", &b.attentionNormed, row("x", l)},
                    {"attention", &b.attention, attention},
                    {"after attention", &b.afterAttention, after},
                    {"norm 2", &b.mlpNormed, row("normed", l)},
                    {"MLP", &b.mlpOutput, row("mlp", l)},
                    {"stream out", &b.streamOut, row("streams", l + 1)},
                    {"final norm", &b.finalNormed, flatJson(want["final"][p])}};
                std::vector<double> gotNorms, wantNorms;
                for (const auto& [what, got, wanted] : vectors) {
                    CHECK_CLOSE(got->values, wanted, at + what);
                    gotNorms.push_back(got->norm);
                    wantNorms.push_back(normOf(wanted));
                }
                CHECK_CLOSE(gotNorms, wantNorms, at + "norms");

                // the top neurons: the reference's values, and none left out that the reference ranks above them
                const std::vector<double> act = row("act", l), up = row("up", l);
                const bool gated = !want["gate"][l].is_null();
                const std::vector<double> gate = gated ? row("gate", l) : std::vector<double>(act.size(), 0.0);
                QCOMPARE(b.neuronCount, int(act.size()));
                QCOMPARE(b.neurons.size(), std::size_t(6));
                std::vector<double> gotN, wantN, sizes;
                for (double a : act)
                    sizes.push_back(std::fabs(a));
                std::sort(sizes.rbegin(), sizes.rend());
                const double scale = sizes.front();
                for (const core::BlockNeuron& neuron : b.neurons) {
                    const std::size_t i = std::size_t(neuron.index);
                    gotN.insert(gotN.end(), {neuron.activation, neuron.up, neuron.gate});
                    wantN.insert(wantN.end(), {act[i], up[i], gate[i]});
                    QVERIFY2(std::fabs(act[i]) >= sizes[5] - 1e-5 * scale,
                             (at + "neuron " + std::to_string(i) + " is not among the six most active").c_str());
                }
                CHECK_CLOSE(gotN, wantN, at + "neurons");

                // what each layer adds at each position
                std::vector<double> gotAdds, wantAdds;
                for (int k = 0; k < layers; ++k)
                    for (int q = 0; q < n; ++q) {
                        gotAdds.insert(gotAdds.end(), {b.attentionAdds(k, q), b.mlpAdds(k, q)});
                        wantAdds.insert(wantAdds.end(), {normOf(flatJson(want["attention"][k][q])),
                                                         normOf(flatJson(want["mlp"][k][q]))});
                    }
                CHECK_CLOSE(gotAdds, wantAdds, at + "the residual chart");

                // the most probable tokens after the position, their logits and probabilities
                const std::vector<double> logits = flatJson(want["logits"][p]);
                double top = *std::max_element(logits.begin(), logits.end()), sum = 0;
                for (double z : logits)
                    sum += std::exp(z - top);
                QCOMPARE(b.logits.size(), std::size_t(5));
                std::vector<double> gotL, wantL;
                for (const core::BlockLogit& t : b.logits) {
                    gotL.insert(gotL.end(), {t.logit, t.probability});
                    wantL.insert(wantL.end(), {logits[std::size_t(t.id)], std::exp(logits[std::size_t(t.id)] - top) / sum});
                }
                CHECK_CLOSE(gotL, wantL, at + "logits");
                QVERIFY2(std::fabs(logits[std::size_t(b.logits.front().id)] - top) < 1e-4 * std::fabs(top) + 1e-6,
                         (at + "the first token is not the most probable").c_str());
            }
    }
};

QTEST_GUILESS_MAIN(TestBlockView)
#include "tst_blockview.moc"
