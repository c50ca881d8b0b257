#include "atomicwrite.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QSaveFile>

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

}  // namespace render
