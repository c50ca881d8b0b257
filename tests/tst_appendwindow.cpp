/** The model writes in the window (the Next Token panel's Append, Edit › Append): on a small random GPT-2 checkpoint
 *  with GPT-2's own tokenizer, the tokens appended are held against core::generate on a pass of their own and
 *  against the command line's --generate with the same options and seed; the model's tokens are kept exactly where
 *  the text read again would give others; undo and redo put back the text and the tokens; the positions and an
 *  overflow refuse; without a model nothing writes. */

#include "core/models/instruments.h"
#include "core/session/modelsession.h"
#include "gpt2folder_tokenizer.h"
#include "isolation.h"
#include "programrun.h"
#include "ui/document/document.h"
#include "ui/document/matrixtablemodel.h"
#include "ui/document/modelsession.h"
#include "ui/views/model/predictionpanel.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/steps/matrixeditor.h"
#include "ui/views/steps/tokenbar.h"

#include <QAction>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <memory>

namespace {

const std::string kTokenizer = AE_SOURCE_DIR "/tests/data/gpt2-tokenizer";
const QString kPrompt = QStringLiteral("The cat sat on the");

/** What --generate prints: the whole text and its ids. */
struct Generated {
    QString text;
    std::vector<int> ids;
};

}  // namespace

class TestAppendWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();

    void greedyAppendIsGenerateOnAPassOfItsOwn_data();
    void greedyAppendIsGenerateOnAPassOfItsOwn();
    void appendsAreTheCommandLinesGenerate_data();
    void appendsAreTheCommandLinesGenerate();
    void theModelsTokensAreKeptAndUndoRedoPutThemBack();
    void typingAfterAnAppendIsUndoneToTheModelsTokens();
    void aCharacterCutInTwoIsCompletedInTheText();
    void thePositionsEndAnAppend();
    void anOverflowRefusesToAppend();
    void withoutAModelNothingWrites();

private:
    ui::Document& doc() { return *m_window->document(); }
    ui::PredictionPanel& panel() { return *m_window->predictionPanel(); }
    void openModel(const QString& text);
    /** Shows the sampling in the panel's boxes as a user sets them: temperature 0 is Most probable. */
    void chooseSampling(const core::Sampling& s);
    /** Clicks button and waits for the Append and the pass after it. */
    void clickAndWait(QPushButton* button);
    /** The command line's --generate count with s on the test checkpoint and text. */
    Generated commandLine(const QString& text, int count, const core::Sampling& s);

    QTemporaryDir m_dir;
    QString m_folder;
    std::unique_ptr<ui::MainWindow> m_window;
};

void TestAppendWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    testutil::isolateApplication(QStringLiteral("tst_appendwindow"), m_dir.filePath(QStringLiteral("settings")));
    qputenv("ATTENTION_EXPLORER_NO_RECOVERY", "1");
    m_folder = m_dir.filePath(QStringLiteral("tiny-gpt2"));
    QVERIFY(QDir().mkpath(m_folder));
    testutil::write(testutil::randomGpt2FolderWithTokenizer(kTokenizer), m_folder.toStdString());
}

void TestAppendWindow::init()
{
    QSettings().clear();
    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    doc().waitForTrace();
}

void TestAppendWindow::cleanup()
{
    if (m_window)
        doc().undoStack()->setClean();
    m_window.reset();
}

void TestAppendWindow::openModel(const QString& text)
{
    QString error;
    QVERIFY2(m_window->session()->openModelFolder(m_folder, &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY2(doc().setTokenText(text, &error), qPrintable(error));
    doc().endTypingBurst();
    QVERIFY(doc().waitForModel(60000));
    doc().undoStack()->clear();
}

void TestAppendWindow::chooseSampling(const core::Sampling& s)
{
    ui::PredictionPanel& p = panel();
    p.sampleBox()->setChecked(s.temperature > 0);
    if (s.temperature > 0) {
        p.temperatureBox()->setValue(s.temperature);
        p.topKBox()->setValue(s.topK);
        p.topPBox()->setValue(s.topP);
        p.seedBox()->setValue(int(s.seed));
    }
    const core::Sampling& set = doc().modelSession()->sampling();
    QCOMPARE(set.temperature, s.temperature);
    QCOMPARE(set.topK, s.topK);
    QCOMPARE(set.topP, s.topP);
    QCOMPARE(set.seed, s.seed);
}

void TestAppendWindow::clickAndWait(QPushButton* button)
{
    QVERIFY(button->isVisible() && button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!doc().isAppending(), 60000);
    QVERIFY(doc().waitForModel(60000));
}

Generated TestAppendWindow::commandLine(const QString& text, int count, const core::Sampling& s)
{
    const testutil::Run run = testutil::runProgram(
        QStringLiteral(AE_BINARY),
        {QStringLiteral("--model"), m_folder, QStringLiteral("--text"), text, QStringLiteral("--generate"),
         QString::number(count), QStringLiteral("--temperature"), QString::number(s.temperature, 'g', 17),
         QStringLiteral("--top-k"), QString::number(s.topK), QStringLiteral("--top-p"),
         QString::number(s.topP, 'g', 17), QStringLiteral("--seed"), QString::number(s.seed)});
    if (run.status != 0)
        qWarning("--generate failed: %s", run.err.constData());
    const auto json = nlohmann::json::parse(run.out.toStdString(), nullptr, false);
    if (json.is_discarded() || !json.contains("token_ids"))
        return {};
    return {QString::fromStdString(json["text"].get<std::string>()), json["token_ids"].get<std::vector<int>>()};
}

void TestAppendWindow::greedyAppendIsGenerateOnAPassOfItsOwn_data()
{
    QTest::addColumn<QString>("prompt");
    QTest::addRow("cat") << kPrompt;
    QTest::addRow("story") << QStringLiteral("Once upon a time there was");
    QTest::addRow("digits") << QStringLiteral("1, 2, 3, 4,");
    QTest::addRow("one word") << QStringLiteral("Hello");
}

void TestAppendWindow::greedyAppendIsGenerateOnAPassOfItsOwn()
{
    QFETCH(QString, prompt);
    openModel(prompt);
    const std::vector<int> before = doc().modelSession()->ids();
    clickAndWait(panel().appendButton());
    // The reference: the checkpoint loaded again, the text encoded, one token generated greedily.
    std::string error;
    auto pass = core::loadModelPass(m_folder.toStdString(), error);
    QVERIFY2(pass, error.c_str());
    QVERIFY2(pass->setTokens(pass->encode(prompt.toStdString()), error), error.c_str());
    pass->run();
    QVERIFY2(core::generate(*pass, 1, {}, error), error.c_str());
    QCOMPARE(pass->tokens().size(), before.size() + 1);
    QCOMPARE(doc().modelSession()->ids(), pass->tokens());
    QCOMPARE(doc().tokenText(), QString::fromStdString(core::decodedText(*pass, pass->tokens())));
    // One step, named by what was written, which the status bar shows.
    QCOMPARE(doc().undoStack()->count(), 1);
    const QString written = doc().tokenText().mid(prompt.size());
    QCOMPARE(doc().undoStack()->undoText(), QStringLiteral("Appended “%1”").arg(written));
    QVERIFY(m_window->statusBar()->currentMessage().contains(written));
    // The views follow the longer text: the heatmap's tokens and the prediction of the new last position.
    QCOMPARE(doc().model().n(), int(before.size()) + 1);
    QCOMPARE(doc().modelSession()->prediction().position, int(before.size()));
}

void TestAppendWindow::appendsAreTheCommandLinesGenerate_data()
{
    QTest::addColumn<double>("temperature");
    QTest::addColumn<int>("topK");
    QTest::addColumn<double>("topP");
    QTest::addColumn<int>("seed");
    QTest::addColumn<bool>("tenAtOnce");
    QTest::addRow("greedy, Append 10") << 0.0 << 0 << 1.0 << 0 << true;
    QTest::addRow("greedy, Append × 10") << 0.0 << 0 << 1.0 << 0 << false;
    QTest::addRow("sampled, Append 10") << 1.0 << 0 << 1.0 << 7 << true;
    QTest::addRow("sampled, Append × 10") << 1.0 << 0 << 1.0 << 7 << false;
    QTest::addRow("top-k, top-p, Append × 10") << 0.8 << 40 << 0.9 << 12345 << false;
}

void TestAppendWindow::appendsAreTheCommandLinesGenerate()
{
    QFETCH(double, temperature);
    QFETCH(int, topK);
    QFETCH(double, topP);
    QFETCH(int, seed);
    QFETCH(bool, tenAtOnce);
    const core::Sampling s{temperature, topK, topP, std::uint64_t(seed)};
    openModel(kPrompt);
    chooseSampling(s);
    if (tenAtOnce) {
        clickAndWait(panel().appendTenButton());
    } else {
        for (int i = 0; i < 10; ++i) {
            clickAndWait(panel().appendButton());
            if (temperature > 0)
                QCOMPARE(panel().writeStatus(), QStringLiteral("Token %1 of seed %2 comes next.").arg(i + 2).arg(seed));
        }
    }
    const Generated want = commandLine(kPrompt, 10, s);
    QVERIFY(!want.ids.empty());
    QCOMPARE(doc().modelSession()->ids(), want.ids);
    QCOMPARE(doc().tokenText(), want.text);
    QCOMPARE(doc().undoStack()->count(), tenAtOnce ? 1 : 10);
    if (tenAtOnce)
        QVERIFY(doc().undoStack()->undoText().startsWith(QStringLiteral("Appended 10 tokens “")));
}

void TestAppendWindow::theModelsTokensAreKeptAndUndoRedoPutThemBack()
{
    openModel(kPrompt);
    const ui::ModelText start = doc().modelSession()->modelText();
    // Hot sampling of a random model writes pieces of words, which BPE merges into other tokens when the text is
    // read again: the window must keep the ones the model chose. A seed where that happens, the first of a few.
    std::optional<int> difference;
    core::Sampling s{5.0, 0, 1.0, 1};
    for (; s.seed < 6 && !difference; ++s.seed) {
        doc().undoStack()->setIndex(0);
        QVERIFY(doc().waitForModel(60000));
        chooseSampling(s);
        clickAndWait(panel().appendTenButton());
        difference = doc().modelSession()->rereadDifference();
    }
    --s.seed;
    QVERIFY2(difference, "no seed gave tokens that the text read again does not give");
    const Generated want = commandLine(kPrompt, 10, s);
    QCOMPARE(doc().modelSession()->ids(), want.ids);
    QCOMPARE(doc().tokenText(), want.text);
    // Read again by a pass of its own, the text gives other tokens than the model's.
    std::string error;
    auto pass = core::loadModelPass(m_folder.toStdString(), error);
    QVERIFY2(pass, error.c_str());
    QVERIFY(pass->encode(want.text.toStdString()) != want.ids);
    const QString status = m_window->statusBar()->currentMessage();
    QVERIFY2(status.contains(QStringLiteral("The model's tokens are kept")), qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral("from token %1").arg(*difference + 1)), qPrintable(status));
    // The pass ran on the model's tokens: the views show as many.
    QCOMPARE(doc().model().n(), int(want.ids.size()));
    const ui::ModelText written = doc().modelSession()->modelText();
    QVERIFY(written.chosen);
    // Undo: the text and the tokens of before, exactly; redo: the model's again.
    QCOMPARE(doc().undoStack()->count(), 1);
    doc().undoStack()->undo();
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().tokenText(), start.text);
    QCOMPARE(doc().modelSession()->ids(), start.ids);
    QCOMPARE(doc().modelSession()->drawn(), std::uint64_t(0));
    QCOMPARE(doc().model().n(), int(start.ids.size()));
    doc().undoStack()->redo();
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().tokenText(), written.text);
    QCOMPARE(doc().modelSession()->ids(), written.ids);
    QCOMPARE(doc().modelSession()->drawn(), std::uint64_t(10));
    QCOMPARE(doc().model().n(), int(written.ids.size()));
}

void TestAppendWindow::typingAfterAnAppendIsUndoneToTheModelsTokens()
{
    openModel(kPrompt);
    chooseSampling({5.0, 0, 1.0, 3});
    for (int i = 0; i < 4; ++i)
        clickAndWait(panel().appendButton());
    const ui::ModelText written = doc().modelSession()->modelText();
    // Typing makes the text the user's: read as text, the sampling's stream starts again.
    QString error;
    QVERIFY2(doc().setTokenText(written.text + QStringLiteral(" and"), &error), qPrintable(error));
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->drawn(), std::uint64_t(0));
    QVERIFY(!doc().modelSession()->rereadDifference());
    doc().undoStack()->undo();
    QVERIFY(doc().waitForModel(60000));
    const ui::ModelText back = doc().modelSession()->modelText();
    QCOMPARE(back.text, written.text);
    QCOMPARE(back.ids, written.ids);
    QCOMPARE(back.drawn, std::uint64_t(4));
    // The next append is the fifth of the seed's, as --generate 5 writes it.
    clickAndWait(panel().appendButton());
    QCOMPARE(doc().modelSession()->ids(), commandLine(kPrompt, 5, {5.0, 0, 1.0, 3}).ids);
}

void TestAppendWindow::aCharacterCutInTwoIsCompletedInTheText()
{
    // GPT-2 writes 猫 as byte tokens: appended one at a time, the text shows U+FFFD for the part of the character
    // written so far, then the character, and reads as the model's decoding of all its tokens does.
    std::string error;
    auto pass = core::loadModelPass(m_folder.toStdString(), error);
    QVERIFY2(pass, error.c_str());
    const QString prompt = QStringLiteral("A cat is");
    const std::vector<int> promptIds = pass->encode(prompt.toStdString());
    const std::vector<int> written = pass->encode(" 猫 and 猫猫");
    QVERIFY(written.size() > 4);
    std::vector<int> ids = promptIds;
    QString text = prompt;
    bool cut = false;
    for (int id : written) {
        const QString before = QString::fromStdString(core::decodedText(*pass, ids));
        ids.push_back(id);
        text = ui::appendedText(text, before, QString::fromStdString(core::decodedText(*pass, ids)));
        cut = cut || text.endsWith(QChar::ReplacementCharacter);
        QVERIFY2(text.startsWith(prompt), qPrintable(text));
    }
    QVERIFY(cut);
    QCOMPARE(text, QStringLiteral("A cat is 猫 and 猫猫"));
}

void TestAppendWindow::thePositionsEndAnAppend()
{
    // The checkpoint reads 32 positions: an Append of 10 after 28 tokens writes 4 and says why it stopped.
    openModel(kPrompt);
    QString text = kPrompt;
    while (doc().modelSession()->ids().size() < 28) {
        text += QStringLiteral(" cat");
        QVERIFY(doc().setTokenText(text));
        doc().endTypingBurst();
        QVERIFY(doc().waitForModel(60000));
    }
    QCOMPARE(doc().modelSession()->ids().size(), std::size_t(28));
    doc().undoStack()->clear();
    clickAndWait(panel().appendTenButton());
    QCOMPARE(doc().modelSession()->ids().size(), std::size_t(32));
    QCOMPARE(doc().undoStack()->count(), 1);
    const QString status = m_window->statusBar()->currentMessage();
    QVERIFY2(status.contains(QStringLiteral("Nothing appended: the text is 32 tokens")), qPrintable(status));
    QVERIFY(panel().appendButton()->isEnabled());
    // Once more: refused at once, nothing pushed.
    clickAndWait(panel().appendButton());
    QCOMPARE(doc().undoStack()->count(), 1);
    QCOMPARE(doc().modelSession()->ids().size(), std::size_t(32));
}

void TestAppendWindow::anOverflowRefusesToAppend()
{
    openModel(kPrompt);
    doc().setShownLayer(1);
    QVERIFY(doc().waitForModel(60000));
    // Values float32 holds whose products do not: the pass overflows from layer 2 on.
    ui::MatrixTableModel* wv = m_window->matrixEditor()->tableModel(ui::MatrixId::Value);
    QVERIFY(wv->setData(wv->index(0, 0), QStringLiteral("3.4e38"), Qt::EditRole));
    QVERIFY(wv->setData(wv->index(32, 0), QStringLiteral("3.4e38"), Qt::EditRole));
    QVERIFY(doc().waitForModel(60000));
    QVERIFY(doc().modelSession()->prediction().overflowLayer);
    const int steps = doc().undoStack()->count();
    const std::vector<int> ids = doc().modelSession()->ids();
    clickAndWait(panel().appendButton());
    QCOMPARE(doc().undoStack()->count(), steps);
    QCOMPARE(doc().modelSession()->ids(), ids);
    const QString status = m_window->statusBar()->currentMessage();
    QVERIFY2(status.contains(QStringLiteral("overflowed float32")), qPrintable(status));
}

void TestAppendWindow::withoutAModelNothingWrites()
{
    // The worked example: no model, so neither the menu nor the panel offers Append.
    auto* action = m_window->findChild<QAction*>(QStringLiteral("appendTokenAction"));
    auto* ten = m_window->findChild<QAction*>(QStringLiteral("appendTenAction"));
    QVERIFY(action && ten);
    QVERIFY(!action->isEnabled() && !ten->isEnabled());
    QVERIFY(!panel().appendButton()->isVisibleTo(&panel()));
    QString error;
    QVERIFY(!doc().appendTokens(1, &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(doc().undoStack()->count(), 0);
    // With a model, the menu's entry appends as the button does.
    openModel(kPrompt);
    QVERIFY(action->isEnabled() && ten->isEnabled());
    const std::size_t n = doc().modelSession()->ids().size();
    action->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!doc().isAppending(), 60000);
    QVERIFY(doc().waitForModel(60000));
    QCOMPARE(doc().modelSession()->ids().size(), n + 1);
}

QTEST_MAIN(TestAppendWindow)
#include "tst_appendwindow.moc"
