/** The window on the families of SPEC §6: a Llama checkpoint with grouped K/V heads and a Qwen3 one whose head_dim
 *  is not d_model / heads (tests/family_reference.py writes them), opened as a user opens a folder, edited in W_K
 *  past the columns a GPT-2 of that width would have, a head zeroed, undone. Every figure is held against a fresh
 *  pass of the core alone with the same edits: the shown layer's weights, the prediction, the overview. */

#include "core/attention/attention.h"
#include "core/models/headdetector.h"
#include "core/session/modelsession.h"
#include "familycase.h"
#include "isolation.h"
#include "python.h"
#include "ui/document/document.h"
#include "ui/document/modelsession.h"
#include "ui/render/attentiongrid.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"
#include "testutil.h"

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <memory>

class TestFamilyWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_python;
    std::unique_ptr<ui::MainWindow> m_window;

    ui::Document& doc() { return *m_window->document(); }

    /** A fresh pass of the core over folder's checkpoint, the family text, with edits and zeroed heads. */
    static std::shared_ptr<core::ModelPass> freshPass(const QString& folder, const std::vector<core::ModelEdit>& edits,
                                                      const std::set<std::pair<int, int>>& zeroed)
    {
        std::string error;
        auto pass = core::loadModelPass(folder.toStdString(), error);
        if (!pass || !pass->setTokens(pass->encode(testutil::familyText), error))
            qFatal("%s", error.c_str());
        for (const core::ModelEdit& e : edits)
            pass->setEdit(e.layer, e.weight, e.row, e.col, e.value, error);
        for (const auto& [layer, head] : zeroed)
            pass->setAblated(layer, head, true);
        pass->run();
        return pass;
    }

    /** The window's prediction, shown layer and overview against the fresh pass. */
    void compareWithCore(const core::ModelPass& fresh)
    {
        const ui::Prediction& p = doc().modelSession()->prediction();
        const std::vector<core::TokenCandidate> top = fresh.topTokens(10);
        QCOMPARE(p.entries.size(), top.size());
        for (std::size_t i = 0; i < top.size(); ++i) {
            QCOMPARE(p.entries[i].id, top[i].id);
            QCOMPARE(p.entries[i].probability, top[i].probability);
        }
        const core::AttentionModel layer = fresh.layerModel(0);
        QVERIFY(doc().model().wk == layer.wk);
        QVERIFY(doc().model().wv == layer.wv);
        QVERIFY(doc().model().wo == layer.wo);
        const core::Trace trace = core::compute(layer);
        QVERIFY(doc().waitForTrace());
        for (int h = 0; h < layer.heads(); ++h)
            QVERIFY((doc().trace()->heads[std::size_t(h)].weights - trace.heads[std::size_t(h)].weights).cwiseAbs().maxCoeff()
                    == 0);
        const auto grid = doc().modelSession()->grid();
        QVERIFY(grid);
        for (int l = 0; l < grid->layers; ++l)
            for (int h = 0; h < grid->heads; ++h)
                QVERIFY(grid->cell(l, h) == fresh.attention(l, h).cast<double>());
        // The head detector's scores: a pass of its own over the repeated random sequence, with the same edits.
        const auto detector = fresh.freshPass();
        std::string error;
        QVERIFY(detector->setTokens(core::repeatedRandomTokens(*detector), error));
        for (const core::ModelEdit& e : fresh.edits())
            QVERIFY(detector->setEdit(e.layer, e.weight, e.row, e.col, e.value, error));
        for (const auto& [layer, head] : fresh.ablations())
            detector->setAblated(layer, head, true);
        detector->run();
        const core::HeadDetection scores = core::detectHeads(*detector);
        QVERIFY(grid->hasDetection());
        QCOMPARE(grid->induction, scores.induction);
        QCOMPARE(grid->duplicate, scores.duplicate);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        testutil::isolateApplication(QStringLiteral("tst_familywindow"), m_dir.filePath(QStringLiteral("settings")));
        qputenv("ATTENTION_EXPLORER_NO_RECOVERY", "1");
        m_python = testutil::pythonWith(QStringLiteral("torch"));
        if (m_python.isEmpty())
            return;
        QString error;
        testutil::runPython(m_python, testutil::familyScript(), {QStringLiteral("write-all"), m_dir.path()}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (const char* name : {"llama", "qwen3"})
            QVERIFY(testutil::writeText(m_dir.filePath(QString::fromLatin1(name) + QStringLiteral("/tokenizer.json")).toStdString(),
                                        testutil::familyTokenizerJson().dump()));
    }

    void init()
    {
        QSettings().clear();
        m_window = std::make_unique<ui::MainWindow>();
        m_window->show();
        doc().waitForTrace();
    }

    void cleanup()
    {
        if (m_window)
            doc().undoStack()->setClean();
        m_window.reset();
    }

    void editsAndZeroes_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("llama, 2 K/V heads for 4") << QStringLiteral("llama");
        QTest::addRow("qwen3, head_dim 24, q/k norm") << QStringLiteral("qwen3");
    }

    void editsAndZeroes()
    {
        if (m_python.isEmpty())
            QSKIP("no python3 with torch: the checkpoints are written by it");
        QFETCH(QString, name);
        const QString folder = m_dir.filePath(name);
        QString error;
        QVERIFY2(m_window->session()->openModelFolder(folder, &error, QString::fromLatin1(testutil::familyText)),
                 qPrintable(error));
        QVERIFY(doc().waitForModel(60000));
        const core::ModelShape& shape = doc().modelSession()->shape();
        QCOMPARE(shape.architecture, name == QLatin1String("llama") ? std::string("LlamaForCausalLM")
                                                                      : std::string("Qwen3ForCausalLM"));
        // W_K has kv_heads · head_dim columns; Q and W_O are heads · head_dim wide and tall
        const int kv = shape.kvHeads * shape.headDim, q = shape.heads * shape.headDim;
        QCOMPARE(int(doc().model().wk.cols()), kv);
        QCOMPARE(int(doc().model().wq.cols()), q);
        QCOMPARE(int(doc().model().wo->rows()), q);
        QCOMPARE(doc().model().options.positionalEncoding, core::PositionalEncoding::Rotary);
        QCOMPARE(doc().model().kvHeads(), shape.kvHeads);
        compareWithCore(*freshPass(folder, {}, {}));

        // the last column of W_K, and the last row of W_O (which GPT-2's square W_O would not have for Qwen3)
        QVERIFY(doc().setCell(ui::MatrixId::Key, 5, kv - 1, 4.5));
        QVERIFY(doc().setCell(ui::MatrixId::Output, q - 1, 3, -2.5));
        QVERIFY(!doc().setCell(ui::MatrixId::Key, 5, kv, 1.0));  // past W_K: no such cell
        QVERIFY(doc().modelSession()->isCellEdited(ui::MatrixId::Key, 5, kv - 1));
        QVERIFY(doc().waitForModel(60000));
        const std::vector<core::ModelEdit> edits = {{0, core::ModelWeight::Key, 5, kv - 1, 4.5f},
                                                    {0, core::ModelWeight::Output, q - 1, 3, -2.5f}};
        compareWithCore(*freshPass(folder, edits, {}));
        QVERIFY(doc().modelSession()->prediction().edited);
        // The overview marks every query head reading the edited K/V head (the last group), W_O's last row's head
        // being among them, and no head of another layer.
        const auto grid = doc().modelSession()->grid();
        const int group = shape.heads / shape.kvHeads;
        for (int l = 0; l < grid->layers; ++l)
            for (int h = 0; h < grid->heads; ++h)
                QCOMPARE(grid->isEdited(l, h), l == 0 && h >= shape.heads - group);

        QVERIFY(doc().zeroHead(1));
        QVERIFY(doc().waitForModel(60000));
        compareWithCore(*freshPass(folder, edits, {{0, 1}}));

        // every step undone: the checkpoint again
        while (doc().undoStack()->canUndo())
            doc().undoStack()->undo();
        QVERIFY(doc().waitForModel(60000));
        QVERIFY(!doc().modelSession()->isEdited());
        compareWithCore(*freshPass(folder, {}, {}));
        QVERIFY(doc().modelSession()->grid()->edited.empty());
    }
};

QTEST_MAIN(TestFamilyWindow)
#include "tst_familywindow.moc"
