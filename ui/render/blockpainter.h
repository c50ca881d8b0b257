#pragma once
/** BlockPainter: the Block view's figure of one core::BlockView, in the order of the maths. The residual stream runs
 *  down the left; each vector is a row (its name, a blue–white–red strip of its entries scaled to its largest |x|,
 *  its L2 norm); attention and the MLP branch off it and are added back (⊕), or with a parallel residual both read
 *  the same x. Then the MLP's most active neurons, what each layer's attention and MLP add at the position, the final
 *  norm and the most probable next tokens. Paints the window's Block view and, on any QPainter, a file. */

#include "core/models/blockview.h"

#include <QFont>
#include <QPalette>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QPainter;

namespace render {

struct BlockStyle {
    QFont font;
    QPalette palette;
};

class BlockPainter {
public:
    BlockPainter(std::shared_ptr<const core::BlockView> block, BlockStyle style);

    const core::BlockView& block() const { return *m_block; }
    /** The height the figure takes at width (pixels), everything in it readable. */
    double heightFor(double width) const;
    /** The narrowest width at which nothing is cut. */
    double minimumWidth() const;
    /** Paints the figure at the top of target (its width; heightFor() of it tall), on the palette's Base. */
    void paint(QPainter* painter, const QRectF& target) const;
    /** What the figure says of the point pos in target: an entry of a vector, a neuron's arithmetic, a layer's
     *  additions, a token's logit; empty elsewhere. */
    QString toolTip(const QPointF& pos, const QRectF& target) const;

    /** The rows of the flow, in the order they are drawn. */
    enum class RowKind { Stream, Branch, Sum };
    struct FlowRow {
        RowKind kind;
        QString label;
        const core::BlockVector* vector;
    };
    std::vector<FlowRow> flowRows() const;

private:
    /** Where everything goes at one width. */
    struct Layout {
        double em = 13, pad = 8, rowH = 24, lineH = 18, gutter = 26, numberW = 0;
        double stripX = 0, stripW = 0; ///< the flow's strips, under their labels
        double labelW = 0, listX = 0, listW = 0; ///< the lists' first column, and their bars right of it
        double width = 0;
        double titleY = 0, titleH = 0, subtitleH = 0, flowY = 0, neuronsY = 0, chartY = 0, finalY = 0, logitsY = 0;
        double bottom = 0;
        double headerH[3] = {0, 0, 0}; ///< the three lists' headers, wrapped
        QFont titleFont, headerFont, labelFont, smallFont;
    };
    Layout layout(const QRectF& target) const;
    void paintStrip(QPainter* painter, const QRectF& rect, const core::BlockVector& v) const;
    /** The header of list which (0 neurons, 1 the chart, 2 the end), wrapped. */
    void paintHeader(QPainter* painter, const Layout& l, double y, int which) const;
    QString titleText() const;
    QString subtitleText() const;
    QStringList headers() const;
    /** A horizontal bar of value over scale from x0 (negative to the left when signed), in rect's height. */
    void paintBar(QPainter* painter, const QRectF& rect, double value, double scale, const QColor& colour,
                  bool centred) const;

    std::shared_ptr<const core::BlockView> m_block;
    BlockStyle m_style;
    QStringList m_neuronTexts; ///< "#123" of each neuron
};

/** The Block view's explanation of a neuron's activation: GELU(up) or silu(gate) · up, with the numbers. */
QString neuronArithmetic(const core::BlockView& block, const core::BlockNeuron& neuron);

} // namespace render
