/** The Hub downloader (SPEC §7) against a fake Hub on the loopback interface that answers as huggingface.co does:
 *  the listing at /api/models/ORG/NAME/revision/REV; HEAD and GET of /ORG/NAME/resolve/REV/FILE with X-Repo-Commit
 *  and the ETag (the git SHA-1 of a small file; for an LFS file a redirect to storage on another host carrying
 *  X-Linked-Etag, its SHA-256, and X-Linked-Size); Range requests at the storage; 401/403/404 with X-Error-Code.
 *  A full download and the cache reader opening it, a resume after a cut, a checksum mismatch, a gated repository,
 *  a missing repository and revision, a repository of pickles, a sharded checkpoint, no network and Cancel; and the
 *  command line's --download and --model ORG/NAME. */

#include "core/session/hubcache.h"
#include "core/session/modelsession.h"
#include "gpt2folder_random.h"
#include "ui/hub/hubdownloader.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QEventLoop>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace {

QByteArray sha256(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

QByteArray gitSha1(const QByteArray& bytes)
{
    return QCryptographicHash::hash("blob " + QByteArray::number(bytes.size()) + '\0' + bytes, QCryptographicHash::Sha1)
        .toHex();
}

struct HubRepo {
    QByteArray commit;
    std::map<QByteArray, QByteArray> files;  ///< path → bytes; *.safetensors are LFS files
    bool gated = false;
};

/** A small Hugging Face Hub: one request per connection, answered at once (or, with dribbleMs, the storage's body
 *  a few KB at a time). Storage is reached as "localhost", the Hub as 127.0.0.1: two hosts, as in life. */
class FakeHub : public QObject {
public:
    std::map<QByteArray, HubRepo> repos;
    QByteArray token = "hf_right";   ///< the token a gated repository accepts
    qint64 cutAfter = -1;            ///< the next storage GET sends this many bytes of its body, then hangs up
    bool corrupt = false;            ///< storage serves every file with its first byte changed
    int dribbleMs = 0;
    QList<QByteArray> requests;      ///< "METHOD path range-header auth-header" of each request

    FakeHub()
    {
        QVERIFY(m_server.listen(QHostAddress::LocalHost));
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    QString endpoint() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }

    bool saw(const QByteArray& part) const
    {
        return std::any_of(requests.begin(), requests.end(), [&](const QByteArray& r) { return r.contains(part); });
    }

private:
    void read(QTcpSocket* socket)
    {
        QByteArray& buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        const QList<QByteArray> lines = buffer.left(end).split('\n');
        m_buffers.remove(socket);
        const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
        std::map<QByteArray, QByteArray> headers;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                headers[lines[i].left(colon).trimmed().toLower()] = lines[i].mid(colon + 1).trimmed();
        }
        const QByteArray method = first.value(0), path = first.value(1);
        requests << method + ' ' + path + " range=" + headers["range"] + " auth=" + headers["authorization"]
                        + " host=" + headers["host"];
        answer(socket, method, QByteArray::fromPercentEncoding(path), headers);
    }

    /** The status line and headers of an answer, up to the body. */
    static QByteArray head(int status, const std::map<QByteArray, QByteArray>& headers)
    {
        static const std::map<int, QByteArray> reasons = {{200, "OK"}, {206, "Partial Content"}, {302, "Found"},
                                                          {307, "Temporary Redirect"}, {401, "Unauthorized"},
                                                          {403, "Forbidden"}, {404, "Not Found"}};
        QByteArray text = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasons.at(status) + "\r\nConnection: close\r\n";
        for (const auto& [name, value] : headers)
            text += name + ": " + value + "\r\n";
        return text + "\r\n";
    }

    void reply(QTcpSocket* socket, int status, const QByteArray& method, std::map<QByteArray, QByteArray> headers,
               const QByteArray& body = {})
    {
        if (!headers.contains("Content-Length"))
            headers["Content-Length"] = QByteArray::number(body.size());
        socket->write(head(status, headers));
        if (method != "HEAD")
            socket->write(body);
        socket->disconnectFromHost();
    }

    void refuse(QTcpSocket* socket, int status, const QByteArray& method, const QByteArray& code)
    {
        reply(socket, status, method, {{"X-Error-Code", code}, {"Content-Type", "application/json"}},
              "{\"error\": \"" + code + "\"}");
    }

    void answer(QTcpSocket* socket, const QByteArray& method, const QByteArray& path,
                std::map<QByteArray, QByteArray>& headers)
    {
        // /api/models/ORG/NAME/revision/REV, /ORG/NAME/resolve/REV/FILE, /cdn/SHA256
        QList<QByteArray> parts = path.mid(1).split('/');
        if (parts.value(0) == "cdn")
            return storage(socket, method, parts.value(1), headers);
        const bool api = parts.value(0) == "api";
        if (api)
            parts = parts.mid(2);
        const QByteArray repoId = parts.value(0) + '/' + parts.value(1);
        if (parts.value(0) == "old-org") {  // a renamed repository: the Hub redirects within itself
            QByteArray moved = path;
            moved.replace("old-org", "tiny-org");
            return reply(socket, 307, method, {{"Location", moved}});
        }
        const auto repo = repos.find(repoId);
        if (repo == repos.end())
            return refuse(socket, 401, method, "RepoNotFound");
        const QByteArray revision = parts.value(3);
        if (revision != "main" && revision != repo->second.commit)
            return refuse(socket, 404, method, "RevisionNotFound");
        if (api) {
            QByteArray siblings;
            for (const auto& [name, bytes] : repo->second.files)
                siblings += QByteArray(siblings.isEmpty() ? "" : ",") + "{\"rfilename\": \"" + name + "\"}";
            return reply(socket, 200, method, {{"Content-Type", "application/json"}},
                         "{\"id\": \"" + repoId + "\", \"sha\": \"" + repo->second.commit + "\", \"siblings\": ["
                             + siblings + "]}");
        }
        if (repo->second.gated && headers["authorization"] != "Bearer " + token)
            return refuse(socket, 403, method, "GatedRepo");
        const QByteArray file = parts.mid(4).join('/');
        const auto found = repo->second.files.find(file);
        if (found == repo->second.files.end())
            return refuse(socket, 404, method, "EntryNotFound");
        const QByteArray& bytes = found->second;
        if (file.endsWith(".safetensors")) {
            const QByteArray sha = sha256(bytes);
            m_blobs[sha] = bytes;
            return reply(socket, 302, method,
                         {{"Location", "http://localhost:" + QByteArray::number(m_server.serverPort()) + "/cdn/" + sha},
                          {"X-Repo-Commit", repo->second.commit},
                          {"X-Linked-Etag", '"' + sha + '"'},
                          {"X-Linked-Size", QByteArray::number(bytes.size())},
                          {"ETag", "\"" + gitSha1("version https://git-lfs.github.com/spec/v1") + "\""}});
        }
        reply(socket, 200, method, {{"X-Repo-Commit", repo->second.commit}, {"ETag", '"' + gitSha1(bytes) + '"'}}, bytes);
    }

    void storage(QTcpSocket* socket, const QByteArray& method, const QByteArray& sha,
                 std::map<QByteArray, QByteArray>& headers)
    {
        QByteArray bytes = m_blobs.at(sha);
        if (corrupt)
            bytes[0] = char(bytes[0] ^ 1);
        qint64 from = 0;
        const QByteArray range = headers["range"];
        if (range.startsWith("bytes=") && range.endsWith('-'))
            from = range.mid(6).chopped(1).toLongLong();
        const qint64 length = bytes.size() - from;
        std::map<QByteArray, QByteArray> answerHeaders = {{"Content-Length", QByteArray::number(length)},
                                                          {"ETag", '"' + sha + '"'}};
        if (from > 0)
            answerHeaders["Content-Range"] = "bytes " + QByteArray::number(from) + '-'
                + QByteArray::number(bytes.size() - 1) + '/' + QByteArray::number(bytes.size());
        QByteArray body = bytes.mid(from);
        if (cutAfter >= 0) {
            body = body.left(cutAfter);
            cutAfter = -1;
            socket->write(head(from > 0 ? 206 : 200, answerHeaders) + body);  // promising the whole length
            socket->flush();
            QTimer::singleShot(50, socket, [socket] { socket->abort(); });
            return;
        }
        if (dribbleMs == 0)
            return reply(socket, from > 0 ? 206 : 200, method, answerHeaders, body);
        socket->write(head(from > 0 ? 206 : 200, answerHeaders));
        auto* timer = new QTimer(socket);
        connect(timer, &QTimer::timeout, socket, [socket, timer, body, sent = qsizetype(0)]() mutable {
            socket->write(body.mid(sent, 4096));
            sent += 4096;
            if (sent >= body.size()) {
                timer->stop();
                socket->disconnectFromHost();
            }
        });
        timer->start(dribbleMs);
    }

    QTcpServer m_server;
    QHash<QTcpSocket*, QByteArray> m_buffers;
    std::map<QByteArray, QByteArray> m_blobs;
};

const QByteArray commit = "0123456789abcdef0123456789abcdef01234567";

/** The files of a tiny random GPT-2 checkpoint, with what a real repository holds beside them. */
std::map<QByteArray, QByteArray> tinyRepository()
{
    QTemporaryDir dir;
    testutil::Folder folder = testutil::randomGpt2Folder("F32", "", 2, 16, 2);
    folder.config["architectures"] = {"GPT2LMHeadModel"};
    testutil::write(folder, dir.path().toStdString());
    std::map<QByteArray, QByteArray> files;
    for (const auto& entry : fs::directory_iterator(dir.path().toStdString()))
        files[QByteArray::fromStdString(entry.path().filename().string())]
            = QByteArray::fromStdString(testutil::readText(entry.path().string()));
    files["README.md"] = "# tiny\n";
    files["pytorch_model.bin"] = QByteArray("\x80\x02}q\x00.", 6);
    files["tokenizer_config.json"] = "{}";
    return files;
}

} // namespace

class TestHubDownload : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<FakeHub> m_hub;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::map<QByteArray, QByteArray> m_files;

    hub::HubSettings settings(const QByteArray& token = {}) const
    {
        hub::HubSettings s;
        s.endpoint = QUrl(m_hub->endpoint());
        s.cache = m_dir->path() + QStringLiteral("/hub");
        s.token = token;
        s.transferTimeoutMs = 5000;
        return s;
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
