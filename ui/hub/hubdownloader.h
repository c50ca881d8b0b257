#pragma once
/** Downloading a model from the Hugging Face Hub into the cache's own layout (SPEC §7), with Qt Network: only the
 *  files the program reads, each resumed after a cut and checked against the Hub's checksum before it takes its
 *  place in blobs/, then linked from snapshots/COMMIT/ and named by refs/REVISION, as huggingface_hub does, so
 *  that transformers finds what was downloaded here and the other way round. */

#include "core/session/hubcache.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QUrl>

class QFile;
class QNetworkReply;

namespace hub {

/** How a download ended; the command line's exit status follows it (Refused 2, Failed and Cancelled 1). */
enum class Outcome { Done, Refused, Failed, Cancelled };

struct DownloadResult {
    Outcome outcome = Outcome::Done;
    QString message;   ///< one line: what went wrong and what to do about it; empty when done
    QString snapshot;  ///< the snapshot folder, when done
};

/** Where to download from and into, and as whom. */
struct HubSettings {
    QUrl endpoint;            ///< $HF_ENDPOINT, else https://huggingface.co
    QString cache;            ///< core::hubCacheFolder()
    QByteArray token;         ///< $HF_TOKEN, else the token file's first line; empty: none is sent
    int transferTimeoutMs = 30000;  ///< a request that receives nothing for this long fails

    /** The settings the environment gives (SPEC §7). */
    static HubSettings fromEnvironment();
};

/** The files of a repository (its listing's names) the program reads: config.json, the tokenizer's files,
 *  generation_config.json and the weights as model.safetensors or model.safetensors.index.json (whose shards are
 *  added when it is read). Empty, with refusal saying why, when there is no config.json or no safetensors weights
 *  (naming the pickles when those are all there is: they are never downloaded, since unpickling can run code). */
QStringList wantedFiles(const QStringList& listing, QString* refusal);

/** How far a download is. */
struct Progress {
    QString file;               ///< the file being fetched
    qint64 done = 0;            ///< bytes of every file, those already there included
    qint64 total = 0;           ///< of every file, as far as known
    double bytesPerSecond = 0;  ///< of this run's transfers
    /** The seconds the rest should take at that speed; negative while unknown. */
    double secondsLeft() const { return bytesPerSecond > 0 ? double(total - done) / bytesPerSecond : -1; }
};

/** One download at a time; download() runs the event loop until it ends, so a window stays live and cancel() can
 *  be called meanwhile (from a button, a signal handler or a timer). */
class HubDownloader : public QObject {
    Q_OBJECT

public:
    explicit HubDownloader(HubSettings settings, QObject* parent = nullptr);

    /** Downloads id's files into the cache; returns when done (the snapshot folder in the result), refused (a
     *  repository, revision or file the Hub does not have, a gated repository without access, no safetensors
     *  weights, a file whose checksum does not match), failed (no network, a cut connection: what was received is
     *  kept as blobs/<etag>.incomplete and the next run resumes it) or cancelled. No file is ever left where a
     *  complete one belongs unless it is complete and checked. */
    DownloadResult download(const core::HubId& id);

    /** Stops the download under way; download() then returns Cancelled. */
    void cancel();

signals:
    void progressed(const hub::Progress& progress);

private:
    struct Answer;
    struct FileInfo;

    Answer send(const QByteArray& verb, QUrl url, bool followEveryRedirect, QFile* into = nullptr, qint64 from = 0);
    std::optional<DownloadResult> refusalOf(const Answer& answer, const core::HubId& id, const QString& file) const;
    std::optional<DownloadResult> describe(const core::HubId& id, const QString& revision, FileInfo& file);
    std::optional<DownloadResult> fetch(const core::HubId& id, const QString& commit, const FileInfo& file);
    QUrl resolveUrl(const core::HubId& id, const QString& revision, const QString& file) const;
    void report(const QString& file, qint64 fileDone);

    HubSettings m_settings;
    QNetworkAccessManager m_network;
    QPointer<QNetworkReply> m_reply;
    bool m_cancelled = false;
    QString m_repoFolder;
    Progress m_progress;
    qint64 m_transferred = 0;  ///< bytes received in this run, for the speed
    QElapsedTimer m_clock;
};

} // namespace hub
