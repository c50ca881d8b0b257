#pragma once
/** What one step of a trace looks like as a figure: its values, token labels and a title.
 *  Shared by the window and the command line, so both show the same figure. */

#include "core/attention/trace.h"
#include "ui/render/heatmaprenderer.h"

#include <QString>
#include <QStringList>

namespace ui {

/** The title of a model session whose file gives none: "gpt2, layer 5" (the model's name, layer 1-based), in the
 *  interface language. */
QString modelSessionTitle(const QString& modelName, int layer);

/** The step's name as a title, e.g. "Attention weights" (translated). */
QString stepTitle(core::Step step);

/** A derivation's text (core::Derivation::text() or a name such as "score(1,2)") in the interface
 *  language: the names of the cells ("score", "scaled", "concat", "out"), "[head 2]", "of head 2",
 *  "… (3 more)" and the causal mask's note translated; the numbers and symbols as they are, but with
 *  minusSigns(). */
QString localizedDerivation(const std::string& text);

/** text with the sign of each negative number written "−" (U+2212), as the subtractions of the
 *  arithmetic and the figures and slides write it: "exp(−3.2 − 4.22)", "(−0.5)·2", not "exp(-3.2 − 4.22)".
 *  An exponent's sign stays as it is ("1e-05"). */
QString minusSigns(QString text);

/** A derivation's text as a tooltip shows it: localizedDerivation(), in lines of at most some 64
 *  characters, each but the first indented, cut only after " = " and " + " between two terms (as the slides
 *  cut their arithmetic). A tooltip wider than the screen is wrapped by Qt wherever a line fills up,
 *  inside a number too ("exp(−2.21 − 4." above "22)"); these lines never are. */
QString derivationTip(const std::string& text);

/** The tokens as labels. */
QStringList tokenLabels(const core::Trace& trace);

/** The heatmap of a step that is n × n (scores, scaled scores, weights) or any other step:
 *  rows are the tokens (queries), columns the keys for n × n steps, else the column indices.
 *  The values are written into reuse's storage (a figure's previous values, HeatmapRenderer::takeValues()). */
render::HeatmapData heatmapData(const core::Trace& trace, core::Step step, int head, core::Matrix reuse = {});

/** heatmapData() without the values: the labels, titles and range of a rows × cols figure of the step. */
render::HeatmapData heatmapFrame(const core::Trace& trace, core::Step step, int head, Eigen::Index rows, Eigen::Index cols);

}  // namespace ui
