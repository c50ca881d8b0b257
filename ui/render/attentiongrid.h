#pragma once
/** AttentionGrid: the attention weights of every layer and head of one text, as a plain value that the
 *  overview, the head view and their exports draw. A plain session fills it with its heads as one layer
 *  (1 × h); a real model fills every layer (attentionGridFromModel). It is built off the GUI thread. */

#include "core/attention/headpattern.h"
#include "core/tensor/matrix.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace core {
class ModelPass;
struct Trace;
}  // namespace core

namespace render {

/** Cells keep at most this many rows and columns: past it, block means (core::pooled). */
inline constexpr int gridCellSide = 128;

struct AttentionGrid {
    int layers = 0;
    int heads = 0;
    QStringList tokens;   ///< the n tokens (labels of the rows and columns)
    bool causal = false;  ///< weights after the query (column > row) are masked
    /** Each cell holds the block means of blockSide × blockSide weights (1: the weights themselves). */
    int blockSide = 1;
    /** layers × heads matrices, layer by layer: cell(l, h) is the weights of head h in layer l (both from 0). */
    std::vector<core::Matrix> cells;
    /** What each head does, measured on its full weights (not the block means). */
    std::vector<core::HeadDescriptors> descriptors;
    /** The heads zeroed as a whole (Zero Head: their output reaches nothing), layers × heads; empty: none. */
    std::vector<bool> zeroed;
    /** The heads whose weights are edited (core::editedHeads: a shared K/V weight marks its whole group), layers ×
     *  heads; empty: none. */
    std::vector<bool> edited;
    /** The head detector's scores of each head on a repeated random sequence (core::detectHeads), layers × heads;
     *  empty: not measured (a plain session, or too few positions). */
    std::vector<double> induction, duplicate;
    QString title;        ///< what the grid is of, e.g. the session's or the model's name

    int n() const { return int(tokens.size()); }
    bool empty() const { return cells.empty(); }
    const core::Matrix& cell(int layer, int head) const { return cells[std::size_t(layer * heads + head)]; }
    const core::HeadDescriptors& descriptor(int layer, int head) const
    {
        return descriptors[std::size_t(layer * heads + head)];
    }
    bool isZeroed(int layer, int head) const { return !zeroed.empty() && zeroed[std::size_t(layer * heads + head)]; }
    bool isEdited(int layer, int head) const { return !edited.empty() && edited[std::size_t(layer * heads + head)]; }
    bool hasDetection() const { return induction.size() == std::size_t(layers * heads) && duplicate.size() == induction.size(); }
};

/** The trace's heads as one layer: 1 × headCount. */
AttentionGrid attentionGridFromTrace(const core::Trace& trace, int maxSide = gridCellSide);
/** Every layer and head of a model's last run (pass.attention), labelled with tokens. A head whose weights
 *  equal its cell in previous (a grid of the same tokens, kept whole) takes that cell's descriptors instead of
 *  measuring them again: after an edit of a late layer, the layers before it are unchanged. */
AttentionGrid attentionGridFromModel(const core::ModelPass& pass, const QStringList& tokens,
                                     int maxSide = gridCellSide, const AttentionGrid* previous = nullptr);

/** An induction score this large on the detector's sequence names the head an induction head: about 60 % of the
 *  one half a perfect one reaches (core::inductionScore). */
inline constexpr double inductionLabelThreshold = 0.3;

/** What a head's cell says under it: that it is zeroed, an induction head, or its pattern, translated. */
QString headCellLabel(const AttentionGrid& grid, int layer, int head);
/** The same with what was done to it: "previous token · weights edited", translated. */
QString headCellTitle(const AttentionGrid& grid, int layer, int head);

/** The label of a head's pattern ("previous token", "first token / sink", …), translated. */
QString headPatternLabel(core::HeadPattern pattern);
/** Its descriptors in one line: "previous 0.92 · first 0.03 · self 0.01 · entropy 0.31", translated. */
QString headDescriptorText(const core::HeadDescriptors& d);
/** The head detector's scores in one line, "induction 0.45 · duplicate token 0.02", translated; empty when the grid
 *  has none. */
QString headDetectionText(const AttentionGrid& grid, int layer, int head);

}  // namespace render
