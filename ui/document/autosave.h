#pragma once
/** Autosave: while the document has unsaved changes, its session is written every 30 s or so into
 *  the application's data folder, one file per window, with a lock held while the window lives.
 *  After a crash or a kill nobody holds that lock any more: the next start finds the file and
 *  offers it back. */

#include "latestjob.h"

#include "core/session/modelsession.h"
#include "core/session/sessionfile.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

class QLockFile;

namespace ui {

class Document;

/** An autosave whose window is gone (crashed or killed), held locked by this process until it is
 *  recovered, discarded or left for later (then the lock goes with this value). */
struct RecoverableSession {
    QString path;            ///< the autosave file
    QDateTime savedAt;       ///< when it was written
    QString originalPath;    ///< the session file it came from; empty when it was never saved
    core::Session session;   ///< the session as it was, without the autosave's own key (a plain session)
    /** A model session as it was (its model.path absolute), without the autosave's own key; then session is
     *  unused. */
    std::optional<core::ModelSession> modelSession;
    std::shared_ptr<QLockFile> lock;
};

class Autosave : public QObject {
    Q_OBJECT
public:
    static constexpr int defaultIntervalMs = 30000;
    /** The session file key that holds where an autosave came from; taken out again on recovery. */
    static constexpr const char* metaKey = "attention_explorer_autosave";

    /** "autosave" in the application's data folder (QStandardPaths::AppLocalDataLocation). */
    static QString defaultFolder();

    /** Autosaves document into folder every intervalMs while it has unsaved changes. */
    explicit Autosave(Document* document, const QString& folder = defaultFolder(),
                      int intervalMs = defaultIntervalMs, QObject* parent = nullptr);
    /** Waits for a write in flight; keeps the file when the document still has unsaved changes
     *  (the lock goes, so a later start offers it), deletes it otherwise. */
    ~Autosave() override;

    QString folder() const { return m_folder; }
    /** This window's autosave file; it exists only while there is something unsaved to keep. */
    QString filePath() const { return m_path; }
    QTimer* timer() { return &m_timer; }

    /** What the timer calls: starts writing the session on a worker when the document has unsaved
     *  changes that were not autosaved yet. Nothing happens otherwise. */
    void autosaveNow();
    /** Blocks until a write in flight has finished and been accounted for. */
    void waitForWrite();
    /** Deletes this window's autosave (saved cleanly, changes discarded, quitting). */
    void remove();

    /** Autosaves in folder whose window is gone, newest first, each locked by this process.
     *  Files that cannot be read are left where they are. */
    static std::vector<RecoverableSession> findRecoverable(const QString& folder = defaultFolder());
    /** Deletes a recoverable autosave (recovered or discarded) and releases its lock. */
    static void removeRecoverable(RecoverableSession& recoverable);

signals:
    /** An autosave of the current changes was written to path. */
    void written(const QString& path);
    /** Autosaving failed and why; said once, again only after a write has succeeded. */
    void failed(const QString& message);

private:
    bool ensureLocked(QString* error);
    /** The write of the session as it is now; empty when there is nothing to write or no lock. */
    LatestJob<QString>::Job writing();
    /** Accounts for a write that no newer one overtook; error empty when it succeeded. */
    void writeDone(const QString& error);
    void removeFile();
    void reportFailure(const QString& error);

    Document* m_document;
    QString m_folder;
    QString m_path;
    QString m_lockPath;
    std::unique_ptr<QLockFile> m_lock;
    QTimer m_timer;
    quint64 m_generation = 1;           ///< bumped by every change of the document
    quint64 m_savedGeneration = 0;      ///< the generation on disk (or deliberately not)
    quint64 m_writingGeneration = 0;    ///< the generation the write in flight holds
    bool m_removeAfterWrite = false;    ///< the file goes once the write in flight is done
    bool m_failureSaid = false;
    /** Writes on a worker; changes made meanwhile are written once it is done, the newest only.
     *  Result: empty when written, else why not. */
    LatestJob<QString> m_writer;
};

}  // namespace ui
