/** The Hub and the built-in model in the window, on the real widgets: File › Download Model… against the fake Hub on
 *  the loopback interface, the model then open by its id; File › Open Model… listing a cache folder (HF_HUB_CACHE)
 *  with a model it cannot open greyed, opening another by its id, and its Download… button; a session of a cached
 *  model saved as the id; and the built-in model's presets, from the quick start's button, on the head, layer and query whose pattern
 *  MODEL_CARD.md describes, held against the tokens themselves (the token after the query's earlier copy, the token
 *  before it). */

#include "fakehub.h"
#include "isolation.h"
#include "ui/document/document.h"
#include "ui/document/modelsession.h"
#include "ui/document/viewstate.h"
#include "ui/hub/downloaddialog.h"
#include "ui/hub/openmodeldialog.h"
#include "ui/views/shell/mainwindow.h"
#include "ui/views/shell/sessioncontroller.h"
#include "ui/views/teaching/helpdialogs.h"
#include "core/attention/trace.h"
#include "core/session/builtinmodel.h"
#include "core/session/hubcache.h"
#include "core/session/presets.h"

#include <QAction>
#include <QApplication>
#include <QCommandLinkButton>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QUndoStack>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using namespace testutil;

class TestHubWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<FakeHub> m_hub;
    std::unique_ptr<ui::MainWindow> m_window;
    QString m_cache;

    ui::Document& doc() { return *m_window->document(); }

    fs::path snapshot(const QByteArray& at = commit) const
    {
        return fs::path(core::hubRepoFolder(m_cache.toStdString(), "tiny-org/tiny")) / "snapshots" / at.toStdString();
    }

    /** tiny-org/tiny into the cache, as --download puts it. */
    void download()
    {
        hub::HubDownloader downloader(m_hub->settings(m_cache));
        const hub::DownloadResult result = downloader.download(*core::parseHubId("tiny-org/tiny"));
        QVERIFY2(result.outcome == hub::Outcome::Done, qPrintable(result.message));
    }

    /** The model.path the window writes when it saves the session. */
    std::string savedModelPath()
    {
        const QString path = m_dir.filePath(QStringLiteral("saved.json"));
        QString error;
        if (!m_window->saveFile(path, &error))
            return "not saved: " + error.toStdString();
        return nlohmann::json::parse(readText(path.toStdString()))["model"]["path"].get<std::string>();
    }

    /** Runs what while answering, once, the first modal dialog of type Dialog that comes up with answer. */
    template <typename Dialog>
    bool answering(const std::function<void()>& what, const std::function<void(Dialog*)>& answer)
    {
        bool answered = false;
        QTimer poll;
        poll.setInterval(10);
        connect(&poll, &QTimer::timeout, this, [&] {
            if (auto* dialog = qobject_cast<Dialog*>(QApplication::activeModalWidget()); dialog && !answered) {
                answered = true;
                answer(dialog);
            }
        });
        poll.start();
        what();
        return answered;
    }

    /** Opens a model preset from the quick start, as a person would at the first start; the view once it lands. */
    void openFromQuickStart(const QString& name)
    {
        QSettings().clear();  // a first start: the quick start comes up by itself
        QVERIFY(m_window->showQuickStartIfFirst());
        QPointer<QDialog> quickStart = m_window->help()->quickStart();
        QVERIFY(quickStart && quickStart->isVisible());
        auto* button = quickStart->findChild<QCommandLinkButton*>(QStringLiteral("quickStart_") + name);
        QVERIFY(button);
        QVERIFY(!button->text().isEmpty());
        QTest::mouseClick(button, Qt::LeftButton);  // the one click
        QVERIFY(doc().waitForModel(60000));
        QVERIFY(doc().waitForTrace(60000));
        const auto preset = core::modelPreset(name.toStdString());
        QVERIFY(preset);
        const int head = preset->extras["view"]["head"].get<int>() - 1;
        QTRY_COMPARE(m_window->viewState()->head(), head);
        QTRY_COMPARE(m_window->viewState()->selectedQuery(), preset->extras["view"]["query"].get<int>() - 1);
        QTRY_VERIFY(!quickStart || !quickStart->isVisible());
    }

    /** The key the shown head's query row weighs most, and that weight. */
    std::pair<int, double> topKey()
    {
        const auto trace = doc().trace();
        const core::Matrix& weights = trace->heads[std::size_t(m_window->viewState()->head())].weights;  // n × n
        Eigen::Index key = 0;
        const double top = weights.row(m_window->viewState()->selectedQuery()).maxCoeff(&key);
        return {int(key), top};
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        isolateApplication(QStringLiteral("tst_hubwindow"), m_dir.filePath(QStringLiteral("settings")));
        qputenv("ATTENTION_EXPLORER_NO_RECOVERY", "1");
        qunsetenv("HF_TOKEN");
        qputenv("HF_TOKEN_PATH", QFile::encodeName(m_dir.filePath(QStringLiteral("no-token"))));
    }

    void init()
    {
        static int round = 0;
        m_cache = m_dir.filePath(QStringLiteral("hub%1").arg(++round));
        QDir().mkpath(m_cache);
        qputenv("HF_HUB_CACHE", QFile::encodeName(m_cache));
        m_hub = std::make_unique<FakeHub>();
        m_hub->repos["tiny-org/tiny"] = {commit, tinyRepository(64)};  // room for the window's sample text
        qputenv("HF_ENDPOINT", m_hub->endpoint().toUtf8());
        QSettings().setValue(ui::HelpDialogs::quickStartKey(), false);
        m_window = std::make_unique<ui::MainWindow>();
        m_window->show();
        doc().waitForTrace();
    }

    void cleanup()
    {
        if (m_window)
            doc().undoStack()->setClean();
        m_window.reset();
        m_hub.reset();
    }

    void downloadMenuOpensTheModel()
    {
        auto* action = m_window->findChild<QAction*>(QStringLiteral("downloadModelAction"));
        QVERIFY(action);
        QVERIFY(action->isEnabled());
        const bool answered = answering<hub::DownloadDialog>([action] { action->trigger(); }, [](hub::DownloadDialog* d) {
            d->findChild<QComboBox*>(QStringLiteral("hubId"))->setCurrentText(QStringLiteral("tiny-org/tiny"));
            d->findChild<QPushButton*>(QStringLiteral("hubDownload"))->click();
        });
        QVERIFY(answered);
        QVERIFY(fs::exists(snapshot() / "model.safetensors"));
        QVERIFY(doc().waitForModel(60000));
        QVERIFY(doc().isModelSession());
        QCOMPARE(doc().modelSession()->folder().toStdString(), snapshot().string());
        QCOMPARE(savedModelPath(), std::string("tiny-org/tiny"));
    }

    void openModelListsTheCache()
    {
        download();
        // A repository whose config names an architecture the program does not read.
        const fs::path bert = fs::path(core::hubRepoFolder(m_cache.toStdString(), "some/bert"));
        fs::create_directories(bert / "snapshots" / commit.toStdString());
        fs::create_directories(bert / "refs");
        QVERIFY(writeText((bert / "refs" / "main").string(), commit.toStdString()));
        QVERIFY(writeText((bert / "snapshots" / commit.toStdString() / "config.json").string(),
                          std::string(R"({"architectures": ["BertModel"]})")));

        // A Llama (the built-in model, copied into the cache as files of their own): a family the program reads.
        const fs::path llama = fs::path(core::hubRepoFolder(m_cache.toStdString(), "local/llama"));
        fs::create_directories(llama / "refs");
        fs::create_directories(llama / "snapshots");
        fs::copy(core::builtinModelFolder(), llama / "snapshots" / commit.toStdString(), fs::copy_options::recursive);
        QVERIFY(writeText((llama / "refs" / "main").string(), commit.toStdString()));

        auto* action = m_window->findChild<QAction*>(QStringLiteral("openModelAction"));
        QVERIFY(action);
        QStringList seen;
        const bool answered = answering<hub::OpenModelDialog>([action] { action->trigger(); }, [&](hub::OpenModelDialog* d) {
            auto* table = d->findChild<QTableView*>(QStringLiteral("cachedModels"));
            const QAbstractItemModel* models = table->model();
            for (int row = 0; row < models->rowCount(); ++row)
                seen << models->index(row, 0).data().toString()
                            + ((models->flags(models->index(row, 0)) & Qt::ItemIsEnabled) ? QString()
                                                                                          : QStringLiteral(" greyed"));
            seen << models->index(1, 3).data().toString();  // the greyed one's status: why
            seen << (d->findChild<QLabel*>(QStringLiteral("cacheFolder"))->text().contains(QDir::toNativeSeparators(m_cache))
                         ? QStringLiteral("cache named")
                         : QStringLiteral("cache not named"));
            // the first that opens is chosen already; the person picks the GPT-2 and opens it
            QCOMPARE(table->selectionModel()->selectedRows().value(0).row(), 0);
            table->selectRow(2);
            d->findChild<QPushButton*>(QStringLiteral("openCachedModel"))->click();
        });
        QVERIFY(answered);
        QCOMPARE(seen, (QStringList{QStringLiteral("local/llama"), QStringLiteral("some/bert greyed"),
                                    QStringLiteral("tiny-org/tiny"), seen.value(3), QStringLiteral("cache named")}));
        QVERIFY2(seen[3].contains(QLatin1String("BertModel")), qPrintable(seen[3]));
        QVERIFY(doc().waitForModel(60000));
        QVERIFY(doc().isModelSession());
        QCOMPARE(doc().modelSession()->folder().toStdString(), snapshot().string());
        QCOMPARE(savedModelPath(), std::string("tiny-org/tiny"));
    }

    void openModelDownloadsAndOpens()
    {
        // Download… in the Open Model dialog: the Download Model dialog over it, then the model open by its id.
        bool downloading = false;
        QTimer poll;
        poll.setInterval(10);
        connect(&poll, &QTimer::timeout, this, [&] {
            auto* dialog = qobject_cast<hub::DownloadDialog*>(QApplication::activeModalWidget());
            if (!dialog || downloading)
                return;
            downloading = true;
            dialog->findChild<QComboBox*>(QStringLiteral("hubId"))->setCurrentText(QStringLiteral("tiny-org/tiny"));
            dialog->findChild<QPushButton*>(QStringLiteral("hubDownload"))->click();
        });
        poll.start();
        auto* action = m_window->findChild<QAction*>(QStringLiteral("openModelAction"));
        const bool answered = answering<hub::OpenModelDialog>([action] { action->trigger(); }, [](hub::OpenModelDialog* d) {
            d->findChild<QPushButton*>(QStringLiteral("downloadModel"))->click();
        });
        QVERIFY(answered);
        QVERIFY(downloading);
        QVERIFY(doc().waitForModel(60000));
        QVERIFY(doc().isModelSession());
        QCOMPARE(doc().modelSession()->folder().toStdString(), snapshot().string());
        QCOMPARE(savedModelPath(), std::string("tiny-org/tiny"));
    }

    void openModelWithAnEmptyCache()
    {
        auto* action = m_window->findChild<QAction*>(QStringLiteral("openModelAction"));
        bool emptySaid = false, openDisabled = false;
        const bool answered = answering<hub::OpenModelDialog>([action] { action->trigger(); }, [&](hub::OpenModelDialog* d) {
            emptySaid = d->findChild<QLabel*>(QStringLiteral("noCachedModels"))->isVisible()
                && !d->findChild<QTableView*>(QStringLiteral("cachedModels"))->isVisible();
            openDisabled = !d->findChild<QPushButton*>(QStringLiteral("openCachedModel"))->isEnabled();
            d->reject();
        });
        QVERIFY(answered);
        QVERIFY(emptySaid);
        QVERIFY(openDisabled);
        QVERIFY(!doc().isModelSession());
    }

    void cachedModelsSaveTheirId()
    {
        download();
        QString error;
        // by its id, as the Open Model dialog and --model ORG/NAME name it
        QVERIFY2(m_window->session()->openModelFolder(QStringLiteral("tiny-org/tiny"), &error), qPrintable(error));
        QVERIFY(doc().waitForModel(60000));
        QCOMPARE(doc().modelSession()->folder().toStdString(), snapshot().string());
        QCOMPARE(savedModelPath(), std::string("tiny-org/tiny"));
        // by its snapshot folder (a recent model, or a folder chosen inside the cache): the id all the same
        QVERIFY2(m_window->session()->openModelFolder(QString::fromStdString(snapshot().string()), &error),
                 qPrintable(error));
        QVERIFY(doc().waitForModel(60000));
        QCOMPARE(savedModelPath(), std::string("tiny-org/tiny"));
        // a snapshot that main no longer names is kept by its commit
        const QByteArray older = "fedcba9876543210fedcba9876543210fedcba98";
        fs::copy(snapshot(), snapshot(older), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        QVERIFY2(m_window->session()->openModelFolder(QString::fromStdString(snapshot(older).string()), &error),
                 qPrintable(error));
        QVERIFY(doc().waitForModel(60000));
        QCOMPARE(savedModelPath(), "tiny-org/tiny@" + older.toStdString());
        // and the file opens again by that id
        QVERIFY2(m_window->openFile(m_dir.filePath(QStringLiteral("saved.json")), &error), qPrintable(error));
        QVERIFY(doc().waitForModel(60000));
        QCOMPARE(doc().modelSession()->folder().toStdString(), snapshot(older).string());
        // an id the cache does not hold says so, and how to get it
        QVERIFY(!m_window->session()->openModelFolder(QStringLiteral("tiny-org/absent"), &error));
        QVERIFY2(error.contains(QLatin1String("tiny-org/absent")) && error.contains(QLatin1String("--download")),
                 qPrintable(error));
    }

    void inductionHeadInOneClick()
    {
        openFromQuickStart(QStringLiteral("induction-head"));
        QCOMPARE(doc().modelSession()->shownLayer(), 1);  // layer 2
        QCOMPARE(m_window->viewState()->head(), 1);        // head 2
        const std::vector<std::string>& tokens = doc().trace()->model->tokens;
        const int query = m_window->viewState()->selectedQuery();
        // The query's earlier copy: the induction head looks at the token after it.
        int earlier = -1;
        for (int i = query - 1; i >= 0 && earlier < 0; --i)
            if (tokens[std::size_t(i)] == tokens[std::size_t(query)])
                earlier = i;
        QVERIFY2(earlier >= 0, "the query is not in a second copy");
        const auto [key, weight] = topKey();
        QCOMPARE(key, earlier + 1);
        QVERIFY2(weight > 0.5, qPrintable(QString::number(weight)));
        // and Next Token predicts that token
        QCOMPARE(doc().modelSession()->prediction().entries.at(0).token, tokens[std::size_t(earlier + 1)]);
    }

    void previousTokenHead()
    {
        openFromQuickStart(QStringLiteral("previous-token-head"));
        QCOMPARE(doc().modelSession()->shownLayer(), 0);
        QCOMPARE(m_window->viewState()->head(), 0);
        const int query = m_window->viewState()->selectedQuery();
        QVERIFY(query > 1);  // past the BOS and the first word
        const auto [key, weight] = topKey();
        QCOMPARE(key, query - 1);
        QVERIFY2(weight > 0.5, qPrintable(QString::number(weight)));
    }

    void nameStory()
    {
        openFromQuickStart(QStringLiteral("name-story"));
        QCOMPARE(doc().modelSession()->shownLayer(), 1);
        const std::vector<std::string>& tokens = doc().trace()->model->tokens;
        const int query = m_window->viewState()->selectedQuery();
        const int first = int(std::find(tokens.begin(), tokens.end(), tokens[std::size_t(query)]) - tokens.begin());
        QVERIFY2(first < query, "the query is not a name said again");
        QCOMPARE(topKey().first, first + 1);
    }

    void builtinModelMenuOpensTheInductionHead()
    {
        m_window->findChild<QAction*>(QStringLiteral("openBuiltinModelAction"))->trigger();
        QVERIFY(doc().waitForModel(60000));
        QTRY_COMPARE(m_window->viewState()->head(), 1);
        QCOMPARE(doc().modelSession()->shownLayer(), 1);
        QCOMPARE(savedModelPath(), std::string("builtin"));
    }
};

QTEST_MAIN(TestHubWindow)
#include "tst_hubwindow.moc"
