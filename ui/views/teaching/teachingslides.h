#pragma once
/** The slides of the teaching mode, built from a trace: what each slide shows, no painting
 *  (render::SlidePainter paints them, on screen and in the PDF deck). */

#include "core/attention/trace.h"
#include "ui/render/slide.h"

#include <vector>

namespace ui {

using render::Slide;
using render::SlideMatrix;

/** Every slide for the trace: the seven steps for one query (0-based) of one head, walked in
 *  full from step 3 on, then the whole matrices for every query; a model with several heads or W_O
 *  ends with the concatenation of the heads and the projection by W_O. */
std::vector<Slide> buildSlides(const core::Trace& trace, int head, int query);

} // namespace ui
