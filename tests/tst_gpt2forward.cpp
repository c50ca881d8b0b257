/** GPT-2's forward pass (core/gpt2forward) against an independent PyTorch float64 reference
 *  (tests/gpt2_reference.py) on tiny random checkpoints written by the test in F32, F16 and BF16, with and
 *  without the "transformer." prefix and mask buffers: every layer's attention, the shown layer's X, Q, K, V
 *  and output, and the logits, each within 2e-5 of the largest entry. Edits against the reference with the
 *  edit applied and against a fresh pass over an edited folder; clearing them gives the original back bit for
 *  bit. New tokens recompute only the rows from the first one that changed, and give a fresh pass bit for bit.
 *  core::compute of the shown layer's AttentionModel reproduces the layer and continues the pass.
 *  With AE_GPT2_DIR naming a real GPT-2 folder, the same comparison on its weights. */

#include "core/attention/attention.h"
#include "core/models/gpt2forward.h"
#include "gpt2folder_random.h"
#include "gpt2reference.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <tuple>

using core::Gpt2Forward;
using core::ModelWeight;
using nlohmann::json;
using testutil::Folder;
using testutil::flat;
using testutil::reference;
using testutil::tolerance;

namespace {

const char* const sentence = "The cat sat on the mat, tired.";

std::shared_ptr<const core::Gpt2Checkpoint> load(const std::string& dir)
{
    std::string error;
    auto ckpt = core::Gpt2Checkpoint::load(dir, error);
    if (!ckpt)
        qWarning("%s", error.c_str());
    return ckpt;
}

std::unique_ptr<Gpt2Forward> forwardOf(std::shared_ptr<const core::Gpt2Checkpoint> ckpt, const std::string& text)
{
    auto forward = std::make_unique<Gpt2Forward>(ckpt);
    std::string error;
    if (!forward->setTokens(ckpt->tokenizer().encode(text), error))
        qWarning("%s", error.c_str());
    forward->run();
    return forward;
}

/** Compares every layer's attention, the shown layer's X, Q, K, V and output, and the logits with the reference. */
void compareWithReference(const Gpt2Forward& forward, int shown, const json& want)
{
    const int layers = forward.config().layers, heads = forward.config().heads, dk = forward.config().headSize();
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            CHECK_CLOSE(flat(forward.attention(l, h)), flat(want["attentions"][l][h]),
                        "layer " + std::to_string(l + 1) + " head " + std::to_string(h + 1) + " attention");
    // The shown layer as an AttentionModel: its X and, from its weights and biases, Q, K, V and the output.
    const core::AttentionModel m = forward.layerModel(shown - 1);
    CHECK_CLOSE(flat(m.embeddings), flat(want["x"]), std::string("X"));
    const core::Matrix q = (m.embeddings * m.wq).rowwise() + m.bq->row(0);
    const core::Matrix k = (m.embeddings * m.wk).rowwise() + m.bk->row(0);
    const core::Matrix v = (m.embeddings * m.wv).rowwise() + m.bv->row(0);
    core::Matrix concat(m.n(), m.dModel());
    for (int h = 0; h < heads; ++h) {
        CHECK_CLOSE(flat(q.middleCols(h * dk, dk)), flat(want["queries"][h]), "Q head " + std::to_string(h + 1));
        CHECK_CLOSE(flat(k.middleCols(h * dk, dk)), flat(want["keys"][h]), "K head " + std::to_string(h + 1));
        CHECK_CLOSE(flat(v.middleCols(h * dk, dk)), flat(want["values"][h]), "V head " + std::to_string(h + 1));
        concat.middleCols(h * dk, dk) = forward.attention(shown - 1, h).cast<double>() * v.middleCols(h * dk, dk);
    }
    const core::Matrix output = (concat * *m.wo).rowwise() + m.bo->row(0);
    CHECK_CLOSE(flat(output), flat(want["output"]), std::string("output"));
    CHECK_CLOSE(flat(forward.logits()), flat(want["logits"]), std::string("logits"));
}

/** Bit-for-bit equality of every kept matrix of two passes. */
bool samePass(const Gpt2Forward& a, const Gpt2Forward& b)
{
    const auto same = [](const core::FloatMatrix& x, const core::FloatMatrix& y) {
        return x.rows() == y.rows() && x.cols() == y.cols()
               && std::memcmp(x.data(), y.data(), std::size_t(x.size()) * sizeof(float)) == 0;
    };
    for (int l = 0; l <= a.config().layers; ++l)
        if (!same(a.stream(l), b.stream(l)))
            return false;
    for (int l = 0; l < a.config().layers; ++l)
        for (int h = 0; h < a.config().heads; ++h)
            if (!same(a.attention(l, h), b.attention(l, h)))
                return false;
    return same(a.logits(), b.logits());
}

/** Writes value into element index of an F32 tensor. */
void setF32(testutil::Tensor& t, std::size_t index, float value)
{
    const auto bits = std::bit_cast<std::uint32_t>(value);
    for (int b = 0; b < 4; ++b)
        t.bytes[index * 4 + std::size_t(b)] = char((bits >> (8 * b)) & 0xff);
}

/** The folder written into dir and loaded (null when it does not load), and two passes over the sentence:
 *  one to keep as it is and one to edit. */
std::tuple<std::shared_ptr<const core::Gpt2Checkpoint>, std::unique_ptr<Gpt2Forward>, std::unique_ptr<Gpt2Forward>>
twoPasses(const Folder& folder, const QTemporaryDir& dir)
{
    testutil::write(folder, dir.path().toStdString());
    auto ckpt = load(dir.path().toStdString());
    if (!ckpt)
        return {};
    return {ckpt, forwardOf(ckpt, sentence), forwardOf(ckpt, sentence)};
}

/** An edit, and where it lands in the folder's tensors (element index of tensor). */
struct EditRow {
    int layer;
    ModelWeight weight;
    int row, col;
    float value;
    std::string tensor;
    std::size_t index;
};

/** True when core::compute adds the bias rows of an AttentionModel (Q = X·W_Q + b_Q). */
bool computeAppliesBiases()
{
    core::AttentionModel m;
    m.tokens = {"a"};
    m.embeddings = core::Matrix::Zero(1, 2);
    m.wq = m.wk = m.wv = core::Matrix::Identity(2, 2);
    m.bq = core::Matrix::Constant(1, 2, 1.0);
    m.bk = m.bv = core::Matrix::Zero(1, 2);
    return core::compute(m).heads[0].queries(0, 0) == 1.0;
}

} // namespace

Q_DECLARE_METATYPE(Folder)

class TestGpt2Forward : public QObject {
    Q_OBJECT

    QString m_python;

private slots:
    void initTestCase() { m_python = testutil::pythonWith(QStringLiteral("torch")); }

    void matchesTorch_data()
    {
        QTest::addColumn<Folder>("folder");
        QTest::addColumn<int>("shown");
        QTest::addRow("F32") << testutil::randomGpt2Folder("F32") << 2;
        QTest::addRow("F16") << testutil::randomGpt2Folder("F16") << 1;
        QTest::addRow("BF16") << testutil::randomGpt2Folder("BF16") << 3;
        QTest::addRow("prefix, mask buffers, tied lm_head") << [] {
            Folder f = testutil::randomGpt2Folder("F32", "transformer.", 2, 24, 3, false, 11);
            for (int l = 0; l < 2; ++l) {
                std::vector<float> mask(32 * 32);
                for (int i = 0; i < 32; ++i)
                    for (int j = 0; j <= i; ++j)
                        mask[std::size_t(i * 32 + j)] = 1;
                f.tensors.push_back({"transformer.h." + std::to_string(l) + ".attn.bias", "F32", {1, 1, 32, 32}, 0,
                                     testutil::encodeValues(mask, "F32")});
                f.tensors.push_back({"transformer.h." + std::to_string(l) + ".attn.masked_bias", "F32", {}, 0,
                                     testutil::encodeValues({-1e4f}, "F32")});
            }
            testutil::Tensor head = f.tensors.front();
            head.name = "lm_head.weight";
            f.tensors.push_back(head);
            return f;
        }() << 2;
    }

    void matchesTorch()
    {
        QFETCH(Folder, folder);
        QFETCH(int, shown);
        if (m_python.isEmpty())
            QSKIP("no python3 with torch");
        QTemporaryDir dir;
        testutil::write(folder, dir.path().toStdString());
        const auto ckpt = load(dir.path().toStdString());
        QVERIFY(ckpt);
        const auto forward = forwardOf(ckpt, sentence);
        QCOMPARE(forward->n(), int(std::strlen(sentence))); // byte tokens only: one per byte
        QString error;
        const json want = reference(m_python, dir.path().toStdString(), forward->tokens(), shown, json::array(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        compareWithReference(*forward, shown, want);
        if (QTest::currentTestFailed())
            return;
        // The top ten are the largest logits, with probabilities of a softmax over all of them.
        const auto top = forward->topTokens(10);
        QCOMPARE(int(top.size()), 10);
        std::vector<double> logits = flat(want["logits"]);
        double max = *std::max_element(logits.begin(), logits.end()), sum = 0;
        for (double l : logits)
            sum += std::exp(l - max);
        for (std::size_t i = 0; i < top.size(); ++i) {
            QVERIFY(i == 0 || top[i].probability <= top[i - 1].probability);
            QVERIFY(std::fabs(top[i].probability - std::exp(logits[std::size_t(top[i].id)] - max) / sum) < 1e-5);
        }
        QVERIFY(std::count_if(logits.begin(), logits.end(), [&](double l) { return l > logits[std::size_t(top[9].id)]; })
                <= 9);
    }

    void editsMatchTorchAndAFreshPass()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch");
        Folder folder = testutil::randomGpt2Folder("F32");
        QTemporaryDir dir, editedDir;
        auto [ckpt, original, forward] = twoPasses(folder, dir);
        QVERIFY(ckpt);
        const int d = 32, last = ckpt->config().layers - 1;
        const std::vector<EditRow> rows = {
            {0, ModelWeight::Query, 0, 3, 2.25f, "h.0.attn.c_attn.weight", std::size_t(0 * 3 * d + 3)},
            {0, ModelWeight::KeyBias, 0, 5, -1.5f, "h.0.attn.c_attn.bias", std::size_t(d + 5)},
            {0, ModelWeight::Output, 2, 7, 0.75f, "h.0.attn.c_proj.weight", std::size_t(2 * d + 7)},
            {last, ModelWeight::Value, 4, 1, 2.0f, "h.2.attn.c_attn.weight", std::size_t(4 * 3 * d + 2 * d + 1)},
            {last, ModelWeight::Key, 6, 9, -3.0f, "h.2.attn.c_attn.weight", std::size_t(6 * 3 * d + d + 9)},
            {last, ModelWeight::QueryBias, 0, 2, -0.5f, "h.2.attn.c_attn.bias", std::size_t(2)},
            {last, ModelWeight::ValueBias, 0, 31, 1.0f, "h.2.attn.c_attn.bias", std::size_t(2 * d + 31)},
            {last, ModelWeight::OutputBias, 0, 0, 1.25f, "h.2.attn.c_proj.bias", std::size_t(0)},
        };
        json edits = json::array();
        for (const EditRow& e : rows) {
            std::string error;
            QVERIFY2(forward->setEdit(e.layer, e.weight, e.row, e.col, e.value, error), error.c_str());
            edits.push_back({{"layer", e.layer + 1},
                             {"weight", core::modelWeightName(e.weight)},
                             {"row", e.row},
                             {"col", e.col},
                             {"value", e.value}});
            setF32(*testutil::findTensor(folder, e.tensor), e.index, e.value);
        }
        QCOMPARE(int(forward->edits().size()), int(rows.size()));
        QVERIFY(!forward->upToDate());
        forward->run();
        QCOMPARE(forward->weightValue(last, ModelWeight::Value, 4, 1), 2.0f);
        QCOMPARE(forward->layerModel(last).wv(4, 1), 2.0);
        QCOMPARE((*forward->layerModel(last).bo)(0, 0), 1.25);

        // The torch reference with the edits applied, showing the first and the last layer.
        for (int shown : {1, last + 1}) {
            QString error;
            const json want = reference(m_python, dir.path().toStdString(), forward->tokens(), shown, edits, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            compareWithReference(*forward, shown, want);
            if (QTest::currentTestFailed())
                return;
        }
        // A fresh pass over a folder whose weights were edited is the same bit for bit.
        testutil::write(folder, editedDir.path().toStdString());
        const auto editedCkpt = load(editedDir.path().toStdString());
        QVERIFY(editedCkpt);
        QVERIFY(samePass(*forward, *forwardOf(editedCkpt, sentence)));
        QVERIFY(!samePass(*forward, *original));

        // An edit set back to its value removes it; an edit only in the last layer leaves the streams before it.
        std::string error;
        const float was = ckpt->blocks()[0].attnWeight.matrix()(0, 3);
        QVERIFY(forward->setEdit(0, ModelWeight::Query, 0, 3, was, error));
        QCOMPARE(int(forward->edits().size()), int(rows.size()) - 1);
        forward->clearEdits();
        QVERIFY(forward->edits().empty());
        forward->run();
        QVERIFY(samePass(*forward, *original));
        QVERIFY(forward->setEdit(last, ModelWeight::Output, 1, 1, 5.0f, error));
        forward->run();
        for (int l = 0; l <= last; ++l)
            QVERIFY(forward->stream(l) == original->stream(l));
        QVERIFY(!(forward->stream(last + 1) == original->stream(last + 1)));
        forward->clearEdit(last, ModelWeight::Output, 1, 1);
        forward->run();
        QVERIFY(samePass(*forward, *original));
    }

    void editsInOneLayerRecomputeOnlyWhatTheyReach()
    {
        // After a whole pass, edits in one layer recompute only the blocks of q, k, v and the heads they reach
        // (and c_proj onwards): the result must still be a whole pass over the edited weights, bit for bit,
        // edit after edit, and clearing them must give the original back.
        QTemporaryDir dir, editedDir;
        Folder folder = testutil::randomGpt2Folder("F32");
        auto [ckpt, original, forward] = twoPasses(folder, dir);
        QVERIFY(ckpt);
        const int d = 32, last = ckpt->config().layers - 1;
        const std::string attn = "h." + std::to_string(last) + ".attn.c_attn.", proj = "h." + std::to_string(last) + ".attn.c_proj.";
        const std::vector<EditRow> steps = {
            {last, ModelWeight::Query, 2, 5, 1.5f, attn + "weight", std::size_t(2 * 3 * d + 5)},
            {last, ModelWeight::Key, 0, 17, -2.0f, attn + "weight", std::size_t(0 * 3 * d + d + 17)},
            {last, ModelWeight::ValueBias, 0, 30, 0.5f, attn + "bias", std::size_t(2 * d + 30)},
            {last, ModelWeight::Output, 3, 3, 2.5f, proj + "weight", std::size_t(3 * d + 3)},
            {last, ModelWeight::QueryBias, 0, 9, -1.0f, attn + "bias", std::size_t(9)},
        };
        for (const EditRow& s : steps) {
            std::string error;
            QVERIFY2(forward->setEdit(last, s.weight, s.row, s.col, s.value, error), error.c_str());
            forward->run();
            setF32(*testutil::findTensor(folder, s.tensor), s.index, s.value);
            QDir(editedDir.path()).removeRecursively();
            QVERIFY(QDir().mkpath(editedDir.path()));
            testutil::write(folder, editedDir.path().toStdString());
            const auto edited = load(editedDir.path().toStdString());
            QVERIFY(edited);
            QVERIFY2(samePass(*forward, *forwardOf(edited, sentence)),
                     (std::string("after the edit of ") + core::modelWeightName(s.weight)).c_str());
            for (int l = 0; l <= last; ++l)
                QVERIFY(forward->stream(l) == original->stream(l));
        }
        for (const EditRow& s : steps) {
            forward->clearEdit(last, s.weight, s.row, s.col);
            forward->run();
        }
        QVERIFY(samePass(*forward, *original));
    }

    void newTokensRecomputeOnlyTheirRows()
    {
        // After a run, new tokens leave the rows before the first one that changed as they are; the run computes
        // the rest. Every kept matrix must then equal a fresh pass over the new tokens bit for bit, across the
        // products' row blocks (8 rows), a single last row, shorter texts, a whole new text, with edits set
        // before or after the tokens, and after a run stopped halfway. One pass goes through every case in turn.
        QTemporaryDir dir;
        testutil::write(testutil::randomGpt2Folder("F32", "", 3, 96, 4, false, 11, 160), dir.path().toStdString());
        const auto ckpt = load(dir.path().toStdString());
        QVERIFY(ckpt);
        std::mt19937 random(5);
        std::uniform_int_distribution<int> anyId(0, 256);
        const auto fresh = [&](const std::vector<int>& ids, const std::vector<core::ModelEdit>& edits) {
            auto pass = std::make_unique<Gpt2Forward>(ckpt);
            std::string error;
            pass->setTokens(ids, error);
            for (const core::ModelEdit& e : edits)
                pass->setEdit(e.layer, e.weight, e.row, e.col, e.value, error);
            pass->run();
            return pass;
        };
        struct Step {
            int keep, length;  // the first keep ids stay, the next one differs, length ids in all
            const char* what;
        };
        const std::vector<Step> steps = {
            {0, 64, "a first text"},          {64, 65, "one token typed"},     {65, 75, "a word typed"},
            {75, 96, "up to two row blocks"}, {96, 97, "one row past them"},   {97, 98, "another"},
            {47, 49, "a change in a block"},  {49, 50, "one row after it"},    {50, 30, "a shorter text"},
            {30, 30, "the last token"},       {0, 100, "a whole new text"},    {1, 2, "from the second token"},
            {2, 1, "one token"},              {1, 160, "the longest text"},    {159, 150, "a change near the end"},
        };
        Gpt2Forward pass(ckpt);
        std::vector<int> ids;
        std::string error;
        for (const Step& s : steps) {
            const int previous = ids.empty() ? -1 : ids[std::size_t(std::min<int>(s.keep, int(ids.size()) - 1))];
            ids.resize(std::size_t(s.keep));
            while (int(ids.size()) < s.length) {
                int id = anyId(random);
                if (int(ids.size()) == s.keep && id == previous)
                    id = (id + 1) % 257;  // the token after the kept ones changes
                ids.push_back(id);
            }
            QVERIFY2(pass.setTokens(ids, error), error.c_str());
            pass.run();
            QVERIFY2(samePass(pass, *fresh(ids, {})), s.what);
        }
        // Edits: one set before new tokens (its layer and every later one is recomputed whole), one after.
        const core::ModelEdit before{1, ModelWeight::Key, 3, 40, 3.0f}, after{2, ModelWeight::Output, 7, 7, -2.0f};
        QVERIFY(pass.setEdit(before.layer, before.weight, before.row, before.col, before.value, error));
        ids.resize(120);
        ids.push_back(5);
        QVERIFY(pass.setTokens(ids, error));
        QVERIFY(pass.setEdit(after.layer, after.weight, after.row, after.col, after.value, error));
        pass.run();
        QVERIFY2(samePass(pass, *fresh(ids, {before, after})), "edits before and after new tokens");
        // A run stopped after the first layer, then new tokens again.
        ids.push_back(6);
        QVERIFY(pass.setTokens(ids, error));
        int asked = 0;
        QVERIFY(!pass.run([&] { return ++asked > 2; }));
        ids.erase(ids.begin() + 70, ids.end());
        ids.push_back(7);
        QVERIFY(pass.setTokens(ids, error));
        pass.run();
        QVERIFY2(samePass(pass, *fresh(ids, {before, after})), "new tokens after a stopped run");
        pass.clearEdits();
        pass.run();
        QVERIFY2(samePass(pass, *fresh(ids, {})), "the edits cleared");
    }

    void layersBelowTheEditsAreShared()
    {
        // A pass with edits in its last layer takes the layers below from a pass without edits over the same
        // tokens, and the pass without edits takes them from it, after new tokens of either kind; each result is a
        // fresh pass bit for bit. Nothing is taken from a pass that is not up to date or reads other tokens, and
        // nothing below the edits that is computed already.
        QTemporaryDir dir;
        testutil::write(testutil::randomGpt2Folder("F32", "", 3, 32, 4), dir.path().toStdString());
        const auto ckpt = load(dir.path().toStdString());
        QVERIFY(ckpt);
        std::string error;
        const core::ModelEdit edit{2, ModelWeight::Value, 5, 6, 2.5f};
        Gpt2Forward edited(ckpt), unedited(ckpt);
        QVERIFY(edited.setEdit(edit.layer, edit.weight, edit.row, edit.col, edit.value, error));
        const auto fresh = [&](const std::vector<int>& ids, bool withEdit) {
            auto pass = std::make_unique<Gpt2Forward>(ckpt);
            std::string e;
            pass->setTokens(ids, e);
            if (withEdit)
                pass->setEdit(edit.layer, edit.weight, edit.row, edit.col, edit.value, e);
            pass->run();
            return pass;
        };
        const char* texts[] = {"The cat sat on the mat.", "The cat sat on the mat, tired.", "A dog sat.",
                               "A dog sat down.", "The end."};
        for (int t = 0; t < 5; ++t) {
            const std::vector<int> ids = ckpt->tokenizer().encode(texts[t]);
            QVERIFY(edited.setTokens(ids, error));
            QVERIFY(unedited.setTokens(ids, error));
            // Alternately the pass without edits first and the edited one first.
            Gpt2Forward& first = t % 2 ? edited : unedited;
            Gpt2Forward& second = t % 2 ? unedited : edited;
            QCOMPARE(second.takeSharedLayers(first), 0);  // the other pass has not run
            first.run();
            QCOMPARE(second.takeSharedLayers(first), 2);
            second.run();
            QVERIFY2(samePass(edited, *fresh(ids, true)), texts[t]);
            QVERIFY2(samePass(unedited, *fresh(ids, false)), texts[t]);
            QCOMPARE(second.takeSharedLayers(first), 0);  // nothing below the edits is dirty
        }
        Gpt2Forward other(ckpt);
        QVERIFY(other.setTokens(ckpt->tokenizer().encode("Another text."), error));
        other.run();
        QVERIFY(edited.setTokens(ckpt->tokenizer().encode("A cat."), error));
        QCOMPARE(edited.takeSharedLayers(other), 0);  // other tokens
        QCOMPARE(edited.takeSharedLayers(edited), 0);  // itself
    }

    /** Float32 overflowing in a layer: the logits are not ranked, and the layer is named. */
    void anOverflowIsNamedNotRanked()
    {
        QTemporaryDir dir;
        auto [ckpt, original, forward] = twoPasses(testutil::randomGpt2Folder("F32"), dir);
        QVERIFY(ckpt);
        std::string error;
        // v = x·W_V + b_V in float32: a column of FLT_MAX·(x + 1) overflows wherever x > 0, and the attention
        // carries it to every later token.
        QVERIFY(forward->setEdit(1, ModelWeight::Value, 0, 0, 3.4e38f, error));
        QVERIFY(forward->setEdit(1, ModelWeight::ValueBias, 0, 0, 3.4e38f, error));
        forward->run();
        const int last = forward->n() - 1;
        QVERIFY(!forward->logits().allFinite());
        QVERIFY(forward->stream(1).allFinite());
        QCOMPARE(forward->overflowLayer(last), 1);
        QVERIFY(forward->topTokens(10).empty());
        QVERIFY(core::topCandidates(forward->logitsAt(last), 10).empty());
        // Without the edits every position is finite and ranked.
        QVERIFY(original->logits().allFinite());
        QCOMPARE(int(original->topTokens(10).size()), 10);
    }

    void refusals()
    {
        QTemporaryDir dir;
        testutil::write(testutil::randomGpt2Folder("F32"), dir.path().toStdString());
        const auto ckpt = load(dir.path().toStdString());
        QVERIFY(ckpt);
        Gpt2Forward forward(ckpt);
        std::string error;
        QVERIFY(!forward.setTokens({}, error));
        QVERIFY2(error.find("no tokens") != std::string::npos, error.c_str());
        QVERIFY(!forward.setTokens(std::vector<int>(33, 5), error));
        QVERIFY2(error.find("33 tokens long, more than the model's n_positions (32)") != std::string::npos,
                 error.c_str());
        QVERIFY(!forward.setTokens({1, 257}, error));
        QVERIFY2(error.find("token 1: id 257 is outside the vocabulary (0 … 256)") != std::string::npos, error.c_str());
        QVERIFY(!forward.setEdit(3, ModelWeight::Query, 0, 0, 1, error));
        QVERIFY2(error.find("layer 3 is outside 0 … 2") != std::string::npos, error.c_str());
        QVERIFY(!forward.setEdit(0, ModelWeight::ValueBias, 1, 0, 1, error));
        QVERIFY2(error.find("row 1 is outside 0 … 0 (value_bias has one row)") != std::string::npos, error.c_str());
        QVERIFY(!forward.setEdit(0, ModelWeight::Output, 0, 32, 1, error));
        QVERIFY2(error.find("col 32 is outside 0 … 31") != std::string::npos, error.c_str());
        QVERIFY(forward.edits().empty());
    }

    void computeContinuesThePass_data()
    {
        QTest::addColumn<bool>("zeroBias");
        QTest::addRow("no attention biases") << true;
        QTest::addRow("attention biases") << false;
    }

    void computeContinuesThePass()
    {
        QFETCH(bool, zeroBias);
        if (!zeroBias && !computeAppliesBiases())
            QSKIP("core::compute does not add the bias rows yet");
        QTemporaryDir dir;
        testutil::write(testutil::randomGpt2Folder("F32", "", 3, 32, 4, zeroBias), dir.path().toStdString());
        const auto ckpt = load(dir.path().toStdString());
        QVERIFY(ckpt);
        auto forward = forwardOf(ckpt, sentence);
        std::string error;
        QVERIFY(forward->setEdit(1, ModelWeight::Key, 3, 4, 4.0f, error));
        forward->run();
        for (int l = 0; l < ckpt->config().layers; ++l) {
            const core::AttentionModel m = forward->layerModel(l);
            QCOMPARE(m.tokens.front(), std::string("T"));
            QCOMPARE(m.tokens[3], std::string("Ġ"));
            const auto problem = core::validate(m);
            QVERIFY2(!problem, problem ? problem->c_str() : "");
            const core::Trace trace = core::compute(m);
            for (int h = 0; h < ckpt->config().heads; ++h)
                CHECK_CLOSE(flat(trace.heads[std::size_t(h)].weights), flat(forward->attention(l, h)),
                            "layer " + std::to_string(l + 1) + " head " + std::to_string(h + 1) + " via compute");
            const core::FloatMatrix next = forward->finishLayer(l, forward->stream(l) + trace.output.cast<float>());
            CHECK_CLOSE(flat(next), flat(forward->stream(l + 1)), "the stream after layer " + std::to_string(l + 1));
        }
    }

    void realGpt2()
    {
        const QString folder = qEnvironmentVariable("AE_GPT2_DIR");
        if (folder.isEmpty())
            QSKIP("set AE_GPT2_DIR to a GPT-2 folder to compare its real weights with torch");
        if (m_python.isEmpty())
            QSKIP("no python3 with torch");
        const auto ckpt = load(folder.toStdString());
        QVERIFY(ckpt);
        for (const char* text : {"The cat sat on the mat because it was tired", "Hello, world!",
                                 "In 1905, Einstein published four papers that"}) {
            const auto forward = forwardOf(ckpt, text);
            QString error;
            const int shown = std::min(5, ckpt->config().layers);
            const json want = reference(m_python, folder.toStdString(), forward->tokens(), shown, json::array(), &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            compareWithReference(*forward, shown, want);
        }
    }
};

QTEST_APPLESS_MAIN(TestGpt2Forward)
#include "tst_gpt2forward.moc"
