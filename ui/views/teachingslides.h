#pragma once
/** The slides of the teaching mode, built from a trace: what each slide shows, no painting. */

#include "core/trace.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace ui {

/** One matrix on a slide, with what to emphasise. */
struct SlideMatrix {
    QString name;               ///< e.g. "Q", "W_Q", "Kᵀ"
    core::Matrix values;
    QStringList rowLabels;      ///< empty: no labels
    QStringList colLabels;
    int highlightRow = -1;      ///< the row the operation uses
    int highlightCol = -1;
    bool masked = false;        ///< grey out entries above the diagonal (causal weights)
};

struct Slide {
    int step = 0;                       ///< 1 … 7 of the seven steps, 0 for the title slide
    QString title;
    QString formula;                    ///< in math notation
    QString explanation;                ///< plain words
    std::vector<SlideMatrix> matrices;  ///< drawn left to right
    QStringList operators;              ///< between matrices: "·", "→", "=" (size = matrices − 1)
    QStringList arithmetic;             ///< derivation lines (core::derive texts)
};

/** Every slide for the trace: the seven steps for one query (0-based) of one head, walked in
 *  full from step 3 on, then the whole matrices for every query. */
std::vector<Slide> buildSlides(const core::Trace& trace, int head, int query);

}  // namespace ui
