#pragma once
/** Writing a file so that a failure loses nothing: every export goes through here. */

#include <QString>

#include <functional>

class QIODevice;

namespace render {

/** Writes path through a QSaveFile: write(device, why) fills it, and only when it returns true and
 *  every byte reached the disk does the new file replace the old one. Returns false with error set
 *  ("Cannot write "path": why") otherwise; the old file, if any, is then as it was. */
bool writeAtomically(const QString& path, const std::function<bool(QIODevice*, QString*)>& write, QString* error);

}  // namespace render
