#include "ui/hub/hubdownloader.h"

#include "core/formats/jsonread.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace hub {

/** What the server answered: its status (0 when none came), its headers and, without a file to write into, its
 *  body. */
struct HubDownloader::Answer {
    int status = 0;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString errorText;
    QList<QNetworkReply::RawHeaderPair> headers;
    QByteArray body;
    qint64 received = 0;  ///< bytes written into the file

    QByteArray header(const QByteArray& name) const
    {
        for (const auto& [key, value] : headers)
            if (key.compare(name, Qt::CaseInsensitive) == 0)
                return value;
        return {};
    }
};

/** A file of the snapshot as the Hub describes it. */
struct HubDownloader::FileInfo {
    QString name;    ///< its path in the repository
    QString commit;  ///< X-Repo-Commit: the commit the answer is of
    QString etag;    ///< the blob's name: the SHA-256 of an LFS file, else its git blob SHA-1
    qint64 size = -1;
};

namespace {

/** The files read beside the weights. */
const QStringList companionFiles = {QStringLiteral("config.json"), QStringLiteral("generation_config.json"),
                                    QStringLiteral("tokenizer.json"), QStringLiteral("tokenizer_config.json"),
                                    QStringLiteral("vocab.json"), QStringLiteral("merges.txt")};
const QString weightsFile = QStringLiteral("model.safetensors");
const QString indexFile = QStringLiteral("model.safetensors.index.json");

/** The largest JSON answer read (a repository's listing, a shard index), and its values: a listing of some
 *  hundred thousand files, an index of as many tensors. */
constexpr std::size_t maxJsonBytes = std::size_t(16) << 20;
const core::JsonLimits jsonLimits{maxJsonBytes, 16, std::size_t(1) << 21};

/** An ETag as a file name: without W/ and quotes (huggingface_hub's normalisation). */
QString normalEtag(QByteArray etag)
{
    if (etag.startsWith("W/"))
        etag = etag.mid(2);
    while (etag.startsWith('"'))
        etag = etag.mid(1);
    while (etag.endsWith('"'))
        etag.chop(1);
    return QString::fromLatin1(etag);
}

bool isHex(const QString& text, qsizetype length)
{
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]+$"));
    return text.size() == length && hex.match(text).hasMatch();
}

/** The checksum the Hub's ETag is: SHA-256 of the bytes (LFS files, 64 digits) or the git blob SHA-1 (40). */
QString checksumOf(QFile& file, bool lfs)
{
    QCryptographicHash hash(lfs ? QCryptographicHash::Sha256 : QCryptographicHash::Sha1);
    if (!lfs)
        hash.addData("blob " + QByteArray::number(file.size()) + '\0');
    file.seek(0);
    hash.addData(&file);
    return QString::fromLatin1(hash.result().toHex());
}

QString megabytes(qint64 bytes)
{
    return QString::number(double(bytes) / 1e6, 'f', 1) + QStringLiteral(" MB");
}

/** The path of the file in the repository as a part of the URL: each segment percent-encoded. */
QString encodedPath(const QString& path)
{
    QStringList parts = path.split(QLatin1Char('/'));
    for (QString& part : parts)
        part = QString::fromLatin1(QUrl::toPercentEncoding(part));
    return parts.join(QLatin1Char('/'));
}

/** A shard's name as an index may give it: a plain file name ending in .safetensors, so no name leaves the
 *  snapshot's folder. */
bool isShardName(const QString& name)
{
    static const QRegularExpression shard(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9._-]*\\.safetensors$"));
    return shard.match(name).hasMatch() && !name.contains(QStringLiteral(".."));
}

/** Writes text into path through a temporary file renamed over it. */
bool writeSmallFile(const fs::path& path, const QByteArray& text)
{
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    QFile file(QString::fromStdString(path.string() + ".tmp"));
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text) != text.size())
        return false;
    file.close();
    fs::rename(path.string() + ".tmp", path, ec);
    return !ec;
}

} // namespace

HubSettings HubSettings::fromEnvironment()
{
    HubSettings settings;
    const QString endpoint = qEnvironmentVariable("HF_ENDPOINT");
    settings.endpoint = QUrl(endpoint.isEmpty() ? QStringLiteral("https://huggingface.co") : endpoint);
    settings.cache = QString::fromStdString(core::hubCacheFolder());
    settings.token = qgetenv("HF_TOKEN").trimmed();
    if (settings.token.isEmpty()) {
        QFile file(QString::fromStdString(core::hubTokenFile()));
        if (file.open(QIODevice::ReadOnly))
            settings.token = file.read(4096).split('\n').value(0).trimmed();
    }
    return settings;
}

QStringList wantedFiles(const QStringList& listing, QString* refusal)
{
    QStringList wanted;
    for (const QString& name : companionFiles)
        if (listing.contains(name))
            wanted << name;
    if (!listing.contains(QStringLiteral("config.json"))) {
        *refusal = QStringLiteral("it has no config.json, so it is not a model the program reads");
        return {};
    }
    if (listing.contains(weightsFile)) {
        wanted << weightsFile;
        return wanted;
    }
    if (listing.contains(indexFile)) {
        wanted << indexFile;
        return wanted;
    }
    QStringList pickles;
    static const QRegularExpression pickle(QStringLiteral("\\.(bin|pt|pth|ckpt|pkl)$"));
    for (const QString& name : listing)
        if (pickle.match(name).hasMatch())
            pickles << name;
    *refusal = pickles.isEmpty()
        ? QStringLiteral("it has no safetensors weights (model.safetensors)")
        : QStringLiteral("its weights are only pickles (%1), which are never downloaded since unpickling can run code; "
                         "look for a version of the model with model.safetensors")
              .arg(pickles.join(QStringLiteral(", ")));
    return {};
}

HubDownloader::HubDownloader(HubSettings settings, QObject* parent) : QObject(parent), m_settings(std::move(settings))
{
}

void HubDownloader::cancel()
{
    m_cancelled = true;
    if (m_reply)
        m_reply->abort();
}

HubDownloader::Answer HubDownloader::send(const QByteArray& verb, QUrl url, bool followEveryRedirect, QFile* into,
                                          qint64 from)
{
    Answer answer;
    for (int hop = 0; hop < 10; ++hop) {
        if (m_cancelled)  // cancelled between two requests: send no more
            return answer;
        QNetworkRequest request(url);
        request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        request.setTransferTimeout(m_settings.transferTimeoutMs);
        request.setHeader(QNetworkRequest::UserAgentHeader,
                          QStringLiteral("attention-explorer/%1").arg(QCoreApplication::applicationVersion()));
        request.setRawHeader("Accept-Encoding", "identity");
        // The token goes to the Hub only, never to the storage a file is redirected to.
        if (!m_settings.token.isEmpty() && url.host() == m_settings.endpoint.host()
            && url.port() == m_settings.endpoint.port())
            request.setRawHeader("Authorization", "Bearer " + m_settings.token);
        if (from > 0)
            request.setRawHeader("Range", "bytes=" + QByteArray::number(from) + '-');
        QNetworkReply* reply = verb == "HEAD" ? m_network.head(request) : m_network.get(request);
        m_reply = reply;
        answer = {};
        bool truncated = false;
        const auto take = [&] {
            if (!reply->isOpen())
                return;  // aborted: nothing more to read
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (!into) {
                answer.body += reply->readAll();
                if (std::size_t(answer.body.size()) > maxJsonBytes)
                    reply->abort();
                return;
            }
            if (status != 200 && status != 206) {
                reply->readAll();
                return;
            }
            if (status == 200 && from > 0 && !truncated) {  // the server sends the whole file: start again
                into->resize(0);
                into->seek(0);
                from = 0;
            }
            truncated = true;
            const QByteArray bytes = reply->readAll();
            if (into->write(bytes) != bytes.size()) {
                answer.errorText = into->fileName() + QStringLiteral(": ") + into->errorString();
                reply->abort();
                return;
            }
            answer.received += bytes.size();
            m_transferred += bytes.size();
            report(QString(), from + answer.received);
        };
        connect(reply, &QIODevice::readyRead, this, take);
        QEventLoop loop;
        connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        if (!reply->isFinished())
            loop.exec();
        take();
        answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        answer.error = reply->error();
        if (answer.errorText.isEmpty() && answer.error != QNetworkReply::NoError)
            answer.errorText = reply->errorString();
        answer.headers = reply->rawHeaderPairs();
        disconnect(reply, nullptr, this, nullptr);
        reply->deleteLater();
        m_reply = nullptr;
        const QByteArray location = answer.header("Location");
        if (answer.status < 300 || answer.status >= 400 || location.isEmpty())
            return answer;
        const QUrl next = url.resolved(QUrl(QString::fromUtf8(location)));
        // A HEAD follows only a redirect within the Hub (a renamed repository), as huggingface_hub does: the
        // redirect to storage carries the file's checksum and size itself.
        if (!followEveryRedirect && next.host() != url.host())
            return answer;
        url = next;
    }
    answer.errorText = QStringLiteral("more than 10 redirects");
    return answer;
}

void HubDownloader::report(const QString& file, qint64 fileDone)
{
    if (!file.isEmpty())
        m_progress.file = file;
    const double seconds = double(m_clock.elapsed()) / 1000.0;
    m_progress.bytesPerSecond = seconds > 0.2 ? double(m_transferred) / seconds : 0;
    Progress shown = m_progress;
    shown.done += fileDone;
    emit progressed(shown);
}

QUrl HubDownloader::resolveUrl(const core::HubId& id, const QString& revision, const QString& file) const
{
    QUrl url = m_settings.endpoint;
    const QString base = url.path().endsWith(QLatin1Char('/')) ? url.path().chopped(1) : url.path();
    url.setPath(base + QLatin1Char('/') + QString::fromStdString(id.repo) + QStringLiteral("/resolve/")
                    + QString::fromLatin1(QUrl::toPercentEncoding(revision)) + QLatin1Char('/') + encodedPath(file),
                QUrl::TolerantMode);
    return url;
}

std::optional<DownloadResult> HubDownloader::refusalOf(const Answer& answer, const core::HubId& id,
                                                       const QString& file) const
{
    const QString repo = QString::fromStdString(id.repo);
    const QString revision = QString::fromStdString(id.revision);
    const QString what = file.isEmpty() ? repo : file + QStringLiteral(" of ") + repo;
    if (m_cancelled)
        return DownloadResult{Outcome::Cancelled, QStringLiteral("cancelled"), {}};
    if (answer.status == 0)
        return DownloadResult{Outcome::Failed,
                              QStringLiteral("cannot reach %1 for %2 (%3); check the network, or HF_ENDPOINT")
                                  .arg(m_settings.endpoint.toString(), what, answer.errorText),
                              {}};
    if (answer.status < 400)
        return std::nullopt;
    const QByteArray code = answer.header("X-Error-Code");
    const QString hub = m_settings.endpoint.toString();
    const QString token = m_settings.token.isEmpty()
        ? QStringLiteral("set HF_TOKEN (or log in with huggingface-cli login)")
        : QStringLiteral("check that the token sent (HF_TOKEN or the login token file) has access");
    QString message;
    if (code == "GatedRepo")
        message = QStringLiteral("%1 is gated: ask for access on its page (%2/%1), then %3").arg(repo, hub, token);
    else if (code == "RepoNotFound")
        message = QStringLiteral("%1: no such repository on %2 (if it is private, %3); check the id")
                      .arg(repo, hub, token);
    else if (code == "RevisionNotFound")
        message = QStringLiteral("%1 has no revision %2 (a branch, tag or commit)").arg(repo, revision);
    else if (code == "EntryNotFound")
        message = QStringLiteral("%1 has no file %2 at %3").arg(repo, file, revision);
    else if (answer.status == 401 || answer.status == 403)
        message = QStringLiteral("%1: the Hub refuses access (HTTP %2); %3").arg(repo).arg(answer.status).arg(token);
    else if (answer.status == 404)
        message = QStringLiteral("%1: not found on %2 (HTTP 404)").arg(what, hub);
    else
        return DownloadResult{Outcome::Failed,
                              QStringLiteral("%1: the Hub answered HTTP %2; try again later").arg(what).arg(answer.status),
                              {}};
    return DownloadResult{Outcome::Refused, message, {}};
}

std::optional<DownloadResult> HubDownloader::describe(const core::HubId& id, const QString& revision, FileInfo& file)
{
    const Answer answer = send("HEAD", resolveUrl(id, revision, file.name), false);
    if (auto refused = refusalOf(answer, id, file.name))
        return refused;
    const QByteArray linked = answer.header("X-Linked-Etag");
    file.etag = normalEtag(linked.isEmpty() ? answer.header("ETag") : linked);
    const QByteArray size = answer.header("X-Linked-Size").isEmpty() ? answer.header("Content-Length")
                                                                     : answer.header("X-Linked-Size");
    bool ok = false;
    file.size = size.toLongLong(&ok);
    if (!isHex(file.etag, 64) && !isHex(file.etag, 40))
        return DownloadResult{Outcome::Refused,
                              QStringLiteral("%1 of %2: the Hub's answer has no checksum to check it against (ETag "
                                             "\"%3\"); is HF_ENDPOINT a Hugging Face Hub?")
                                  .arg(file.name, QString::fromStdString(id.repo),
                                       QString::fromStdString(core::messageExcerpt(file.etag.toStdString(), 80))),
                              {}};
    if (!ok || file.size < 0)
        file.size = -1;
    file.commit = QString::fromLatin1(answer.header("X-Repo-Commit"));
    return std::nullopt;
}

std::optional<DownloadResult> HubDownloader::fetch(const core::HubId& id, const QString& commit, const FileInfo& file)
{
    const fs::path blobs = fs::path(m_repoFolder.toStdString()) / "blobs";
    const fs::path blob = blobs / file.etag.toStdString();
    std::error_code ec;
    fs::create_directories(blobs, ec);
    const bool there = fs::is_regular_file(blob, ec) && (file.size < 0 || qint64(fs::file_size(blob, ec)) == file.size);
    if (!there) {
        QFile partial(QString::fromStdString(blob.string() + ".incomplete"));
        if (!partial.open(QIODevice::ReadWrite))
            return DownloadResult{Outcome::Failed, partial.fileName() + QStringLiteral(": ") + partial.errorString(), {}};
        if (file.size >= 0 && partial.size() > file.size)
            partial.resize(0);
        const qint64 from = partial.size();
        m_progress.file = file.name;
        if (file.size < 0 || from < file.size) {
            partial.seek(from);
            const Answer answer = send("GET", resolveUrl(id, commit, file.name), true, &partial, from);
            if (auto refused = refusalOf(answer, id, file.name))
                return refused;
            if (!answer.errorText.isEmpty() || answer.error != QNetworkReply::NoError
                || (file.size >= 0 && partial.size() != file.size)) {
                return DownloadResult{Outcome::Failed,
                                      QStringLiteral("%1 of %2: the transfer stopped after %3 of %4 (%5); what came is "
                                                     "kept, and running the download again resumes it")
                                          .arg(file.name, QString::fromStdString(id.repo), megabytes(partial.size()),
                                               megabytes(file.size),
                                               answer.errorText.isEmpty() ? QStringLiteral("the connection closed")
                                                                          : answer.errorText),
                                      {}};
            }
        }
        partial.flush();
        const bool lfs = file.etag.size() == 64;
        if (checksumOf(partial, lfs) != file.etag) {
            partial.remove();
            return DownloadResult{Outcome::Failed,
                                  QStringLiteral("%1 of %2: what was received does not match the Hub's checksum (%3 %4); "
                                                 "it was discarded, run the download again")
                                      .arg(file.name, QString::fromStdString(id.repo),
                                           lfs ? QStringLiteral("SHA-256") : QStringLiteral("git SHA-1"), file.etag),
                                  {}};
        }
        partial.close();
        fs::rename(partial.fileName().toStdString(), blob, ec);
        if (ec)
            return DownloadResult{Outcome::Failed,
                                  QString::fromStdString(blob.string() + ": cannot be written (" + ec.message() + ")"), {}};
    }
    m_progress.done += qint64(fs::file_size(blob, ec));
    // snapshots/COMMIT/FILE, a relative link into blobs/, as huggingface_hub makes it.
    const fs::path link = fs::path(m_repoFolder.toStdString()) / "snapshots" / commit.toStdString() / file.name.toStdString();
    fs::create_directories(link.parent_path(), ec);
    fs::remove(link, ec);
    fs::create_symlink(fs::relative(blob, link.parent_path(), ec), link, ec);
    if (ec)
        return DownloadResult{Outcome::Failed, QString::fromStdString(link.string() + ": cannot be made (" + ec.message() + ")"), {}};
    report(file.name, 0);
    return std::nullopt;
}

DownloadResult HubDownloader::download(const core::HubId& id)
{
    m_cancelled = false;
    m_progress = {};
    m_transferred = 0;
    m_clock.start();
    const QString repo = QString::fromStdString(id.repo);
    if (m_settings.cache.isEmpty())
        return {Outcome::Refused, QStringLiteral("there is no Hugging Face cache to download into (set HF_HOME)"), {}};
    m_repoFolder = QString::fromStdString(core::hubRepoFolder(m_settings.cache.toStdString(), id.repo));

    // The listing: the commit the revision names and the repository's files.
    QUrl api = m_settings.endpoint;
    const QString base = api.path().endsWith(QLatin1Char('/')) ? api.path().chopped(1) : api.path();
    api.setPath(base + QStringLiteral("/api/models/") + repo + QStringLiteral("/revision/")
                    + QString::fromLatin1(QUrl::toPercentEncoding(QString::fromStdString(id.revision))),
                QUrl::TolerantMode);
    const Answer listing = send("GET", api, true);
    if (auto refused = refusalOf(listing, id, QString()))
        return *refused;
    std::string why;
    const auto json = core::readJsonObject(listing.body.toStdString(), "the Hub's listing of " + id.repo,
                                           jsonLimits, why);
    if (!json)
        return {Outcome::Refused,
                QString::fromStdString(why) + QStringLiteral(" (is %1 a Hugging Face Hub? HF_ENDPOINT names it)")
                    .arg(m_settings.endpoint.toString()),
                {}};
    QStringList names;
    if (const auto siblings = json->find("siblings"); siblings != json->end() && siblings->is_array())
        for (const auto& sibling : *siblings)
            if (sibling.is_object() && sibling.contains("rfilename") && sibling["rfilename"].is_string())
                names << QString::fromStdString(sibling["rfilename"].get<std::string>());
    QString refusal;
    QStringList wanted = wantedFiles(names, &refusal);
    if (wanted.isEmpty())
        return {Outcome::Refused, repo + QStringLiteral(": ") + refusal, {}};
    QString commit;

    // Each file's checksum and size; the first answer's X-Repo-Commit (else the listing's sha) fixes the commit every
    // file is taken from, even if the branch moves meanwhile.
    QList<FileInfo> files;
    for (const QString& name : wanted) {
        FileInfo file{name, {}, {}, -1};
        if (auto refused = describe(id, commit.isEmpty() ? QString::fromStdString(id.revision) : commit, file))
            return *refused;
        if (commit.isEmpty())
            commit = !file.commit.isEmpty() ? file.commit
                : json->contains("sha") && (*json)["sha"].is_string() ? QString::fromStdString((*json)["sha"].get<std::string>())
                                                                       : QString();
        files << file;
    }
    if (!isHex(commit, 40))
        return {Outcome::Refused, repo + QStringLiteral(": the Hub names no commit for ") + QString::fromStdString(id.revision), {}};

    // A sharded checkpoint: its index first, then the shards it names.
    for (qsizetype i = 0; i < files.size(); ++i) {
        if (files[i].name != indexFile)
            continue;
        if (auto failed = fetch(id, commit, files[i]))
            return *failed;
        const fs::path path = fs::path(m_repoFolder.toStdString()) / "snapshots" / commit.toStdString() / indexFile.toStdString();
        QFile index(QString::fromStdString(path.string()));
        index.open(QIODevice::ReadOnly);
        const auto map = core::readJsonObject(index.read(qint64(maxJsonBytes) + 1).toStdString(), path.string(),
                                              jsonLimits, why);
        if (!map)
            return {Outcome::Refused, QString::fromStdString(why), {}};
        QStringList shards;
        if (const auto weights = map->find("weight_map"); weights != map->end() && weights->is_object())
            for (const auto& [tensor, shard] : weights->items())
                if (shard.is_string() && !shards.contains(QString::fromStdString(shard.get<std::string>())))
                    shards << QString::fromStdString(shard.get<std::string>());
        for (const QString& shard : shards) {
            if (!isShardName(shard) || !names.contains(shard))
                return {Outcome::Refused, QStringLiteral("%1: %2 names a shard \"%3\" that the repository does not hold")
                                              .arg(repo, indexFile, QString::fromStdString(core::messageExcerpt(shard.toStdString()))),
                        {}};
            FileInfo file{shard, {}, {}, -1};
            if (auto refused = describe(id, commit, file))
                return *refused;
            files << file;
        }
    }
    for (const FileInfo& file : files)
        m_progress.total += std::max<qint64>(file.size, 0);
    for (const FileInfo& file : files) {
        if (file.name == indexFile)
            continue;
        if (auto failed = fetch(id, commit, file))
            return *failed;
    }
    // refs/REVISION names the commit, unless the revision is the commit itself.
    if (QString::fromStdString(id.revision) != commit
        && !writeSmallFile(fs::path(m_repoFolder.toStdString()) / "refs" / id.revision, commit.toLatin1()))
        return {Outcome::Failed, m_repoFolder + QStringLiteral("/refs: cannot be written"), {}};
    return {Outcome::Done, {},
            QString::fromStdString((fs::path(m_repoFolder.toStdString()) / "snapshots" / commit.toStdString()).string())};
}

} // namespace hub
