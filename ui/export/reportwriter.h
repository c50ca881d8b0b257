#pragma once
/** The PDF report of a whole computation, for handouts: a title page, then one page per step with its
 *  formula, its shape, the matrix (numbers, or a heatmap when too large to print) and an explanation. */

#include "core/trace.h"

#include <QString>
#include <QStringList>

class QIODevice;

namespace exports {

/** Matrices with more columns or rows than these are drawn as heatmaps rather than numbers. */
inline constexpr int reportMaxTableColumns = 12;
inline constexpr int reportMaxTableRows = 24;

/** The titles of the step pages in order, e.g. "Step 3 · Scores" (translated): seven steps, and an
 *  eighth (concatenate and project) when the model has several heads or W_O. */
QStringList reportStepTitles(const core::Trace& trace);
/** The formulas of the step pages in the same order, as printed (plain text). */
QStringList reportStepFormulas(const core::Trace& trace);

/** Writes the report (A4 portrait, fonts embedded) to device, which must be open for writing.
 *  title names the session on the title page and in the footers; empty gives a default.
 *  Returns false with a message in *error (when not null) when painting fails. */
bool writeReport(const core::Trace& trace, const QString& title, QIODevice* device, QString* error);

/** The same into the file at path, atomically: on failure nothing is written and an existing file
 *  is left as it was. The message names the path and the reason. */
bool writeReport(const core::Trace& trace, const QString& title, const QString& path, QString* error);

}  // namespace exports
