/** Bad and huge input in the window: a 1 MB paste into the token line keeps the window responsive
 *  (tokenizing happens on a worker, the newest text wins), and each limit — n ≤ 8192, d_model ≤ 4096,
 *  heads dividing the widths, the memory budget — is refused with a visible message that names
 *  what is wrong, while the document stays as it was. */

#include "isolation.h"
#include "core/session/presets.h"
#include "core/session/sessionfile.h"
#include "core/text/tokenizer.h"
#include "ui/document/document.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/steps/optionspanel.h"
#include "ui/views/steps/tokenbar.h"
#include "testutil.h"

#include <QApplication>
#include <QClipboard>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <memory>

using ui::MatrixId;

namespace {

/** About bytes characters of words of wordLength letters, each a different token. */
QString wordsText(qsizetype bytes, int wordLength)
{
    QString text;
    text.reserve(bytes + wordLength + 1);
    for (int i = 0; text.size() + wordLength + 1 <= bytes; ++i) {
        QString word = QString::number(i, 36);
        word += QString(wordLength - word.size(), QLatin1Char('a' + i % 26));
        text += word;
        text += QLatin1Char(' ');
    }
    return text;
}

/** The longest time the GUI thread did not come round to a 1 ms timer, while it runs. */
class StallMeter {
public:
    StallMeter()
    {
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            m_longest = std::max(m_longest, m_sinceTick.restart());
        });
        m_sinceTick.start();
        m_timer.start();
    }
    /** Counts a blocking call (a key press handled in one go) as a stall of its own length. */
    void blocked(qint64 ms) { m_longest = std::max(m_longest, ms); m_sinceTick.restart(); }
    qint64 longest() const { return m_longest; }

private:
    QTimer m_timer;
    QElapsedTimer m_sinceTick;
    qint64 m_longest = 0;
};

using testutil::writeText;

}  // namespace

class TestLimits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();

    void hugePasteKeepsTheWindowResponsive();
    void hugePasteOfTooManyTokensIsRefused();
    void newestPasteWins();
    void tooManyTokensInAFile();
    void refusedFilesName_data();
    void refusedFilesName();
    void memoryBudgetInTheOptions();
    void memoryBudgetInTheTokenLine();

private:
    /** Pastes text into the token line with Ctrl+V, as a user does; returns how long the key took. */
    qint64 paste(const QString& text);

    QTemporaryDir m_dir;
    std::unique_ptr<ui::MainWindow> m_window;
};

void TestLimits::initTestCase()
{
    QVERIFY(m_dir.isValid());
    testutil::isolateApplication(QStringLiteral("tst_limits"), m_dir.filePath(QStringLiteral("settings")));
}

void TestLimits::init()
{
    QSettings().clear();
    m_window = std::make_unique<ui::MainWindow>();
    m_window->show();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    m_window->document()->waitForTrace();
}

void TestLimits::cleanup()
{
    if (m_window)
        m_window->document()->undoStack()->setClean();
    m_window.reset();
}

qint64 TestLimits::paste(const QString& text)
{
    QLineEdit* line = m_window->tokenBar()->lineEdit();
    line->setFocus();
    line->selectAll();
    QGuiApplication::clipboard()->setText(text);
    QElapsedTimer clock;
    clock.start();
    QTest::keyClick(line, Qt::Key_V, Qt::ControlModifier);
    return clock.elapsed();
}

void TestLimits::hugePasteKeepsTheWindowResponsive()
{
    ui::Document* doc = m_window->document();
    // 1 MB of text in 2048 long words (n = 2048 keeps the trace to some 100 MB).
    const QString text = wordsText(1 << 20, 511);
    const auto expected = core::tokenize(text.toStdString());
    QCOMPARE(int(expected.size()), 2048);
    QSignalSpy result(doc, &ui::Document::tokenTextResult);

    StallMeter meter;
    const qint64 key = paste(text);
    meter.blocked(key);
    QCOMPARE(m_window->tokenBar()->lineEdit()->text(), text);  // nothing cut off
    QTRY_VERIFY_WITH_TIMEOUT(result.count() == 1, 120000);
    const qint64 tokenized = meter.longest();
    QTRY_VERIFY_WITH_TIMEOUT(!doc->isComputing(), 120000);
    QCoreApplication::processEvents();
    qInfo("1 MB paste of %d tokens, longest stall of the GUI thread: %lld ms (the paste key %lld ms, until "
          "tokenized %lld ms, then the views of the new model)",
          int(expected.size()), meter.longest(), key, tokenized);

    QCOMPARE(result.at(0).at(1).toString(), QString());
    QCOMPARE(doc->model().tokens, expected);
    QCOMPARE(doc->tokenText(), text);
    QVERIFY(doc->trace());
    QCOMPARE(doc->trace()->heads.at(0).weights.rows(), 2048);
    QVERIFY(m_window->tokenBar()->message().isEmpty());
    QCOMPARE(doc->undoStack()->count(), 1);  // one undoable step
    doc->undoStack()->undo();
    QCOMPARE(doc->model().n(), 3);
}

void TestLimits::hugePasteOfTooManyTokensIsRefused()
{
    ui::Document* doc = m_window->document();
    const core::AttentionModel before = doc->model();
    const QString text = wordsText(1 << 20, 5);  // about 175 000 tokens
    QSignalSpy result(doc, &ui::Document::tokenTextResult);

    StallMeter meter;
    const qint64 key = paste(text);
    meter.blocked(key);
    QTRY_VERIFY_WITH_TIMEOUT(result.count() == 1, 120000);
    QCoreApplication::processEvents();
    qInfo("1 MB paste of %lld tokens (refused), longest stall of the GUI thread: %lld ms (the paste key %lld ms)",
          qlonglong(text.size() / 6), meter.longest(), key);

    const QString message = m_window->tokenBar()->message();
    QVERIFY2(message.contains(QStringLiteral("8192")), qPrintable(message));
    QVERIFY2(message.contains(QString::number(text.size() / 6)), qPrintable(message));
    QVERIFY(doc->model() == before);
    QVERIFY(!doc->isModified());
    QCOMPARE(m_window->tokenBar()->lineEdit()->text(), text);  // what the user pasted stays to be mended

    // Mending it to a short text applies at once and clears the message.
    QLineEdit* line = m_window->tokenBar()->lineEdit();
    line->selectAll();
    QTest::keyClicks(line, QStringLiteral("short again"));
    QTRY_VERIFY(m_window->tokenBar()->message().isEmpty());
    QCOMPARE(doc->model().n(), 2);
}

void TestLimits::newestPasteWins()
{
    ui::Document* doc = m_window->document();
    const QString first = wordsText(300000, 300);
    const QString second = wordsText(400000, 400);
    QSignalSpy result(doc, &ui::Document::tokenTextResult);
    doc->requestTokenText(first);
    doc->requestTokenText(second);
    QVERIFY(doc->isTokenTextPending());
    QTRY_VERIFY_WITH_TIMEOUT(!doc->isTokenTextPending(), 60000);
    QCOMPARE(result.count(), 1);  // the first was overtaken and never applied
    QCOMPARE(result.at(0).at(0).toString(), second);
    QCOMPARE(doc->tokenText(), second);
    QCOMPARE(doc->model().tokens, core::tokenize(second.toStdString()));

    // A short text typed while a long one is on the worker wins over it.
    doc->requestTokenText(first);
    doc->requestTokenText(QStringLiteral("typed last"));
    QCOMPARE(doc->tokenText(), QStringLiteral("typed last"));
    QVERIFY(!doc->isTokenTextPending());
    QVERIFY(doc->isTokenizing());  // the overtaken text is still on the worker …
    QTRY_VERIFY_WITH_TIMEOUT(!doc->isTokenizing(), 60000);
    QCOMPARE(doc->tokenText(), QStringLiteral("typed last"));  // … and is not applied when it comes back

    // An edit of the model while the worker tokenizes is not lost, and the text still applies.
    doc->requestTokenText(first);
    QVERIFY(doc->setCell(MatrixId::Query, 0, 0, 7.5));
    QTRY_VERIFY_WITH_TIMEOUT(!doc->isTokenTextPending(), 60000);
    QCOMPARE(doc->tokenText(), first);
    QCOMPARE(doc->matrix(MatrixId::Query)(0, 0), 7.5);
}

void TestLimits::tooManyTokensInAFile()
{
    // 8193 tokens without embeddings: small on disk, refused on open with the count and the limit.
    nlohmann::json tokens = nlohmann::json::array();
    for (int i = 0; i < core::Limits::maxTokens + 1; ++i)
        tokens.push_back(QStringLiteral("t%1").arg(i).toStdString());
    const nlohmann::json file = {{"format", "attention-explorer-session"}, {"version", 1}, {"tokens", tokens}};
    const QString path = m_dir.filePath(QStringLiteral("many.json"));
    QVERIFY(writeText(path, QByteArray::fromStdString(file.dump())));

    ui::Document* doc = m_window->document();
    const core::AttentionModel before = doc->model();
    QString error;
    QVERIFY(!m_window->openFile(path, &error));
    QVERIFY2(error.contains(QStringLiteral("8192")) && error.contains(QStringLiteral("8193")), qPrintable(error));
    QVERIFY(doc->model() == before);
    QVERIFY(doc->filePath().isEmpty());
}

void TestLimits::refusedFilesName_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("named");
    // d_model 4097: one token, one column per weight.
    QByteArray row = "[";
    QByteArray column = "[";
    for (int i = 0; i < core::Limits::maxDModel + 1; ++i) {
        row += i ? ", 0.5" : "0.5";
        column += i ? ", [1]" : "[1]";
    }
    row += "]";
    column += "]";
    QTest::addRow("d_model over 4096")
        << QByteArray(R"({"format": "attention-explorer-session", "version": 1, "tokens": ["a"], "embeddings": [)" + row
                      + R"(], "weights": {"query": )" + column + R"(, "key": )" + column + R"(, "value": )" + column
                      + "}}")
        << QStringLiteral("4096");
    QTest::addRow("heads do not divide the widths")
        << QByteArray(R"({"format": "attention-explorer-session", "version": 1, "tokens": ["a", "b"],
                         "embeddings": [[1, 0], [0, 1]],
                         "weights": {"query": [[1, 0, 0], [0, 1, 0]], "key": [[1, 0, 0], [0, 1, 0]],
                                     "value": [[1, 0, 0], [0, 1, 0]]},
                         "options": {"heads": 2}})")
        << QStringLiteral("heads");
}

void TestLimits::refusedFilesName()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, named);
    const QString path = m_dir.filePath(QStringLiteral("refused.json"));
    QVERIFY(writeText(path, json));
    ui::Document* doc = m_window->document();
    QVERIFY(doc->setCell(MatrixId::Key, 0, 0, 3.0));
    const core::AttentionModel before = doc->model();
    const QString title = m_window->windowTitle();

    QString error;
    QVERIFY(!m_window->openFile(path, &error));
    QVERIFY2(error.contains(named), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("refused.json")), qPrintable(error));  // names the file
    QVERIFY(doc->model() == before);
    QVERIFY(doc->isModified());
    QCOMPARE(m_window->windowTitle(), title);
}

void TestLimits::memoryBudgetInTheOptions()
{
    // n = 3000: each head's scores and weights take 2 · 3000² doubles (137 MiB); 3 GiB holds 22 heads.
    ui::Document* doc = m_window->document();
    QVERIFY(doc->setTokenText(wordsText(3000 * 4, 3)));
    QCOMPARE(doc->model().n(), 3000);
    QVERIFY(doc->waitForTrace(120000));
    const core::AttentionModel before = doc->model();
    const int undoSteps = doc->undoStack()->count();

    auto* heads = m_window->optionsPanel()->findChild<QSpinBox*>(QStringLiteral("headsBox"));
    QVERIFY(heads);
    heads->setValue(40);
    const QString message = m_window->optionsPanel()->message();
    QVERIFY2(message.contains(QStringLiteral("memory budget")) && message.contains(QStringLiteral("3072 MiB")),
             qPrintable(message));
    QVERIFY(doc->model() == before);
    QCOMPARE(doc->undoStack()->count(), undoSteps);
    QCOMPARE(heads->value(), 1);
}

void TestLimits::memoryBudgetInTheTokenLine()
{
    // 40 heads of width 1 fit three tokens; 3000 tokens with them do not.
    ui::Document* doc = m_window->document();
    QString error;
    QVERIFY2(doc->setDimensions(4, 1, 1, 40, &error), qPrintable(error));
    QVERIFY(doc->waitForTrace(60000));
    const core::AttentionModel before = doc->model();

    const QString text = wordsText(3000 * 4, 3);
    QSignalSpy result(doc, &ui::Document::tokenTextResult);
    paste(text);
    QTRY_VERIFY_WITH_TIMEOUT(result.count() == 1, 60000);
    const QString message = m_window->tokenBar()->message();
    QVERIFY2(message.contains(QStringLiteral("memory budget")) && message.contains(QStringLiteral("3000 tokens")),
             qPrintable(message));
    QVERIFY(doc->model() == before);
    QVERIFY(doc->trace());  // the last good computation is still shown
}

QTEST_MAIN(TestLimits)
#include "tst_limits.moc"
