#pragma once
/** The figures of the instruments (SPEC §8): labelled grids of numbers coloured by value, a grid under another,
 *  each with its own title and colour legend. One painter serves the window and the exports. */

#include "core/models/instruments.h"

#include <QFont>
#include <QPointF>
#include <QPalette>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

class QPainter;

namespace render {

/** One grid: rows × columns of values (NaN: no value), each cell coloured by its value and labelled by its text
 *  (or its number when there is no text). */
struct FigureGrid {
    QString title;
    QStringList rowLabels, columnLabels;
    std::vector<std::vector<double>> values;
    std::vector<std::vector<QString>> texts;  ///< empty, or one per cell
    bool diverging = false;                   ///< colour about 0 (blue below, red above), else 0 … 1
    QString legend;                           ///< what the colour says
};

struct GridFigure {
    QString title;
    std::vector<FigureGrid> grids;
};

struct GridFigureStyle {
    QFont font;
    QPalette palette;
};

class GridFigurePainter {
public:
    GridFigurePainter(GridFigure figure, GridFigureStyle style);
    /** Every label and cell text whole at the style's font. */
    QSize preferredSize() const;
    /** Draws the figure into target, scaled to fit it (never cut). */
    void paint(QPainter* p, const QRectF& target) const;
    QString title() const { return m_figure.title; }
    /** The cell of a grid under point, as paint(p, target) draws it. */
    struct Cell {
        int grid = 0, row = 0, column = 0;
    };
    std::optional<Cell> cellAt(const QRectF& target, QPointF point) const;
    /** Where a cell is drawn in target. */
    QRectF cellRect(const QRectF& target, Cell cell) const;
    const GridFigure& figure() const { return m_figure; }

private:
    struct Layout;
    Layout layout(double scale) const;
    /** The layout paint() uses in target: the preferred one scaled until it fits. */
    Layout fitted(const QRectF& target) const;

    GridFigure m_figure;
    GridFigureStyle m_style;
};

/** The logit lens: layers (embeddings first) × positions, each cell the token predicted there (tokenText of its
 *  id), coloured by its probability. */
GridFigure lensFigure(const std::vector<std::vector<core::LensCell>>& lens, const QStringList& tokens,
                      const std::function<QString(int)>& tokenText);
/** Direct logit attribution: layers × (heads, then the MLP), coloured about 0. */
GridFigure attributionFigure(const core::Attribution& a, const QString& target);
/** Activation patching: the residual stream (layers × positions) and the heads (layers × heads), each cell the
 *  share of the logit difference restored, (m − corrupt) / (clean − corrupt), coloured about 0. */
GridFigure patchingFigure(const core::Patching& patching, const QStringList& tokens);

}  // namespace render
