#pragma once
/** What a teaching slide shows, without painting: its title, formula, matrices, arithmetic and
 *  explanation, and the one number format every number on it is written in. */

#include "core/tensor/matrix.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace render {

/** One matrix on a slide, with what to emphasise. */
struct SlideMatrix {
    QString name;          ///< e.g. "Q", "W_Q", "Kᵀ"
    core::Matrix values;   ///< rows × cols, any size (the painter shows at most 10 × 10)
    QStringList rowLabels; ///< empty: no labels
    QStringList colLabels;
    int highlightRow = -1; ///< the row the operation uses
    int highlightCol = -1;
    bool masked = false; ///< grey out and hatch the entries above the diagonal (causal scores and weights)
    int maskedAfterRow = -1; ///< ≥ 0: grey out and hatch the rows after this one (a query's weighted values)
    bool keepColumns = false; ///< never show fewer columns to fit (an n × n step: every key matters)
    bool keepRows = false;    ///< never cut to the height of the matrices beside it (rows that are summed)

    /** The causal mask hides cell (row, col): what the painter greys out and hatches. */
    bool isMasked(int row, int col) const { return (masked && col > row) || (maskedAfterRow >= 0 && row > maskedAfterRow); }
};

struct Slide {
    int step = 0; ///< 1 … 7 of the seven steps
    QString title;
    QString formula;                   ///< in math notation
    QString explanation;               ///< plain words
    std::vector<SlideMatrix> matrices; ///< drawn left to right
    QStringList operators;             ///< between matrices: "·", "→", "=" (size = matrices − 1)
    /** Lines of arithmetic, numbers in slideNumber(…, decimals). The painter breaks a line that is too
     *  wide after " = " or " + " and carries on indented on the next line. */
    QStringList arithmetic;
    int decimals = 4; ///< the slide's number format: see slideNumber()
};

/** The one number format of a slide: fixed point with at most `decimals` decimals, trailing zeros
 *  dropped ("1", "0.5", "0.4683", never "6.03e-06"), "−" for a minus, the UI locale's decimal point;
 *  from 10⁶ on scientific as every displayed number is (render::displayNumber), its mantissa's trailing
 *  zeros dropped the same way ("1.2346e+06", "7e+299"). */
QString slideNumber(double v, int decimals);

} // namespace render
