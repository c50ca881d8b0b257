#pragma once
/** The PDF report of a whole computation: a front page with the tokens, shapes, options and contents,
 *  then every step with its formula (typeset), its shape, an explanation and its matrices: numbers in
 *  tables at a readable size, the n × n steps with their heatmap beside the table, and matrices too
 *  large to read as numbers as heatmaps with a note of their shape. Steps follow one another on the
 *  page; a step moves to the next page rather than being split, unless it alone is larger than a page. */

#include "core/attention/trace.h"
#include "ui/export/printpage.h"
#include "ui/render/colourscale.h"
#include "ui/render/exportresult.h"

#include <QString>
#include <QStringList>

class QIODevice;

namespace exports {

/** Matrices with more columns or rows than these are drawn as heatmaps rather than numbers. */
inline constexpr int reportMaxTableColumns = 12;
inline constexpr int reportMaxTableRows = 24;
/** The smallest type a table of numbers is printed in (points); a table that does not fit the page
 *  at this size is drawn as a heatmap. */
inline constexpr double reportMinTablePoints = 7.0;

/** The query and head the report's weighted values walk (both from 0), as the window shows them. With a few
 *  tokens every query is shown; a head of −1 shows the first two. */
struct ReportFocus {
    int head = -1;
    int query = 0;
};

/** The titles of the steps in order, e.g. "Step 3 · Scores" (translated): seven steps, and an
 *  eighth (concatenate and project) when the model has several heads or W_O. */
QStringList reportStepTitles(const core::Trace& trace);
/** The formulas of the steps in the same order, in their plain form (render::plainFormula); the report
 *  typesets the rich form, with real subscripts. */
QStringList reportStepFormulas(const core::Trace& trace);

/** Writes the report (A4 portrait, fonts embedded) to device, which must be open for writing.
 *  title names the session on the front page and in the footers; empty gives a default. range is the colour
 *  range of the heatmaps of the scores, scaled scores and weights (their legends name it). The result's
 *  belowLogScale counts the cells a log colour range could not place, summed over the heatmaps drawn; its error
 *  says when painting fails. focus is the query and head its weighted values walk. */
render::ExportResult writeReport(const core::Trace& trace, const QString& title, QIODevice* device,
                                 render::ColourRange range = render::ColourRange::Fixed, const ReportFocus& focus = {});

/** The same into the file at path, atomically: on failure nothing is written and an existing file
 *  is left as it was. The message names the path and the reason. */
render::ExportResult writeReport(const core::Trace& trace, const QString& title, const QString& path,
                                 render::ColourRange range = render::ColourRange::Fixed, const ReportFocus& focus = {});

/** writeReport into a file with focus, as the window and the command line choose a writer. */
TraceWriter reportWriter(const ReportFocus& focus);

} // namespace exports
