#include "autosave.h"

#include "document.h"
#include "modelsession.h"
#include "ui/render/atomicwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QStandardPaths>
#include <QUndoStack>

#include <algorithm>
#include <atomic>

namespace ui {

namespace {

const QString jsonSuffix = QStringLiteral(".json");
const QString lockSuffix = QStringLiteral(".lock");

/** A lock that only a dead owner makes stale, however long a window has been open. */
std::unique_ptr<QLockFile> lockFor(const QString& lockPath)
{
    auto lock = std::make_unique<QLockFile>(lockPath);
    lock->setStaleLockTime(0);
    return lock;
}

QString lockPathOf(const QString& jsonPath)
{
    return jsonPath.left(jsonPath.size() - jsonSuffix.size()) + lockSuffix;
}

/** Writes text atomically; empty on success, else why not. */
QString writeAtomically(const QString& path, const std::string& text)
{
    QString why;
    if (!render::replaceFile(path, QByteArray::fromStdString(text), &why))
        return Autosave::tr("cannot write %1: %2").arg(QDir::toNativeSeparators(path), why);
    return {};
}

}  // namespace

QString Autosave::defaultFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/autosave");
}

Autosave::Autosave(Document* document, const QString& folder, int intervalMs, QObject* parent)
    : QObject(parent), m_document(document), m_folder(folder),
      m_writer([this] { return writing(); }, [this](const QString& error) { writeDone(error); },
               [this](const QString&) {
                   // Overtaken by newer changes (written next) or given up by remove().
                   if (m_removeAfterWrite || !m_document->isModified())
                       removeFile();
               })
{
    // One file per window: the process id, the moment it started and a counter, so neither a
    // second window nor a later process that got the same id takes another's file.
    static std::atomic<int> windows{0};
    static const qint64 started = QDateTime::currentMSecsSinceEpoch();
    m_path = QStringLiteral("%1/session-%2-%3-%4%5")
                 .arg(m_folder)
                 .arg(QCoreApplication::applicationPid())
                 .arg(started)
                 .arg(++windows)
                 .arg(jsonSuffix);
    m_lockPath = lockPathOf(m_path);

    const auto changed = [this] { ++m_generation; };
    connect(document, &Document::modelChanged, this, changed);
    connect(document->undoStack(), &QUndoStack::indexChanged, this, changed);  // a model's edits and text too
    connect(document, &Document::filePathChanged, this, changed);
    connect(document, &Document::modifiedChanged, this, [this](bool modified) {
        ++m_generation;
        if (!modified)
            remove();  // saved, or undone back to the saved state: nothing to keep
    });
    connect(&m_timer, &QTimer::timeout, this, &Autosave::autosaveNow);
    m_timer.start(intervalMs);
}

Autosave::~Autosave()
{
    m_writer.cancel();
    m_writer.finish();  // waits; a result no longer counts
    if (!m_document->isModified())
        removeFile();
    // The lock goes with m_lock: a file left behind is now recoverable by the next start.
}

bool Autosave::ensureLocked(QString* error)
{
    if (m_lock && m_lock->isLocked())
        return true;
    if (!QDir().mkpath(m_folder)) {
        *error = tr("cannot create the folder %1").arg(QDir::toNativeSeparators(m_folder));
        return false;
    }
    m_lock = lockFor(m_lockPath);
    if (!m_lock->tryLock(0)) {
        *error = tr("cannot lock %1").arg(QDir::toNativeSeparators(m_lockPath));
        m_lock.reset();
        return false;
    }
    return true;
}

void Autosave::autosaveNow()
{
    if (!m_document->isModified() || m_generation == m_savedGeneration)
        return;
    if (m_writer.isPending() && m_generation == m_writingGeneration)
        return;  // the write in flight holds these changes already
    m_writer.request();
}

LatestJob<QString>::Job Autosave::writing()
{
    m_removeAfterWrite = false;
    if (!m_document->isModified() || m_generation == m_savedGeneration)
        return {};
    QString error;
    if (!ensureLocked(&error)) {
        m_savedGeneration = m_generation;  // try again after the next change, not every tick
        reportFailure(error);
        return {};
    }
    const nlohmann::json meta = {
        {"file", m_document->filePath().toStdString()},
        {"saved", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString()},
    };
    m_writingGeneration = m_generation;
    // Serializing a large session takes long: the worker does it, on the session's own copy. A model's checkpoint
    // folder is written whole (the autosave lies in a folder of its own).
    return [path = m_path, text = m_document->session().serializing(m_path, m_document->filePath(), {{metaKey, meta}})]() {
        return writeAtomically(path, text());
    };
}

void Autosave::writeDone(const QString& error)
{
    if (!m_document->isModified()) {
        removeFile();
    } else if (error.isEmpty()) {
        m_savedGeneration = m_writingGeneration;
        m_failureSaid = false;
        emit written(m_path);
    } else {
        m_savedGeneration = m_writingGeneration;  // try again after the next change
        reportFailure(error);
    }
}

void Autosave::reportFailure(const QString& error)
{
    if (m_failureSaid)
        return;
    m_failureSaid = true;
    emit failed(tr("Autosave failed: %1. Unsaved changes are not protected against a crash; save them yourself.")
                    .arg(error));
}

void Autosave::waitForWrite()
{
    m_writer.finish();  // accounted for now rather than when the worker's signal comes round
}

void Autosave::remove()
{
    if (m_writer.isRunning()) {
        m_removeAfterWrite = true;
        m_writer.cancel();
    } else {
        removeFile();
    }
    m_savedGeneration = m_generation;
}

void Autosave::removeFile()
{
    if (QFileInfo::exists(m_path))
        QFile::remove(m_path);
}

std::vector<RecoverableSession> Autosave::findRecoverable(const QString& folder)
{
    std::vector<RecoverableSession> found;
    const QDir dir(folder);
    if (!dir.exists())
        return found;
    for (const QFileInfo& info : dir.entryInfoList({QStringLiteral("session-*") + jsonSuffix}, QDir::Files)) {
        auto lock = lockFor(lockPathOf(info.absoluteFilePath()));
        if (!lock->tryLock(0))
            continue;  // its window is alive (or the folder is not ours to lock)
        std::string error;
        const std::string file = QFile::encodeName(info.absoluteFilePath()).toStdString();
        RecoverableSession r;
        r.path = info.absoluteFilePath();
        r.savedAt = info.lastModified();
        auto read = core::readSession(file, error);
        if (!read)
            continue;  // left where it is; a later version may read it
        nlohmann::json* extras = nullptr;
        if (auto* model = std::get_if<core::ModelSession>(&*read)) {
            r.modelSession = std::move(*model);
            extras = &r.modelSession->extras;
        } else {
            r.session = std::get<core::Session>(std::move(*read));
            extras = &r.session.extras;
        }
        if (extras->is_object() && extras->contains(metaKey)) {
            const nlohmann::json meta = (*extras)[metaKey];
            extras->erase(metaKey);
            if (meta.is_object() && meta.contains("file") && meta["file"].is_string())
                r.originalPath = QString::fromStdString(meta["file"].get<std::string>());
            if (meta.is_object() && meta.contains("saved") && meta["saved"].is_string()) {
                const QDateTime saved = QDateTime::fromString(QString::fromStdString(meta["saved"].get<std::string>()),
                                                              Qt::ISODateWithMs);
                if (saved.isValid())
                    r.savedAt = saved.toLocalTime();
            }
        }
        r.lock = std::move(lock);
        found.push_back(std::move(r));
    }
    // Locks left by windows that died before they wrote anything.
    for (const QFileInfo& info : dir.entryInfoList({QStringLiteral("session-*") + lockSuffix}, QDir::Files)) {
        const QString json = info.absoluteFilePath().chopped(lockSuffix.size()) + jsonSuffix;
        if (!QFileInfo::exists(json))
            lockFor(info.absoluteFilePath())->tryLock(0);  // takes a stale one, and lets it go
    }
    std::sort(found.begin(), found.end(),
              [](const RecoverableSession& a, const RecoverableSession& b) { return a.savedAt > b.savedAt; });
    return found;
}

void Autosave::removeRecoverable(RecoverableSession& recoverable)
{
    QFile::remove(recoverable.path);
    recoverable.lock.reset();
}

}  // namespace ui
