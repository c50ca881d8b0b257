#pragma once
/** Writing files so that a failure loses nothing: every export goes through here. */

#include "exportresult.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

class QIODevice;

namespace render {

/** Replaces path with bytes through a QSaveFile: the new file takes the old one's place only when every
 *  byte reached the disk. Returns false with why set to the system's reason (that the disk is full,
 *  say) otherwise; the old file, if any, is then as it was. */
bool replaceFile(const QString& path, const QByteArray& bytes, QString* why);

/** replaceFile() with the exports' message: error is "Cannot write "path": why". */
bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error);

/** Lets write(device, why) make the file in memory, then writes it as above: a writer that cannot see
 *  the disk's answer (an SVG or PDF painter) can lose no byte unnoticed. When write returns false
 *  nothing is written and error is "Cannot write "path": why". */
bool writeAtomically(const QString& path, const std::function<bool(QIODevice*, QString*)>& write, QString* error);

/** The same for an export that returns its result: write's result, written to path as above, its error then
 *  "Cannot write "path": why". */
ExportResult exportAtomically(const QString& path, const std::function<ExportResult(QIODevice*)>& write);

/** One file of a folder's commit: its name in the folder and its bytes. */
struct FolderFile {
    QString name;
    QByteArray bytes;
};

/** Replaces files in folder, and removes the files named in stale, all or nothing: every new file is
 *  first written whole to a temporary beside it; only when all are do the old files step aside, the new
 *  ones take their names and the old ones go. On any failure the folder is left as it was and error
 *  names the file and what failed. */
bool writeFolderAtomically(const QString& folder, const std::vector<FolderFile>& files, const QStringList& stale,
                           QString* error);

}  // namespace render
