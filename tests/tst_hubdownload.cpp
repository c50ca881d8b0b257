/** The Hub downloader (SPEC §7) against a fake Hub on the loopback interface that answers as huggingface.co does:
 *  the listing at /api/models/ORG/NAME/revision/REV; HEAD and GET of /ORG/NAME/resolve/REV/FILE with X-Repo-Commit
 *  and the ETag (the git SHA-1 of a small file; for an LFS file a redirect to storage on another host carrying
 *  X-Linked-Etag, its SHA-256, and X-Linked-Size); Range requests at the storage; 401/403/404 with X-Error-Code.
 *  A full download and the cache reader opening it, a resume after a cut, a checksum mismatch, a gated repository,
 *  a missing repository and revision, a repository of pickles, a sharded checkpoint, no network and Cancel; and the
 *  command line's --download and --model ORG/NAME. */

#include "core/session/hubcache.h"
#include "core/session/modelsession.h"
#include "fakehub.h"
#include "ui/hub/hubdownloader.h"

#include <QEventLoop>
#include <QProcess>

#include <filesystem>
#include <map>

namespace fs = std::filesystem;

using namespace testutil;

class TestHubDownload : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<FakeHub> m_hub;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::map<QByteArray, QByteArray> m_files;

    hub::HubSettings settings(const QByteArray& token = {}) const
    {
        return m_hub->settings(m_dir->path() + QStringLiteral("/hub"), token);
    }

    hub::DownloadResult download(const char* id, const QByteArray& token = {})
    {
        hub::HubDownloader downloader(settings(token));
        return downloader.download(*core::parseHubId(id));
    }

    fs::path repoFolder(const std::string& repo = "tiny-org/tiny") const
    {
        return core::hubRepoFolder(m_dir->path().toStdString() + "/hub", repo);
    }

private slots:
    void init()
    {
        m_hub = std::make_unique<FakeHub>();
        m_dir = std::make_unique<QTemporaryDir>();
        m_files = tinyRepository();
        m_hub->repos["tiny-org/tiny"] = {commit, m_files};
    }

    /** Everything the program reads, and nothing else, in huggingface_hub's layout; the cache reader opens it. */
    void fullDownload()
    {
        const hub::DownloadResult result = download("tiny-org/tiny", "hf_token");
        QVERIFY2(result.outcome == hub::Outcome::Done, qPrintable(result.message));
        const fs::path snapshot = repoFolder() / "snapshots" / commit.toStdString();
        QCOMPARE(result.snapshot.toStdString(), snapshot.string());
        for (const char* name : {"config.json", "vocab.json", "merges.txt", "model.safetensors", "tokenizer_config.json"}) {
            const fs::path link = snapshot / name;
            QVERIFY2(fs::is_symlink(link), name);
            const QByteArray& bytes = m_files.at(name);
            const QByteArray blob = QByteArray(name).endsWith(".safetensors") ? sha256(bytes) : gitSha1(bytes);
            QCOMPARE(fs::read_symlink(link), fs::path("../../blobs") / blob.toStdString());
            QCOMPARE(QByteArray::fromStdString(testutil::readText(link.string())), bytes);
        }
        QVERIFY(!fs::exists(snapshot / "README.md"));
        QVERIFY(!fs::exists(snapshot / "pytorch_model.bin"));
        QVERIFY(!m_hub->saw("pytorch_model.bin"));
        QCOMPARE(QByteArray::fromStdString(testutil::readText((repoFolder() / "refs" / "main").string())), commit);
        for (const auto& entry : fs::directory_iterator(repoFolder() / "blobs"))
            QVERIFY2(entry.path().extension() != ".incomplete", entry.path().c_str());
        // The token goes to the Hub and never to storage on another host.
        for (const QByteArray& request : m_hub->requests)
            QVERIFY2(request.contains("host=localhost") ? !request.contains("Bearer") : request.contains("auth=Bearer hf_token"),
                     request.constData());

        // The cache reader finds what was written, and a model session opens it by its id.
        std::string error;
        const auto found = core::resolveCachedModel(*core::parseHubId("tiny-org/tiny"), m_dir->path().toStdString() + "/hub", error);
        QVERIFY2(found, error.c_str());
        QCOMPARE(*found, snapshot.string());
        const auto listed = core::listCachedModels(m_dir->path().toStdString() + "/hub");
        QCOMPARE(listed.size(), std::size_t(1));
        QVERIFY2(listed[0].problem.empty(), listed[0].problem.c_str());
        QCOMPARE(listed[0].architecture, std::string("GPT2LMHeadModel"));
        qputenv("HF_HUB_CACHE", (m_dir->path() + QStringLiteral("/hub")).toLocal8Bit());
        core::ModelSession session;
        session.modelPath = "tiny-org/tiny";
        session.text = "ab";
        const auto opened = core::openModelSession(session, {}, error);
        qunsetenv("HF_HUB_CACHE");
        QVERIFY2(opened, error.c_str());

        // Run again: everything is there, nothing is fetched from storage.
        m_hub->requests.clear();
        QVERIFY(download("tiny-org/tiny", "hf_token").outcome == hub::Outcome::Done);
        QVERIFY(!m_hub->saw("/cdn/"));
    }

    /** A relative redirect (a renamed repository) is followed; the files are kept under the id asked for. */
    void renamedRepository()
    {
        const hub::DownloadResult result = download("old-org/tiny");
        QVERIFY2(result.outcome == hub::Outcome::Done, qPrintable(result.message));
        QVERIFY(fs::exists(repoFolder("old-org/tiny") / "snapshots" / commit.toStdString() / "model.safetensors"));
    }

    /** A cut keeps what came as .incomplete; the next run asks for the rest with Range and checks the whole. */
    void resumesAfterACut()
    {
        const qint64 size = m_files.at("model.safetensors").size();
        m_hub->cutAfter = size / 2;
        const hub::DownloadResult cut = download("tiny-org/tiny");
        QVERIFY2(cut.outcome == hub::Outcome::Failed, qPrintable(cut.message));
        QVERIFY2(cut.message.contains(QStringLiteral("model.safetensors")) && cut.message.contains(QStringLiteral("resumes")),
                 qPrintable(cut.message));
        const std::string blob = sha256(m_files.at("model.safetensors")).toStdString();
        QVERIFY(!fs::exists(repoFolder() / "blobs" / blob));
        QCOMPARE(qint64(fs::file_size(repoFolder() / "blobs" / (blob + ".incomplete"))), size / 2);
        QVERIFY(!fs::exists(repoFolder() / "snapshots" / commit.toStdString() / "model.safetensors"));

        const hub::DownloadResult resumed = download("tiny-org/tiny");
        QVERIFY2(resumed.outcome == hub::Outcome::Done, qPrintable(resumed.message));
        QVERIFY2(m_hub->saw("range=bytes=" + QByteArray::number(size / 2) + '-'), m_hub->requests.join('\n').constData());
        QCOMPARE(QByteArray::fromStdString(testutil::readText(
                     (repoFolder() / "snapshots" / commit.toStdString() / "model.safetensors").string())),
                 m_files.at("model.safetensors"));
        QVERIFY(!fs::exists(repoFolder() / "blobs" / (blob + ".incomplete")));
    }

    /** Bytes that do not match the Hub's SHA-256 never take the blob's place. */
    void refusesAChecksumMismatch()
    {
        m_hub->corrupt = true;
        const hub::DownloadResult result = download("tiny-org/tiny");
        QVERIFY(result.outcome == hub::Outcome::Failed);
        QVERIFY2(result.message.contains(QStringLiteral("checksum")), qPrintable(result.message));
        const std::string blob = sha256(m_files.at("model.safetensors")).toStdString();
        QVERIFY(!fs::exists(repoFolder() / "blobs" / blob));
        QVERIFY(!fs::exists(repoFolder() / "blobs" / (blob + ".incomplete")));
        QVERIFY(!fs::exists(fs::symlink_status(repoFolder() / "snapshots" / commit.toStdString() / "model.safetensors")));
        QVERIFY(!fs::exists(repoFolder() / "refs" / "main"));
    }

    void gatedRepository()
    {
        m_hub->repos["tiny-org/tiny"].gated = true;
        for (const QByteArray& token : {QByteArray(), QByteArray("hf_wrong")}) {
            const hub::DownloadResult result = download("tiny-org/tiny", token);
            QVERIFY(result.outcome == hub::Outcome::Refused);
            QVERIFY2(result.message.contains(QStringLiteral("tiny-org/tiny is gated"))
                         && result.message.contains(m_hub->endpoint() + QStringLiteral("/tiny-org/tiny"))
                         && result.message.contains(QStringLiteral("HF_TOKEN")),
                     qPrintable(result.message));
        }
        QVERIFY(download("tiny-org/tiny", "hf_right").outcome == hub::Outcome::Done);
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<QByteArray>("says");
        QTest::addRow("no repository") << QByteArray("nobody/nothing") << QByteArray("nobody/nothing: no such repository");
        QTest::addRow("no revision") << QByteArray("tiny-org/tiny@v9") << QByteArray("tiny-org/tiny has no revision v9");
        QTest::addRow("pickles only") << QByteArray("pickles/only") << QByteArray("only pickles (pytorch_model.bin)");
        QTest::addRow("not a model") << QByteArray("some/dataset") << QByteArray("no config.json");
    }

    void refusals()
    {
        QFETCH(QByteArray, id);
        QFETCH(QByteArray, says);
        m_hub->repos["pickles/only"] = {commit, {{"config.json", "{}"}, {"pytorch_model.bin", "x"}}};
        m_hub->repos["some/dataset"] = {commit, {{"data.csv", "a,b\n"}}};
        const hub::DownloadResult result = download(id.constData());
        QVERIFY(result.outcome == hub::Outcome::Refused);
        QVERIFY2(result.message.contains(QString::fromUtf8(says)), qPrintable(result.message));
        QVERIFY(!m_hub->saw("/resolve/"));
        QVERIFY(!fs::exists(repoFolder(id.split('@').value(0).toStdString()) / "snapshots"));
    }

    /** A sharded checkpoint: the index, then every shard it names. */
    void shardedCheckpoint()
    {
        m_hub->repos["big/model"] = {commit,
                                     {{"config.json", "{}"},
                                      {"model.safetensors.index.json",
                                       R"({"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})"},
                                      {"model-00001-of-00002.safetensors", QByteArray(5000, 'a')},
                                      {"model-00002-of-00002.safetensors", QByteArray(7000, 'b')}}};
        const hub::DownloadResult result = download("big/model");
        QVERIFY2(result.outcome == hub::Outcome::Done, qPrintable(result.message));
        const fs::path snapshot = repoFolder("big/model") / "snapshots" / commit.toStdString();
        QCOMPARE(fs::file_size(snapshot / "model-00001-of-00002.safetensors"), std::uintmax_t(5000));
        QCOMPARE(fs::file_size(snapshot / "model-00002-of-00002.safetensors"), std::uintmax_t(7000));
        QVERIFY(fs::exists(snapshot / "model.safetensors.index.json"));
    }

    /** An index naming a shard outside the snapshot's folder, and a server that is not a Hub, are refused. */
    void hostileAnswers()
    {
        m_hub->repos["evil/model"] = {commit,
                                      {{"config.json", "{}"},
                                       {"model.safetensors.index.json", R"({"weight_map": {"a": "../../../evil.safetensors"}})"},
                                       {"../../../evil.safetensors", "x"}}};
        hub::DownloadResult result = download("evil/model");
        QVERIFY(result.outcome == hub::Outcome::Refused);
        QVERIFY2(result.message.contains(QStringLiteral("names a shard \"../../../evil.safetensors\"")),
                 qPrintable(result.message));
        QVERIFY(!m_hub->saw("evil.safetensors"));
        QVERIFY(!fs::exists(m_dir->path().toStdString() + "/evil.safetensors"));

        m_hub->notAHub = true;
        result = download("tiny-org/tiny");
        QVERIFY(result.outcome == hub::Outcome::Refused);
        QVERIFY2(result.message.contains(QStringLiteral("a Hugging Face Hub?")), qPrintable(result.message));
    }

    void noNetwork()
    {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost));
        hub::HubSettings s = settings();
        s.endpoint = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort()));
        closed.close();
        hub::HubDownloader downloader(s);
        const hub::DownloadResult result = downloader.download(*core::parseHubId("tiny-org/tiny"));
        QVERIFY(result.outcome == hub::Outcome::Failed);
        QVERIFY2(result.message.startsWith(QStringLiteral("cannot reach ") + s.endpoint.toString()), qPrintable(result.message));
        QVERIFY(!fs::exists(repoFolder() / "snapshots"));
    }

    /** Cancel stops the transfer under way; nothing takes a complete file's place. */
    void cancel()
    {
        m_hub->repos["tiny-org/tiny"].files["model.safetensors"] = QByteArray(400000, 'w');
        m_hub->dribbleMs = 20;
        hub::HubDownloader downloader(settings());
        qint64 seen = 0;
        connect(&downloader, &hub::HubDownloader::progressed, this, [&](const hub::Progress& p) {
            if (p.file == QLatin1String("model.safetensors") && p.done > 0 && seen == 0) {
                seen = p.done;
                QVERIFY(p.total >= 400000);
                downloader.cancel();
            }
        });
        const hub::DownloadResult result = downloader.download(*core::parseHubId("tiny-org/tiny"));
        QVERIFY2(result.outcome == hub::Outcome::Cancelled, qPrintable(result.message));
        QVERIFY(seen > 0);
        const std::string blob = sha256(QByteArray(400000, 'w')).toStdString();
        QVERIFY(!fs::exists(repoFolder() / "blobs" / blob));
        QVERIFY(!fs::exists(fs::symlink_status(repoFolder() / "snapshots" / commit.toStdString() / "model.safetensors")));
    }

    /** attention-explorer --download: the token file sent, progress on standard error, the snapshot folder on
     *  standard output, exit statuses 0, 2 and 1; then --model ORG/NAME opens what it wrote. */
    void commandLine()
    {
        m_hub->repos["tiny-org/tiny"].gated = true;
        m_hub->repos["pickles/only"] = {commit, {{"config.json", "{}"}, {"pytorch_model.bin", "x"}}};
        const QString tokenFile = m_dir->path() + QStringLiteral("/token");
        QVERIFY(testutil::writeText(tokenFile, QByteArray("hf_right\n")));
        // The program runs while this process's event loop answers as the Hub.
        const auto run = [&](const QStringList& arguments, const QString& endpoint) {
            QProcess program;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("HF_ENDPOINT"), endpoint);
            env.insert(QStringLiteral("HF_HUB_CACHE"), m_dir->path() + QStringLiteral("/hub"));
            env.insert(QStringLiteral("HF_TOKEN_PATH"), tokenFile);
            env.remove(QStringLiteral("HF_TOKEN"));
            program.setProcessEnvironment(env);
            QEventLoop loop;
            connect(&program, &QProcess::finished, &loop, &QEventLoop::quit);
            QTimer::singleShot(120000, &loop, &QEventLoop::quit);
            program.start(QStringLiteral(AE_BINARY), arguments);
            loop.exec();
            return std::tuple{program.state() == QProcess::NotRunning ? program.exitCode() : -1,
                              program.readAllStandardOutput(), program.readAllStandardError()};
        };
        const QString download = QStringLiteral("--download");
        auto [status, out, err] = run({download, QStringLiteral("tiny-org/tiny")}, m_hub->endpoint());
        QVERIFY2(status == 0, err.constData());
        QCOMPARE(out, QByteArray::fromStdString((repoFolder() / "snapshots" / commit.toStdString()).string()) + '\n');
        QVERIFY2(err.contains("MB/s") && err.contains("left"), err.constData());
        QVERIFY(m_hub->saw("auth=Bearer hf_right"));

        std::tie(status, out, err) = run({QStringLiteral("--compute"), QStringLiteral("--model"), QStringLiteral("tiny-org/tiny"),
                                          QStringLiteral("--text"), QStringLiteral("ab")},
                                         m_hub->endpoint());
        QVERIFY2(status == 0, err.constData());
        QVERIFY(out.contains("\"next_token\""));

        QVERIFY(QFile::remove(tokenFile));
        std::tie(status, out, err) = run({download, QStringLiteral("tiny-org/tiny")}, m_hub->endpoint());
        QCOMPARE(status, 2);
        QVERIFY2(err.startsWith("attention-explorer: --download: tiny-org/tiny is gated"), err.constData());
        std::tie(status, out, err) = run({download, QStringLiteral("pickles/only")}, m_hub->endpoint());
        QCOMPARE(status, 2);
        QVERIFY2(err.contains("only pickles"), err.constData());
        std::tie(status, out, err) = run({download, QStringLiteral("not an id")}, m_hub->endpoint());
        QCOMPARE(status, 2);
        std::tie(status, out, err) = run({download, QStringLiteral("tiny-org/tiny")}, QStringLiteral("http://127.0.0.1:9"));
        QCOMPARE(status, 1);
        QVERIFY2(err.contains("cannot reach http://127.0.0.1:9"), err.constData());
        QVERIFY(out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestHubDownload)
#include "tst_hubdownload.moc"
