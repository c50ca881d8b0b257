#pragma once
/** HeadLinesPainter: the head view. The tokens in two columns, queries on the left and keys on the right,
 *  joined by lines whose opacity is the attention weight; one head, or several heads of a layer overlaid in
 *  one colour each. Hovering a token shows only its lines. Paints the window's head view and its exports. */

#include "attentiongrid.h"

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QRectF>
#include <QSize>

#include <memory>
#include <optional>
#include <vector>

class QPainter;

namespace render {

struct HeadLinesStyle {
    QFont font;
    QPalette palette;
    bool showTitle = true;
};

/** What the head view shows. */
struct HeadLinesView {
    int layer = 0;               ///< from 0
    std::vector<int> heads;      ///< the heads overlaid, from 0 (one, or any of the layer's)
    int hoveredToken = -1;       ///< a token under the mouse: only its lines are drawn (−1: all lines)
    bool hoveredIsKey = false;   ///< the hovered token is in the keys' column
};

class HeadLinesPainter {
public:
    /** Lines lighter than this are not drawn (they would not show). */
    static constexpr double minimumWeight = 0.004;

    HeadLinesPainter(std::shared_ptr<const AttentionGrid> grid, HeadLinesView view, HeadLinesStyle style);

    /** The colour of a head's lines (a qualitative palette of ten, repeating). */
    static QColor headColour(int head);
    /** False when the grid keeps block means only (too many tokens to draw as lines). */
    bool canDraw() const;

    QSize preferredSize() const;
    void paint(QPainter* painter, const QRectF& target) const;
    /** The token under pos: its index and whether it is in the keys' column. */
    std::optional<std::pair<int, bool>> tokenAt(const QPointF& pos, const QRectF& target) const;
    /** Where a token's text is drawn. */
    QRectF tokenRect(int token, bool key, const QRectF& target) const;
    /** The title: "Layer 2 · head 3" or "Layer 2 · heads 1, 2, 4", translated. */
    QString title() const;

private:
    struct Layout {
        double em = 13, pad = 0, pitch = 0, textW = 0, titleH = 0, legendH = 0, headerH = 0;
        double leftX = 0, rightX = 0, top = 0;  ///< right edge of the queries, left edge of the keys, first row
        QFont titleFont, tokenFont, boldFont, headerFont;
        QStringList texts;  ///< the tokens, elided
    };
    Layout layout(const QRectF& target) const;
    Layout metrics(double scale) const;
    /** The width of head h's entry in the legend (swatch, gap and name), in l's token font. */
    double legendEntryWidth(const Layout& l, int head) const;
    /** The legend's entries (heads shown) in lines no wider than width, as many as it takes. */
    std::vector<std::vector<int>> legendLines(const Layout& l, double width) const;
    /** The height of one line of the legend. */
    static double legendLineHeight(const Layout& l);

    std::shared_ptr<const AttentionGrid> m_grid;
    HeadLinesView m_view;
    HeadLinesStyle m_style;
};

}  // namespace render
