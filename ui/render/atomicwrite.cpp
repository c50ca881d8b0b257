#include "atomicwrite.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>

#include <filesystem>
#include <system_error>

namespace render {

namespace {

/** The translation context of these texts, shared with the other exports' messages. */
struct Exports {
    Q_DECLARE_TR_FUNCTIONS(Exports)
};

bool fail(QString* error, const QString& path, const QString& why)
{
    if (error)
        *error = Exports::tr("Cannot write \"%1\": %2").arg(path, why);
    return false;
}

/** What went wrong with file, in the system's words ("No space left on device"); otherwise says. */
QString reason(const QFileDevice& file, const QString& otherwise)
{
    return file.error() != QFileDevice::NoError ? file.errorString() : otherwise;
}

/** Writes every byte to a file opened unbuffered, so that the disk's answer comes back at once. A short
 *  write is followed by one for the rest, which brings the system's reason (a full disk, say): false
 *  with why set when a write takes nothing. */
bool writeAll(QFileDevice& file, const QByteArray& bytes, QString* why)
{
    for (qint64 done = 0; done < bytes.size();) {
        const qint64 n = file.write(bytes.constData() + done, bytes.size() - done);
        if (n <= 0) {
            *why = reason(file, Exports::tr("the disk took only part of it (is it full?)"));
            return false;
        }
        done += n;
    }
    return true;
}

/** A name beside name in the same folder that no one else uses: ".name.tag-1a2b3c4d". */
QString sideName(const QString& name, QLatin1String tag)
{
    return QStringLiteral(".%1.%2-%3").arg(name, tag).arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
}

/** Renames from (a file or a link, itself) to to, a name no one uses; false with why set, the
 *  system's reason, when the system refuses. */
bool renameFile(const QString& from, const QString& to, QString* why)
{
    std::error_code ec;
    std::filesystem::rename(QFileInfo(from).filesystemFilePath(), QFileInfo(to).filesystemFilePath(), ec);
    if (ec && why)
        *why = QString::fromStdString(ec.message());
    return !ec;
}

}  // namespace

bool replaceFile(const QString& path, const QByteArray& bytes, QString* why)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)) {
        *why = file.errorString();
        return false;
    }
    if (!writeAll(file, bytes, why)) {
        file.cancelWriting();
        return false;
    }
    if (!file.commit()) {
        *why = reason(file, Exports::tr("the new file could not take the old one's place"));
        return false;
    }
    return true;
}

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error)
{
    QString why;
    return replaceFile(path, bytes, &why) || fail(error, path, why);
}

bool writeAtomically(const QString& path, const std::function<bool(QIODevice*, QString*)>& write, QString* error)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QString why;
    if (!write(&buffer, &why))
        return fail(error, path, why);
    buffer.close();
    return writeAtomically(path, buffer.data(), error);
}

ExportResult exportAtomically(const QString& path, const std::function<ExportResult(QIODevice*)>& write)
{
    ExportResult result;
    QString error;
    const bool written = writeAtomically(
        path,
        [&](QIODevice* device, QString* why) {
            result = write(device);
            *why = result.error;
            return result.written;
        },
        &error);
    result.written = written;
    result.path = written ? path : QString();
    result.error = written ? QString() : error;
    return result;
}

bool writeFolderAtomically(const QString& folder, const std::vector<FolderFile>& files, const QStringList& stale,
                           QString* error)
{
    const QDir dir(folder);
    QStringList names;
    for (const FolderFile& file : files)
        names << file.name;
    const QStringList replaced = names + stale;
    for (const QString& name : replaced) {
        const QFileInfo info(dir.filePath(name));
        if (info.isDir() && !info.isSymLink())
            return fail(error, dir.filePath(name), Exports::tr("a folder has that name"));
    }

    // 1. Every new file whole, under a name of its own beside its place.
    QStringList temporaries;
    const auto removeTemporaries = [&] {
        for (const QString& temporary : temporaries)
            QFile::remove(dir.filePath(temporary));
    };
    for (const FolderFile& file : files) {
        QFile out;
        for (int attempt = 0; attempt < 16 && !out.isOpen(); ++attempt) {
            const QString temporary = sideName(file.name, QLatin1String("new"));
            out.setFileName(dir.filePath(temporary));
            if (out.open(QIODevice::WriteOnly | QIODevice::NewOnly | QIODevice::Unbuffered))
                temporaries << temporary;
            else if (!out.exists())
                break;
        }
        QString why = out.isOpen() ? QString() : out.errorString();
        if (out.isOpen() && writeAll(out, file.bytes, &why)) {
            out.close();
            if (out.error() == QFileDevice::NoError)
                continue;
            why = out.errorString();
        }
        removeTemporaries();
        return fail(error, dir.filePath(file.name), why);
    }

    // 2. The old files step aside (kept until the new ones are in place, to be put back on failure).
    QStringList movedAside, backups;
    const auto putBack = [&] {
        for (qsizetype i = 0; i < movedAside.size(); ++i)
            renameFile(dir.filePath(backups[i]), dir.filePath(movedAside[i]), nullptr);
    };
    for (const QString& name : replaced) {
        const QFileInfo info(dir.filePath(name));
        if (!info.exists() && !info.isSymLink())
            continue;
        const QString backup = sideName(name, QLatin1String("old"));
        QString why;
        if (!renameFile(dir.filePath(name), dir.filePath(backup), &why)) {
            putBack();
            removeTemporaries();
            return fail(error, dir.filePath(name), why);
        }
        movedAside << name;
        backups << backup;
    }

    // 3. The new files take their names.
    for (qsizetype i = 0; i < names.size(); ++i) {
        QString why;
        if (!renameFile(dir.filePath(temporaries[i]), dir.filePath(names[i]), &why)) {
            for (qsizetype j = 0; j < i; ++j)
                QFile::remove(dir.filePath(names[j]));
            putBack();
            removeTemporaries();
            return fail(error, dir.filePath(names[i]), why);
        }
    }

    // 4. The old files go.
    for (const QString& backup : backups)
        QFile::remove(dir.filePath(backup));
    return true;
}

}  // namespace render
