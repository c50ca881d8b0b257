#pragma once
/** Writing files so that a failure loses nothing: every export goes through here. */

#include <QByteArray>
#include <QString>

#include <functional>

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

}  // namespace render
