#pragma once
/** The one-page handout of a computation: the tokens, the whole computation in one formula, the heatmap
 *  of the attention weights (one per head, up to four) and the seven steps with their formulas, all on
 *  one A4 page to hand out in a lecture. The full report (reportwriter.h) has every number. */

#include "core/attention/trace.h"
#include "ui/export/printpage.h"
#include "ui/render/colourscale.h"
#include "ui/render/exportresult.h"

#include <QString>

class QIODevice;

namespace exports {

/** The most heads whose weights the handout shows; with more, it says which it shows. */
inline constexpr int handoutMaxHeads = 4;

/** Writes the handout (one A4 portrait page, fonts embedded) to device, which must be open for writing.
 *  title names the session at the top and in the footer; empty gives a default. range is the colour range
 *  of the heatmaps of the weights (their legends name it). The result's belowLogScale counts
 *  the cells a log colour range could not place, summed over the heatmaps drawn; its error says when painting
 *  fails. */
render::ExportResult writeHandout(const core::Trace& trace, const QString& title, QIODevice* device,
                                  render::ColourRange range = render::ColourRange::Fixed);

/** The same into the file at path, atomically: on failure nothing is written and an existing file
 *  is left as it was. The message names the path and the reason. */
render::ExportResult writeHandout(const core::Trace& trace, const QString& title, const QString& path,
                                  render::ColourRange range = render::ColourRange::Fixed);

/** writeHandout into a file, as the window and the command line choose a writer. */
TraceWriter handoutWriter();

} // namespace exports
