#pragma once
/** A fake Hugging Face Hub on the loopback interface, for the tests of the downloader and its dialog: it answers
 *  as huggingface.co does (the listing, HEAD and GET of resolve URLs with X-Repo-Commit and ETag, redirects to
 *  storage with X-Linked-Etag and X-Linked-Size, Range, 401/403/404 with X-Error-Code), and can cut a transfer,
 *  corrupt a file or send it slowly. */

#include "gpt2folder_random.h"
#include "ui/hub/hubdownloader.h"

#include <QCryptographicHash>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <filesystem>
#include <map>

namespace testutil {

inline QByteArray sha256(const QByteArray& bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

inline QByteArray gitSha1(const QByteArray& bytes)
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
    bool notAHub = false;            ///< answer every request with a web page, as a mistyped HF_ENDPOINT might
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

    /** Settings that download from this Hub into cache, sending token. */
    hub::HubSettings settings(const QString& cache, const QByteArray& token = {}) const
    {
        hub::HubSettings s;
        s.endpoint = QUrl(endpoint());
        s.cache = cache;
        s.token = token;
        s.transferTimeoutMs = 5000;
        return s;
    }

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
        if (notAHub)
            return reply(socket, 200, method, {{"Content-Type", "text/html"}}, "<html><body>Welcome</body></html>");
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

inline const QByteArray commit = "0123456789abcdef0123456789abcdef01234567";

/** The files of a tiny random GPT-2 checkpoint (of positions positions), with what a real repository holds beside
 *  them. */
inline std::map<QByteArray, QByteArray> tinyRepository(int positions = 32)
{
    QTemporaryDir dir;
    testutil::Folder folder = testutil::randomGpt2Folder("F32", "", 2, 16, 2, false, 7, positions);
    folder.config["architectures"] = {"GPT2LMHeadModel"};
    testutil::write(folder, dir.path().toStdString());
    std::map<QByteArray, QByteArray> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path().toStdString()))
        files[QByteArray::fromStdString(entry.path().filename().string())]
            = QByteArray::fromStdString(testutil::readText(entry.path().string()));
    files["README.md"] = "# tiny\n";
    files["pytorch_model.bin"] = QByteArray("\x80\x02}q\x00.", 6);
    files["tokenizer_config.json"] = "{}";
    return files;
}

} // namespace testutil
